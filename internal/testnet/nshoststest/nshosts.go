// Package nshosts makes "hosts" for tests out of Linux network namespaces:
// N namespaces on one bridge, private addresses 10.213.0.11… with the
// bridge at 10.213.0.1 in the root namespace (the control host), each
// running its own sshd (Debian's openssh-server) with a host key, config
// and authorized_keys in the test's temporary directory and a client key
// pair generated for the test. Nothing outside the namespaces it creates
// is ever targeted. Every namespace, link and process it made is removed
// in t.Cleanup, even when the test fails, and leftovers of a crashed run
// (by the fixed name prefix) are removed before it starts.
//
// The namespaces share the root filesystem: give each host its own
// workdir ([Host.Workdir], under the test's temporary directory).
package nshoststest

import (
	"bytes"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/cometlab/cometlab/internal/testnet/testnettest"
)

// Names and addresses; the prefix marks everything this package creates.
const (
	Prefix     = "clnsh"
	Bridge     = Prefix + "-br0"
	BridgeAddr = "10.213.0.1"
	subnetBits = 24
	sshd       = "/usr/sbin/sshd"
)

// Host is one namespace host.
type Host struct {
	Name    string // h1, h2, …
	NS      string // the network namespace
	Address string // its address on the bridge
	Workdir string // a directory of its own under the test's temp dir
}

// Net is the set of namespace hosts of a test.
type Net struct {
	Hosts []Host
	// User is the ssh user (root) and Key the private key that logs in.
	User, Key string
	// KnownHosts holds every host's key; SSHArgs makes ssh check against
	// it (for ansible_ssh_common_args).
	KnownHosts string
	SSHArgs    string
}

// Require ends tb with testnettest.Prereq (a skip, a failure under
// CI=true) unless this machine can make namespace hosts: root, ip, ssh,
// ssh-keygen, sshd and ansible-playbook. It says what is missing.
func Require(tb testing.TB) {
	tb.Helper()
	if os.Geteuid() != 0 {
		testnettest.Prereq(tb, "nshosts: needs root for network namespaces")
	}
	for _, bin := range []string{"ip", "ssh", "ssh-keygen", sshd, "ansible-playbook"} {
		if _, err := exec.LookPath(bin); err != nil {
			testnettest.Prereq(tb, "nshosts: %s not found (.ci/run installs openssh-server and ansible-core): %v", bin, err)
		}
	}
}

// New makes n namespace hosts running sshd, and registers their removal
// with tb.Cleanup. It ends tb (see [Require]) when the machine cannot.
func New(tb testing.TB, n int) *Net {
	tb.Helper()
	Require(tb)
	// One set of namespace hosts at a time on this machine: they share the
	// bridge and the prefix Clean removes by (go test runs packages in
	// parallel). A test holding the node lock takes it first.
	testnettest.LockFile(tb, "cometlab-nshosts.lock")
	Clean(tb)
	tb.Cleanup(func() { Clean(tb) })
	dir := tb.TempDir()
	nt := &Net{User: "root", Key: filepath.Join(dir, "id_ed25519"), KnownHosts: filepath.Join(dir, "known_hosts")}
	run(tb, "ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", "cometlab-nshosts", "-f", nt.Key)
	pub, err := os.ReadFile(nt.Key + ".pub")
	if err != nil {
		tb.Fatal(err)
	}
	run(tb, "ip", "link", "add", Bridge, "type", "bridge")
	run(tb, "ip", "addr", "add", BridgeAddr+"/"+strconv.Itoa(subnetBits), "dev", Bridge)
	run(tb, "ip", "link", "set", Bridge, "up")
	if err := os.MkdirAll("/run/sshd", 0o755); err != nil { // sshd's privilege separation directory
		tb.Fatal(err)
	}
	var known bytes.Buffer
	for i := 1; i <= n; i++ {
		h := Host{Name: fmt.Sprintf("h%d", i), NS: fmt.Sprintf("%s-h%d", Prefix, i), Address: fmt.Sprintf("10.213.0.%d", 10+i),
			Workdir: filepath.Join(dir, fmt.Sprintf("h%d-work", i))}
		outer, inner := fmt.Sprintf("%sv%d", Prefix, i), fmt.Sprintf("%sp%d", Prefix, i)
		run(tb, "ip", "netns", "add", h.NS)
		run(tb, "ip", "link", "add", outer, "type", "veth", "peer", "name", inner)
		run(tb, "ip", "link", "set", outer, "master", Bridge)
		run(tb, "ip", "link", "set", outer, "up")
		run(tb, "ip", "link", "set", inner, "netns", h.NS)
		ns := []string{"ip", "netns", "exec", h.NS}
		run(tb, append(ns, "ip", "link", "set", "lo", "up")...)
		run(tb, append(ns, "ip", "link", "set", inner, "name", "eth0")...)
		run(tb, append(ns, "ip", "addr", "add", h.Address+"/"+strconv.Itoa(subnetBits), "dev", "eth0")...)
		run(tb, append(ns, "ip", "link", "set", "eth0", "up")...)
		hostKey := startSSHD(tb, dir, h, pub)
		fmt.Fprintf(&known, "%s %s\n", h.Address, hostKey)
		nt.Hosts = append(nt.Hosts, h)
	}
	if err := os.WriteFile(nt.KnownHosts, known.Bytes(), 0o600); err != nil {
		tb.Fatal(err)
	}
	nt.SSHArgs = fmt.Sprintf("-o UserKnownHostsFile=%s -o StrictHostKeyChecking=yes -o IdentitiesOnly=yes", nt.KnownHosts)
	for _, h := range nt.Hosts {
		waitPort(tb, h.Address+":22", 10*time.Second)
	}
	return nt
}

