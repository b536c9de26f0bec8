//go:build ignore

// testtimes reads `go test -json` on stdin (.ci/run pipes the full lane
// through it): it prints each package's result and time as it ends and
// the output of every failed test, then the slowest packages and tests
// (a test's time without what it waited for the node lock, which
// testnettest.LockFile logs). It exits 1 when a test or package failed.
//
//	go test -json ./... | go run .ci/testtimes.go
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"sort"
	"strings"
	"time"
)

type event struct {
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

func main() {
	start := time.Now()
	var pkgs, tests []timing
	output := map[string][]string{} // a test's (or package's) output, until it passes
	waited := map[string]float64{}  // a test's wait for the node lock, s
	failed := 0
	sc := bufio.NewScanner(os.Stdin)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		line := sc.Bytes()
		var e event
		if len(line) == 0 || line[0] != '{' || json.Unmarshal(line, &e) != nil {
			fmt.Println(string(line)) // a build error or other non-JSON output
			continue
		}
		key := e.Package + " " + e.Test
		switch e.Action {
		case "output":
			output[key] = append(output[key], e.Output)
			if _, rest, ok := strings.Cut(e.Output, ": waited "); ok && strings.Contains(rest, "cometlab-nodes.lock") {
				if d, err := time.ParseDuration(strings.Fields(rest)[0]); err == nil {
					waited[key] += d.Seconds()
				}
			}
		case "pass", "skip", "fail":
			if e.Action == "fail" {
				failed++
				fmt.Printf("--- FAIL %s\n%s", key, strings.Join(output[key], ""))
			}
			delete(output, key)
			short := strings.TrimPrefix(e.Package, "github.com/cometlab/cometlab/")
			if e.Test == "" {
				pkgs = append(pkgs, timing{short, e.Action, e.Elapsed})
				fmt.Printf("%-4s %-40s %7.1f s   (%s into the lane)\n", e.Action, short, e.Elapsed, time.Since(start).Round(time.Second))
			} else if !strings.Contains(e.Test, "/") {
				tests = append(tests, timing{short + " " + e.Test, e.Action, e.Elapsed - waited[key]})
			}
		}
	}
	if err := sc.Err(); err != nil {
		fmt.Fprintln(os.Stderr, "testtimes:", err)
		failed++
	}
	top := func(title string, ts []timing, n int) {
		sort.Slice(ts, func(i, j int) bool { return ts[i].elapsed > ts[j].elapsed })
		fmt.Printf("\n%s:\n", title)
		for _, t := range ts[:min(n, len(ts))] {
			fmt.Printf("  %7.1f s  %-4s %s\n", t.elapsed, t.action, t.name)
		}
	}
	top("slowest packages", pkgs, 10)
	top("slowest tests (without their wait for the node lock)", tests, 20)
	fmt.Printf("\n%d packages, %d tests, %d failures, %s\n", len(pkgs), len(tests), failed, time.Since(start).Round(time.Second))
	if failed > 0 {
		os.Exit(1)
	}
}
