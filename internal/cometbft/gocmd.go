package cometbft

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"time"
)

// goTool runs the go command for the fetcher: module look-ups, downloads
// and builds. Every command runs with GOWORK=off in a directory of the
// cache, so that no workspace or module around the caller takes part.
type goTool struct {
	bin string
	dir string // working directory for commands outside a module
	say func(format string, a ...any)
}

func newGoTool(dir string, say func(string, ...any)) (goTool, error) {
	bin, err := exec.LookPath("go")
	if err != nil {
		return goTool{}, fmt.Errorf("the go command is not in PATH (cometlab builds CometBFT with it): %w", err)
	}
	return goTool{bin: bin, dir: dir, say: say}, nil
}

// run runs `go args…` in dir (g.dir when ""), with extra environment
// variables, and returns stdout and stderr. When label is not "", a
// progress line is printed every 15 s while the command runs.
func (g goTool) run(ctx context.Context, dir, label string, env []string, args ...string) (stdout, stderr []byte, err error) {
	cmd := exec.CommandContext(ctx, g.bin, args...)
	cmd.Dir = dir
	if dir == "" {
		cmd.Dir = g.dir
	}
	cmd.Env = append(append(os.Environ(), "GOWORK=off"), env...)
	var o, e bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &e
	if err := cmd.Start(); err != nil {
		return nil, nil, fmt.Errorf("go %s: %w", strings.Join(args, " "), err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	start := time.Now()
	tick := time.NewTicker(15 * time.Second)
	defer tick.Stop()
	for {
		select {
		case err := <-done:
			if err != nil && ctx.Err() != nil {
				err = ctx.Err()
			}
			return o.Bytes(), e.Bytes(), err
		case <-tick.C:
			if label != "" {
				g.say("  still %s… %s", label, time.Since(start).Round(time.Second))
			}
		}
	}
}

// env returns the value of a go environment variable (GOPROXY, GOVERSION…).
func (g goTool) env(ctx context.Context, name string) string {
	out, _, err := g.run(ctx, "", "", nil, "env", name)
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(out))
}

// moduleInfo is what `go list -m -json` and `go mod download -json` print
// about one module version.
type moduleInfo struct {
	Path, Version string
	GoMod         string // the go.mod file in the module cache
	Dir           string // the extracted source (download only); read-only
	Error         string // download's error
}

// listModule looks up path@version on the module proxy (its .info and
// .mod, not the source). A version the proxy does not serve is reported
// as a fetchError.
func (g goTool) listModule(ctx context.Context, path, version string) (moduleInfo, error) {
	out, stderr, err := g.run(ctx, "", "", nil, "list", "-m", "-json", "-e", path+"@"+version)
	if err != nil {
		return moduleInfo{}, fmt.Errorf("go list -m %s@%s: %v: %s", path, version, err, tail(string(stderr), 5))
	}
	var m struct {
		Path, Version, GoMod string
		Error                *struct{ Err string } // list -e reports an object, download a string
	}
	if err := json.Unmarshal(out, &m); err != nil {
		return moduleInfo{}, fmt.Errorf("go list -m %s@%s: %w", path, version, err)
	}
	info := moduleInfo{Path: m.Path, Version: m.Version, GoMod: m.GoMod}
	if m.Error != nil {
		return info, fetchErrorOf(path+"@"+version, m.Error.Err)
	}
	return info, nil
}

// download fetches path@version's source into the module cache.
func (g goTool) download(ctx context.Context, path, version string) (moduleInfo, error) {
	out, stderr, err := g.run(ctx, "", "", nil, "mod", "download", "-json", path+"@"+version)
	var m moduleInfo
	if jerr := json.Unmarshal(out, &m); jerr != nil {
		if err == nil {
			err = jerr
		}
		return m, fmt.Errorf("go mod download %s@%s: %v: %s", path, version, err, tail(string(stderr), 5))
	}
	if m.Error != "" {
		return m, fetchErrorOf(path+"@"+version, m.Error)
	}
	return m, nil
}

// goMod is the part of `go mod edit -json` cometlab reads.
type goMod struct {
	Module struct{ Path string }
	Go     string
	// Replace and Exclude make `go install …@version` refuse a module.
	Replace []struct {
		Old, New struct{ Path, Version string }
	}
	Exclude []struct{ Path, Version string }
}

// readGoMod parses a go.mod file with `go mod edit -json`.
func (g goTool) readGoMod(ctx context.Context, path string) (goMod, error) {
	out, stderr, err := g.run(ctx, "", "", nil, "mod", "edit", "-json", path)
	if err != nil {
		return goMod{}, fmt.Errorf("go mod edit -json %s: %v: %s", path, err, tail(string(stderr), 5))
	}
	var m goMod
	if err := json.Unmarshal(out, &m); err != nil {
		return goMod{}, fmt.Errorf("go mod edit -json %s: %w", path, err)
	}
	return m, nil
}

// fetchError is a module the go command could not fetch. Answer is the
// module proxy's answer when it gave one ("403 Forbidden: This module
// version is not available."); otherwise Reason says why there was none.
type fetchError struct {
	Module string // path@version
	URL    string // what was asked
	Answer string
	Reason string
}

func (e *fetchError) Error() string {
	if e.Answer != "" {
		return fmt.Sprintf("the Go module proxy refuses %s: %s", e.Module, e.Answer)
	}
	return fmt.Sprintf("fetch %s: %s", e.Module, e.Reason)
}

// refusedRE matches the go command's report of a proxy's refusal:
// "M@V: reading URL: 403 Forbidden\n\tserver response: TEXT".
var refusedRE = regexp.MustCompile(`(?m)(\S+@\S+)(?: \(replaced by (\S+@\S+)\))?: reading (\S+): (\d{3}[^\n]*)(?:\n\s*server response: ([^\n]*))?`)

// fetchErrorOf turns the go command's message about module (path@version)
// into a fetchError: the proxy's answer when the message carries one; that
// module lookup is disabled (GOPROXY=off); or the message itself (a network
// failure: the proxy was not reached).
func fetchErrorOf(module, msg string) *fetchError {
	if r := parseRefusals(msg); len(r) > 0 {
		return &r[0]
	}
	msg = strings.TrimSpace(strings.TrimPrefix(msg, module+":"))
	if strings.Contains(msg, "GOPROXY=off") {
		return &fetchError{Module: module, Reason: "module lookup is disabled (GOPROXY=off)"}
	}
	return &fetchError{Module: module, Reason: "the Go module proxy could not be reached: " + msg}
}

// parseRefusals finds every refusal of the module proxy in the go
// command's output (one per module, in order).
func parseRefusals(out string) []fetchError {
	var rs []fetchError
	seen := map[string]bool{}
	for _, m := range refusedRE.FindAllStringSubmatch(out, -1) {
		mod := m[1]
		if m[2] != "" {
			mod = m[2]
		}
		if seen[mod] {
			continue
		}
		seen[mod] = true
		ans := strings.TrimSpace(m[4])
		if m[5] != "" {
			ans += ": " + strings.TrimSpace(m[5])
		}
		rs = append(rs, fetchError{Module: mod, URL: m[3], Answer: ans})
	}
	return rs
}

// listVersions returns the versions the module proxy lists for path.
func (g goTool) listVersions(ctx context.Context, path string) ([]string, error) {
	out, stderr, err := g.run(ctx, "", "", nil, "list", "-m", "-versions", "-json", path)
	if err != nil {
		return nil, fetchErrorOf(path, tail(string(stderr), 5))
	}
	var m struct{ Versions []string }
	if err := json.Unmarshal(out, &m); err != nil {
		return nil, fmt.Errorf("go list -m -versions %s: %w", path, err)
	}
	return m.Versions, nil
}
