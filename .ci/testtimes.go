// testtimes reads `go test -json` on stdin (.ci/run pipes the full lane
// through it): it prints each package's result and time as it ends and
// the output of every failed test, then the slowest packages and tests
// (a test's time without what it waited for the node lock, which
// testnettest.LockFile logs), then the skipped tests of each package with
// their reasons. It exits 1 when a test or package failed, when a test
// skipped that allowedSkips does not name (the full lane runs without
// -short, so a skip is a test that did not run: CI must not pass it), or
// when no test ran at all.
//
//	go test -json ./... | go run .ci/testtimes.go
//
// Its test (go test ./.ci/, which .ci/run runs first) feeds it fixtures;
// ./... patterns leave .ci out.
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"slices"
	"sort"
	"strings"
	"time"
)

// allowedSkips names the tests of the full lane that may skip there
// ("package Test", the package without the module path; their subtests
// may skip too), each with why. Keep it short: every other skip fails CI.
func allowedSkips() map[string]string {
	return map[string]string{
		"internal/report TestBenchRun": "writes bench/report.sh's run directory, only when given -benchdir",
	}
}

// modulePrefix is cut from package paths in what testtimes prints.
const modulePrefix = "github.com/cometlab/cometlab/"

type event struct {
	Time    time.Time // when go test emitted it; zero in a stream without times
	Action  string
	Package string
	Test    string
	Elapsed float64
	Output  string
}

type timing struct {
	name    string
	action  string
	elapsed float64
}

// skip is one skipped test (or subtest) and what it said.
type skip struct {
	test, reason string
	allowed      bool
}

// lane is what testtimes gathered of a lane's events so far.
type lane struct {
	pkgs, tests []timing
	output      map[string][]string // a test's (or package's) output, until it ends
	waited      map[string]float64  // a test's wait for the node lock, s
	skips       map[string][]skip   // by package (short)
	failed      int
}

func main() {
	os.Exit(tally(os.Stdin, os.Stdout, allowedSkips(), time.Now()))
}

// tally reads `go test -json` from r, writes the per-package lines as
// packages end and then the summary to w, and returns the exit code: 1
// when a test or package failed, a test skipped that allowed does not
// name, or no test ran; else 0.
func tally(r io.Reader, w io.Writer, allowed map[string]string, start time.Time) int {
	l := &lane{output: map[string][]string{}, waited: map[string]float64{}, skips: map[string][]skip{}}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		line := sc.Bytes()
		var e event
		if len(line) == 0 || line[0] != '{' || json.Unmarshal(line, &e) != nil {
			fmt.Fprintln(w, string(line)) // a build error or other non-JSON output
			continue
		}
		l.event(w, e, allowed, start)
	}
	if err := sc.Err(); err != nil {
		fmt.Fprintln(w, "testtimes:", err)
		l.failed++
	}
	top := func(title string, ts []timing, n int) {
		sort.SliceStable(ts, func(i, j int) bool { return ts[i].elapsed > ts[j].elapsed })
		fmt.Fprintf(w, "\n%s:\n", title)
		for _, t := range ts[:min(n, len(ts))] {
			fmt.Fprintf(w, "  %7.1f s  %-4s %s\n", t.elapsed, t.action, t.name)
		}
	}
	top("slowest packages", l.pkgs, 10)
	top("slowest tests (without their wait for the node lock)", l.tests, 20)
	skipped, unexpected := l.printSkips(w)
	fmt.Fprintf(w, "\n%d packages, %d tests, %d failures, %d skipped (%d not allowed), %s\n",
		len(l.pkgs), len(l.tests), l.failed, skipped, unexpected, time.Since(start).Round(time.Second))
	switch {
	case l.failed > 0:
		return 1
	case unexpected > 0:
		fmt.Fprintln(w, "FAIL: tests skipped in the full lane (a missing prerequisite? see above; allowedSkips in .ci/testtimes.go names the few that may)")
		return 1
	case len(l.tests) == 0:
		fmt.Fprintln(w, "FAIL: no test ran")
		return 1
	}
	return 0
}

// event takes one event of the stream.
func (l *lane) event(w io.Writer, e event, allowed map[string]string, start time.Time) {
	key := e.Package + " " + e.Test
	short := strings.TrimPrefix(e.Package, modulePrefix)
	switch e.Action {
	case "output":
		l.output[key] = append(l.output[key], e.Output)
		if _, rest, ok := strings.Cut(e.Output, ": waited "); ok && strings.Contains(rest, "cometlab-nodes.lock") {
			if d, err := time.ParseDuration(strings.Fields(rest)[0]); err == nil {
				l.waited[key] += d.Seconds()
			}
		}
	case "pass", "skip", "fail":
		switch {
		case e.Action == "fail":
			l.failed++
			fmt.Fprintf(w, "--- FAIL %s\n%s", key, strings.Join(l.output[key], ""))
		case e.Action == "skip" && e.Test != "": // a package "skip" is one without test files
			top, _, _ := strings.Cut(e.Test, "/")
			_, ok := allowed[short+" "+top]
			l.skips[short] = append(l.skips[short], skip{e.Test, skipReason(l.output[key]), ok})
		}
		delete(l.output, key)
		if e.Test == "" {
			l.pkgs = append(l.pkgs, timing{short, e.Action, e.Elapsed})
			// The event's own time: a stream of the lane's second go test,
			// run beside the first and read after it, says when each of its
			// packages ended.
			at := time.Since(start)
			if !e.Time.IsZero() {
				at = e.Time.Sub(start)
			}
			fmt.Fprintf(w, "%-4s %-40s %7.1f s   (%s into the lane)\n", e.Action, short, e.Elapsed, at.Round(time.Second))
		} else if !strings.Contains(e.Test, "/") {
			l.tests = append(l.tests, timing{short + " " + e.Test, e.Action, e.Elapsed - l.waited[key]})
		}
	}
}

// skipReason is what a skipped test said: its output without go test's
// own "=== RUN" and "--- SKIP" lines, on one line.
func skipReason(out []string) string {
	var said []string
	for _, o := range out {
		o = strings.TrimSpace(o)
		if o != "" && !strings.HasPrefix(o, "=== ") && !strings.HasPrefix(o, "--- SKIP") {
			said = append(said, o)
		}
	}
	return strings.Join(said, " / ")
}

// printSkips writes the skipped tests by package (allowed ones marked so)
// and returns how many skipped and how many of them allowedSkips does not
// name.
func (l *lane) printSkips(w io.Writer) (skipped, unexpected int) {
	pkgs := make([]string, 0, len(l.skips))
	for p := range l.skips {
		pkgs = append(pkgs, p)
	}
	slices.Sort(pkgs)
	if len(pkgs) > 0 {
		fmt.Fprintln(w, "\nskipped tests:")
	}
	for _, p := range pkgs {
		fmt.Fprintf(w, "  %s: %d skipped\n", p, len(l.skips[p]))
		for _, s := range l.skips[p] {
			skipped++
			mark := "allowed"
			if !s.allowed {
				mark, unexpected = "NOT ALLOWED", unexpected+1
			}
			fmt.Fprintf(w, "    %-11s %s: %s\n", mark, s.test, s.reason)
		}
	}
	return skipped, unexpected
}
