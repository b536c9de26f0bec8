package web

import (
	"bytes"
	"context"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"html/template"
	"io/fs"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/cometlab/cometlab/internal/compare"
	"github.com/cometlab/cometlab/internal/history"
)

//go:embed templates/*.html
var templateFS embed.FS

//go:embed static
var staticFS embed.FS

// Config is what a Server serves and how.
type Config struct {
	// Index is the history index the pages read; the caller opens and
	// closes it.
	Index *history.Index
	// Detect finds a trend's change points (history.DefaultDetector); nil
	// shows none.
	Detect history.Detector
	// Compare and Load are the comparison's options, as cometlab compare
	// gives them (its thresholds, the config keys a run sets per node).
	Compare compare.Options
	Load    compare.LoadOptions
	// LoopbackOnly refuses a request whose Host is not a loopback name or
	// address (localhost, 127.0.0.1, [::1]): a page of another site that
	// rebinds its name to 127.0.0.1 cannot read the runs.
	LoopbackOnly bool
	// Logger logs the requests that failed on the server's side; nil
	// discards.
	Logger *slog.Logger
	// Now is the clock that ages (since=7d) are read at; nil is time.Now.
	Now func() time.Time
}

// Server is the web view: New makes it, Handler serves it.
type Server struct {
	cfg   Config
	pages map[string]*template.Template
	// compared keeps the last comparisons made: a comparison reads both
	// runs' records and bootstraps, and its page is reloaded and its API
	// asked for the same pair.
	compared *memo[ComparePage]
	// changes keeps the change-point pages by the index's generation.
	changes *memo[ChangesPage]
	dict    dictionary
}

// pageNames are the templates of the pages, each rendered within
// layout.html.
var pageNames = []string{"runs.html", "run.html", "compare.html", "trend.html", "changes.html", "qa.html", "error.html"}

// New makes a Server of cfg, its templates parsed.
func New(cfg Config) (*Server, error) {
	if cfg.Index == nil {
		return nil, errors.New("web: no history index")
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	cfg.Detect = memoDetect(cfg.Detect)
	s := &Server{cfg: cfg, pages: map[string]*template.Template{}, compared: newMemo[ComparePage](16), changes: newMemo[ChangesPage](32), dict: newDictionary()}
	base, err := template.New("layout.html").Funcs(funcs(s.dict)).ParseFS(templateFS, "templates/layout.html")
	if err != nil {
		return nil, fmt.Errorf("web: %w", err)
	}
	for _, name := range pageNames {
		t, err := template.Must(base.Clone()).ParseFS(templateFS, "templates/"+name)
		if err != nil {
			return nil, fmt.Errorf("web: %w", err)
		}
		s.pages[name] = t
	}
	return s, nil
}

// Handler is the server's routes: each page at its path and its value as
// JSON under /api, the trend's plot as SVG, the indexed directories' files
// under /file/, and the style sheet under /static/.
func (s *Server) Handler() http.Handler {
	mux := http.NewServeMux()
	handle(s, mux, "/runs", "runs.html", s.runsPage)
	handle(s, mux, "/run", "run.html", s.runPage)
	handle(s, mux, "/compare", "compare.html", s.comparePage)
	handle(s, mux, "/trend", "trend.html", s.trendPage)
	handle(s, mux, "/changes", "changes.html", s.changesPage)
	handle(s, mux, "/qa", "qa.html", s.qaPage)
	mux.HandleFunc("GET /trend.svg", s.trendSVG)
	mux.HandleFunc("GET /file/{path...}", s.file)
	static, _ := fs.Sub(staticFS, "static")
	mux.Handle("GET /static/", http.StripPrefix("/static/", http.FileServerFS(static)))
	mux.HandleFunc("GET /favicon.ico", func(w http.ResponseWriter, r *http.Request) {
		http.ServeFileFS(w, r, static, "favicon.svg")
	})
	mux.HandleFunc("GET /{$}", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/runs", http.StatusFound)
	})
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		s.fail(w, r, false, notFound("no page %s", r.URL.Path))
	})
	return s.guard(mux)
}

