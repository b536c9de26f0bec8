package cometbft

import (
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"
)

func modJSON(t *testing.T, s string) goMod {
	t.Helper()
	var m goMod
	if err := json.Unmarshal([]byte(s), &m); err != nil {
		t.Fatal(err)
	}
	return m
}

// TestPlanFor decides the build method from go.mod files as `go mod edit
// -json` prints them (the v0.34 ones shortened from the real tags).
func TestPlanFor(t *testing.T) {
	for _, c := range []struct {
		name, version, mod string
		method             Method
		noInstall          []string
		targets            []string
	}{
		{"v0.38.26", "v0.38.26", `{"Module":{"Path":"github.com/cometbft/cometbft"},"Go":"1.22.11"}`,
			MethodInstall, nil, nil},
		{"v2.0.0-rc1 declares its /v2 path", "v2.0.0-rc1", `{"Module":{"Path":"github.com/cometbft/cometbft/v2"},"Go":"1.23.5"}`,
			MethodInstall, nil, nil},
		{"v0.34.33 declares tendermint", "v0.34.33", `{"Module":{"Path":"github.com/tendermint/tendermint"},"Go":"1.21"}`,
			MethodMainModule, []string{"declares module github.com/tendermint/tendermint (a path conflict"}, nil},
		{"v0.34.35 replaces", "v0.34.35", `{"Module":{"Path":"github.com/tendermint/tendermint"},"Replace":[
			{"Old":{"Path":"github.com/go-kit/kit","Version":"v0.13.0"},"New":{"Path":"github.com/informalsystems/kit","Version":"v0.0.0-20240910100206-37b6b26dc6fd"}},
			{"Old":{"Path":"gonum.org/v1/gonum"},"New":{"Path":"gonum.org/v1/gonum","Version":"v0.15.2-0.20240904063137-1ca563a018b6"}}]}`,
			MethodMainModule, []string{"path conflict", "2 replace directives"},
			[]string{"github.com/informalsystems/kit@v0.0.0-20240910100206-37b6b26dc6fd replacing github.com/go-kit/kit v0.13.0",
				"gonum.org/v1/gonum@v0.15.2-0.20240904063137-1ca563a018b6 replacing gonum.org/v1/gonum"}},
		{"local replace and exclude", "v0.38.1", `{"Module":{"Path":"github.com/cometbft/cometbft"},
			"Replace":[{"Old":{"Path":"github.com/cometbft/cometbft/api"},"New":{"Path":"./api"}}],
			"Exclude":[{"Path":"github.com/x/y","Version":"v1.0.0"}]}`,
			MethodMainModule, []string{"1 replace directive", "1 exclude directive"}, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			p, targets := planFor(c.version, modJSON(t, c.mod))
			if p.Method != c.method {
				t.Errorf("method %q, want %q", p.Method, c.method)
			}
			joined := strings.Join(p.NoInstall, "; ")
			for _, w := range c.noInstall {
				if !strings.Contains(joined, w) {
					t.Errorf("NoInstall %q lacks %q", joined, w)
				}
			}
			if c.noInstall == nil && len(p.NoInstall) > 0 {
				t.Errorf("NoInstall %q, want none", joined)
			}
			var got []string
			for _, r := range targets {
				got = append(got, r.Module+" replacing "+r.Replaces)
			}
			if !slices.Equal(got, c.targets) {
				t.Errorf("targets %q, want %q", got, c.targets)
			}
			if !p.Buildable() {
				t.Error("a plan with no refusal must be buildable")
			}
		})
	}
}

