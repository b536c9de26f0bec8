package analysis

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/cometlab/cometlab/internal/results"
	"github.com/cometlab/cometlab/internal/results/resultstest"
)

// Real log lines. Every release v0.34–v1.x formats them with the same
// code (libs/log tmfmt_logger.go, tm_json_logger.go; v1.0 renames it
// cmtfmt_logger.go, same format string): the plain lines below come from
// a v0.40.0 run's logs, the v1.0 ones and the JSON ones from v1.0.1's
// libs/log writing what consensus/state.go logs on a recovered panic, the
// panic from the Go runtime.
const (
	plainP2P       = `E[2026-11-26|02:23:46.652] Stopping peer for error                      module=p2p peer="Peer{MConn{127.0.0.1:46734} 0fd3e3447bbc7a3bd8acd1e64419db134a88dae3 in}" err=EOF`
	plainRPC       = `E[2026-11-26|02:23:46.651] error while stopping connection              module=rpc-server protocol=websocket error="already stopped"`
	plainBlocksync = `E[2026-11-26|02:23:07.667] Error stopping pool                          module=blocksync err="already stopped"`
	plainInfo      = `I[2026-11-26|05:32:48.196] finalized block                              module=state height=12 num_txs_res=3`
	plainNoModule  = `E[2026-11-26|05:32:48.196] error without module                         err=x`
	plainFailure   = `E[2026-11-26|05:32:48.196] CONSENSUS FAILURE!!!                         module=consensus err="runtime error: index out of range [3] with length 3" stack="goroutine 1 [running]:\nruntime/debug.Stack()\n\t/usr/local/go/src/runtime/debug/stack.go:26 +0x5e\n"`
	jsonFailure    = `{"_msg":"CONSENSUS FAILURE!!!","err":"runtime error: index out of range [3] with length 3","level":"error","module":"consensus","stack":"goroutine 1 [running]:\nruntime/debug.Stack()\n","ts":"2026-11-26T05:32:48.197Z"}`
	jsonP2P        = `{"_msg":"Stopping peer for error","err":"EOF","level":"error","module":"p2p","peer":"Peer{MConn{127.0.0.1:46734} 0fd3e3447bbc7a3bd8acd1e64419db134a88dae3 in}","ts":"2026-11-26T05:32:48.197334185Z"}`
	jsonInfo       = `{"_msg":"finalized block","height":12,"level":"info","module":"state","num_txs_res":3,"ts":"2026-11-26T05:32:48.197353251Z"}`
	jsonNoModule   = `{"_msg":"error without module","err":"x","level":"error","ts":"2026-11-26T05:32:48.197359913Z"}`
	goPanic        = `panic: runtime error: index out of range [3] with length 0`
)

func TestClassifyLogLine(t *testing.T) {
	tests := []struct {
		name, line, kind, module string
	}{
		{"plain p2p error (v0.34–v0.40)", plainP2P, IssueError, "p2p"},
		{"plain rpc-server error", plainRPC, IssueError, "rpc-server"},
		{"plain blocksync error", plainBlocksync, IssueError, "blocksync"},
		{"plain info", plainInfo, "", ""},
		{"plain debug", `D[2026-11-26|05:32:48.196] received proposal module=consensus level=error`, "", ""},
		{"plain error without module (v1.0)", plainNoModule, IssueError, ""},
		{"plain consensus failure (v1.0)", plainFailure, IssueConsensusFailure, ""},
		{"json consensus failure", jsonFailure, IssueConsensusFailure, ""},
		{"json p2p error", jsonP2P, IssueError, "p2p"},
		{"json info", jsonInfo, "", ""},
		{"json error without module", jsonNoModule, IssueError, ""},
		{"json not json", `{"level":"error"`, "", ""},
		{"go panic", goPanic, IssuePanic, ""},
		{"go fatal error", `fatal error: concurrent map writes`, IssuePanic, ""},
		{"goroutine trace", `goroutine 1 [running]:`, "", ""},
		{"panic inside a message", `I[2026-11-26|05:32:48.196] recovered from panic: x module=p2p`, "", ""},
		{"logfmt error (slog text)", `time=2026-11-26T05:32:48Z level=ERROR msg="dial failed" module=p2p`, IssueError, "p2p"},
		{"logfmt info", `time=2026-11-26T05:32:48Z level=INFO msg=ok module=p2p`, "", ""},
		{"slog json error", `{"time":"2026-11-26T05:32:48Z","level":"ERROR","msg":"dial failed","module":"p2p"}`, IssueError, "p2p"},
		{"console ERR", `5:32AM ERR dial failed module=p2p err=EOF`, IssueError, "p2p"},
		{"console INF", `5:32AM INF committed block module=state`, "", ""},
		{"quoted module", `level=error module="mempool x"`, IssueError, "mempool x"},
		{"empty", ``, "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			kind, module := ClassifyLogLine([]byte(tt.line))
			if kind != tt.kind || module != tt.module {
				t.Errorf("ClassifyLogLine = %q, %q; want %q, %q", kind, module, tt.kind, tt.module)
			}
		})
	}
}

