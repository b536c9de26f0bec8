package collect

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/cometlab/cometlab/internal/results"
	"github.com/cometlab/cometlab/internal/results/resultstest"
)

// statLine is a /proc/<pid>/stat line with the given comm, state, utime,
// stime, starttime and rss.
func statLine(comm string, state byte, utime, stime, start, rss uint64) string {
	// Fields 3…52; those not set here are plausible fillers.
	f := make([]string, 50)
	for i := range f {
		f[i] = "0"
	}
	f[0] = string([]byte{state})
	f[14-3], f[15-3], f[22-3], f[24-3] = fmt.Sprint(utime), fmt.Sprint(stime), fmt.Sprint(start), fmt.Sprint(rss)
	return fmt.Sprintf("4242 (%s) %s\n", comm, strings.Join(f, " "))
}

func TestParseProcStat(t *testing.T) {
	self, err := os.ReadFile("/proc/self/stat")
	if err != nil {
		t.Skip("no /proc:", err)
	}
	tests := []struct {
		name string
		in   string
		want procStat
		err  bool
	}{
		{name: "plain", in: statLine("cometbft", 'S', 120, 30, 999, 2048), want: procStat{'S', 150, 999, 2048}},
		{name: "comm with spaces and parens", in: statLine("a) (b c)", 'R', 1, 2, 3, 4), want: procStat{'R', 3, 3, 4}},
		{name: "zombie", in: statLine("x", 'Z', 0, 0, 5, 0), want: procStat{'Z', 0, 5, 0}},
		{name: "no paren", in: "4242 cometbft S 1 2 3", err: true},
		{name: "short", in: "4242 (x) S 1 2 3 4 5 6 7 8 9 10 11 12", err: true},
		{name: "bad utime", in: strings.Replace(statLine("x", 'S', 7, 0, 0, 0), " 7 ", " -7 ", 1), err: true},
		{name: "state not a letter", in: statLine("x", '3', 0, 0, 0, 0), err: true},
		{name: "bad state", in: "4242 (x) SS" + strings.TrimPrefix(statLine("x", 'S', 0, 0, 0, 0), "4242 (x) S"), err: true},
		{name: "empty", in: "", err: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := parseProcStat([]byte(tt.in))
			if (err != nil) != tt.err {
				t.Fatalf("err = %v, want error %v", err, tt.err)
			}
			if got != tt.want {
				t.Errorf("got %+v, want %+v", got, tt.want)
			}
		})
	}
	t.Run("self", func(t *testing.T) {
		got, err := parseProcStat(self)
		if err != nil || got.StartTime == 0 || got.RSSPages == 0 || got.State == 0 {
			t.Errorf("/proc/self/stat: %+v, %v", got, err)
		}
	})
}

func TestCPUPercent(t *testing.T) {
	tests := []struct {
		prev, cur uint64
		wall      time.Duration
		want      float64
	}{
		{0, 100, time.Second, 100},     // one core busy
		{100, 150, time.Second, 50},    // half a core
		{0, 400, 2 * time.Second, 200}, // two cores
		{10, 10, time.Second, 0},       // idle
		{50, 10, time.Second, 0},       // impossible: counters went back
		{0, 100, 0, 0},                 // no wall time
		{0, 25, 250 * time.Millisecond, 100},
	}
	for _, tt := range tests {
		if got := cpuPercent(tt.prev, tt.cur, tt.wall); math.Abs(got-tt.want) > 1e-9 {
			t.Errorf("cpuPercent(%d, %d, %s) = %v, want %v", tt.prev, tt.cur, tt.wall, got, tt.want)
		}
	}
}

func TestParseLoad1(t *testing.T) {
	for in, want := range map[string]float64{"0.52 0.58 0.59 1/467 12345\n": 0.52, "12.00 1 1 1/1 1": 12} {
		if got, err := parseLoad1([]byte(in)); err != nil || got != want {
			t.Errorf("parseLoad1(%q) = %v, %v", in, got, err)
		}
	}
	for _, in := range []string{"", "x 1 1"} {
		if _, err := parseLoad1([]byte(in)); err == nil {
			t.Errorf("parseLoad1(%q): no error", in)
		}
	}
}

// TestDirSize sums the lengths of regular files, nested, skipping
// symbolic links and directories themselves.
func TestDirSize(t *testing.T) {
	dir := t.TempDir()
	files := map[string]int{"a": 0, "b": 1, "sub/c": 1000, "sub/deeper/d.db": 12345, "e.log": 4096}
	want := int64(0)
	for name, n := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, make([]byte, n), 0o644); err != nil {
			t.Fatal(err)
		}
		want += int64(n)
	}
	if err := os.Symlink(filepath.Join(dir, "sub/deeper/d.db"), filepath.Join(dir, "link")); err != nil {
		t.Fatal(err)
	}
	if got, err := DirSize(dir); err != nil || got != want {
		t.Errorf("DirSize = %d, %v; want %d", got, err, want)
	}
	if got, err := DirSize(filepath.Join(dir, "missing")); err != nil || got != 0 {
		t.Errorf("DirSize(missing) = %d, %v; want 0", got, err)
	}
}

