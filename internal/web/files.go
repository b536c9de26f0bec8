package web

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/cometlab/cometlab/internal/history"
)

// errRefused is a file request that names no file of an indexed
// directory: answered 404, whatever the reason, so that a request learns
// nothing of what lies outside.
var errRefused = errors.New("not a file of an indexed directory")

// splitRequest reads the path of a /file/ request (the absolute path of a
// file, without its first slash, slash-separated) and returns the indexed
// directory that holds it and the file's path inside it, slash-separated.
// indexed says whether a directory is in the index. Refused, lexically and
// before any file is touched: an empty path, a path that is not clean (a
// "." or ".." element, "//", a trailing slash), NUL and backslashes; a
// path under no indexed directory. The directory is the nearest indexed
// one above the file (a sweep's cell within its sweep).
func splitRequest(req string, indexed func(dir string) (bool, error)) (dir, rel string, err error) {
	if req == "" || strings.ContainsAny(req, "\x00\\") || strings.HasPrefix(req, "/") {
		return "", "", errRefused
	}
	p := "/" + req
	if path.Clean(p) != p {
		return "", "", errRefused
	}
	for d := path.Dir(p); d != "/"; d = path.Dir(d) {
		ok, err := indexed(filepath.FromSlash(d))
		if err != nil {
			return "", "", err
		}
		if ok {
			return filepath.FromSlash(d), strings.TrimPrefix(p, d+"/"), nil
		}
	}
	return "", "", errRefused
}

// openIn opens the regular file rel (slash-separated, clean, relative)
// inside dir through os.Root: a symlink that leads out of dir, at any
// step, is refused by the kernel's view of the path, not by a check made
// before the open.
func openIn(dir, rel string) (*os.File, fs.FileInfo, error) {
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, nil, errRefused
	}
	defer root.Close()
	f, err := root.Open(filepath.FromSlash(rel))
	if err != nil {
		return nil, nil, errRefused
	}
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() {
		f.Close()
		return nil, nil, errRefused
	}
	return f, fi, nil
}

// openFile is the file a /file/ request names, opened, when it is a
// regular file inside an indexed directory; errRefused otherwise.
func openFile(req string, indexed func(dir string) (bool, error)) (*os.File, fs.FileInfo, error) {
	dir, rel, err := splitRequest(req, indexed)
	if err != nil {
		return nil, nil, err
	}
	return openIn(dir, rel)
}

// indexed says whether the index holds the directory dir.
func (s *Server) indexed(ctx context.Context) func(dir string) (bool, error) {
	return func(dir string) (bool, error) {
		runs, err := s.cfg.Index.Runs(ctx, history.Filter{Dir: dir, Figures: []string{}})
		return len(runs) > 0, err
	}
}

// fileCSP is the policy of a served file: a report of cometlab's is one
// self-contained page (inline styles, data: images); a file is never given
// the server's origin to run a script in (sandbox).
const fileCSP = "sandbox; default-src 'none'; img-src 'self' data:; style-src 'unsafe-inline'; frame-ancestors 'self'"

// file serves a file of an indexed directory: /file/ABSOLUTE/PATH.
func (s *Server) file(w http.ResponseWriter, r *http.Request) {
	f, fi, err := openFile(r.PathValue("path"), s.indexed(r.Context()))
	if errors.Is(err, errRefused) {
		http.Error(w, "404 "+errRefused.Error(), http.StatusNotFound)
		return
	}
	if err != nil {
		s.fail(w, r, true, err)
		return
	}
	defer f.Close()
	w.Header().Set("Content-Security-Policy", fileCSP)
	if strings.HasSuffix(fi.Name(), ".csv") || strings.HasSuffix(fi.Name(), ".toml") || strings.HasSuffix(fi.Name(), ".md") {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	}
	http.ServeContent(w, r, fi.Name(), fi.ModTime(), f)
}

// fileURL is the URL of the file name (slash-separated, relative) of the
// directory dir.
func fileURL(dir, name string) string {
	p := filepath.ToSlash(filepath.Join(dir, filepath.FromSlash(name)))
	return (&url.URL{Path: "/file" + p}).EscapedPath()
}

// FileLink is a file of a run directory, linked.
type FileLink struct {
	Name string `json:"name"` // slash-separated, relative to the directory
	URL  string `json:"url"`
	Size int64  `json:"size"`
}

// listFiles are the regular files of dir and of its plots/ directory, in
// name order; entries that are not regular files (directories, symlinks)
// are left out.
func listFiles(dir string) ([]FileLink, error) {
	var out []FileLink
	for _, sub := range []string{"", "plots"} {
		entries, err := os.ReadDir(filepath.Join(dir, sub))
		if errors.Is(err, fs.ErrNotExist) && sub != "" {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("list %s: %w", dir, err)
		}
		for _, e := range entries {
			if !e.Type().IsRegular() {
				continue
			}
			fi, err := e.Info()
			if err != nil {
				continue
			}
			name := path.Join(sub, e.Name())
			out = append(out, FileLink{Name: name, URL: fileURL(dir, name), Size: fi.Size()})
		}
	}
	return out, nil
}
