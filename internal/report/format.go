package report

import (
	"math"
	"strconv"
	"strings"

	"github.com/cometlab/cometlab/internal/analysis"
)

// formatValue formats v for metric m: counts as integers with thousands
// separators, ratios with 4 decimals, ms with 1, s with 3, tx/s with 1,
// blocks/s with 2.
func formatValue(m analysis.Metric, v float64) string {
	switch m.Unit {
	case analysis.UnitTxs, analysis.UnitBlocks, analysis.UnitRounds:
		return groupDigits(math.Round(v))
	case analysis.UnitRatio:
		return strconv.FormatFloat(v, 'f', 4, 64)
	case analysis.UnitMS, analysis.UnitTPS:
		return strconv.FormatFloat(v, 'f', 1, 64)
	case analysis.UnitS:
		return strconv.FormatFloat(v, 'f', 3, 64)
	case analysis.UnitBPS:
		return strconv.FormatFloat(v, 'f', 2, 64)
	}
	return strconv.FormatFloat(v, 'g', 6, 64)
}

// formatWithUnit is formatValue followed by the unit (none for ratios).
func formatWithUnit(m analysis.Metric, v float64) string {
	s := formatValue(m, v)
	if m.Unit == "" || m.Unit == analysis.UnitRatio {
		return s
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
