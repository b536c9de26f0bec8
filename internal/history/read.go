package history

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/cometlab/cometlab/internal/results"
)

// ABFile is an A/B experiment's record (series.ABFile; history reads
// the few fields it needs, see readAB).
const ABFile = "ab.json"

// Found is what reading directories found: the runs to index and the
// directories left out, each with why.
type Found struct {
	Runs    []Run  `json:"runs"`
	Skipped []Skip `json:"skipped,omitempty"`
}

// Skip is a directory that was not indexed, and why.
type Skip struct {
	Dir    string `json:"dir"`
	Reason string `json:"reason"`
}

// ErrNotRun is the error of a directory that holds none of run.json,
// sweep.json, saturate.json, ab.json and qa.json.
var ErrNotRun = errors.New("not a run, sweep, search, A/B or QA directory (no run.json, sweep.json, saturate.json, ab.json or qa.json)")

// Read reads the directory dir: a run, a sweep, a search or an A/B
// experiment, with its runs. A run of a series that cannot be read is
// skipped with its reason; the error is the directory's own (ErrNotRun,
// an unreadable or half-written record), and then nothing is found.
func Read(dir string) (Found, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return Found{}, err
	}
	switch {
	case exists(abs, results.QAFile):
		return readQA(abs)
	case exists(abs, results.SweepFile):
		return readSweep(abs)
	case exists(abs, results.SaturateFile):
		return readSearch(abs)
	case exists(abs, ABFile):
		return readAB(abs)
	case exists(abs, results.RunFile):
		r, err := readRun(abs)
		if err != nil {
			return Found{}, err
		}
		return Found{Runs: []Run{r}}, nil
	}
	if _, err := os.Stat(abs); err != nil {
		return Found{}, err
	}
	return Found{}, ErrNotRun
}

// Walk reads every directory under roots: a root that is itself a run,
// sweep, search or experiment directory is read, any other root's
// subdirectories are, one level down (in name order; names starting with
// '.' are not). A root that does not exist is skipped with its reason, as
// is every directory Read refuses.
func Walk(roots []string) Found {
	var out Found
	add := func(dir string) {
		f, err := Read(dir)
		if err != nil {
			out.Skipped = append(out.Skipped, Skip{Dir: absOr(dir), Reason: err.Error()})
			return
		}
		out.Runs = append(out.Runs, f.Runs...)
		out.Skipped = append(out.Skipped, f.Skipped...)
	}
	for _, root := range roots {
		if isRecord(root) {
			add(root)
			continue
		}
		entries, err := os.ReadDir(root)
		if err != nil {
			reason := err.Error()
			if errors.Is(err, fs.ErrNotExist) {
				reason = "no such directory"
			}
			out.Skipped = append(out.Skipped, Skip{Dir: absOr(root), Reason: reason})
			continue
		}
		for _, e := range entries {
			if e.IsDir() && !strings.HasPrefix(e.Name(), ".") {
				add(filepath.Join(root, e.Name()))
			}
		}
	}
	return out
}

// isRecord reports whether dir holds one of the records Read reads.
func isRecord(dir string) bool {
	return slices.ContainsFunc([]string{results.RunFile, results.SweepFile, results.SaturateFile, ABFile, results.QAFile},
		func(name string) bool { return exists(dir, name) })
}

func exists(dir, name string) bool {
	_, err := os.Stat(filepath.Join(dir, name))
	return err == nil
}

func absOr(dir string) string {
	if abs, err := filepath.Abs(dir); err == nil {
		return abs
	}
	return dir
}

// runFile is run.json as history reads it: the record, and a label a
// user may have added.
type runFile struct {
	results.Run
	Label string `json:"label,omitempty"`
}

// summaryFile is the part of summary.json history reads.
type summaryFile struct {
	Status  string             `json:"status"`
	Metrics map[string]float64 `json:"metrics"`
}

