package web

import (
	"encoding/json"
	"net/http"
	"net/url"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"

	"github.com/cometlab/cometlab/internal/results/resultstest"
)

// page is a page of the fixture: its path and query, relative to the
// fixture's root ($ROOT in it is the root), and what it must show.
type page struct {
	name, target string
	ids          []string // elements that must be there, by id
}

func fixturePages() []page {
	return []page{
		{"runs", "/runs", []string{"filters", "runs"}},
		{"runs_filtered", "/runs?release=v0.38&status=complete", []string{"runs"}},
		{"run", "/run?dir=$ROOT/runs/ra", []string{"key-figures", "report-link", "files"}},
		{"run_no_report", "/run?dir=$ROOT/runs/rb", []string{"no-report", "files"}},
		{"run_failed", "/run?dir=$ROOT/runs/failed", []string{"no-report"}},
		{"compare_pick", "/compare", []string{"choose"}},
		{"compare", "/compare?base=$ROOT/runs/ra&cand=$ROOT/runs/qa", []string{"verdict", "differences"}},
		{"trend", "/trend?figure=committed_tps&by=release&series=3fa7", []string{"trend-form", "plot", "points"}},
		{"trend_default", "/trend", []string{"trend-form", "plot", "points"}},
		{"trend_none", "/trend?figure=saturation_tps", []string{"no-trend"}},
		{"changes", "/changes", []string{"changes"}},
		{"qa", "/qa", []string{"qa"}},
	}
}

// expand puts root in for $ROOT, query-escaped in a query.
func expand(target, root string) string {
	path, query, ok := strings.Cut(target, "?")
	if !ok {
		return target
	}
	v, _ := url.ParseQuery(strings.ReplaceAll(query, "$ROOT", root))
	return path + "?" + v.Encode()
}

// TestPages renders every page of the fixture and reads it as HTML: the
// status, the elements each must have, tags balanced, no script and no
// inline style (the policy forbids both), and every link of the page
// answered by the server.
func TestPages(t *testing.T) {
	x, root := fixture(t)
	h := newHandler(t, x)
	for _, p := range fixturePages() {
		t.Run(p.name, func(t *testing.T) {
			code, body := get(t, h, expand(p.target, root))
			if code != http.StatusOK {
				t.Fatalf("%s: %d\n%s", p.target, code, body)
			}
			doc, err := html.Parse(strings.NewReader(body))
			if err != nil {
				t.Fatal(err)
			}
			if err := balanced(body); err != nil {
				t.Error(err)
			}
			ids, links := map[string]bool{}, []string{}
			for n := range doc.Descendants() {
				if n.Type != html.ElementNode {
					continue
				}
				if n.DataAtom == atom.Script {
					t.Errorf("a <script> element")
				}
				for _, a := range n.Attr {
					switch a.Key {
					case "id":
						ids[a.Val] = true
					case "style":
						t.Errorf("<%s style=%q>: the policy refuses inline styles", n.Data, a.Val)
					case "href", "src":
						links = append(links, a.Val)
					}
				}
			}
			for _, id := range p.ids {
				if !ids[id] {
					t.Errorf("no element #%s", id)
				}
			}
			if title := findText(doc, atom.Title); !strings.HasSuffix(title, "· cometlab") {
				t.Errorf("title %q", title)
			}
			for _, l := range links {
				if !strings.HasPrefix(l, "/") {
					t.Errorf("link %q leaves the server", l)
					continue
				}
				if code, _ := get(t, h, l); code != http.StatusOK {
					t.Errorf("link %s: %d", l, code)
				}
			}
		})
	}
}

// balanced checks that every element opened is closed, in order (void
// elements aside): html.Parse repairs what a browser would, this does not.
func balanced(body string) error {
	z := html.NewTokenizer(strings.NewReader(body))
	var open []string
	for {
		switch z.Next() {
		case html.ErrorToken:
			if len(open) > 0 {
				return &tagError{"unclosed", strings.Join(open, " > ")}
			}
			return nil
		case html.StartTagToken:
			name, _ := z.TagName()
			if !voidElements[string(name)] {
				open = append(open, string(name))
			}
		case html.EndTagToken:
			name, _ := z.TagName()
			if len(open) == 0 || open[len(open)-1] != string(name) {
				return &tagError{"</" + string(name) + "> closes", strings.Join(open, " > ")}
			}
			open = open[:len(open)-1]
		}
	}
}

