package experiment

// ChooseTimeScale is chooseTimeScale, for the tests that check a run's
// record of time_scale = "auto" against its own probes.
var ChooseTimeScale = chooseTimeScale
