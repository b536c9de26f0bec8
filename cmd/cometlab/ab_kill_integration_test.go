package main

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/cometlab/cometlab/internal/compare"
	"github.com/cometlab/cometlab/internal/exitcode"
	"github.com/cometlab/cometlab/internal/results"
	"github.com/cometlab/cometlab/internal/series"
)

// TestABAAKilledResumes runs a short A/A calibration on real testnets (2
// pairs of the default spec, 6-s runs at 100 tx/s), SIGKILLed while the
// first run of its second round sends load: ab.json is left readable,
// with the first round done and the killed run listed; `ab --resume`
// keeps the first round's runs, sets the killed one aside and finishes:
// exit 0, noise.json with the noise of the latency metrics, the false
// alarms and the position effect over the 2 pairs, a report that opens
// with them; then compare --noise judges two of its single runs against
// that noise. Five runs, about 1–2 minutes.
func TestABAAKilledResumes(t *testing.T) {
	killTest(t)
	dir := filepath.Join(t.TempDir(), "aa")
	cmd, out := startCometlab(t, "ab", "--aa", "--repeat", "2", "-r", "100", "-T", "6s", "--out", dir)
	killed := filepath.Join(dir, "runs", "02-cand") // counterbalanced: the candidate first in round 2
	killWhen(t, cmd, out, 4*time.Minute, func() bool {
		b, err := os.ReadFile(filepath.Join(killed, results.SentFile))
		return err == nil && bytes.Count(b, []byte("\n")) > 100
	})
	noProcessesLeft(t, dir)
	rec, err := series.ReadAB(dir)
	if err != nil {
		t.Fatalf("ab.json after the kill: %v", err)
	}
	if rec.Status != results.StatusRunning || rec.Pairs != 1 || len(rec.Rounds) != 2 || len(rec.Rounds[1]) != 1 || rec.Rounds[1][0] != killed {
		t.Fatalf("after the kill: status %s, %d pairs, rounds %q", rec.Status, rec.Pairs, rec.Rounds)
	}
	first, err := results.ReadRun(rec.Rounds[0][0])
	if err != nil {
		t.Fatal(err)
	}

	code, stdout, stderr := runKept(t, "ab", "--resume", dir)
	t.Log(stdout)
	if code != exitcode.OK {
		t.Fatalf("resume: exit %d, want 0 (an A/A)\n%s\n%s", code, stdout, stderr)
	}
	// Every run kept (runKept): the resume runs round 2 alone.
	if n := len(regexp.MustCompile(`ab: round \d+, (base|cand): `).FindAllString(stderr, -1)); n != 2 || !strings.Contains(stderr, "ab: round 2, cand") {
		t.Errorf("resume ran %d runs, want round 2's two:\n%s", n, stderr)
	}
	rec, err = series.ReadAB(dir)
	if err != nil || rec.Status != results.StatusComplete || rec.Partial || rec.Pairs != 2 || len(rec.Rounds) != 2 || !rec.AA {
		t.Fatalf("after resume: %v, %+v", err, rec)
	}
	if again, err := results.ReadRun(rec.Rounds[0][0]); err != nil || again.ID != first.ID {
		t.Errorf("the first round ran again: %s → %s (%v)", first.ID, again.ID, err)
	}
	if _, err := os.Stat(filepath.Join(killed+".interrupted", results.SentFile)); err != nil {
		t.Errorf("the killed run's records were not kept: %v", err)
	}

	noise, err := compare.ReadNoise(filepath.Join(dir, series.NoiseFile))
	if err != nil {
		t.Fatal(err)
	}
	p50, ok := noise.Metrics["block_latency_p50_ms"]
	if !ok || p50.Pairs != 2 || p50.RelPairs != 2 || !(p50.Mean > 0) || p50.FloorPct <= 0 {
		t.Errorf("block latency p50 noise %+v", p50)
	}
	if fa := noise.FalseAlarms; fa == nil || fa.Pairs != 2 || fa.Judged == 0 {
		t.Errorf("false alarms %+v", noise.FalseAlarms)
	} else {
		t.Logf("false alarms: within-run %d of %d pairs, against the noise %d", fa.Before, fa.Pairs, fa.After)
	}
	if len(noise.Position) == 0 || noise.Position[0].Pairs != 2 {
		t.Errorf("position effect %+v", noise.Position)
	}
	md, err := os.ReadFile(filepath.Join(dir, results.CompareMD))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(string(md), "# A/A calibration: cand vs base\n\n## A/A calibration: the between-run noise of this setup (2 pairs)") {
		t.Errorf("compare.md does not open with the A/A calibration:\n%.1500s", md)
	}
	cmpOut := filepath.Join(t.TempDir(), "cmp")
	code, stdout, stderr = run(t, "compare", "--noise", filepath.Join(dir, series.NoiseFile), "--out", cmpOut, rec.Rounds[0][0], rec.Rounds[1][1])
	if code != exitcode.OK && code != exitcode.Regression {
		t.Fatalf("compare --noise: exit %d\n%s\n%s", code, stdout, stderr)
	}
	var c compare.Result
	if err := results.ReadJSON(filepath.Join(cmpOut, results.CompareJSON), &c); err != nil {
		t.Fatal(err)
	}
	for _, r := range c.Metrics {
		if r.ID == "block_latency_p50_ms" && !strings.Contains(r.Candidates[0].Test, "A/A noise") {
			t.Errorf("block latency p50 judged by %q (%s), not the A/A noise", r.Candidates[0].Test, r.Candidates[0].Verdict)
		}
		if r.Candidates[0].Verdict == compare.NoiseUnknown && noise.Metrics[r.ID].Pairs >= 2 {
			t.Errorf("%s is noise unknown though noise.json has it", r.ID)
		}
	}
}