var voidElements = map[string]bool{"area": true, "base": true, "br": true, "col": true, "embed": true, "hr": true, "img": true,
	"input": true, "link": true, "meta": true, "source": true, "track": true, "wbr": true}

type tagError struct{ what, open string }

func (e *tagError) Error() string { return e.what + " within " + e.open }

// findText is the text of the first element a.
func findText(doc *html.Node, a atom.Atom) string {
	for n := range doc.Descendants() {
		if n.DataAtom == a && n.FirstChild != nil {
			return n.FirstChild.Data
		}
	}
	return ""
}

// TestAPIGolden keeps each page's JSON under review (go test -update
// rewrites testdata/api/*.json), the fixture's root written $ROOT.
func TestAPIGolden(t *testing.T) {
	x, root := fixture(t)
	h := newHandler(t, x)
	for _, p := range fixturePages() {
		t.Run(p.name, func(t *testing.T) {
			code, body := get(t, h, "/api"+expand(p.target, root))
			if code != http.StatusOK {
				t.Fatalf("%d\n%s", code, body)
			}
			if !json.Valid([]byte(body)) {
				t.Fatalf("not JSON:\n%s", body)
			}
			got := strings.ReplaceAll(body, root, "$ROOT")
			resultstest.Golden(t, filepath.Join("testdata", "api", p.name+".json"), []byte(got))
		})
	}
}

// TestFilters: the runs list's filters select as cometlab history's.
func TestFilters(t *testing.T) {
	x, root := fixture(t)
	h := newHandler(t, x)
	for _, c := range []struct {
		query string
		want  []string // the runs' directories under runs/ (or qa/), newest first
		more  bool
	}{
		{"", []string{"qa/q1", "qa", "failed", "rl", "rk", "rj", "ri", "rh", "rg", "rf", "re", "rd", "rc", "rb", "ra"}, false},
		{"release=v0.38", []string{"rh", "rg", "rf", "re", "rd", "rc", "rb", "ra"}, false},
		{"release=v0.40.0&kind=run", []string{"qa", "failed", "rl", "rk", "rj", "ri"}, false},
		{"status=failed", []string{"failed"}, false},
		{"status=failed,complete&kind=run&limit=2", []string{"qa", "failed"}, true},
		{"kind=qa", []string{"qa/q1"}, false},
		{"since=2026-11-10&until=2026-11-12", []string{"rk", "rj"}, false},
		{"since=25d&kind=run", []string{"qa", "failed", "rl", "rk", "rj", "ri", "rh", "rg", "rf"}, false},
		{"host=qa-01&label=v0.38.27", []string{"rh", "rg", "rf", "re"}, false},
		{"label=nothing", []string{}, false},
	} {
		t.Run(c.query, func(t *testing.T) {
			code, body := get(t, h, "/api/runs?"+c.query)
			var p RunsPage
			if err := json.Unmarshal([]byte(body), &p); code != http.StatusOK || err != nil {
				t.Fatalf("%d %v\n%s", code, err, body)
			}
			got := []string{}
			for _, r := range p.Runs {
				rel, _ := filepath.Rel(root, r.Dir)
				got = append(got, strings.TrimPrefix(rel, "runs/"))
			}
			if !slices.Equal(got, c.want) || p.More != c.more {
				t.Errorf("got %v (more %v), want %v (more %v)", got, p.More, c.want, c.more)
			}
		})
	}
	for _, bad := range []string{"kind=cell", "since=yesterday", "until=soon", "limit=-1", "limit=many"} {
		if code, body := get(t, h, "/api/runs?"+bad); code != http.StatusBadRequest || !strings.Contains(body, `"error"`) {
			t.Errorf("%s: %d\n%s", bad, code, body)
		}
		if code, body := get(t, h, "/runs?"+bad); code != http.StatusBadRequest || !strings.Contains(body, "<html") {
			t.Errorf("page %s: %d", bad, code)
		}
	}
}