func TestDataWalkEvery(t *testing.T) {
	tests := []struct {
		cfg  ResourceConfig
		cost time.Duration
		want time.Duration
	}{
		{ResourceConfig{Interval: time.Second}, 100 * time.Microsecond, time.Second},
		{ResourceConfig{Interval: time.Second}, 10 * time.Millisecond, 100 * time.Second},
		{ResourceConfig{Interval: time.Second}, 1200 * time.Microsecond, 12 * time.Second},
		{ResourceConfig{Interval: time.Second}, 50 * time.Microsecond, time.Second},
		{ResourceConfig{Interval: time.Second, DataInterval: 3 * time.Second}, time.Hour, 3 * time.Second},
	}
	for _, tt := range tests {
		if got := dataWalkEvery(tt.cfg, tt.cost); got != tt.want {
			t.Errorf("dataWalkEvery(%+v, %s) = %s, want %s", tt.cfg, tt.cost, got, tt.want)
		}
	}
}

// fakeProc is a proc file system with one process.
type fakeProc struct {
	t   *testing.T
	dir string
	pid int
}

func (f *fakeProc) set(utime, start, rss uint64, fds int) {
	d := filepath.Join(f.dir, fmt.Sprint(f.pid))
	if err := os.RemoveAll(d); err != nil {
		f.t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(d, "fd"), 0o755); err != nil {
		f.t.Fatal(err)
	}
	for i := range fds {
		resultstest.WriteFile(f.t, filepath.Join(d, "fd", fmt.Sprint(i)), nil)
	}
	resultstest.WriteFile(f.t, filepath.Join(d, "stat"), []byte(statLine("cometbft", 'S', utime, 0, start, rss)))
}

// TestResourcesFake follows one process through a fake /proc: rows after
// the baseline, a gap when it is gone, a new baseline when the pid is
// reused by another process.
func TestResourcesFake(t *testing.T) {
	dir := t.TempDir()
	proc := &fakeProc{t: t, dir: dir, pid: 77}
	resultstest.WriteFile(t, filepath.Join(dir, "loadavg"), []byte("1.50 1.00 0.50 2/300 999\n"))
	data := t.TempDir()
	resultstest.WriteFile(t, filepath.Join(data, "blockstore.db"), make([]byte, 3000))
	out := t.TempDir()
	w, err := results.Create(filepath.Join(out, results.ResourceFile), results.ResourcesHeader)
	if err != nil {
		t.Fatal(err)
	}
	r := NewResources([]Proc{{Name: "validator01", PID: func() int { return proc.pid }, DataDir: data}},
		// The data directory walked at every sample: the adaptive default
		// waits 10,000 × the last walk's duration, which on a busy machine
		// is more than the fake clock's second (dataWalkEvery's own test).
		ResourceConfig{Interval: time.Second, DataInterval: time.Second, ProcDir: dir}, w, nil)
	t0 := time.Unix(1000, 0)
	page := int64(os.Getpagesize())

	proc.set(100, 5, 10, 3)
	r.sample(t0) // baseline
	proc.set(150, 5, 20, 4)
	r.sample(t0.Add(time.Second)) // 50 ticks in 1 s: 50 %
	if err := os.RemoveAll(filepath.Join(dir, "77")); err != nil {
		t.Fatal(err)
	}
	r.sample(t0.Add(2 * time.Second)) // gone: a gap
	proc.set(10, 6, 30, 5)
	r.sample(t0.Add(3 * time.Second)) // another process: baseline
	proc.set(210, 6, 30, 5)
	resultstest.WriteFile(t, filepath.Join(data, "more.log"), make([]byte, 500))
	r.sample(t0.Add(4 * time.Second)) // 200 ticks in 1 s: 200 %
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	rows, err := results.ReadResources(out)
	if err != nil {
		t.Fatal(err)
	}
	want := []results.Resource{
		{Time: t0.Add(time.Second).UnixNano(), Node: "validator01", CPU: 50, RSS: 20 * page, OpenFiles: 4, DataBytes: 3000, Load1: 1.5},
		{Time: t0.Add(4 * time.Second).UnixNano(), Node: "validator01", CPU: 200, RSS: 30 * page, OpenFiles: 5, DataBytes: 3500, Load1: 1.5},
	}
	if len(rows) != len(want) {
		t.Fatalf("rows %+v, want %+v", rows, want)
	}
	for i := range want {
		if rows[i] != want[i] {
			t.Errorf("row %d = %+v, want %+v", i, rows[i], want[i])
		}
	}
	st := r.Stats()
	if len(st) != 1 || st[0].Samples != 2 || st[0].Failures != 1 || !strings.Contains(st[0].LastError, "gone") {
		t.Errorf("stats %+v", st)
	}
}