// startSSHD starts h's sshd in its namespace with its own host key and
// config, and returns the host key's public line ("ssh-ed25519 AAAA…").
func startSSHD(tb testing.TB, dir string, h Host, authorized []byte) string {
	tb.Helper()
	d := filepath.Join(dir, h.Name+"-sshd")
	if err := os.MkdirAll(d, 0o700); err != nil {
		tb.Fatal(err)
	}
	key := filepath.Join(d, "ssh_host_ed25519_key")
	run(tb, "ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", h.Name, "-f", key)
	if err := os.WriteFile(filepath.Join(d, "authorized_keys"), authorized, 0o600); err != nil {
		tb.Fatal(err)
	}
	// SetEnv SHLVL=1: bash, started by sshd for each command, reads
	// ~/.bashrc only as a top-level shell (SHLVL < 2 once it adds its
	// own level); the hosts share this machine's home, whose .bashrc may
	// do slow things (pyenv init rehashes its shims under a lock: 1–60 s
	// per ssh command with five at once), which would time the test's
	// Ansible by this machine's shell setup.
	cfg := fmt.Sprintf(`ListenAddress %s:22
SetEnv SHLVL=1
HostKey %s
PidFile %s
AuthorizedKeysFile %s
PermitRootLogin prohibit-password
PasswordAuthentication no
KbdInteractiveAuthentication no
UsePAM no
StrictModes no
Subsystem sftp internal-sftp
`, h.Address, key, filepath.Join(d, "sshd.pid"), filepath.Join(d, "authorized_keys"))
	if err := os.WriteFile(filepath.Join(d, "sshd_config"), []byte(cfg), 0o600); err != nil {
		tb.Fatal(err)
	}
	run(tb, "ip", "netns", "exec", h.NS, sshd, "-f", filepath.Join(d, "sshd_config"), "-E", filepath.Join(d, "sshd.log"))
	pub, err := os.ReadFile(key + ".pub")
	if err != nil {
		tb.Fatal(err)
	}
	f := strings.Fields(string(pub))
	if len(f) < 2 {
		tb.Fatalf("%s.pub: %q", key, pub)
	}
	return f[0] + " " + f[1]
}

