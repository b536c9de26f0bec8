package web

import (
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/cometlab/cometlab/internal/results/resultstest"
)

// secret is the content of every file outside the indexed directories in
// the trees of these tests: a response that holds it is a leak.
const secret = "SECRET outside the indexed directories"

// escapeTree makes, under root: an indexed run directory in/run (and its
// indexed cell in/run/cell) whose files say "inside", with symlinks out of
// it (to a file, to a directory, to /etc) and within it; files outside
// it with the secret: beside it (in/notes.txt, in a directory the index
// does not hold), above it, and in a sibling whose name extends it
// (in/run2). It returns the indexed directories.
func escapeTree(t testing.TB, root string) []string {
	t.Helper()
	run, cell := filepath.Join(root, "in", "run"), filepath.Join(root, "in", "run", "cell")
	for _, f := range []string{"report.html", "plots/latency.png", "cell/report.html", "sub/deep/file.csv"} {
		resultstest.WriteFile(t, filepath.Join(run, f), []byte("inside "+f))
	}
	for _, f := range []string{"secret.txt", "in/notes.txt", "in/run2/report.html", "outside/x.txt", "in/run.txt"} {
		resultstest.WriteFile(t, filepath.Join(root, f), []byte(secret))
	}
	links := map[string]string{
		"out-file": "../../secret.txt", "out-dir": "../../outside", "out-abs": filepath.Join(root, "secret.txt"),
		"etc": "/etc", "in-file": "report.html", "in-dir": "plots", "loop": "loop", "cell/up": "../../notes.txt",
	}
	for name, target := range links {
		if err := os.Symlink(target, filepath.Join(run, name)); err != nil {
			t.Fatal(err)
		}
	}
	return []string{run, cell}
}

// indexedOf is the indexed predicate of a fixed set of directories.
func indexedOf(dirs []string) func(string) (bool, error) {
	return func(d string) (bool, error) {
		for _, x := range dirs {
			if d == x {
				return true, nil
			}
		}
		return false, nil
	}
}

// TestOpenFile: what a /file/ request may and may not open.
func TestOpenFile(t *testing.T) {
	root := t.TempDir()
	dirs := escapeTree(t, root)
	rel := strings.TrimPrefix(root, "/")
	for _, c := range []struct {
		req  string
		want string // the file's content; "" for refused
	}{
		{rel + "/in/run/report.html", "inside report.html"},
		{rel + "/in/run/plots/latency.png", "inside plots/latency.png"},
		{rel + "/in/run/sub/deep/file.csv", "inside sub/deep/file.csv"},
		{rel + "/in/run/cell/report.html", "inside cell/report.html"},
		{rel + "/in/run/in-file", "inside report.html"},
		{rel + "/in/run/in-dir/latency.png", "inside plots/latency.png"},
		{rel + "/in/run/out-file", ""},
		{rel + "/in/run/out-dir/x.txt", ""},
		{rel + "/in/run/out-abs", ""},
		{rel + "/in/run/etc/passwd", ""},
		{rel + "/in/run/loop", ""},
		{rel + "/in/run/cell/up", ""},
		{rel + "/in/run", ""},
		{rel + "/in/run/", ""},
		{rel + "/in/run/plots", ""},
		{rel + "/in/run/../notes.txt", ""},
		{rel + "/in/run/./report.html", ""},
		{rel + "/in/run//report.html", ""},
		{rel + "/in/run/..", ""},
		{rel + "/in/notes.txt", ""},
		{rel + "/in/run.txt", ""},
		{rel + "/in/run2/report.html", ""},
		{rel + "/secret.txt", ""},
		{"/" + rel + "/in/run/report.html", ""},
		{rel + `/in/run\..\..\secret.txt`, ""},
		{rel + "/in/run/report.html\x00", ""},
		{"etc/passwd", ""},
		{"", ""},
	} {
		f, _, err := openFile(c.req, indexedOf(dirs))
		got := ""
		if err == nil {
			b, _ := io.ReadAll(f)
			f.Close()
			got = string(b)
		}
		if got != c.want {
			t.Errorf("%q: got %q (%v), want %q", c.req, got, err, c.want)
		}
	}
}

