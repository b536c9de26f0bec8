package history

import (
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
)

// Headline is the gate's verdict in words.
func (r GateResult) Headline() string {
	switch r.Verdict {
	case GateRegression:
		var worse []string
		for _, j := range r.Judged {
			if j.Verdict == FigureWorse {
				worse = append(worse, j.Figure)
			}
		}
		return "regression: " + strings.Join(worse, ", ") + " worse than the history"
	case GatePass:
		return "pass: no judged figure is worse than the history"
	}
	return fmt.Sprintf("too few runs to judge: %d earlier runs of the series, %d needed", r.History, r.Config.MinRuns)
}

// rule is the gate's rule in one sentence.
func (r GateResult) rule() string {
	floor := ""
	if r.Config.Floor != nil {
		floor = " or the series' noise floor, whichever is larger,"
	}
	cp := ""
	if r.Config.Detect != nil {
		cp = " History starts after its last change point."
	}
	return fmt.Sprintf("A figure is a regression when the new value is worse than the history's mean by more than %s %%%s at p ≤ %s (one-sided t against the history, at least %d earlier runs).%s",
		strconv.FormatFloat(r.Config.ThresholdPct, 'g', -1, 64), floor, strconv.FormatFloat(r.Config.Alpha, 'g', -1, 64), r.Config.MinRuns, cp)
}

// WriteMarkdown writes the gate as Markdown, fit for
// $GITHUB_STEP_SUMMARY or a pull request's comment: the verdict, the
// series, the rule and one row per judged figure (history mean ± sd (n),
// the new value, Δ %, p, verdict).
func (r GateResult) WriteMarkdown(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "## cometlab gate: %s\n\n", r.Headline())
	fmt.Fprintf(&b, "New: %s", codeList(r.Targets))
	if r.Release != "" {
		fmt.Fprintf(&b, " (release %s", r.Release)
		if r.Label != "" && r.Label != r.Release {
			fmt.Fprintf(&b, ", label %s", r.Label)
		}
		b.WriteString(")")
	}
	fmt.Fprintf(&b, " against %d earlier runs of series `%s`: %s.\n\n%s\n\n", r.History, r.SeriesID, mdEscape(r.Series.String()), r.rule())
	if len(r.Judged) > 0 {
		b.WriteString("| figure | history mean ± sd (n) | new | Δ % | p | verdict |\n|---|--:|--:|--:|--:|---|\n")
		for _, j := range r.Judged {
			verdict := strings.ReplaceAll(j.Verdict, "_", " ")
			if j.Verdict == FigureWorse {
				verdict = "**worse**"
			}
			fmt.Fprintf(&b, "| %s (%s) | %s | %s | %s | %s | %s |\n", mdEscape(j.Title), mdEscape(j.Unit), j.historyText(), Num(j.New), j.pctText(), j.pText(), verdict)
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// WriteText writes the gate for a terminal: the verdict, the series and
// an aligned table of the judged figures.
func (r GateResult) WriteText(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "gate: %s\nseries %s: %s\nnew: %s against %d earlier runs\n%s\n", r.Headline(), r.SeriesID, r.Series, strings.Join(r.Targets, ", "), r.History, r.rule())
	if len(r.Judged) > 0 {
		rows := [][]string{{"figure", "history mean ± sd (n)", "new", "Δ %", "p", "verdict"}}
		for _, j := range r.Judged {
			rows = append(rows, []string{j.Figure, j.historyText(), Num(j.New), j.pctText(), j.pText(), strings.ReplaceAll(j.Verdict, "_", " ")})
		}
		b.WriteString("\n")
		writeAligned(&b, rows, []bool{false, true, true, true, true, false})
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func (j Judgement) historyText() string {
	if j.N == 0 {
		return "– (0)"
	}
	if j.N < 2 {
		return fmt.Sprintf("%s (%d)", Num(j.Mean), j.N)
	}
	s := fmt.Sprintf("%s ± %s (%d)", Num(j.Mean), Num(j.SD), j.N)
	if j.Since > 0 {
		s += fmt.Sprintf(", since run %d", j.Since+1)
	}
	return s
}

func (j Judgement) pctText() string {
	if j.Verdict == FigureTooFew || j.DeltaPct == nil {
		return "–"
	}
	return fmt.Sprintf("%+.1f %%", *j.DeltaPct)
}

func (j Judgement) pText() string {
	switch {
	case j.Verdict == FigureTooFew:
		return "–"
	case j.P < 0.0001:
		return "< 0.0001"
	}
	return strconv.FormatFloat(j.P, 'f', 4, 64)
}

// Num formats a figure for tables: whole numbers from 1,000 on, fewer
// decimals the larger it is, at most 4 significant digits below 1.
func Num(v float64) string {
	a := math.Abs(v)
	switch {
	case math.IsNaN(v) || math.IsInf(v, 0):
		return "–"
	case a >= 1000:
		return strconv.FormatFloat(v, 'f', 0, 64)
	case a >= 100:
		return strconv.FormatFloat(v, 'f', 1, 64)
	case a >= 1 || a == 0:
		return strconv.FormatFloat(v, 'f', 2, 64)
	}
	return strconv.FormatFloat(v, 'g', 4, 64)
}

// writeAligned writes rows as columns two spaces apart, right-aligned
// where right says so.
func writeAligned(b *strings.Builder, rows [][]string, right []bool) {
	widths := make([]int, len(rows[0]))
	for _, r := range rows {
		for i, c := range r {
			widths[i] = max(widths[i], len([]rune(c)))
		}
	}
	for _, r := range rows {
		var line strings.Builder
		for i, c := range r {
			pad := strings.Repeat(" ", widths[i]-len([]rune(c)))
			if i > 0 {
				line.WriteString("  ")
			}
			if right[i] {
				line.WriteString(pad + c)
			} else {
				line.WriteString(c + pad)
			}
		}
		b.WriteString(strings.TrimRight(line.String(), " ") + "\n")
	}
}

// WriteTable writes rows (the first the header) as aligned columns, the
// columns whose index right names right-aligned.
func WriteTable(w io.Writer, rows [][]string, right ...int) error {
	if len(rows) == 0 {
		return nil
	}
	r := make([]bool, len(rows[0]))
	for _, i := range right {
		if i < len(r) {
			r[i] = true
		}
	}
	var b strings.Builder
	writeAligned(&b, rows, r)
	_, err := io.WriteString(w, b.String())
	return err
}

func codeList(dirs []string) string {
	var parts []string
	for _, d := range dirs {
		parts = append(parts, "`"+d+"`")
	}
	return strings.Join(parts, ", ")
}

// mdEscape keeps a table cell one cell.
func mdEscape(s string) string { return strings.ReplaceAll(s, "|", `\|`) }
