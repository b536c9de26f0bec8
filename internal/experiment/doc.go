// Package experiment makes one run: a local testnet brought up, loaded,
// read back, analysed and reported (Run); load against a chain cometlab
// did not start (Load); a fresh read-back of a run's chain (ReadBack);
// metrics.csv read from a Prometheus server (ReadPrometheus); a testnet
// kept up for manual use (Up, Down); a testnet on [host.*] hosts through
// Ansible (Deploy, DownHosts) and runs on such hosts, with load from load
// hosts; and, for the series of runs built on it (package series), Runs:
// one run after another on fresh testnets or on one shared testnet.
//
// A local testnet is brought up by one function (startLocal, localnet.go),
// which refuses first what the mode cannot honour (checkLocal), and used
// through one handle (localNet) by a run, a shared testnet's runs and
// testnet up. A run is a pipeline of phases (phases.go: plan, collect,
// send, drain, read back, end) built by one of two constructors
// (pipeline.go): newNetPipeline for a local testnet, newChainPipeline for
// a chain cometlab does not run (Load), sharing one core; what is optional
// — the death watch, a sentinel, perturbations, rotation, evidence, the
// disk guard, the progress line, a Prometheus read-back — is a hook
// (hooks.go), and only a hook's plan, in the first phase, may change the
// run's plan. time_scale = "auto" is chosen before a run by short probes
// of its testnet (timescale_probe.go, timescale_auto.go). Every mode that
// starts or watches nodes takes one Env, and every mode that loads one
// Collect (env.go); what a chain cometlab does not run cannot honour of it
// is refused by checkChain. A run's problems are typed (problems.go) and
// its status follows from their kinds; Result.Verdict maps a run's end to
// its exit code (ErrUnsafe, ErrPartial).
package experiment
