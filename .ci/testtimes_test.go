package main

import (
	"bytes"
	"strings"
	"testing"
	"time"
)

// lines is a stream of `go test -json` events, one package's worth of
// each kind (a passing test, a test that waited for the node lock, a
// failed one, skipped ones, a package without test files), to be picked
// from by name.
var lines = map[string]string{
	"pass": `{"Action":"run","Package":"github.com/cometlab/cometlab/internal/a","Test":"TestA"}
{"Action":"output","Package":"github.com/cometlab/cometlab/internal/a","Test":"TestA","Output":"=== RUN   TestA\n"}
{"Action":"output","Package":"github.com/cometlab/cometlab/internal/a","Test":"TestA","Output":"    lock.go:40: waited 2.5s for /tmp/cometlab-nodes.lock\n"}
{"Action":"pass","Package":"github.com/cometlab/cometlab/internal/a","Test":"TestA","Elapsed":3.5}
{"Action":"pass","Package":"github.com/cometlab/cometlab/internal/a","Elapsed":4}`,
	"fail": `{"Action":"run","Package":"github.com/cometlab/cometlab/internal/b","Test":"TestB"}
{"Action":"output","Package":"github.com/cometlab/cometlab/internal/b","Test":"TestB","Output":"    b_test.go:9: want 1, got 2\n"}
{"Action":"fail","Package":"github.com/cometlab/cometlab/internal/b","Test":"TestB","Elapsed":0.1}
{"Action":"fail","Package":"github.com/cometlab/cometlab/internal/b","Elapsed":0.2}`,
	"skip": `{"Action":"run","Package":"github.com/cometlab/cometlab/internal/collect","Test":"TestProm"}
{"Action":"output","Package":"github.com/cometlab/cometlab/internal/collect","Test":"TestProm","Output":"=== RUN   TestProm\n"}
{"Action":"output","Package":"github.com/cometlab/cometlab/internal/collect","Test":"TestProm","Output":"    prom_test.go:41: COMETLAB_PROMETHEUS is not set\n"}
{"Action":"output","Package":"github.com/cometlab/cometlab/internal/collect","Test":"TestProm","Output":"--- SKIP: TestProm (0.00s)\n"}
{"Action":"skip","Package":"github.com/cometlab/cometlab/internal/collect","Test":"TestProm","Elapsed":0}
{"Action":"pass","Package":"github.com/cometlab/cometlab/internal/collect","Elapsed":1}`,
	"subskip": `{"Action":"run","Package":"github.com/cometlab/cometlab/internal/shape","Test":"FuzzS/seed#1"}
{"Action":"skip","Package":"github.com/cometlab/cometlab/internal/shape","Test":"FuzzS/seed#1","Elapsed":0}
{"Action":"pass","Package":"github.com/cometlab/cometlab/internal/shape","Test":"FuzzS","Elapsed":0}
{"Action":"pass","Package":"github.com/cometlab/cometlab/internal/shape","Elapsed":1}`,
	"allowed": `{"Action":"run","Package":"github.com/cometlab/cometlab/internal/report","Test":"TestBenchRun"}
{"Action":"output","Package":"github.com/cometlab/cometlab/internal/report","Test":"TestBenchRun","Output":"    bench_test.go:106: generates the benchmark run into -benchdir\n"}
{"Action":"skip","Package":"github.com/cometlab/cometlab/internal/report","Test":"TestBenchRun","Elapsed":0}
{"Action":"pass","Package":"github.com/cometlab/cometlab/internal/report","Elapsed":1}`,
	"notests": `{"Action":"start","Package":"github.com/cometlab/cometlab/internal/doc"}
{"Action":"output","Package":"github.com/cometlab/cometlab/internal/doc","Output":"?   \tgithub.com/cometlab/cometlab/internal/doc\t[no test files]\n"}
{"Action":"skip","Package":"github.com/cometlab/cometlab/internal/doc","Elapsed":0}`,
	"builderror": `# github.com/cometlab/cometlab/internal/c
internal/c/c.go:3:1: syntax error
{"Action":"fail","Package":"github.com/cometlab/cometlab/internal/c","Elapsed":0,"FailedBuild":"github.com/cometlab/cometlab/internal/c"}`,
}

// TestTally: a failed test or package, a build error, a skip that
// allowedSkips does not name (a subtest's too) or a lane without a test
// fail the lane; an allowed skip and a package without test files do not.
// Skips are listed by package with what the test said.
func TestTally(t *testing.T) {
	for _, c := range []struct {
		name  string
		parts []string
		code  int
		want  []string // in the output
	}{
		{"passes", []string{"pass", "notests"}, 0, []string{"2 packages, 1 tests, 0 failures, 0 skipped (0 not allowed)", "1.0 s  pass internal/a TestA"}},
		{"a failure", []string{"pass", "fail"}, 1, []string{"--- FAIL github.com/cometlab/cometlab/internal/b TestB\n    b_test.go:9: want 1, got 2", "2 failures"}},
		{"a build error", []string{"pass", "builderror"}, 1, []string{"internal/c/c.go:3:1: syntax error", "1 failures"}},
		{"a skip", []string{"pass", "skip"}, 1, []string{"internal/collect: 1 skipped", "NOT ALLOWED TestProm: prom_test.go:41: COMETLAB_PROMETHEUS is not set", "1 skipped (1 not allowed)", "FAIL: tests skipped"}},
		{"a subtest's skip", []string{"pass", "subskip"}, 1, []string{"NOT ALLOWED FuzzS/seed#1", "1 skipped (1 not allowed)"}},
		{"an allowed skip", []string{"pass", "allowed"}, 0, []string{"internal/report: 1 skipped", "allowed     TestBenchRun: bench_test.go:106: generates the benchmark run into -benchdir", "1 skipped (0 not allowed)"}},
		{"no test", []string{"notests"}, 1, []string{"FAIL: no test ran"}},
		{"nothing", nil, 1, []string{"FAIL: no test ran"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			var in []string
			for _, p := range c.parts {
				in = append(in, lines[p])
			}
			var out bytes.Buffer
			code := tally(strings.NewReader(strings.Join(in, "\n")), &out, allowedSkips(), time.Now())
			if code != c.code {
				t.Errorf("exit %d, want %d", code, c.code)
			}
			for _, w := range c.want {
				if !strings.Contains(out.String(), w) {
					t.Errorf("output lacks %q:\n%s", w, out.String())
				}
			}
		})
	}
}

// TestAllowedSkips: every allowed skip says why.
func TestAllowedSkips(t *testing.T) {
	for name, why := range allowedSkips() {
		if len(strings.Fields(name)) != 2 || !strings.HasPrefix(strings.Fields(name)[1], "Test") || why == "" {
			t.Errorf("allowedSkips: %q: %q, want \"package TestName\": why", name, why)
		}
	}
}
