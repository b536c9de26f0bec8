package main

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/cometlab/cometlab/internal/exitcode"
	"github.com/cometlab/cometlab/internal/history"
	"github.com/cometlab/cometlab/internal/report"
	"github.com/cometlab/cometlab/internal/results"
	"github.com/cometlab/cometlab/internal/results/resultstest"
	"github.com/cometlab/cometlab/internal/testnet/testnettest"
)

// screenshotDir is where TestServeInBrowser leaves its screenshots: CI
// keeps .ci/out as the job's artefacts.
const screenshotDir = "../../.ci/out/screenshots"

// TestServeInBrowser drives cometlab serve in a real browser (headless
// Chromium, Debian's package) over an index of real runs: twelve copies of
// the recorded run testdata/runs/small reported again (a new release every
// four; the committed rate in summary.json stepped down 10 % from the
// seventh, so that the series has a change point), the recorded QA-sized
// run, and one real run made here. It opens the runs list, filters it,
// opens a run and its report, follows a key figure to its trend, compares
// two runs checked on the list, and opens the change points and the QA
// page, writing a screenshot of each into .ci/out/screenshots; it fails if
// any page logs a console error or throws.
func TestServeInBrowser(t *testing.T) {
	if testing.Short() {
		t.Skip("starts Chromium and a testnet")
	}
	browser := findChromium(t)
	root := t.TempDir()
	runs := filepath.Join(root, "runs")
	t.Setenv(history.Env, filepath.Join(t.TempDir(), "history.db"))
	recordedRuns(t, runs)

	// The real run in a subtest of its own: it holds the node lock until it
	// ends, not while Chromium starts and browses.
	live := filepath.Join(runs, "live")
	t.Run("real run", func(t *testing.T) {
		t.Setenv(report.PlotSizeEnv, screenshotPlots)
		testnettest.LockForTest(t)
		if code, out, errs := run(t, "run", "-T", "5s", "-r", "50", "--out", live); code != exitcode.OK {
			t.Fatalf("run: exit %d\n%s\n%s", code, out, errs)
		}
	})
	if t.Failed() {
		t.FailNow()
	}

	base, stop := startServe(t, runs)
	defer stop()
	ctx, cancel := browserContext(t, browser)
	defer cancel()
	console := watchConsole(t, ctx)

	shot := screenshots(t, ctx)
	rows := func() int {
		n, err := chromedp.Run(ctx, chromedp.Evaluate[int](`document.querySelectorAll('#runs tbody tr').length`))
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	do := func(what string, actions ...chromedp.Action[chromedp.Void]) {
		t.Helper()
		start := time.Now()
		sctx, cancel := context.WithTimeout(ctx, 30*time.Second)
		defer cancel()
		if err := chromedp.Do(sctx, actions...); err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		t.Logf("%s: %s", what, time.Since(start).Round(time.Millisecond))
	}

	// The runs list, then filtered by the form.
	do("open the runs list", chromedp.Navigate(base+"/runs"), chromedp.WaitVisible(chromedp.CSS("#runs")))
	if n := rows(); n != 14 {
		t.Errorf("runs list: %d rows, want 14", n)
	}
	shot("01-runs")
	do("filter", chromedp.SendKeys(chromedp.CSS(`#filters input[name=release]`), "v0.38"),
		chromedp.SetValue(chromedp.CSS(`#filters select[name=status]`), "complete"),
		chromedp.Click(chromedp.CSS(`#filters button[type=submit]`)))
	waitLocation(t, ctx, "release=v0.38")
	do("filtered", chromedp.WaitVisible(chromedp.CSS("#runs")))
	if n := rows(); n != 8 {
		t.Errorf("filtered by release v0.38: %d rows, want 8", n)
	}
	shot("02-runs-filtered")

	// A run: its key figures and its report, then a key figure's trend.
	do("open a run", chromedp.Click(chromedp.CSS(`#runs a.run-link`)), chromedp.WaitVisible(chromedp.CSS("#key-figures")))
	do("its report", reportLoaded()...)
	shot("03-run")
	do("open its trend", chromedp.Click(chromedp.CSS(`#key-figures a.card[title^="committed_tps:"]`)), chromedp.WaitVisible(chromedp.CSS("#plot svg")))
	points, err := chromedp.Run(ctx, chromedp.Evaluate[[]int](`[document.querySelectorAll('#plot circle.point').length,
		document.querySelectorAll('#plot line.change').length, document.querySelectorAll('#plot text.release').length]`))
	if err != nil || len(points) != 3 || points[0] != 12 || points[1] != 1 || points[2] != 3 {
		t.Errorf("trend: %v points, change lines, release tags (want 12, 1, 3): %v", points, err)
	}
	shot("04-trend")

	// Two runs checked on the list, compared.
	do("check two runs", chromedp.Navigate(base+"/runs?kind=run&release=v0.40.0&status=complete"), chromedp.WaitVisible(chromedp.CSS("#runs")),
		chromedp.Click(chromedp.CSS(fmt.Sprintf(`input[name=run][value=%q]`, live))),
		chromedp.Click(chromedp.CSS(fmt.Sprintf(`input[name=run][value=%q]`, filepath.Join(runs, "qa")))),
		chromedp.Click(chromedp.CSS(`#pick button[type=submit]`)), chromedp.WaitVisible(chromedp.CSS("#verdict")))
	shot("05-compare")

	do("open the change points", chromedp.Navigate(base+"/changes"), chromedp.WaitVisible(chromedp.CSS("#changes")))
	shot("06-changes")
	do("open the QA reports", chromedp.Navigate(base+"/qa"), chromedp.WaitVisible(chromedp.CSS("#no-qa")))
	shot("07-qa")
	do("open the real run", chromedp.Navigate(base+"/run?dir="+url.QueryEscape(live)), chromedp.WaitVisible(chromedp.CSS("#key-figures")))
	do("its report", reportLoaded()...)
	shot("08-real-run")

	for _, m := range console() {
		t.Errorf("console %s: %s (%s:%d)", m.Type, m.Text, m.URL, m.Line)
	}
}

// reportLoaded waits until the run page's report (its iframe) has
// loaded, then lets the browser paint it for the screenshot.
func reportLoaded() []chromedp.Action[chromedp.Void] {
	return []chromedp.Action[chromedp.Void]{
		chromedp.Poll[chromedp.Void](`performance.getEntriesByType('resource').some(e => e.initiatorType === 'iframe' && e.responseEnd > 0)`),
		chromedp.Sleep(500 * time.Millisecond),
	}
}

// waitLocation waits until the page's address has part in it: a form
// submitted or a link followed has navigated (an evaluation under way
// fails while the page navigates, and is asked again).
func waitLocation(t *testing.T, ctx context.Context, part string) {
	t.Helper()
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		loc, err := chromedp.Run(ctx, chromedp.Location())
		if err == nil && strings.Contains(loc, part) {
			return
		}
	}
	t.Fatalf("the page did not go to an address with %q", part)
}

