package main

import (
	"bytes"
	"context"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files")

func run(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var o, e bytes.Buffer
	code = execute(context.Background(), &state{stdout: &o, stderr: &e, args: args, hard: context.Background()})
	return code, o.String(), e.String()
}

// TestHelpGolden keeps every command's --help under review: a changed flag
// shows up as a diff of testdata/help/*.txt (regenerate with -update).
func TestHelpGolden(t *testing.T) {
	for _, args := range [][]string{{}, {"run"}, {"load"}, {"analyze"}, {"report"}, {"readback"}, {"testnet"}, {"testnet", "up"}, {"testnet", "down"}, {"prometheus-config"}, {"grafana-dashboard"}, {"compare"}, {"sweep"}, {"saturate"}, {"versions"}} {
		name := strings.Join(append([]string{"cometlab"}, args...), "_")
		t.Run(name, func(t *testing.T) {
			code, out, _ := run(t, append(args, "--help")...)
			if code != exitOK {
				t.Fatalf("exit %d", code)
			}
			path := filepath.Join("testdata", "help", name+".txt")
			if *update {
				os.MkdirAll(filepath.Dir(path), 0o755)
				if err := os.WriteFile(path, []byte(out), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (run with -update)", err)
			}
			if out != string(want) {
				t.Errorf("--help differs from %s (run with -update to accept):\n%s", path, out)
			}
		})
	}
}

func TestUsageErrors(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.toml")
	os.WriteFile(bad, []byte("[load]\nrtae = 5\nrate = 0\n"), 0o644)
	for _, c := range []struct {
		args []string
		want []string
	}{
		{[]string{"run", "--manifest", bad}, []string{"bad.toml:2:1: load.rtae: unknown field"}},
		{[]string{"run", "--manifest", filepath.Join(dir, "none.toml")}, []string{"none.toml"}},
		{[]string{"run", "-r", "0"}, []string{"--rate"}},
		{[]string{"run", "-r", "fast"}, []string{"--rate"}},
		{[]string{"run", "-s", "1023"}, []string{"--size", "even"}},
		{[]string{"run", "--cometbft-version", "v9.9.9"}, []string{"v9.9.9"}},
		{[]string{"run", "--frobnicate"}, []string{"unknown flag"}},
		{[]string{"load", "-r", "10"}, []string{"endpoint"}},
		{[]string{"analyze"}, []string{"accepts 1 arg"}},
	} {
		t.Run(strings.Join(c.args, " "), func(t *testing.T) {
			code, _, stderr := run(t, c.args...)
			if code != exitUsage {
				t.Errorf("exit %d, want %d; stderr:\n%s", code, exitUsage, stderr)
			}
			for _, w := range c.want {
				if !strings.Contains(stderr, w) {
					t.Errorf("stderr lacks %q:\n%s", w, stderr)
				}
			}
		})
	}
}

func TestAnalyzeMissingRun(t *testing.T) {
	code, _, stderr := run(t, "analyze", filepath.Join(t.TempDir(), "nothing"))
	if code != exitFailed || !strings.Contains(stderr, "nothing") {
		t.Errorf("exit %d, stderr %s", code, stderr)
	}
}