// TestResourcesSelf samples the test process itself while it burns CPU:
// the CPU % must agree with what getrusage says of the same window (load
// from other processes may slow the burn, but not the agreement), and RSS
// and open files must be plausible.
func TestResourcesSelf(t *testing.T) {
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		t.Skip("no /proc")
	}
	out := t.TempDir()
	w, err := results.Create(filepath.Join(out, results.ResourceFile), results.ResourcesHeader)
	if err != nil {
		t.Fatal(err)
	}
	data := t.TempDir()
	resultstest.WriteFile(t, filepath.Join(data, "x"), make([]byte, 1234))
	r := NewResources([]Proc{{Name: "self", PID: os.Getpid, DataDir: data}}, ResourceConfig{}, w, nil)
	rusage := func() time.Duration {
		var ru syscall.Rusage
		syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
		return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	}
	t0 := time.Now()
	cpu0 := rusage()
	r.sample(t0)
	for time.Since(t0) < 200*time.Millisecond {
		// burn
	}
	t1 := time.Now()
	cpu1 := rusage()
	r.sample(t1)
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	rows, err := results.ReadResources(out)
	if err != nil || len(rows) != 1 {
		t.Fatalf("rows %+v, %v", rows, err)
	}
	got := rows[0]
	ref := float64(cpu1-cpu0) / float64(t1.Sub(t0)) * 100
	// /proc counts in 10 ms ticks: over 200 ms that is ±5 % per end.
	if math.Abs(got.CPU-ref) > 15 || got.CPU <= 0 || got.CPU > float64(100*runtime.NumCPU())+20 {
		t.Errorf("CPU %.1f %%, getrusage says %.1f %% over %s", got.CPU, ref, t1.Sub(t0))
	}
	if got.RSS < 1<<20 || got.RSS > 1<<34 {
		t.Errorf("RSS %d bytes", got.RSS)
	}
	if got.OpenFiles < 3 {
		t.Errorf("open files %d", got.OpenFiles)
	}
	if got.DataBytes != 1234 || got.Load1 < 0 {
		t.Errorf("data %d, load1 %v", got.DataBytes, got.Load1)
	}
}

// TestResourcesNotRunning: a node with no process is a failure, not a row.
func TestResourcesNotRunning(t *testing.T) {
	out := t.TempDir()
	w, err := results.Create(filepath.Join(out, results.ResourceFile), results.ResourcesHeader)
	if err != nil {
		t.Fatal(err)
	}
	r := NewResources([]Proc{{Name: "n", PID: func() int { return 0 }}}, ResourceConfig{}, w, nil)
	r.sample(time.Now())
	r.sample(time.Now())
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if st := r.Stats(); st[0].Failures != 2 || st[0].Samples != 0 {
		t.Errorf("stats %+v", st)
	}
}

// FuzzParseProcStat: never panics; what it accepts has a one-byte state
// and re-encodes to the same numbers.
func FuzzParseProcStat(f *testing.F) {
	f.Add([]byte(statLine("cometbft", 'S', 1, 2, 3, 4)))
	f.Add([]byte(statLine("a) (b", 'R', 0, 0, 0, 0)))
	if b, err := os.ReadFile("/proc/self/stat"); err == nil {
		f.Add(b)
	}
	f.Add([]byte("1 (x) S"))
	f.Fuzz(func(t *testing.T, b []byte) {
		s, err := parseProcStat(b)
		if err != nil {
			return
		}
		again, err := parseProcStat([]byte(statLine("x", s.State, s.CPUTicks, 0, s.StartTime, uint64(s.RSSPages))))
		if err != nil || again != s {
			t.Fatalf("%+v re-encoded as %+v, %v", s, again, err)
		}
	})
}

// BenchmarkDirSize walks a data directory shaped like a node's after a
// long run: 5 goleveldb stores of 60 table files each (~600 MB of index in
// 2 MB tables), plus the WAL.
func BenchmarkDirSize(b *testing.B) {
	dir := b.TempDir()
	for s := range 5 {
		d := filepath.Join(dir, fmt.Sprintf("store%d.db", s))
		for i := range 60 {
			resultstest.WriteFile(b, filepath.Join(d, fmt.Sprintf("%06d.ldb", i)), nil)
		}
		for _, f := range []string{"CURRENT", "LOCK", "LOG", "MANIFEST-000002"} {
			resultstest.WriteFile(b, filepath.Join(d, f), nil)
		}
	}
	resultstest.WriteFile(b, filepath.Join(dir, "cs.wal", "wal"), nil)
	for b.Loop() {
		if _, err := DirSize(dir); err != nil {
			b.Fatal(err)
		}
	}
}
