package report

import (
	"fmt"

	"github.com/cometlab/cometlab/internal/analysis"
)

// appVerdicts writes "The app's verdicts" for a run whose transactions
// the app judged (tx_results.csv: the user's own, or an SDK chain's
// signed sends): how many committed transactions succeeded and failed,
// the failures by codespace and code with the first one's log, and the
// gas. Nothing for a run without verdicts.
func (m mdWriter) appVerdicts(s analysis.Summary) {
	v := s.AppVerdicts
	if v == nil {
		return
	}
	m.f("## The app's verdicts\n\n")
	n := v.Succeeded + v.Failed
	m.f("Of the run's %s committed transactions, **%s succeeded** and **%s failed in the app** (their result code in `/block_results`, tx_results.csv). "+
		"A failed transaction was ordered and executed: consensus did its work, and the app refused it (an SDK chain keeps its fee and undoes its messages). "+
		"Transactions CheckTx refused never reach a block: they are in the accounting, as rejected or missing.\n\n",
		groupDigits(float64(n)), groupDigits(float64(v.Succeeded)), groupDigits(float64(v.Failed)))
	if len(v.Codes) > 0 {
		var rows [][]string
		for _, c := range v.Codes {
			rows = append(rows, []string{c.Codespace, fmt.Sprint(c.Code), c.Name, groupDigits(float64(c.Count)), "`" + c.Log + "`"})
		}
		m.table([]string{"codespace", "code", "error", "transactions", "first log"}, "lrlrl", rows)
	}
	if v.GasUsedMean > 0 {
		m.f("Gas per committed transaction: %s used of %s wanted, on average.\n\n", groupDigits(v.GasUsedMean), groupDigits(v.GasWantedMean))
	}
}
