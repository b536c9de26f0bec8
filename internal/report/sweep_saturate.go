package report

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/cometlab/cometlab/internal/results"
	"github.com/cometlab/cometlab/internal/saturation"
)

// WriteSaturate writes the report of the saturation search in dir from
// rec (its saturate.json): saturate.md, saturate.html and the
// latency–throughput plot, each atomically. It states the saturation
// point, the recommended QA load, the criterion, the search method and
// the path the search took with the evidence of every step.
func WriteSaturate(dir string, rec saturation.SearchRecord, opts Options) error {
	plotted, err := writeCurve(dir, fmt.Sprintf("Latency vs throughput — %s, c=%d", rec.Testnet.Name, rec.Connections), saturateCurve(rec), opts)
	if err != nil {
		return err
	}
	var b bytes.Buffer
	md := mdWriter{w: &b}
	md.saturateHeader(rec)
	md.saturationBound(dir, rec)
	md.saturateExperiment(rec)
	md.searchMethod(rec.Search)
	md.criterion(rec.Criterion, "A run that failed (an error, not a verdict) counts as a failure at its rate.")
	md.path(rec)
	md.curve(plotted, "One point per run: x = committed rate over all connections, y = block latency; solid lines and dots are the mean, "+
		"dashed lines and crosses the p99; full-length runs and shorter probes are separate series, points joined in order of the rate.")
	md.saturationDictionary()
	return writeDoc(dir, results.SaturateReportFile, results.SaturateHTMLFile, "cometlab saturate "+rec.ID, b.Bytes())
}

// saturateCurve has one series for the full-length runs and one for the
// probes.
func saturateCurve(rec saturation.SearchRecord) []CurveSeries {
	full := CurveSeries{Label: fmt.Sprintf("c=%d, %s s runs", rec.Connections, fmtFloat(rec.Search.DurationS))}
	probe := CurveSeries{Label: fmt.Sprintf("c=%d, shorter probes", rec.Connections)}
	for _, s := range rec.Steps {
		ev := s.Evidence
		if ev == nil || ev.CommittedTPS == nil || ev.LatencyMeanMS == nil || ev.LatencyP99MS == nil {
			continue
		}
		pt := CurvePoint{Order: s.Rate, TPS: *ev.CommittedTPS, MeanMS: *ev.LatencyMeanMS, P99MS: *ev.LatencyP99MS}
		if s.DurationS >= rec.Search.DurationS {
			full.Points = append(full.Points, pt)
		} else {
			probe.Points = append(probe.Points, pt)
		}
	}
	return []CurveSeries{full, probe}
}

func (m mdWriter) saturateHeader(rec saturation.SearchRecord) {
	status := rec.Status
	if rec.Outcome != nil {
		status = rec.Outcome.Status
	}
	m.f("# Saturation search %s — %s\n\n", rec.ID, status)
	o := rec.Outcome
	if o == nil {
		m.f("The search has not concluded yet.\n\n")
		return
	}
	c := float64(rec.Connections)
	switch {
	case o.Saturation > 0:
		m.f("**Saturation point: %s ± %s tx/s** (c=%d × r=%s ± %s tx/s per connection).\n\n",
			fmtRateTPS(c*o.Saturation), fmtRateTPS(c*o.HalfWidth), rec.Connections, fmtRateTPS(o.Saturation), fmtRateTPS(o.HalfWidth))
	case o.High > 0:
		m.f("**Saturation point: below %s tx/s** (no full-length run passed).\n\n", fmtRateTPS(c*o.High))
	case o.Low > 0:
		m.f("**Saturation point: above %s tx/s** (no run failed).\n\n", fmtRateTPS(c*o.Low))
	}
	if o.Recommended > 0 {
		m.f("**Recommended QA load: c=%d, r=%s tx/s** (%s tx/s in all), the highest full-length load that passed the criterion, "+
			"slightly under the saturation point.\n\n", rec.Connections, fmtRateTPS(o.Recommended), fmtRateTPS(c*o.Recommended))
	}
	m.f("%s. %d runs, wall time %s.\n\n", upperFirst(o.Summary), len(rec.Steps), searchWall(rec))
}

// txsLine is the search's transactions: the load's size and pacing, or
// an SDK chain's signed sends (whose size is the chain's, not the load's).
func txsLine(t results.TestnetInfo) string {
	if t.App == "sdk" {
		return fmt.Sprintf("signed bank sends (MsgSend, about 300 B), %s pacing", t.Pacing)
	}
	return fmt.Sprintf("%d B, %s pacing", t.TxSize, t.Pacing)
}

func fmtRateTPS(v float64) string {
	return strconv.FormatFloat(float64(int64(v*10+0.5))/10, 'f', -1, 64)
}