// findChromium is the Chromium (or Chrome) on PATH: a missing one skips,
// or fails under CI=true (.ci/run installs Debian's chromium).
func findChromium(t *testing.T) string {
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "headless-shell"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	testnettest.Prereq(t, "no chromium on PATH (apt-get install chromium)")
	return ""
}

// screenshotPlots is the plot size (report.PlotSizeEnv) of the reports
// TestServeInBrowser shows in its screenshots; the other reports are
// drawn at 200×100, as in every other test (under -race a report at
// 720×320 costs several seconds of CPU, at 200×100 about one).
const screenshotPlots = "720x320"

// openedRun is the recorded run the test opens from the runs list
// filtered by release v0.38 (the list is newest first): its report is
// drawn at screenshotPlots.
const openedRun = 7

// recordedRuns copies the recorded runs under dir and reports each again
// (summary.json, report.html, plots): twelve of testdata/runs/small, r00 …
// r11, one a day, a new release every four, the committed rate stepped
// down 10 % from r06; and testdata/runs/qa as qa.
func recordedRuns(t *testing.T, dir string) {
	for i := range 12 {
		size := "200x100"
		if i == openedRun {
			size = screenshotPlots
		}
		t.Setenv(report.PlotSizeEnv, size)
		rel := []string{"v0.38.26", "v0.38.27", "v0.40.0"}[i/4]
		d := filepath.Join(dir, fmt.Sprintf("r%02d", i))
		start := time.Date(2026, 11, 1+i, 10, 0, 0, 0, time.UTC)
		copyRun(t, filepath.Join("..", "..", "testdata", "runs", "small"), d, func(s string) string {
			s = strings.ReplaceAll(s, `"v0.38.26"`, `"`+rel+`"`)
			s = regexp.MustCompile(`"id": "[^"]*"`).ReplaceAllString(s, fmt.Sprintf(`"id": "recorded-%02d"`, i))
			s = regexp.MustCompile(`"started": "[^"]*"`).ReplaceAllString(s, `"started": "`+start.Format(time.RFC3339)+`"`)
			return regexp.MustCompile(`"ended": "[^"]*"`).ReplaceAllString(s, `"ended": "`+start.Add(time.Minute).Format(time.RFC3339)+`"`)
		})
		if code, out, errs := run(t, "report", d); code != exitcode.OK {
			t.Fatalf("report %s: exit %d\n%s%s", d, code, out, errs)
		}
		var sum map[string]any
		if err := results.ReadJSON(filepath.Join(d, results.SummaryFile), &sum); err != nil {
			t.Fatal(err)
		}
		tps := []float64{200, 201, 199, 200.5, 199.5, 200, 180, 181, 179, 180.5, 179.5, 180}[i]
		sum["metrics"].(map[string]any)["committed_tps"] = tps / 200 * sum["metrics"].(map[string]any)["committed_tps"].(float64)
		if err := results.WriteJSON(filepath.Join(d, results.SummaryFile), sum); err != nil {
			t.Fatal(err)
		}
	}
	qa := filepath.Join(dir, "qa")
	copyRun(t, filepath.Join("..", "..", "testdata", "runs", "qa"), qa, nil)
	if code, out, errs := run(t, "report", qa); code != exitcode.OK {
		t.Fatalf("report %s: exit %d\n%s%s", qa, code, out, errs)
	}
}