// FuzzOpenFile: whatever the request, a file opened is a regular file
// inside an indexed directory (its real path under the directory's real
// path), never one with the secret.
func FuzzOpenFile(f *testing.F) {
	root := f.TempDir()
	dirs := escapeTree(f, root)
	rel := strings.TrimPrefix(root, "/")
	for _, s := range []string{"in/run/report.html", "in/run/out-file", "in/run/../../secret.txt", "in/run/out-dir/x.txt",
		"in/run/cell/up", "in/run/in-dir/latency.png", "in/run%2f..%2fnotes.txt", "in/run/etc/passwd", "in/run2/report.html",
		"../../../../etc/passwd", "in/run/./././report.html", "in/run/loop/loop"} {
		f.Add(s)
	}
	realDirs := make([]string, len(dirs))
	for i, d := range dirs {
		r, err := filepath.EvalSymlinks(d)
		if err != nil {
			f.Fatal(err)
		}
		realDirs[i] = r
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, req := range []string{s, rel + "/" + s} {
			file, fi, err := openFile(req, indexedOf(dirs))
			if err != nil {
				continue
			}
			b, rerr := io.ReadAll(file)
			real, lerr := os.Readlink("/proc/self/fd/" + strconv.FormatUint(uint64(file.Fd()), 10))
			file.Close()
			if rerr != nil || lerr != nil {
				t.Fatalf("%q: read %v, readlink %v", req, rerr, lerr)
			}
			if !fi.Mode().IsRegular() || strings.Contains(string(b), secret) {
				t.Fatalf("%q opened %s (%s): %q", req, real, fi.Mode(), b)
			}
			inside := false
			for _, d := range realDirs {
				inside = inside || strings.HasPrefix(real, d+string(filepath.Separator))
			}
			if !inside {
				t.Fatalf("%q opened %s, outside %v", req, real, realDirs)
			}
		}
	})
}

// TestFileRoute: /file/ over HTTP, with the index's directories; what the
// router and the encodings make of traversals, none reaching the secret.
func TestFileRoute(t *testing.T) {
	x, root := fixture(t)
	h := newHandler(t, x)
	resultstest.WriteFile(t, filepath.Join(root, "secret.txt"), []byte(secret))
	resultstest.WriteFile(t, filepath.Join(root, "runs", "notes.txt"), []byte(secret))
	if err := os.Symlink(filepath.Join(root, "secret.txt"), filepath.Join(root, "runs", "ra", "leak")); err != nil {
		t.Fatal(err)
	}
	ok := "/file" + root + "/runs/ra/report.html"
	if code, body := get(t, h, ok); code != http.StatusOK || !strings.Contains(body, "Run ra") {
		t.Fatalf("%s: %d %s", ok, code, body)
	}
	enc := strings.ReplaceAll(root, "/", "%2F")
	for _, target := range []string{
		"/file" + root + "/secret.txt",
		"/file" + root + "/runs/notes.txt",
		"/file" + root + "/runs/ra/leak",
		"/file" + root + "/runs/ra/../../secret.txt",
		"/file" + root + "/runs/ra/%2e%2e/%2e%2e/secret.txt",
		"/file" + root + "/runs/ra/..%2f..%2fsecret.txt",
		"/file" + root + "/runs/ra/%2E%2E%2F%2E%2E%2Fsecret.txt",
		"/file" + root + "/runs/ra/%252e%252e/%252e%252e/secret.txt",
		"/file" + root + "/runs/ra/..%5c..%5csecret.txt",
		"/file/" + enc + "%2Fsecret.txt",
		"/file//" + root + "/secret.txt",
		"/file" + root + "/history.db",
		"/file/etc/passwd",
		"/file" + root + "/runs/ra",
	} {
		code, body := get(t, h, target)
		if code == http.StatusOK || strings.Contains(body, secret) {
			t.Errorf("%s: %d %q", target, code, body)
		}
	}
}

// TestGuard: only loopback Hosts, only GET and HEAD.
func TestGuard(t *testing.T) {
	x, _ := fixture(t)
	h := newHandler(t, x)
	for _, c := range []struct {
		method, host string
		want         int
	}{
		{http.MethodGet, "127.0.0.1:8080", http.StatusOK},
		{http.MethodGet, "localhost:8080", http.StatusOK},
		{http.MethodGet, "[::1]:8080", http.StatusOK},
		{http.MethodHead, "127.0.0.1", http.StatusOK},
		{http.MethodGet, "evil.example:8080", http.StatusForbidden},
		{http.MethodGet, "10.0.0.1:8080", http.StatusForbidden},
		{http.MethodPost, "127.0.0.1:8080", http.StatusMethodNotAllowed},
		{http.MethodDelete, "127.0.0.1:8080", http.StatusMethodNotAllowed},
	} {
		req, _ := http.NewRequest(c.method, "http://"+c.host+"/runs", nil)
		w := httptest.NewRecorder()
		h.ServeHTTP(w, req)
		if w.Code != c.want {
			t.Errorf("%s %s: %d, want %d", c.method, c.host, w.Code, c.want)
		}
	}
}