// Clean removes every namespace, link and process of this package's
// prefix: the processes in the namespaces (sshd, nodes) are killed first.
func Clean(tb testing.TB) {
	tb.Helper()
	out, _ := exec.Command("ip", "netns", "list").Output()
	for _, line := range strings.Split(string(out), "\n") {
		f := strings.Fields(line)
		if len(f) == 0 || !strings.HasPrefix(f[0], Prefix+"-") {
			continue
		}
		killNS(f[0])
		if b, err := exec.Command("ip", "netns", "delete", f[0]).CombinedOutput(); err != nil {
			tb.Errorf("nshosts: ip netns delete %s: %v: %s", f[0], err, b)
		}
	}
	links, _ := exec.Command("ip", "-o", "link", "show").Output()
	for _, line := range strings.Split(string(links), "\n") {
		f := strings.Fields(line)
		if len(f) < 2 {
			continue
		}
		name, _, _ := strings.Cut(strings.TrimSuffix(f[1], ":"), "@")
		if strings.HasPrefix(name, Prefix) {
			if b, err := exec.Command("ip", "link", "delete", name).CombinedOutput(); err != nil && !strings.Contains(string(b), "Cannot find") {
				tb.Errorf("nshosts: ip link delete %s: %v: %s", name, err, b)
			}
		}
	}
}

// killNS kills every process in namespace ns: SIGTERM, then SIGKILL
// after 5 s.
func killNS(ns string) {
	pids := func() []int {
		out, _ := exec.Command("ip", "netns", "pids", ns).Output()
		var ps []int
		for _, s := range strings.Fields(string(out)) {
			if p, err := strconv.Atoi(s); err == nil {
				ps = append(ps, p)
			}
		}
		return ps
	}
	for _, p := range pids() {
		_ = syscall.Kill(p, syscall.SIGTERM)
	}
	for deadline := time.Now().Add(5 * time.Second); len(pids()) > 0 && time.Now().Before(deadline); {
		time.Sleep(100 * time.Millisecond)
	}
	for _, p := range pids() {
		_ = syscall.Kill(p, syscall.SIGKILL)
	}
}

// Processes returns the processes left in the namespace hosts of n.
func (n *Net) Processes() []string {
	var left []string
	for _, h := range n.Hosts {
		out, _ := exec.Command("ip", "netns", "pids", h.NS).Output()
		for _, s := range strings.Fields(string(out)) {
			cmd, _ := os.ReadFile("/proc/" + s + "/cmdline")
			left = append(left, fmt.Sprintf("%s: pid %s %s", h.Name, s, strings.ReplaceAll(string(bytes.TrimRight(cmd, "\x00")), "\x00", " ")))
		}
	}
	return left
}

// DenyInbound gives every host a firewall that drops what it does not
// allow: its iptables INPUT policy DROP, with only loopback and ssh
// (port 22) accepted, as on a locked-down server. The namespace's rules
// go with it at cleanup.
func (n *Net) DenyInbound(tb testing.TB) {
	tb.Helper()
	if _, err := exec.LookPath("iptables"); err != nil {
		testnettest.Prereq(tb, "nshosts: iptables not found (.ci/run installs it): %v", err)
	}
	for _, h := range n.Hosts {
		ipt := []string{"ip", "netns", "exec", h.NS, "iptables"}
		run(tb, append(ipt, "-A", "INPUT", "-i", "lo", "-j", "ACCEPT")...)
		run(tb, append(ipt, "-A", "INPUT", "-p", "tcp", "--dport", "22", "-j", "ACCEPT")...)
		run(tb, append(ipt, "-P", "INPUT", "DROP")...)
	}
}

// Rules returns the iptables rules of host h (iptables -S), one a line.
func (n *Net) Rules(tb testing.TB, h Host) []string {
	tb.Helper()
	out, err := exec.Command("ip", "netns", "exec", h.NS, "iptables", "-S").CombinedOutput()
	if err != nil {
		tb.Fatalf("nshosts: iptables -S in %s: %v: %s", h.NS, err, out)
	}
	return strings.Split(strings.TrimSpace(string(out)), "\n")
}

func run(tb testing.TB, args ...string) {
	tb.Helper()
	if b, err := exec.Command(args[0], args[1:]...).CombinedOutput(); err != nil {
		tb.Fatalf("nshosts: %s: %v: %s", strings.Join(args, " "), err, b)
	}
}

func waitPort(tb testing.TB, addr string, timeout time.Duration) {
	tb.Helper()
	deadline := time.Now().Add(timeout)
	for {
		c, err := net.DialTimeout("tcp", addr, time.Second)
		if err == nil {
			c.Close()
			return
		}
		if time.Now().After(deadline) {
			tb.Fatalf("nshosts: sshd at %s not listening after %s: %v", addr, timeout, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