func upperFirst(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

func searchWall(rec saturation.SearchRecord) string {
	var first, last time.Time
	for _, s := range rec.Steps {
		if !s.Started.IsZero() && (first.IsZero() || s.Started.Before(first)) {
			first = s.Started
		}
		if s.Ended.After(last) {
			last = s.Ended
		}
	}
	return wallTime(first, last)
}

func (m mdWriter) saturateExperiment(rec saturation.SearchRecord) {
	m.f("## Experiment\n\n")
	mode := "a fresh testnet per run (independent runs)"
	if rec.Mode == results.ModeReuse {
		mode = fmt.Sprintf("one testnet for all runs, mempools drained and %s s of cool-down between runs", fmtFloat(rec.CoolDownS))
	}
	m.table([]string{"search", "value"}, "ll", [][]string{
		{"testnet", fmt.Sprintf("%s: %d validators, %d nodes", rec.Testnet.Name, rec.Testnet.Validators, rec.Testnet.Nodes)},
		{"CometBFT", rec.Testnet.CometBFTVersion},
		{"app", rec.Testnet.App},
		{"transactions", txsLine(rec.Testnet)},
		{"connections (c)", strconv.Itoa(rec.Connections)},
		{"between runs", mode},
		{"host", fmt.Sprintf("%s, %d CPUs, %s", rec.Host.Hostname, rec.Host.CPUs, rec.Host.OS+"/"+rec.Host.Arch)},
		{"cometlab", rec.CometlabVersion},
	})
}

func (m mdWriter) searchMethod(s saturation.SearchConfig) {
	m.f("## Search\n\n")
	probe := "every run is full length"
	if s.ProbeDurationS > 0 && s.ProbeDurationS < s.DurationS {
		probe = fmtFloat(s.ProbeDurationS) + " s (growth probes)"
	}
	m.table([]string{"parameter", "value"}, "ll", [][]string{
		{"start rate per connection", fmtFloat(s.Start) + " tx/s"},
		{"growth factor", "×" + fmtFloat(s.Growth)},
		{"probe duration", probe},
		{"run duration", fmtFloat(s.DurationS) + " s"},
		{"resolution", "±" + fmtFloat(100*s.Resolution) + " %"},
		{"split", fmt.Sprintf("%s (margin %s %%)", s.Split, fmtFloat(100*s.Margin))},
		{"rates", fmt.Sprintf("%s … %s tx/s, multiples of %s", fmtFloat(s.MinRate), fmtFloat(s.MaxRate), fmtFloat(s.Quantum))},
		{"run budget", strconv.Itoa(s.MaxRuns)},
	})
	m.f("The search grows the rate per connection geometrically (start, start × growth, …) with probes until a run fails the criterion; " +
		"the lowest failure is the top H of the bracket (a probe that fails counts as a failure at full length; a probe that passes " +
		"does not count as a pass). It then narrows the bracket [L, H], L the highest full-length pass below H, with full-length runs " +
		"until (H − L)/(H + L) ≤ the resolution, so that the saturation point (L + H)/2 is within ± the resolution. ")
	if s.Split == saturation.SplitEstimate {
		m.f("Each failing run estimates the sustainable rate, min(committed rate, r / (1 + latency slope)); the next run goes the " +
			"margin below that estimate (after a full-length failure at H, no lower than H ÷ q², q = (1 + resolution)/(1 − resolution), " +
			"from which one more run resolves the bracket whichever way it goes, unless that is within half the margin of the estimate), " +
			"or, once a pass is within the margin of it, to the rate whose failure resolves the bracket; " +
			"a missing or refuted estimate falls back to the midpoint. ")
	} else {
		m.f("The next run is the midpoint of the bracket. ")
	}
	m.f("Runs already made are never repeated; a resumed search replays them.\n\n")
}

func (m mdWriter) path(rec saturation.SearchRecord) {
	m.f("## Path\n\nEach run the search made, in order: why the stepper chose it, its key figures and the verdict.\n\n")
	head := append([]string{"step", "phase", "r", "c·r", "duration", "why"}, evidenceHead...)
	head = append(head, "estimate", "verdict", "run")
	var rows [][]string
	for _, s := range rec.Steps {
		row := []string{strconv.Itoa(s.N), s.Phase, fmtRateTPS(s.Rate), fmtRateTPS(float64(rec.Connections) * s.Rate), fmtFloat(s.DurationS) + " s", s.Reason}
		row = append(row, evidenceColumns(s.Evidence)...)
		est := "—"
		if s.Evidence != nil && s.Verdict != nil && !s.Verdict.Pass {
			if e := s.Evidence.Estimate(); e > 0 {
				est = fmtRateTPS(e)
			}
		}
		link := s.Dir
		if s.Evidence != nil {
			link = fmt.Sprintf("[%s](%s/%s)", s.Dir, s.Dir, results.ReportFile)
		}
		verdict := verdictText(s.Status, s.Verdict)
		if s.Verdict != nil && !s.Verdict.Pass && s.DurationS < rec.Search.DurationS && saturation.SoftFailure(*s.Verdict) {
			verdict += " (soft: a probe, not counted)"
		}
		row = append(row, est, verdict, link)
		rows = append(rows, row)
	}
	m.table(head, "llrrrl"+strings.Repeat("r", len(evidenceHead))+"rll", rows)
	m.f("### Evidence\n\n")
	for _, s := range rec.Steps {
		m.f("**Step %d** — r = %s tx/s for %s s: %s", s.N, fmtRateTPS(s.Rate), fmtFloat(s.DurationS), verdictText(s.Status, s.Verdict))
		if s.Error != "" {
			m.f(" (%s)", cell(s.Error))
		}
		m.f("\n\n")
		if s.Verdict != nil {
			for _, c := range s.Verdict.Checks {
				mark := "✓"
				if !c.Pass {
					mark = "✗"
				}
				m.f("- %s %s: %s\n", mark, c.Name, c.Detail)
			}
			m.f("\n")
		}
	}
}