// guard refuses what the server does not serve (a foreign Host when
// LoopbackOnly, any method but GET and HEAD) and sets the headers every
// response carries.
func (s *Server) guard(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Referrer-Policy", "no-referrer")
		if s.cfg.LoopbackOnly && !loopbackHost(r.Host) {
			http.Error(w, "cometlab serve answers only requests for a loopback address (localhost, 127.0.0.1, [::1])", http.StatusForbidden)
			return
		}
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			h.Set("Allow", "GET, HEAD")
			http.Error(w, "read-only: GET and HEAD only", http.StatusMethodNotAllowed)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// loopbackHost reports whether a request's Host (name or address, with or
// without a port) is a loopback one.
func loopbackHost(host string) bool {
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	host = strings.TrimSuffix(strings.TrimPrefix(host, "["), "]")
	if strings.EqualFold(host, "localhost") || strings.HasSuffix(strings.ToLower(host), ".localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// pageCSP is the pages' content security policy: everything from the
// server itself, images also inline (data:), no script at all.
const pageCSP = "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'none'; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'self'"

// handle serves the page at path, rendered by the template tmpl, and its
// value as JSON at /api+path: one function, data, gives both.
func handle[T any](s *Server, mux *http.ServeMux, path, tmpl string, data func(*http.Request) (T, error)) {
	mux.HandleFunc("GET "+path, func(w http.ResponseWriter, r *http.Request) {
		v, err := data(r)
		if err != nil {
			s.fail(w, r, false, err)
			return
		}
		s.render(w, r, http.StatusOK, tmpl, v)
	})
	mux.HandleFunc("GET /api"+path, func(w http.ResponseWriter, r *http.Request) {
		v, err := data(r)
		if err != nil {
			s.fail(w, r, true, err)
			return
		}
		writeJSON(w, http.StatusOK, v)
	})
}

// render writes the page tmpl of v, or a server error when it cannot be
// rendered (rendered into a buffer first, so that no half page is sent).
func (s *Server) render(w http.ResponseWriter, r *http.Request, code int, tmpl string, v any) {
	var b bytes.Buffer
	if err := s.pages[tmpl].ExecuteTemplate(&b, "layout.html", v); err != nil {
		s.cfg.Logger.Error("render", "page", tmpl, "url", r.URL.String(), "err", err)
		http.Error(w, "cometlab serve: "+err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Content-Security-Policy", pageCSP)
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(code)
	w.Write(b.Bytes())
}

// writeJSON writes v as indented JSON.
func writeJSON(w http.ResponseWriter, code int, v any) {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		code, b = http.StatusInternalServerError, []byte(fmt.Sprintf(`{"error": %q}`, err.Error()))
	}
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(code)
	w.Write(append(b, '\n'))
}

// httpError is an error with the status it is answered with.
type httpError struct {
	code int
	err  error
}

func (e httpError) Error() string { return e.err.Error() }
func (e httpError) Unwrap() error { return e.err }

func badRequest(format string, args ...any) error {
	return httpError{http.StatusBadRequest, fmt.Errorf(format, args...)}
}

func notFound(format string, args ...any) error {
	return httpError{http.StatusNotFound, fmt.Errorf(format, args...)}
}

// errorPage is the value of error.html and of an API's error.
type errorPage struct {
	Status int    `json:"status"`
	Error  string `json:"error"`
}

// Title is the page's title.
func (e errorPage) Title() string { return http.StatusText(e.Status) }

// fail answers err: its status (a FieldError is a bad request, anything
// else a server error, logged), as JSON for the API or as a page.
func (s *Server) fail(w http.ResponseWriter, r *http.Request, api bool, err error) {
	code := http.StatusInternalServerError
	var he httpError
	var fe history.FieldError
	switch {
	case errors.As(err, &he):
		code = he.code
	case errors.As(err, &fe):
		code = http.StatusBadRequest
	case errors.Is(err, context.Canceled):
		code = 499 // the client went away; nothing to answer
	default:
		s.cfg.Logger.Error("request", "url", r.URL.String(), "err", err)
	}
	v := errorPage{Status: code, Error: err.Error()}
	if api {
		writeJSON(w, code, v)
		return
	}
	s.render(w, r, code, "error.html", v)
}

// Section is the navigation's entry of the page: none.
func (errorPage) Section() string { return "" }
