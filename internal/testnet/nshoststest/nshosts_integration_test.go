package nshoststest

import (
	"os/exec"
	"strings"
	"testing"
)

// TestSSH makes two namespace hosts, runs a command on each over ssh
// with the test's key and known_hosts, checks that loopback is up inside
// and that cleanup leaves nothing.
func TestSSH(t *testing.T) {
	if testing.Short() {
		t.Skip("makes network namespaces and runs sshd")
	}
	n := New(t, 2)
	for _, h := range n.Hosts {
		args := append(strings.Fields(n.SSHArgs), "-i", n.Key, "-o", "BatchMode=yes", n.User+"@"+h.Address,
			"ip -o addr show lo; ip -o addr show eth0; echo shlvl=$SHLVL")
		out, err := exec.Command("ssh", args...).CombinedOutput()
		if err != nil {
			t.Fatalf("ssh %s: %v: %s", h.Name, err, out)
		}
		if !strings.Contains(string(out), "127.0.0.1") || !strings.Contains(string(out), h.Address) {
			t.Errorf("%s: lo or eth0 not configured:\n%s", h.Name, out)
		}
		// The login shell ran as a nested one (sshd's SetEnv SHLVL=1), so
		// it did not read this machine's ~/.bashrc.
		if !strings.Contains(string(out), "shlvl=2") {
			t.Errorf("%s: the command's shell is not nested (want shlvl=2):\n%s", h.Name, out)
		}
	}
	Clean(t)
	if left := n.Processes(); len(left) > 0 {
		t.Errorf("left after Clean: %v", left)
	}
	if out, _ := exec.Command("ip", "netns", "list").Output(); strings.Contains(string(out), Prefix) {
		t.Errorf("namespaces left: %s", out)
	}
	if out, _ := exec.Command("ip", "-o", "link", "show").Output(); strings.Contains(string(out), Prefix) {
		t.Errorf("links left: %s", out)
	}
}
