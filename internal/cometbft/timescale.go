package cometbft

import (
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"
)

// MaxTimeScale is the largest time scale a testnet may run at: nothing
// has been measured past it, and CometBFT's own bounds on the genesis's
// durations come near (PBTS precision ≤ 30 s: v1.0 stops at 59).
const MaxTimeScale = 100

// TransportHandshakeTimeout bounds each of a new p2p connection's
// exchanges (the secret connection's, then the node info's) on every
// release line: hard-coded in p2p/transport.go (defaultHandshakeTimeout;
// v2.0's p2p/transport/tcp), while config.toml's p2p.handshake_timeout and
// p2p.dial_timeout are written but not used by the transport. It is not
// scaled, so a zone pair's round trip × time scale must stay under it.
const TransportHandshakeTimeout = 3 * time.Second

// TimeScaleNote is the line the config files of a time-scaled node open
// with, k in place of %s.
const TimeScaleNote = "# Scaled in time by k = %s: every time constant ×k, every rate ÷k (cometlab's time_scale).\n"

// Scaled keys common to every release line (config.toml, dotted, with the
// default of `cometbft init`).
var (
	scaledConsensus = map[string]string{
		"consensus.timeout_propose": "3s", "consensus.timeout_propose_delta": "500ms",
		"consensus.timeout_prevote": "1s", "consensus.timeout_prevote_delta": "500ms",
		"consensus.timeout_precommit": "1s", "consensus.timeout_precommit_delta": "500ms",
		"consensus.timeout_commit": "1s", "consensus.create_empty_blocks_interval": "0s",
		"consensus.peer_gossip_sleep_duration": "100ms", "consensus.peer_query_maj23_sleep_duration": "2s",
		"p2p.handshake_timeout": "20s", "p2p.dial_timeout": "3s", "p2p.persistent_peers_max_dial_period": "0s",
		"rpc.timeout_broadcast_tx_commit": "10s",
	}
	scaledRates = map[string]string{"p2p.send_rate": "5120000", "p2p.recv_rate": "5120000"}
)

// timeScaleFacts are the per-line additions to scaledConsensus: the
// flush throttle (100 ms before v0.39, 10 ms from it), the mempool's
// timers and the line's own keys.
var timeScaleFacts = map[string]struct {
	times, genesis map[string]string
	app            []string
}{
	"v0.34": {times: map[string]string{"p2p.flush_throttle_timeout": "100ms", "mempool.ttl-duration": "0s"},
		genesis: map[string]string{"block.time_iota_ms": "1000", "evidence.max_age_duration": "172800000000000"}},
	"v0.37": {times: map[string]string{"p2p.flush_throttle_timeout": "100ms", "mempool.ttl-duration": "0s"},
		genesis: map[string]string{"evidence.max_age_duration": "172800000000000"}},
	"v0.38": {times: map[string]string{"p2p.flush_throttle_timeout": "100ms", "mempool.recheck_timeout": "1s",
		"consensus.block_time_tolerance": "1m0s"},
		genesis: map[string]string{"evidence.max_age_duration": "172800000000000"}},
	"v0.39": {times: libp2pTimes(), genesis: map[string]string{"evidence.max_age_duration": "172800000000000"}},
	"v0.40": {times: libp2pTimes(), genesis: map[string]string{"evidence.max_age_duration": "172800000000000"}},
	"v1.0": {times: map[string]string{"p2p.flush_throttle_timeout": "10ms", "mempool.recheck_timeout": "1s",
		"consensus.peer_gossip_intraloop_sleep_duration": "0s", "storage.pruning.interval": "10s"},
		genesis: map[string]string{"evidence.max_age_duration": "172800000000000",
			"synchrony.precision": "505000000", "synchrony.message_delay": "15000000000"},
		app: []string{"check_tx_delay", "finalize_block_delay", "prepare_proposal_delay", "process_proposal_delay", "vote_extension_delay"}},
}

// libp2pTimes are the scaled keys v0.39 and v0.40 add: the mempool's
// app-side timers, the block time tolerance and the libp2p scaler's
// latency thresholds.
func libp2pTimes() map[string]string {
	return map[string]string{"p2p.flush_throttle_timeout": "10ms", "mempool.recheck_timeout": "1s",
		"mempool.reap_interval": "500ms", "mempool.check_tx_retry_delay": "5s", "consensus.block_time_tolerance": "1m0s",
		"p2p.libp2p.scaler.threshold_latency": "100ms", "p2p.libp2p.scaler.overrides.0.threshold_latency": "500ms"}
}

