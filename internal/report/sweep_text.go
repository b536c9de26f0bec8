package report

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/cometlab/cometlab/internal/saturation"
)

// SweepText writes a sweep's saturation tables for a terminal: committed
// transactions per cell, "*" after a cell on the saturation diagonal, "x"
// after a saturated one, then where the diagonal is.
func SweepText(w io.Writer, rec saturation.SweepRecord) {
	var b strings.Builder
	fmt.Fprintf(&b, "sweep %s (%s): committed transactions per cell (* saturation diagonal, x saturated)\n", rec.ID, rec.Status)
	for _, t := range saturation.Tables(rec.GridCells()) {
		b.WriteByte('\n')
		if t.Group != "" {
			fmt.Fprintf(&b, "%s\n", t.Group)
		}
		rows := [][]string{{""}}
		for _, c := range t.Conns {
			rows[0] = append(rows[0], "c="+strconv.Itoa(c))
		}
		rows = append(rows, satRows(t, "-  ", func(cell *saturation.Cell) string {
			switch {
			case cell.OnDiagonal:
				return groupDigits(cell.Committed.Mean) + " *"
			case cell.Saturated:
				return groupDigits(cell.Committed.Mean) + " x"
			}
			return groupDigits(cell.Committed.Mean) + "  "
		})...)
		textGrid(&b, rows)
		fmt.Fprintf(&b, "%s\n", strings.ReplaceAll(diagonalSentence(t), "`", ""))
	}
	io.WriteString(w, b.String())
}

// SaturateText writes a search's path and outcome for a terminal.
func SaturateText(w io.Writer, rec saturation.SearchRecord) {
	var b strings.Builder
	fmt.Fprintf(&b, "saturation search %s (%s), c=%d\n\n", rec.ID, rec.Status, rec.Connections)
	rows := [][]string{{"step", "phase", "r", "T", "ratio", "tx/s", "lat mean", "lat p99", "slope", "verdict"}}
	for _, s := range rec.Steps {
		row := []string{strconv.Itoa(s.N), s.Phase, fmtRateTPS(s.Rate), fmtFloat(s.DurationS) + "s"}
		ev := s.Evidence
		opt := func(v *float64, prec int) string {
			if v == nil {
				return "n/a"
			}
			return strconv.FormatFloat(*v, 'f', prec, 64)
		}
		if ev == nil {
			row = append(row, "-", "-", "-", "-", "-")
		} else {
			slope := "n/a"
			if ev.Trend != nil && ev.Trend.Points >= 3 {
				slope = strconv.FormatFloat(ev.Trend.Slope, 'f', 4, 64)
			}
			row = append(row, opt(ev.ThroughputRatio, 4), opt(ev.CommittedTPS, 1), opt(ev.LatencyMeanMS, 0)+" ms", opt(ev.LatencyP99MS, 0)+" ms", slope)
		}
		row = append(row, verdictText(s.Status, s.Verdict))
		rows = append(rows, row)
	}
	textGrid(&b, rows)
	if o := rec.Outcome; o != nil {
		c := float64(rec.Connections)
		b.WriteByte('\n')
		if o.Saturation > 0 {
			fmt.Fprintf(&b, "saturation point:     %s ± %s tx/s (c=%d × r=%s)\n", fmtRateTPS(c*o.Saturation), fmtRateTPS(c*o.HalfWidth), rec.Connections, fmtRateTPS(o.Saturation))
		}
		if o.Recommended > 0 {
			fmt.Fprintf(&b, "recommended QA load:  c=%d, r=%s tx/s (%s tx/s)\n", rec.Connections, fmtRateTPS(o.Recommended), fmtRateTPS(c*o.Recommended))
		}
		fmt.Fprintf(&b, "%s: %s\n", o.Status, o.Summary)
	}
	io.WriteString(w, b.String())
}

// textGrid writes rows as aligned columns: the first left-aligned, the
// others right-aligned.
func textGrid(b *strings.Builder, rows [][]string) {
	var width []int
	for _, r := range rows {
		for i, c := range r {
			if i >= len(width) {
				width = append(width, 0)
			}
			width[i] = max(width[i], len([]rune(c)))
		}
	}
	for _, r := range rows {
		var line strings.Builder
		for i, c := range r {
			pad := strings.Repeat(" ", width[i]-len([]rune(c)))
			if i == 0 {
				line.WriteString(c + pad)
			} else {
				line.WriteString("  " + pad + c)
			}
		}
		b.WriteString(strings.TrimRight(line.String(), " ") + "\n")
	}
}