// TestScanLog counts a log with every kind, keeps the first line of each
// and a panic's trace, and skips the rest of an over-long line.
func TestScanLog(t *testing.T) {
	long := "E[2026-11-26|02:23:46.652] huge module=mempool tx=" + strings.Repeat("A", 2*maxLogLine)
	log := strings.Join([]string{plainInfo, plainP2P, plainRPC, plainP2P, long, plainFailure, plainInfo,
		goPanic, "", "goroutine 1 [running]:", "main.main()", "\t/tmp/panicgen/main.go:5 +0x9", "exit status 2"}, "\n") + "\n"
	lf, err := ScanLog(strings.NewReader(log), "validator02", "logs/validator02.log")
	if err != nil {
		t.Fatal(err)
	}
	if lf.Lines != 13 || lf.Bytes != int64(len(log)) {
		t.Errorf("lines %d bytes %d, want 13 and %d", lf.Lines, lf.Bytes, len(log))
	}
	got := map[string]LogCount{}
	for _, c := range lf.Counts {
		got[c.Kind+"/"+c.Module] = c
	}
	want := map[string]struct {
		count int64
		line  int64
	}{"error/p2p": {2, 2}, "error/rpc-server": {1, 3}, "error/mempool": {1, 5}, "consensus_failure/": {1, 6}, "panic/": {1, 8}}
	if len(got) != len(want) {
		t.Errorf("counts %+v", lf.Counts)
	}
	for k, w := range want {
		if c := got[k]; c.Count != w.count || c.First.Line != w.line {
			t.Errorf("%s: count %d first line %d, want %d, %d", k, c.Count, c.First.Line, w.count, w.line)
		}
	}
	if c := got["error/mempool"]; len(c.First.Text) > maxQuote+len(" …") || !strings.HasSuffix(c.First.Text, " …") {
		t.Errorf("long line quoted as %d bytes", len(c.First.Text))
	}
	if tr := got["panic/"].Trace; strings.Join(tr, "|") != "goroutine 1 [running]:|main.main()|/tmp/panicgen/main.go:5 +0x9|exit status 2" {
		t.Errorf("trace %q", tr)
	}
}

// TestScanLogModulesCapped: past maxModules distinct modules, the rest
// count as "other", so memory stays bounded.
func TestScanLogModulesCapped(t *testing.T) {
	var b strings.Builder
	for i := range maxModules + 10 {
		b.WriteString("E[2026-11-26|02:23:46.652] x module=m" + strings.Repeat("x", i) + "\n")
	}
	lf, err := ScanLog(strings.NewReader(b.String()), "v", "f")
	if err != nil {
		t.Fatal(err)
	}
	if n := len(lf.Counts); n != maxModules+1 || lf.Counts[n-1].Module != "other" || lf.Counts[n-1].Count != 10 {
		t.Errorf("%d counts, last %+v", n, lf.Counts[len(lf.Counts)-1])
	}
}

