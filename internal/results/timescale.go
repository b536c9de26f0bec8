package results

// TimeScaleAuto is how time_scale = "auto" chose a run's k (run.json's
// time_scale_auto, copied into summary.json): the probes of the testnet on
// this host, the chosen k and why. CPU figures are in cores of the host
// (1.5 = one and a half cores busy on average), over each probe's load.
type TimeScaleAuto struct {
	// Probes are the short runs measured, in order: a probe whose host
	// was itself above the limit measured a lower bound of the demand and
	// is followed by one at a larger k.
	Probes []TimeScaleProbe `json:"probes"`
	// LimitPct is the share of the host's cores the testnet, cometlab and
	// the other work may take: analysis.BusyLimitPct.
	LimitPct float64 `json:"limit_pct"`
	// DemandCores is the last probe's testnet and cometlab CPU × its k:
	// the cores the run would take in real time (k = 1).
	DemandCores float64 `json:"demand_cores"`
	// Chosen is k; BusyPct the host's busy share predicted at k (other
	// work + DemandCores ÷ k, in % of its cores).
	Chosen  float64 `json:"chosen"`
	BusyPct float64 `json:"predicted_busy_pct"`
	// MaxScale is the largest k tried (the releases' bound, or
	// MaxTimeScale); Saturated says that even it was predicted above the
	// limit: the run was made at MaxScale on a host it saturates.
	MaxScale  float64 `json:"max_scale"`
	Saturated bool    `json:"saturated,omitempty"`
	// Reason says why k, in a sentence (the report's top line).
	Reason string `json:"reason"`
}

// TimeScaleProbe is one probe: the manifest's testnet at time scale K
// under a steady load for Seconds of the host, and the host's CPU meanwhile
// (host.csv's means over the load).
type TimeScaleProbe struct {
	K       float64 `json:"k"`
	Seconds float64 `json:"seconds"`
	Rate    float64 `json:"rate"` // the model's tx/s sent
	Cores   int     `json:"cores"`
	Testnet float64 `json:"testnet_cores"`
	Harness float64 `json:"harness_cores"`
	Other   float64 `json:"other_cores"`
	Samples int     `json:"samples"` // host.csv rows averaged
}