// copyRun copies the run directory src to dst, run.json edited by edit
// (nil: as it is).
func copyRun(t *testing.T, src, dst string, edit func(string) string) {
	entries, err := os.ReadDir(src)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join(src, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if e.Name() == results.RunFile && edit != nil {
			b = []byte(edit(string(b)))
		}
		resultstest.WriteFile(t, filepath.Join(dst, e.Name()), b)
	}
}

// startServe runs cometlab serve --root runs on a free loopback port and
// returns its address and a function that stops it (Ctrl-C) and checks
// that it ended well.
func startServe(t *testing.T, runs string) (string, func()) {
	ctx, cancel := context.WithCancel(context.Background())
	var out, errs syncBuffer
	done := make(chan int, 1)
	go func() {
		done <- execute(ctx, &state{stdout: &out, stderr: &errs, args: []string{"serve", "--root", runs, "--listen", "127.0.0.1:0"}, hard: context.Background()})
	}()
	addr := regexp.MustCompile(`http://127\.0\.0\.1:\d+`)
	for deadline := time.Now().Add(time.Minute); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if a := addr.FindString(out.String()); a != "" {
			return a, func() {
				cancel()
				if code := <-done; code != exitcode.OK {
					t.Errorf("serve: exit %d\n%s%s", code, out.String(), errs.String())
				}
			}
		}
	}
	cancel()
	t.Fatalf("serve did not start:\n%s%s", out.String(), errs.String())
	return "", nil
}

// browserContext starts headless Chromium (without its sandbox as root,
// which it refuses otherwise) in a window of 1400 × 1000.
func browserContext(t *testing.T, path string) (context.Context, context.CancelFunc) {
	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(path), chromedp.WindowSize(1400, 1000),
		chromedp.Flag("disable-gpu", true), chromedp.Flag("hide-scrollbars", true))
	if os.Geteuid() == 0 {
		opts = append(opts, chromedp.NoSandbox)
	}
	actx, acancel := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancel := chromedp.NewContext(actx, chromedp.WithLogf(t.Logf))
	tctx, tcancel := context.WithTimeout(ctx, 3*time.Minute)
	if err := chromedp.Do(tctx, chromedp.Navigate("about:blank")); err != nil {
		tcancel()
		cancel()
		acancel()
		t.Fatalf("start %s: %v", path, err)
	}
	return tctx, func() { tcancel(); cancel(); acancel() }
}

// watchConsole collects the errors of the pages' consoles: calls of
// console.error, uncaught exceptions, and error entries of the browser's
// log (a resource that failed to load, a refused policy). It checks first
// that it sees one, and returns what it collected since.
func watchConsole(t *testing.T, ctx context.Context) func() []chromedp.ConsoleMessage {
	var (
		mu   sync.Mutex
		msgs []chromedp.ConsoleMessage
	)
	stream := chromedp.Console(ctx)
	go func() {
		for m, err := range stream {
			if err != nil {
				return
			}
			if m.Type == chromedp.ConsoleError || m.IsException() {
				mu.Lock()
				msgs = append(msgs, m)
				mu.Unlock()
			}
		}
	}()
	if err := chromedp.Do(ctx, chromedp.Evaluate[chromedp.Void](`console.error("cometlab: the console watch's own test")`)); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		mu.Lock()
		n := len(msgs)
		if n > 0 {
			msgs = nil
		}
		mu.Unlock()
		if n > 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the console watch does not see console.error")
		}
	}
	return func() []chromedp.ConsoleMessage {
		time.Sleep(200 * time.Millisecond) // the last page's messages on their way
		mu.Lock()
		defer mu.Unlock()
		return msgs
	}
}

// screenshots returns a function that writes the page in view as
// screenshotDir/NAME.png, the whole page.
func screenshots(t *testing.T, ctx context.Context) func(name string) {
	if err := os.MkdirAll(screenshotDir, 0o755); err != nil {
		t.Fatal(err)
	}
	return func(name string) {
		t.Helper()
		b, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
		if err != nil {
			t.Fatalf("screenshot %s: %v", name, err)
		}
		path := filepath.Join(screenshotDir, name+".png")
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
		abs, _ := filepath.Abs(path)
		t.Logf("screenshot %s", abs)
	}
}
