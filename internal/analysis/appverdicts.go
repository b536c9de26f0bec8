package analysis

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/cometlab/cometlab/internal/results"
)

// AppVerdicts is summary.json's app_verdicts: what the app said of the
// run's committed transactions (tx_results.csv, from /block_results),
// for a run whose transactions are the user's own or an SDK chain's. A
// transaction committed and failed was ordered and executed, and failed
// in the app: an SDK chain keeps its fee and undoes its messages.
type AppVerdicts struct {
	Succeeded int64 `json:"succeeded_txs"` // committed with code 0
	Failed    int64 `json:"failed_txs"`    // committed with another code
	// Codes counts the failures by codespace and code, most first.
	Codes []AppCode `json:"codes,omitempty"`
	// GasWanted and GasUsed are the means over the run's committed
	// transactions (0 when the app reports no gas, as the kvstore).
	GasWantedMean float64 `json:"gas_wanted_mean"`
	GasUsedMean   float64 `json:"gas_used_mean"`
}

// AppCode is one kind of failure of AppVerdicts.
type AppCode struct {
	Codespace string `json:"codespace"`
	Code      uint32 `json:"code"`
	// Name is the Cosmos SDK's name of the error (codespace "sdk"), ""
	// when cometlab does not know it.
	Name  string `json:"name,omitempty"`
	Count int64  `json:"count"`
	Log   string `json:"log,omitempty"` // the first failure's log
}

// String is "sdk 5 (insufficient funds)", or "codespace code".
func (c AppCode) String() string {
	s := cmp.Or(c.Codespace, `""`) + " " + fmt.Sprint(c.Code)
	if c.Name != "" {
		s += " (" + c.Name + ")"
	}
	return s
}

// sdkErrors are the Cosmos SDK's own errors (codespace "sdk", types/errors
// of v0.50–v0.55) that a bank send can meet.
var sdkErrors = map[uint32]string{
	2: "tx parse error", 3: "invalid sequence", 4: "unauthorized", 5: "insufficient funds", 7: "invalid address",
	8: "invalid pubkey", 9: "unknown address", 10: "invalid coins", 11: "out of gas", 12: "memo too large",
	13: "insufficient fee", 19: "tx already in mempool", 20: "mempool is full", 21: "tx too large",
	28: "invalid chain-id", 30: "tx timeout height", 32: "incorrect account sequence", 41: "invalid gas limit", 42: "tx timeout",
}

// appVerdicts returns the verdicts of rows, the first of each (conn,
// seq) only (a duplicate commit is the same transaction again); nil
// without rows.
func appVerdicts(rows []results.TxResult) *AppVerdicts {
	if len(rows) == 0 {
		return nil
	}
	v := &AppVerdicts{}
	type key struct {
		space string
		code  uint32
	}
	byCode := map[key]*AppCode{}
	type connSeq struct {
		conn int
		seq  uint64
	}
	seen := map[connSeq]bool{}
	var wanted, used float64
	for _, r := range rows {
		k := connSeq{r.Conn, r.Seq}
		if seen[k] {
			continue
		}
		seen[k] = true
		wanted += float64(r.GasWanted)
		used += float64(r.GasUsed)
		if r.Code == 0 {
			v.Succeeded++
			continue
		}
		v.Failed++
		c := byCode[key{r.Codespace, r.Code}]
		if c == nil {
			c = &AppCode{Codespace: r.Codespace, Code: r.Code, Log: r.Log}
			if r.Codespace == "sdk" {
				c.Name = sdkErrors[r.Code]
			}
			byCode[key{r.Codespace, r.Code}] = c
		}
		c.Count++
	}
	n := float64(v.Succeeded + v.Failed)
	v.GasWantedMean, v.GasUsedMean = wanted/n, used/n
	for _, c := range byCode {
		v.Codes = append(v.Codes, *c)
	}
	slices.SortFunc(v.Codes, func(a, b AppCode) int {
		return cmp.Or(cmp.Compare(b.Count, a.Count), cmp.Compare(a.Codespace, b.Codespace), cmp.Compare(a.Code, b.Code))
	})
	return v
}

// appFigures sets the app-verdict figures of in's tx_results.csv.
func appFigures(in Input, s *Summary, b *builder) {
	v := appVerdicts(in.TxResults)
	if v == nil {
		return
	}
	s.AppVerdicts = v
	b.put("app_succeeded_txs", float64(v.Succeeded), "")
	b.put("app_failed_txs", float64(v.Failed), "")
	if v.GasUsedMean > 0 {
		b.put("gas_used_per_tx", v.GasUsedMean, "")
		b.put("gas_wanted_per_tx", v.GasWantedMean, "")
	}
	if v.Failed > 0 {
		most := v.Codes[0]
		b.anomalyOf(severeTxs, "%d of the run's %d committed transactions failed in the app, most with %s (%d): %q",
			v.Failed, v.Failed+v.Succeeded, most, most.Count, most.Log)
	}
}

// IsAppMetric reports whether id is one of the app-verdict figures, which
// only a run with tx_results.csv has.
func IsAppMetric(id string) bool {
	return slices.ContainsFunc(appDictionary(), func(m Metric) bool { return m.ID == id })
}

// appDictionary returns the entries of appFigures.
func appDictionary() []Metric {
	return []Metric{
		{ID: "app_succeeded_txs", Source: "tx_results.csv", Title: "Committed, succeeded in the app", Unit: UnitTxs, Better: HigherIsBetter, Group: GroupThroughput,
			Definition: "The run's committed transactions (first commits) whose result code in /block_results was 0; only for a run whose transactions are matched by hash (the user's own, or an SDK chain's signed sends)."},
		{ID: "app_failed_txs", Source: "tx_results.csv", Title: "Committed, failed in the app", Unit: UnitTxs, Better: LowerIsBetter, Group: GroupThroughput,
			Definition: "The run's committed transactions (first commits) whose result code was not 0: ordered and executed, then failed in the app (an SDK chain keeps the fee and undoes the messages); by codespace and code in summary.json's app_verdicts."},
		{ID: "gas_used_per_tx", Source: "tx_results.csv", Title: "Gas used per tx", Unit: UnitGas, Better: LowerIsBetter, Group: GroupThroughput,
			Definition: "Mean gas_used of the run's committed transactions, as the app reported it in /block_results (an SDK chain's; absent when every transaction reports 0)."},
		{ID: "gas_wanted_per_tx", Source: "tx_results.csv", Title: "Gas wanted per tx", Unit: UnitGas, Better: LowerIsBetter, Group: GroupThroughput,
			Definition: "Mean gas_wanted (the transaction's gas limit) of the run's committed transactions; absent when gas_used_per_tx is."},
	}
}
