package history

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/cometlab/cometlab/internal/results"
)

// Kinds of an indexed directory.
const (
	KindRun      = "run"      // a run directory (run.json)
	KindSweep    = "sweep"    // a sweep directory (sweep.json); its cells are runs
	KindSaturate = "saturate" // a saturation search (saturate.json); its steps are runs
	KindAB       = "ab"       // an A/B experiment (ab.json); its rounds' runs are runs
	KindQA       = "qa"       // a QA method's directory; its steps are runs
)

// Kinds returns every kind, in the order listings group them.
func Kinds() []string { return []string{KindRun, KindSweep, KindSaturate, KindAB, KindQA} }

// Run is one indexed directory: a run, or a series of runs (sweep,
// search, A/B experiment) whose runs are indexed too, each with Parent
// naming it. Every field comes from the directory's own files.
type Run struct {
	// Dir is the directory's absolute path: the run's key in the index.
	Dir string `json:"dir"`
	// Parent is the Dir of the sweep, search or experiment the run belongs
	// to; "" for a directory of its own.
	Parent string `json:"parent,omitempty"`
	Kind   string `json:"kind"`
	ID     string `json:"id,omitempty"` // run.json's id, sweep.json's, saturate.json's
	// Status is the recorded one: complete, partial, failed, running (or
	// interrupted for a series).
	Status string `json:"status"`
	// Note says what the directory lacked or could not be read ("no
	// summary.json: no figures"); "" when every file was read.
	Note    string    `json:"note,omitempty"`
	Created time.Time `json:"created"`
	Ended   time.Time `json:"ended,omitzero"`
	// Release is the CometBFT release the run ran (run.json
	// cometbft_version: a version, "binary PATH", or "mixed: …").
	Release string `json:"release,omitempty"`
	// Label is run.json's label when it has one, an A/B side's label, else
	// Release.
	Label string `json:"label,omitempty"`
	// Commit is the git commit of the CometBFT source tree the run's nodes
	// ran (from Sources, when every built node ran one tree), with
	// "+dirty.HASH" (the first 12 hex digits of its diff's SHA-256) when
	// the tree had changes beyond it; CommitTime is its committer time.
	// Both are empty for a release, a patched release and a series.
	Commit     string    `json:"commit,omitempty"`
	CommitTime time.Time `json:"commit_time,omitzero"`
	// Sources are run.json's sources: the code built from a source tree
	// or a patched release (path, commit, branch, describe, dirty and the
	// diff's hash, the patches and their hashes, the line), nil for a
	// release as served and for a series.
	Sources []results.Source `json:"sources,omitempty"`
	// Manifest is ManifestHash of the run's manifest.toml (of a series:
	// of its first run's, its load left out); "" when there was none.
	Manifest   string `json:"manifest_hash,omitempty"`
	App        string `json:"app,omitempty"`
	Validators int    `json:"validators"`
	FullNodes  int    `json:"full_nodes"`
	Load       Load   `json:"load"`
	Host       Host   `json:"host"`
	// Figures are summary.json's metrics (a sweep's or search's figures),
	// keyed by dictionary id.
	Figures map[string]Figure `json:"figures,omitempty"`
}

// Load is the load of a run: c, r, size and duration, or a series' plan.
type Load struct {
	Connections int     `json:"connections"`
	Rate        float64 `json:"rate"` // tx/s per connection
	Size        int     `json:"size"` // bytes per tx
	DurationS   float64 `json:"duration_s"`
	// Detail describes what c, r, size and duration do not: a shape with
	// its rates ("ramp 400→2400 tx/s"), the clients, a sweep's grid or a
	// search's plan.
	Detail string `json:"detail,omitempty"`
}

// String describes the load as the history table shows it:
// "1×200/s 1024 B 60s", then the detail.
func (l Load) String() string {
	var parts []string
	switch {
	case l.Rate > 0:
		parts = append(parts, fmt.Sprintf("%d×%s/s", l.Connections, strconv.FormatFloat(l.Rate, 'g', -1, 64)))
	case l.Connections > 0:
		parts = append(parts, fmt.Sprintf("%d conns", l.Connections))
	}
	if l.Size > 0 {
		parts = append(parts, fmt.Sprintf("%d B", l.Size))
	}
	if l.DurationS > 0 {
		parts = append(parts, (time.Duration(l.DurationS * float64(time.Second))).String())
	}
	if l.Detail != "" {
		parts = append(parts, l.Detail)
	}
	return strings.Join(parts, " ")
}

// Host is the machine a run ran on, as run.json's host records it.
type Host struct {
	Name     string `json:"name,omitempty"`
	Cores    int    `json:"cores"`
	CPU      string `json:"cpu,omitempty"` // model name
	MemBytes int64  `json:"mem_bytes,omitempty"`
	Arch     string `json:"arch,omitempty"`
}

// Fingerprint names the kind of machine, not the machine: cores, CPU
// model, memory rounded to GiB and architecture ("8 cores, AMD EPYC 7763,
// 16 GiB, amd64"). Two CI runners of one type share it; the host name is
// left out.
func (h Host) Fingerprint() string {
	cpu := h.CPU
	if cpu == "" {
		cpu = "CPU unknown"
	}
	mem := "memory unknown"
	if h.MemBytes > 0 {
		mem = fmt.Sprintf("%d GiB", (h.MemBytes+1<<29)>>30)
	}
	return fmt.Sprintf("%d cores, %s, %s, %s", h.Cores, cpu, mem, h.Arch)
}

// Figure is one figure of a run, in its dictionary unit, with its
// interval when the directory records one (a search's saturation point);
// summary.json records none.
type Figure struct {
	Value    float64   `json:"value"`
	Interval *Interval `json:"interval,omitempty"`
}

// Interval bounds a figure: Lo ≤ value ≤ Hi.
type Interval struct {
	Lo float64 `json:"lo"`
	Hi float64 `json:"hi"`
}

// SeriesKey is what makes runs comparable over time: the same manifest
// (without its release), load, kind of host and app. Runs of one series
// differ in their release, label and time, so that a change along the
// series is the release's or the environment's, never a different testnet,
// load or machine.
type SeriesKey struct {
	Manifest string `json:"manifest_hash"`
	Load     string `json:"load"`
	Host     string `json:"host"` // Host.Fingerprint
	App      string `json:"app"`
}

// String describes the key in one line.
func (k SeriesKey) String() string {
	m := k.Manifest
	if len(m) > 12 {
		m = m[:12]
	}
	return fmt.Sprintf("manifest %s, app %s, load %s, host %s", m, k.App, k.Load, k.Host)
}

// ID is a short stable name of the key: the first 12 hex digits of the
// SHA-256 of its fields.
func (k SeriesKey) ID() string {
	h := sha256.Sum256([]byte(k.Manifest + "\x00" + k.Load + "\x00" + k.Host + "\x00" + k.App))
	return hex.EncodeToString(h[:6])
}

// Series returns the run's series key.
func (r Run) Series() SeriesKey {
	return SeriesKey{Manifest: r.Manifest, Load: r.Load.String(), Host: r.Host.Fingerprint(), App: r.App}
}

// Sides are the labels of an A/B experiment's sides, base first: its
// Label is them joined by " vs " (nil for another kind).
func (r Run) Sides() []string {
	if r.Kind != KindAB || r.Label == "" {
		return nil
	}
	return strings.Split(r.Label, sidesSep)
}

// sidesSep joins an A/B experiment's sides in its Label.
const sidesSep = " vs "

// Value returns the run's figure id and whether it has it.
func (r Run) Value(id string) (float64, bool) {
	f, ok := r.Figures[id]
	return f.Value, ok
}