// readRun reads the run directory dir (absolute). A run.json that cannot
// be read, or that names no status, is the error; a missing or unreadable
// manifest.toml or summary.json is said in the run's Note.
func readRun(dir string) (Run, error) {
	var rf runFile
	if err := results.ReadJSON(filepath.Join(dir, results.RunFile), &rf); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return Run{}, fmt.Errorf("no %s", results.RunFile)
		}
		return Run{}, fmt.Errorf("%s unreadable (half-written?): %w", results.RunFile, err)
	}
	if rf.Status == "" {
		return Run{}, fmt.Errorf("%s names no status", results.RunFile)
	}
	r := Run{Dir: dir, Kind: KindRun, ID: rf.ID, Status: rf.Status, Created: rf.Started, Ended: rf.Ended,
		Release: rf.CometBFTVersion, Label: rf.Label, App: rf.App, Host: hostOf(rf.Host), Load: loadOf(rf.Load)}
	if r.Created.IsZero() {
		r.Created = rf.LoadStart
	}
	if r.Created.IsZero() {
		if fi, err := os.Stat(filepath.Join(dir, results.RunFile)); err == nil {
			r.Created = fi.ModTime().UTC()
		}
	}
	if r.Label == "" {
		r.Label = r.Release
	}
	r.Commit, r.CommitTime = commitOf(rf.Sources)
	r.Sources = rf.Sources
	for _, n := range rf.Nodes {
		switch n.Mode {
		case "validator":
			r.Validators++
		case "full":
			r.FullNodes++
		}
	}
	var notes []string
	if b, err := os.ReadFile(filepath.Join(dir, results.ManifestFile)); err != nil {
		notes = append(notes, "no "+results.ManifestFile)
	} else if h, ok := ManifestHash(b, false); !ok {
		r.Manifest = h
		notes = append(notes, results.ManifestFile+" is not TOML: hashed as bytes")
	} else {
		r.Manifest = h
	}
	var s summaryFile
	switch err := results.ReadJSON(filepath.Join(dir, results.SummaryFile), &s); {
	case errors.Is(err, fs.ErrNotExist):
		notes = append(notes, "no "+results.SummaryFile+": no figures")
	case err != nil:
		notes = append(notes, results.SummaryFile+" unreadable: no figures")
	default:
		r.Figures = make(map[string]Figure, len(s.Metrics))
		for id, v := range s.Metrics {
			r.Figures[id] = Figure{Value: v}
		}
	}
	r.Note = strings.Join(notes, "; ")
	return r, nil
}

// commitOf is the commit (and its time) of the one source tree that
// sources name, "+dirty.HASH" when it was dirty; "" when they name none,
// only patched releases, or several trees or commits.
func commitOf(sources []results.Source) (string, time.Time) {
	commit, at := "", time.Time{}
	for _, s := range sources {
		if s.Commit == "" {
			continue
		}
		c := s.Commit
		if s.Dirty {
			c += "+dirty." + s.DiffHash[:min(12, len(s.DiffHash))]
		}
		if commit != "" && c != commit {
			return "", time.Time{}
		}
		commit, at = c, s.CommitTime
	}
	return commit, at
}

func hostOf(h results.Host) Host {
	return Host{Name: h.Hostname, Cores: h.CPUs, CPU: h.CPUModel, MemBytes: h.MemBytes, Arch: h.Arch}
}

func loadOf(l results.Load) Load {
	out := Load{Connections: l.Connections, Rate: l.Rate, Size: l.Size, DurationS: l.DurationS, Detail: l.ShapeDetail}
	if out.Detail == "" {
		out.Detail = l.Shape
	}
	if len(l.Clients) > 0 {
		var names []string
		for _, c := range l.Clients {
			names = append(names, fmt.Sprintf("%s %d×%g/s", c.Name, c.Connections, c.Rate))
		}
		out.Detail = strings.TrimSpace(out.Detail + " clients " + strings.Join(names, ", "))
	}
	if l.Txs != "" {
		out.Detail = strings.TrimSpace(out.Detail + " txs " + filepath.Base(l.Txs))
	}
	return out
}