// TestParseRefusals reads the proxy's refusals out of real go command
// output (v0.34.35 built as the main module on this project's machines).
func TestParseRefusals(t *testing.T) {
	for _, c := range []struct {
		name, out string
		want      []string
	}{
		{"go build", `/root/go/pkg/mod/github.com/spf13/viper@v1.19.0/file.go:10:2: github.com/informalsystems/afero@v0.0.0-20240822164725-478adf757a7e: reading https://proxy.golang.org/github.com/informalsystems/afero/@v/v0.0.0-20240822164725-478adf757a7e.zip: 403 Forbidden
	server response: This module version is not available.
consensus/metrics.go:7:2: github.com/informalsystems/kit@v0.0.0-20240910100206-37b6b26dc6fd: reading https://proxy.golang.org/github.com/informalsystems/kit/@v/v0.0.0-20240910100206-37b6b26dc6fd.zip: 403 Forbidden
	server response: This module version is not available.
consensus/metrics.go:8:2: github.com/informalsystems/kit@v0.0.0-20240910100206-37b6b26dc6fd: reading https://proxy.golang.org/github.com/informalsystems/kit/@v/v0.0.0-20240910100206-37b6b26dc6fd.zip: 403 Forbidden
	server response: This module version is not available.`,
			[]string{"github.com/informalsystems/afero@v0.0.0-20240822164725-478adf757a7e: 403 Forbidden: This module version is not available.",
				"github.com/informalsystems/kit@v0.0.0-20240910100206-37b6b26dc6fd: 403 Forbidden: This module version is not available."}},
		{"go mod download, replaced", `go: github.com/adlio/schema@v1.3.6 (replaced by github.com/informalsystems/schema@v0.0.0-20240910074420-6f3a29ec8110): reading https://proxy.golang.org/github.com/informalsystems/schema/@v/v0.0.0-20240910074420-6f3a29ec8110.mod: 403 Forbidden
	server response: This module version is not available.`,
			[]string{"github.com/informalsystems/schema@v0.0.0-20240910074420-6f3a29ec8110: 403 Forbidden: This module version is not available."}},
		{"no server response", `github.com/cometbft/cometbft@v0.37.99: reading https://proxy.example/github.com/cometbft/cometbft/@v/v0.37.99.info: 404 Not Found`,
			[]string{"github.com/cometbft/cometbft@v0.37.99: 404 Not Found"}},
		{"compile error", "./main.go:3:1: syntax error: non-declaration statement outside function body", nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			var got []string
			for _, r := range parseRefusals(c.out) {
				got = append(got, r.Module+": "+r.Answer)
			}
			if !slices.Equal(got, c.want) {
				t.Errorf("got %q\nwant %q", got, c.want)
			}
		})
	}
}

func TestFetchErrorOf(t *testing.T) {
	const mod = "github.com/cometbft/cometbft@v0.37.0-rc4"
	for _, c := range []struct{ msg, answer, reason string }{
		{mod + ": reading https://proxy.golang.org/github.com/cometbft/cometbft/@v/v0.37.19.info: 403 Forbidden\n\tserver response: This module version is not available.",
			"403 Forbidden: This module version is not available.", ""},
		{mod + ": module lookup disabled by GOPROXY=off", "", "module lookup is disabled (GOPROXY=off)"},
		{mod + `: Get "http://127.0.0.1:1/github.com/cometbft/cometbft/@v/v0.37.0-rc4.info": dial tcp 127.0.0.1:1: connect: connection refused`,
			"", "the Go module proxy could not be reached: Get \"http://127.0.0.1:1/"},
	} {
		fe := fetchErrorOf(mod, c.msg)
		if fe.Answer != c.answer || !strings.HasPrefix(fe.Reason, c.reason) {
			t.Errorf("fetchErrorOf(%q) = answer %q, reason %q", c.msg, fe.Answer, fe.Reason)
		}
	}
}

