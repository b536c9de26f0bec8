package report

import (
	"math"
	"strconv"
	"strings"

	"github.com/cometlab/cometlab/internal/analysis"
)

// formatValue formats v for metric m: counts (and bytes, lines) as integers with
// thousands separators, ratios with 4 decimals, ms, MiB, MiB/h and % with 1, s
// with 3, tx/s with 1, blocks/s and load with 2.
func formatValue(m analysis.Metric, v float64) string {
	if isCountUnit(m.Unit) {
		return groupDigits(math.Round(v))
	}
	switch m.Unit {
	case analysis.UnitMiB, analysis.UnitMiBPerHour, analysis.UnitPct:
		return decimals(v, 1)
	case analysis.UnitLoad:
		return strconv.FormatFloat(v, 'f', 2, 64)
	case analysis.UnitRatio:
		return strconv.FormatFloat(v, 'f', 4, 64)
	case analysis.UnitMS, analysis.UnitTPS, analysis.UnitMSPerHeight:
		return decimals(v, 1)
	case analysis.UnitS:
		return strconv.FormatFloat(v, 'f', 3, 64)
	case analysis.UnitBPS:
		return strconv.FormatFloat(v, 'f', 2, 64)
	}
	return strconv.FormatFloat(v, 'g', 6, 64)
}

// decimals formats v with prec decimals or, when v is non-zero and below
// 10^−prec (at one decimal it would print as 0.0 or 0.1), with two
// significant digits, so that 0.012 ms against 0.017 ms never prints as
// "0.0 | 0.0 | +43.8 %". Values below 10^−5 keep prec decimals.
func decimals(v float64, prec int) string {
	if a := math.Abs(v); a != 0 && a < math.Pow(10, float64(-prec)) {
		if d := int(math.Ceil(-math.Log10(a))) + 1; d <= 6 {
			prec = max(prec, d)
		}
	}
	return strconv.FormatFloat(v, 'f', prec, 64)
}

// isCountUnit reports whether unit counts whole things (transactions,
// blocks, rounds, bytes, peers, …), which formatValue writes as integers.
func isCountUnit(unit string) bool {
	switch unit {
	case analysis.UnitTxs, analysis.UnitBlocks, analysis.UnitRounds, analysis.UnitBytes,
		analysis.UnitPeers, analysis.UnitNodes, analysis.UnitFiles, analysis.UnitEvents, analysis.UnitLines:
		return true
	}
	return false
}

// formatMean formats v, the mean over n runs of a figure of m: as
// formatValue, except that the mean of a count over more than one run
// keeps the decimals that rounding it to an integer would lose — 2 below
// 10, 1 below 100, none from 100 on (a rounding error under 0.5 %): the
// mean of 0, 1, 1 is 0.67, not 1, and the mean of 1, 1, 1 is 1.00.
func formatMean(m analysis.Metric, v float64, n int) string {
	if n <= 1 || !isCountUnit(m.Unit) {
		return formatValue(m, v)
	}
	switch a := math.Abs(v); {
	case a < 10:
		return strconv.FormatFloat(v, 'f', 2, 64)
	case a < 100:
		return strconv.FormatFloat(v, 'f', 1, 64)
	}
	return groupDigits(math.Round(v))
}

// formatWithUnit is formatValue followed by the unit (none for ratios
// and load averages).
func formatWithUnit(m analysis.Metric, v float64) string {
	s := formatValue(m, v)
	switch m.Unit {
	case "", analysis.UnitRatio, analysis.UnitLoad, analysis.UnitEvents:
		return s
	case analysis.UnitPct:
		return s + " %"
	}
	return s + " " + m.Unit
}

// groupDigits formats an integral v with commas every three digits.
func groupDigits(v float64) string {
	s := strconv.FormatFloat(v, 'f', 0, 64)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	if neg {
		b.WriteByte('-')
	}
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	return b.String()
}

// metricFor returns the dictionary entry of id, or a stand-in named after
// the id for a metric the dictionary does not know.
func metricFor(id string) analysis.Metric {
	if m, ok := analysis.Lookup(id); ok {
		return m
	}
	return analysis.Metric{ID: id, Title: id, Better: analysis.Neutral}
}

// cell escapes s for a Markdown table cell.
func cell(s string) string {
	s = strings.ReplaceAll(s, "|", `\|`)
	s = strings.ReplaceAll(s, "\r\n", " ")
	return strings.ReplaceAll(s, "\n", " ")
}

// bareValue formats the figure id of s without its unit, "n/a" when it
// was not computed: for sentences that name the unit themselves.
func bareValue(s analysis.Summary, id string) string {
	v, ok := s.Metrics[id]
	if !ok {
		return "n/a"
	}
	return formatValue(metricFor(id), v)
}

// FormatMetric formats a value of the dictionary metric id as the
// reports do (its unit's precision); an unknown id gets %.4g.
func FormatMetric(id string, v float64) string {
	m, ok := analysis.Lookup(id)
	if !ok {
		return strconv.FormatFloat(v, 'g', 4, 64)
	}
	return formatValue(m, v)
}

// FormatValue formats v as the reports format a value of the dictionary
// entry m (its unit's precision): for entries outside analysis's
// dictionary (a sweep's or search's, saturation.Dictionary).
func FormatValue(m analysis.Metric, v float64) string { return formatValue(m, v) }

// codeSpan returns s as a Markdown code span ("—" when empty): an address
// such as id@127.0.0.1:26656 in a code span is not autolinked as an email.
func codeSpan(s string) string {
	switch {
	case s == "":
		return "—"
	case strings.Contains(s, "`"):
		return "`` " + s + " ``"
	}
	return "`" + s + "`"
}