// genesisLimits are CometBFT's upper bounds on scaled genesis durations
// (types/params.go: MaxPrecision, MaxMessageDelay), in the genesis's
// nanoseconds.
var genesisLimits = map[string]time.Duration{"synchrony.precision": 30 * time.Second, "synchrony.message_delay": 24 * time.Hour}

// withTimeScaleFacts fills each line's ScaledTimes, ScaledRates,
// GenesisScaledTimes and E2EAppScaledTimes.
func withTimeScaleFacts(ls []Line) []Line {
	for i := range ls {
		f := timeScaleFacts[ls[i].Prefix]
		ls[i].ScaledTimes = maps.Clone(scaledConsensus)
		maps.Copy(ls[i].ScaledTimes, f.times)
		ls[i].ScaledRates = maps.Clone(scaledRates)
		ls[i].GenesisScaledTimes = maps.Clone(f.genesis)
		ls[i].E2EAppScaledTimes = slices.Clone(f.app)
	}
	return ls
}

// scaled reports whether time scale k changes anything (k ≠ 0, 1).
func scaled(k float64) bool { return k != 0 && k != 1 }

// scaleLine is the line whose Scaled… facts a node of version obeys: its
// release's line, or for a user's binary (version "") every line's keys
// together (a key its files lack is skipped).
func scaleLine(version string) Line {
	if l, err := LineOf(version); err == nil {
		return l
	}
	u := Line{ScaledTimes: map[string]string{}, ScaledRates: map[string]string{}, GenesisScaledTimes: map[string]string{}}
	for _, l := range Lines() {
		maps.Copy(u.ScaledTimes, l.ScaledTimes)
		maps.Copy(u.ScaledRates, l.ScaledRates)
		maps.Copy(u.GenesisScaledTimes, l.GenesisScaledTimes)
		for _, k := range l.E2EAppScaledTimes {
			if !slices.Contains(u.E2EAppScaledTimes, k) {
				u.E2EAppScaledTimes = append(u.E2EAppScaledTimes, k)
			}
		}
	}
	return u
}

// TimeScaleProblem says why release version cannot run at time scale k
// ("" when it can): k out of [1, MaxTimeScale], or a genesis duration
// the release bounds (PBTS precision ≤ 30 s) scaled past its bound.
func TimeScaleProblem(version string, k float64) string {
	if !(k >= 1) || k > MaxTimeScale {
		return fmt.Sprintf("time scale %v is out of [1, %d]", k, MaxTimeScale)
	}
	l, err := LineOf(version)
	if err != nil {
		return ""
	}
	if l.GenesisScaledTimes == nil {
		// Every line whose time constants were read from its release
		// has the evidence age at least; a line without them (v2.0) would
		// scale the common keys only and leave its own timers in real time.
		return fmt.Sprintf("%s's time constants are not listed yet (docs/timescale.md): its own timers would run in real time", version)
	}
	for _, key := range slices.Sorted(maps.Keys(l.GenesisScaledTimes)) {
		limit, ok := genesisLimits[key]
		if !ok {
			continue
		}
		ns, _ := strconv.ParseInt(l.GenesisScaledTimes[key], 10, 64)
		if d := time.Duration(float64(ns) * k); d > limit {
			return fmt.Sprintf("%s's genesis %s (%v) × %v = %v is above CometBFT's bound %v", version, key, time.Duration(ns), k, d, limit)
		}
	}
	return ""
}

// ScaleDuration returns d × k, rounded to the nanosecond; d itself when k
// is 1 (or unset, 0).
func ScaleDuration(d time.Duration, k float64) time.Duration {
	if k == 0 || k == 1 {
		return d
	}
	return time.Duration(math.Round(float64(d) * k))
}

// ScaleRate returns r ÷ k; r itself when k is 1 (or unset, 0).
func ScaleRate(r, k float64) float64 {
	if k == 0 || k == 1 {
		return r
	}
	return r / k
}