// TestBuildError checks the message of a release that cannot be built:
// every refused module with the proxy's answer, why go install cannot,
// the nearest release that builds, and errors.Is ErrNotBuildable.
func TestBuildError(t *testing.T) {
	p, targets := planFor("v0.34.35", modJSON(t, `{"Module":{"Path":"github.com/tendermint/tendermint"},"Replace":[
		{"Old":{"Path":"github.com/go-kit/kit","Version":"v0.13.0"},"New":{"Path":"github.com/informalsystems/kit","Version":"v0.0.0-20240910100206-37b6b26dc6fd"}}]}`))
	for _, r := range targets {
		r.Answer = "403 Forbidden: This module version is not available."
		p.Refused = append(p.Refused, r)
	}
	var err error = &BuildError{Plan: p, Line: "v0.34", Nearest: "v0.34.33"}
	if !errors.Is(err, ErrNotBuildable) {
		t.Error("errors.Is(err, ErrNotBuildable) is false")
	}
	for _, w := range []string{"cometbft v0.34.35 cannot be built here",
		"go install cannot build it: its go.mod declares module github.com/tendermint/tendermint",
		"github.com/informalsystems/kit@v0.0.0-20240910100206-37b6b26dc6fd (replacing github.com/go-kit/kit v0.13.0): 403 Forbidden: This module version is not available.",
		"nearest release of the v0.34 line that builds is v0.34.33"} {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("error lacks %q:\n%v", w, err)
		}
	}
	if strings.Contains(err.Error(), "reachable") {
		t.Errorf("error blames the proxy's reachability:\n%v", err)
	}
	install := &BuildError{Plan: Plan{Version: "v0.38.1", Declares: Module, Method: MethodInstall,
		Refused: []Refusal{{Module: "example.com/dep@v1.0.0", Answer: "410 Gone"}}}, Line: "v0.38", Nearest: "v0.38.2"}
	if w := "go install needs modules the Go module proxy refuses:\n      example.com/dep@v1.0.0: 410 Gone"; !strings.Contains(install.Error(), w) {
		t.Errorf("error lacks %q:\n%v", w, install)
	}
	served := &BuildError{Plan: Plan{Version: "v0.37.19", Refused: []Refusal{{Module: Module + "@v0.37.19", Answer: "403 Forbidden"}}}, Line: "v0.37"}
	if w := "the Go module proxy does not serve github.com/cometbft/cometbft@v0.37.19: 403 Forbidden"; !strings.Contains(served.Error(), w) {
		t.Errorf("error lacks %q:\n%v", w, served)
	}
}

func TestByDistanceAndNearest(t *testing.T) {
	known := []string{"v0.34.33", "v0.34.35", "v0.37.0-rc4", "v0.37.18", "v0.38.25", "v0.38.26", "v1.0.1"}
	for _, c := range []struct {
		v    string
		want []string
	}{
		{"v0.34.34", []string{"v0.34.35", "v0.34.33"}},
		{"v0.34.35", []string{"v0.34.33"}},
		{"v0.37.19", []string{"v0.37.18"}},
		{"v0.38.26", []string{"v0.38.25"}},
		{"v0.39.4", nil},
	} {
		if got := byDistance(c.v, known); !slices.Equal(got, c.want) {
			t.Errorf("byDistance(%s) = %q, want %q", c.v, got, c.want)
		}
	}
	refused := &Plan{Declares: "github.com/tendermint/tendermint", Refused: []Refusal{{Module: "x@v1"}}}
	rs := []Release{
		{Version: "v0.34.35", Plan: refused},
		{Version: "v0.34.34", Plan: refused},
		{Version: "v0.34.33", Binary: "/cache/v0.34.33/cometbft"},
		{Version: "v0.34.32", Plan: &Plan{Method: MethodMainModule}},
	}
	if got := Nearest(rs, "v0.34.35"); got != "v0.34.33" {
		t.Errorf("Nearest(v0.34.35) = %q, want v0.34.33", got)
	}
	if got := Nearest(rs[:2], "v0.34.35"); got != "" {
		t.Errorf("Nearest among unbuildable ones = %q, want none", got)
	}
	for want, r := range map[string]Release{StatusNotBuildable: rs[0], StatusBuilt: rs[2], StatusBuildable: rs[3], StatusUnknown: {Version: "v0.34.1"}} {
		if got := r.Status(); got != want {
			t.Errorf("%s: status %q, want %q", r.Version, got, want)
		}
	}
}
