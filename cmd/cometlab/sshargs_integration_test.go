package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cometlab/cometlab/internal/results/resultstest"
)

// TestSSHArgsReachAnsible: --ssh-args reaches the inventory that
// ansible-playbook is given (ansible_ssh_common_args) in every mode that
// can run a testnet on [host.*] hosts — run and the series modes as well
// as deploy and qa, which alone had it before. ansible-playbook is a fake
// on PATH that appends the inventory it is given to a file and fails, so
// nothing is deployed; each mode still builds the default release and
// writes the homes and the inventory as it would for real hosts.
func TestSSHArgsReachAnsible(t *testing.T) {
	if testing.Short() {
		t.Skip("writes node homes with the default release and runs a fake ansible-playbook")
	}
	bin, work := t.TempDir(), t.TempDir()
	record := filepath.Join(work, "inventories")
	resultstest.WriteFile(t, filepath.Join(bin, "ansible-playbook"), []byte(
		"#!/bin/sh\nwhile [ $# -gt 0 ]; do if [ \"$1\" = -i ]; then cat \"$2\" >> \"$COMETLAB_TEST_INVENTORIES\"; fi; shift; done\nexit 2\n"))
	if err := os.Chmod(filepath.Join(bin, "ansible-playbook"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	t.Setenv("COMETLAB_TEST_INVENTORIES", record)
	hosts := filepath.Join(work, "hosts.toml")
	resultstest.WriteFile(t, hosts, []byte("links = \"direct\"\n[load]\nduration = \"2s\"\nrate = 10\n"+
		"[host.h1]\naddress = \"127.0.0.1\"\nssh_user = \"qa\"\n[host.h2]\naddress = \"127.0.0.2\"\nssh_user = \"qa\"\n"+
		"[node.validator01]\nhost = \"h1\"\n[node.validator02]\nhost = \"h2\"\n"))
	t.Chdir(work)
	const opt = "-o UserKnownHostsFile=/dev/null -o ConnectTimeout=7"
	for _, tc := range []struct {
		mode string
		args []string
	}{
		{"run", []string{"run", "--out", "r"}},
		{"sweep", []string{"sweep", "-r", "10", "--out", "s"}},
		{"saturate", []string{"saturate", "--out", "t"}},
		{"ab", []string{"ab", "--cand", "consensus.timeout_commit=2s", "--repeat", "1", "--out", "a"}},
		{"qa", []string{"qa", "--candidate", "consensus.timeout_commit=2s", "--skip", "saturation,rotation,vote-extensions,partition,absent-stake,upgrade,storage", "--repeat", "1", "--out", "q"}},
		{"deploy", []string{"deploy", "--out", "d"}},
	} {
		t.Run(tc.mode, func(t *testing.T) {
			if err := os.WriteFile(record, nil, 0o644); err != nil {
				t.Fatal(err)
			}
			code, _, stderr := run(t, append(tc.args, "--manifest", hosts, "--ssh-args", opt)...)
			got, err := os.ReadFile(record)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(string(got), opt) {
				t.Errorf("exit %d; ansible-playbook was given no inventory with %q:\n%s\nstderr:\n%s", code, opt, got, stderr)
			}
		})
	}
}