// TestFindings scans a run directory's logs and events: the panic, the
// consensus failure and the crash are alarming and named in Summary.Issues
// and the log figures, error lines only counted.
func TestFindings(t *testing.T) {
	dir := t.TempDir()
	resultstest.WriteFile(t, filepath.Join(dir, "logs", "validator01.log"), []byte(plainInfo+"\n"+plainP2P+"\n"))
	resultstest.WriteFile(t, filepath.Join(dir, "logs", "validator02.log"), []byte(plainP2P+"\n"+goPanic+"\n\ngoroutine 1 [running]:\n"))
	resultstest.WriteFile(t, filepath.Join(dir, "logs", "validator02.app.log"), []byte(jsonFailure+"\n"))
	resultstest.WriteFile(t, filepath.Join(dir, "logs", "notes.txt"), []byte(goPanic+"\n"))
	logs, err := ScanLogs(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(logs) != 3 || logs[2].Node != "validator02" || logs[1].Node != "validator02/app" {
		t.Fatalf("logs %+v", logs)
	}
	in := Input{Logs: logs, Events: []results.Event{{At: 5, Node: "validator03", Kind: results.EventExit, Detail: "signal 9"}}}
	f := FindingsOf(in)
	kinds := []string{}
	for _, is := range f.Issues {
		kinds = append(kinds, is.Kind+"/"+is.Module)
	}
	if strings.Join(kinds, " ") != "panic/ consensus_failure/ crash/ error/p2p" {
		t.Errorf("issues %v", kinds)
	}
	if p2p := f.Issues[3]; p2p.Count != 2 || p2p.Nodes["validator01"] != 1 || p2p.First.Node != "validator01" || p2p.Alarming() {
		t.Errorf("p2p %+v", p2p)
	}
	if n := len(f.Alarms()); n != 3 {
		t.Errorf("%d alarms, want 3", n)
	}
	s := Summarize(in)
	for id, want := range map[string]float64{"log_panics": 1, "log_consensus_failures": 1, "log_error_lines": 2} {
		if s.Metrics[id] != want {
			t.Errorf("%s = %v, want %v", id, s.Metrics[id], want)
		}
	}
	if s.Nodes["validator02"]["log_panics"] != 1 || s.Nodes["validator01"]["log_panics"] != 0 || s.Nodes["validator02/app"]["log_consensus_failures"] != 1 {
		t.Errorf("per node %v", s.Nodes)
	}
	want := []string{
		"validator02 panicked (1 panic): `" + goPanic + "` (logs/validator02.log:2).",
		"CONSENSUS FAILURE on validator02/app (1 line): `" + clip([]byte(jsonFailure)) + "` (logs/validator02.app.log:1).",
		"validator03 crashed: it exited (signal 9) outside every perturbation (events.csv).",
	}
	if strings.Join(s.Issues, "\n") != strings.Join(want, "\n") {
		t.Errorf("issues\n%s\nwant\n%s", strings.Join(s.Issues, "\n"), strings.Join(want, "\n"))
	}
}

// TestFindingsHealthy: error lines alone raise no issue; no logs/ leaves
// the log figures out.
func TestFindingsHealthy(t *testing.T) {
	s := Summarize(Input{Logs: []LogFile{{Node: "validator01", Counts: []LogCount{{Kind: IssueError, Module: "p2p", Count: 3}}}}})
	if len(s.Issues) != 0 || s.Metrics["log_error_lines"] != 3 || s.Metrics["log_panics"] != 0 {
		t.Errorf("issues %v metrics %v", s.Issues, s.Metrics)
	}
	s = Summarize(Input{})
	if _, ok := s.Metrics["log_panics"]; ok {
		t.Error("log_panics without logs/")
	}
}

// FuzzScanLog: any bytes scan without a panic, every line is counted,
// quotes stay valid UTF-8 within their bound, and the counts add up to at
// most the lines.
func FuzzScanLog(f *testing.F) {
	for _, s := range []string{plainP2P, plainFailure, jsonFailure, jsonNoModule, goPanic + "\n\ngoroutine 1:\n", "level=error module=\"x", "{\"level\":\"err"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		lf, err := ScanLog(bytes.NewReader(data), "n", "f")
		if err != nil {
			t.Fatal(err)
		}
		if lf.Bytes < int64(len(data)) || lf.Bytes > int64(len(data))+1 {
			t.Errorf("bytes %d of %d", lf.Bytes, len(data))
		}
		var sum int64
		for _, c := range lf.Counts {
			sum += c.Count
			if !utf8.ValidString(c.First.Text) || len(c.First.Text) > maxQuote+len(" …") {
				t.Errorf("quote %q", c.First.Text)
			}
			if len(c.Trace) > maxTraceLines {
				t.Errorf("trace of %d lines", len(c.Trace))
			}
		}
		if sum > lf.Lines {
			t.Errorf("%d counted of %d lines", sum, lf.Lines)
		}
	})
}