// scaleConfig multiplies the line's ScaledTimes of a decoded config.toml
// by k and divides its ScaledRates by k (integers, at least 1), whatever
// set them: `cometbft init`'s default or the manifest's override. A key
// the file lacks is skipped (a release of the line may not have it yet).
func scaleConfig(cfg map[string]any, l Line, k float64) error {
	for _, key := range slices.Sorted(maps.Keys(l.ScaledTimes)) {
		v, ok := lookup(cfg, key)
		if !ok {
			continue
		}
		s, isStr := v.(string)
		d, err := time.ParseDuration(s)
		if !isStr || err != nil {
			return fmt.Errorf("time scale: %s = %v is not a duration", key, v)
		}
		if err := store(cfg, key, ScaleDuration(d, k).String()); err != nil {
			return err
		}
	}
	for _, key := range slices.Sorted(maps.Keys(l.ScaledRates)) {
		v, ok := lookup(cfg, key)
		if !ok {
			continue
		}
		var r float64
		switch x := v.(type) {
		case int64:
			r = float64(x)
		case float64:
			r = x
		default:
			return fmt.Errorf("time scale: %s = %v is not a rate", key, v)
		}
		if err := store(cfg, key, max(1, int64(math.Round(r/k)))); err != nil {
			return err
		}
	}
	return nil
}

// scaleGenesis multiplies the line's GenesisScaledTimes of a decoded
// genesis (integer strings, or json.Number) by k.
func scaleGenesis(gen map[string]any, l Line, k float64) error {
	cp, _ := gen["consensus_params"].(map[string]any)
	for _, key := range slices.Sorted(maps.Keys(l.GenesisScaledTimes)) {
		v, ok := lookup(cp, key)
		if !ok {
			continue
		}
		n, err := strconv.ParseInt(fmt.Sprint(v), 10, 64)
		if err != nil {
			return fmt.Errorf("time scale: genesis %s = %v is not an integer", key, v)
		}
		scaled := strconv.FormatInt(int64(math.Round(float64(n)*k)), 10)
		if _, isNum := v.(json.Number); isNum {
			err = store(cp, key, json.Number(scaled))
		} else {
			err = store(cp, key, scaled)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// scaleAppConfig multiplies the line's E2EAppScaledTimes of an e2e app
// configuration by k; a delay is a Go duration string (or a
// time.Duration).
func scaleAppConfig(cfg map[string]any, l Line, k float64) error {
	for _, key := range l.E2EAppScaledTimes {
		v, ok := cfg[key]
		if !ok {
			continue
		}
		var d time.Duration
		switch x := v.(type) {
		case time.Duration:
			d = x
		case string:
			var err error
			if d, err = time.ParseDuration(x); err != nil {
				return fmt.Errorf("time scale: app setting %s = %q is not a duration", key, x)
			}
		default:
			return fmt.Errorf("time scale: app setting %s = %v is not a duration", key, v)
		}
		cfg[key] = ScaleDuration(d, k).String()
	}
	return nil
}

// lookup returns the value at a dotted key of a decoded TOML or JSON
// document; a numeric part indexes an array ("x.0.y").
func lookup(doc map[string]any, key string) (any, bool) {
	var cur any = doc
	for _, p := range strings.Split(key, ".") {
		switch c := cur.(type) {
		case map[string]any:
			v, ok := c[p]
			if !ok {
				return nil, false
			}
			cur = v
		case []any:
			i, err := strconv.Atoi(p)
			if err != nil || i < 0 || i >= len(c) {
				return nil, false
			}
			cur = c[i]
		case []map[string]any:
			i, err := strconv.Atoi(p)
			if err != nil || i < 0 || i >= len(c) {
				return nil, false
			}
			cur = c[i]
		default:
			return nil, false
		}
	}
	return cur, true
}

// store sets the value at a dotted key lookup found.
func store(doc map[string]any, key string, v any) error {
	i := strings.LastIndex(key, ".")
	parent, last := any(doc), key
	if i >= 0 {
		var ok bool
		if parent, ok = lookup(doc, key[:i]); !ok {
			return fmt.Errorf("time scale: no %s", key[:i])
		}
		last = key[i+1:]
	}
	m, ok := parent.(map[string]any)
	if !ok {
		return fmt.Errorf("time scale: %s is not a table", key[:max(i, 0)])
	}
	m[last] = v
	return nil
}
