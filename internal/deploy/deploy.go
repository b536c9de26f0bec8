// Package deploy runs a testnet's nodes on other hosts through Ansible:
// it writes an inventory (inventory.json, JSON being YAML that Ansible's
// yaml inventory plugin reads) and two fixed playbooks (deploy.yml,
// down.yml, only ansible.builtin modules) into a directory, runs
// ansible-playbook on them and reports the hosts that failed. Check
// checks a plan without running anything (each node's peers resolve to a
// node of the plan, ports unique per host); ParseInventory reads an
// Ansible inventory, INI (ParseINI, as qa-infra's Terraform writes it) or
// YAML (ParseYAML).
package deploy

import (
	"bytes"
	"context"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Files Write puts in the deployment directory.
const (
	InventoryFile = "inventory.json"
	DeployBook    = "deploy.yml"
	DownBook      = "down.yml"
	// LoadBook runs `cometlab load` on the load hosts (see [LoadRun]).
	LoadBook = "load.yml"
	// LoadStopBook stops an interrupted LoadBook's loads on the load
	// hosts and fetches their send logs (its extra variables are the
	// same LoadRun).
	LoadStopBook = "load-stop.yml"
	// LoadGroup is the inventory group of the load hosts.
	LoadGroup = "cometlab_load_hosts"
	// CollectDir is where down.yml fetches each host's logs and homes
	// (HOST.tgz), and where [Unpack] extracts them (HOST/homes, HOST/logs).
	CollectDir = "collected"
)

//go:embed playbooks/*.yml
var books embed.FS

// Host is one host of the inventory with the nodes it runs.
type Host struct {
	Name    string
	Address string
	SSHUser string
	SSHPort int
	SSHKey  string // "" for ssh's own keys
	Workdir string
	Nodes   []Node
	// Load marks a load host: deploy.yml copies cometlab to it
	// (Plan.Cometlab) and load.yml runs the load there.
	Load bool
	// Firewall makes deploy.yml open the nodes' ports in the host's
	// iptables (and down.yml close them again).
	Firewall bool
}

// Node is a node on a host.
type Node struct {
	Name string
	// BinarySrc is the node binary on the control host; Binary the name it
	// gets in the host's workdir/bin.
	BinarySrc, Binary string
	RPCPort           int
	// P2PPort and MetricsPort (0: none) are opened with RPCPort when the
	// host's Firewall is on.
	P2PPort, MetricsPort int
	// Seed marks a seed node: deploy.yml starts the seeds of every host,
	// and waits until their p2p ports listen, before the other nodes.
	Seed bool
	// E2E marks CometBFT's e2e app node (test/e2e/node, the app and the
	// node in one process): Binary is that program, and deploy.yml starts
	// it as the local path does, `BINARY HOME/config/app.toml` with
	// CMTHOME=HOME, instead of `BINARY start --home HOME`.
	E2E bool
}

// Plan is what Write writes.
type Plan struct {
	Hosts []Host
	// Homes is the control host's directory holding one home per node
	// (HOMES/NAME), copied to each node's host.
	Homes string
	// SSHArgs are extra ssh options for every host (ansible_ssh_common_args),
	// e.g. "-o UserKnownHostsFile=known_hosts".
	SSHArgs string
	// StartTimeout bounds the wait for each node's RPC port.
	StartTimeout time.Duration
	// Grace is how long down.yml waits after SIGTERM before SIGKILL.
	Grace time.Duration
	// Keep leaves each host's workdir in place after down.yml fetched it.
	Keep bool
	// Cometlab is the cometlab binary on the control host, copied to the
	// load hosts; it must run on them (same OS and architecture).
	Cometlab string
}

// HostHome is the directory deploy.yml unpacks node's home into on a
// host whose workdir is workdir (and where down.yml looks for it).
func HostHome(workdir, node string) string { return path.Join(workdir, "homes", node) }

// Inventory returns the inventory of p as JSON: group cometlab_hosts,
// one host per [Host] with its ssh settings and cometlab_* variables.
func Inventory(p Plan, dir string) ([]byte, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	hosts, loadHosts := map[string]any{}, map[string]any{}
	for _, h := range p.Hosts {
		nodes := make([]map[string]any, 0, len(h.Nodes))
		binaries := []map[string]any{}
		seen := map[string]bool{}
		ports := []string{}
		for _, n := range h.Nodes {
			nodes = append(nodes, map[string]any{"name": n.Name, "binary_src": n.BinarySrc, "binary": n.Binary, "rpc_port": n.RPCPort,
				"p2p_port": n.P2PPort, "seed": n.Seed, "e2e": n.E2E})
			if !seen[n.Binary] {
				seen[n.Binary] = true
				binaries = append(binaries, map[string]any{"src": n.BinarySrc, "name": n.Binary})
			}
			for _, p := range []int{n.P2PPort, n.RPCPort, n.MetricsPort} {
				if p > 0 {
					ports = append(ports, strconv.Itoa(p))
				}
			}
		}
		v := map[string]any{
			"ansible_host":      h.Address,
			"ansible_user":      h.SSHUser,
			"ansible_port":      h.SSHPort,
			"cometlab_address":  h.Address,
			"cometlab_workdir":  h.Workdir,
			"cometlab_nodes":    nodes,
			"cometlab_binaries": binaries,
			"cometlab_load":     h.Load,
			"cometlab_firewall": h.Firewall,
			"cometlab_ports":    ports,
		}
		if h.Load {
			loadHosts[h.Name] = map[string]any{}
		}
		if len(h.Nodes) > 0 {
			v["cometlab_homes_archive"] = homesArchivePath(abs, h.Name)
		}
		if h.SSHKey != "" {
			v["ansible_ssh_private_key_file"] = h.SSHKey
		}
		hosts[h.Name] = v
	}
	vars := map[string]any{
		"cometlab_collect":       filepath.Join(abs, CollectDir),
		"cometlab_start_timeout": max(1, int(p.StartTimeout.Seconds())),
		"cometlab_grace_s":       max(1, int(p.Grace.Seconds())),
		"cometlab_clean":         !p.Keep,
	}
	if p.Cometlab != "" {
		vars["cometlab_binary"] = p.Cometlab
	}
	if p.SSHArgs != "" {
		vars["ansible_ssh_common_args"] = p.SSHArgs
	}
	inv := map[string]any{"all": map[string]any{
		"vars":     vars,
		"children": map[string]any{"cometlab_hosts": map[string]any{"hosts": hosts}, LoadGroup: map[string]any{"hosts": loadHosts}},
	}}
	return json.MarshalIndent(inv, "", "  ")
}

// Write writes the inventory and both playbooks into dir.
func Write(p Plan, dir string) error {
	inv, err := Inventory(p, dir)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, InventoryFile), inv, 0o644); err != nil {
		return err
	}
	for _, h := range p.Hosts {
		if len(h.Nodes) > 0 {
			if err := packHomes(p.Homes, h.Nodes, homesArchivePath(dir, h.Name)); err != nil {
				return fmt.Errorf("host %s: %w", h.Name, err)
			}
		}
	}
	for _, b := range []string{DeployBook, DownBook, LoadBook, LoadStopBook} {
		if err := WriteBook(dir, b); err != nil {
			return err
		}
	}
	return nil
}

// WriteBook writes the playbook book (DeployBook, …) into the deployment
// directory dir, as Write does: also for a directory an older cometlab
// wrote, which lacks a playbook added since.
func WriteBook(dir, book string) error {
	data, err := books.ReadFile("playbooks/" + book)
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, book), data, 0o644)
}

// Playbook runs ansible-playbook on dir's inventory and the playbook book
// (DeployBook, DownBook, LoadBook or LoadStopBook), its output going to dir/BOOK.log and
// to out; vars, when not "", is a JSON file of extra variables (-e @vars).
// A failed run's error names each host that failed and why, as the
// playbook's own output says (see [Failures]).
func Playbook(ctx context.Context, dir, book, vars string, out io.Writer) error {
	bin, err := exec.LookPath("ansible-playbook")
	if err != nil {
		return fmt.Errorf("ansible-playbook not found: install ansible-core (Debian: apt-get install ansible-core): %w", err)
	}
	logPath := filepath.Join(dir, strings.TrimSuffix(book, ".yml")+".log")
	logf, err := os.Create(logPath)
	if err != nil {
		return err
	}
	defer logf.Close()
	var buf bytes.Buffer
	args := []string{"-i", InventoryFile, book}
	if vars != "" {
		args = append(args, "-e", "@"+vars)
	}
	cmd := exec.CommandContext(ctx, bin, args...)
	// Interrupted, ansible-playbook gets SIGINT, which it handles (its ssh
	// sessions closed), and SIGKILL only if it has not ended 10 s later.
	cmd.Cancel = func() error { return cmd.Process.Signal(os.Interrupt) }
	cmd.WaitDelay = 10 * time.Second
	cmd.Dir = dir
	cmd.Env = ansibleEnv(os.Environ())
	w := io.MultiWriter(logf, &buf)
	if out != nil {
		w = io.MultiWriter(logf, &buf, out)
	}
	cmd.Stdout, cmd.Stderr = w, w
	runErr := cmd.Run()
	if runErr == nil {
		return nil
	}
	fails := Failures(buf.String())
	if len(fails) == 0 {
		return fmt.Errorf("ansible-playbook %s: %w (see %s)", book, runErr, logPath)
	}
	return &PlaybookError{Book: book, Log: logPath, Failures: fails}
}

// ansibleDefaults are the settings cometlab gives ansible-playbook
// unless the environment sets them: plain output; pipelining (one ssh
// command per module run instead of four: the playbooks use no sudo
// that needs a tty); up to 50 hosts at once (Ansible's default is 5);
// ssh connections kept open between tasks, without compression (-C,
// Ansible's default, costs the control host CPU on a fast network
// for every binary copied).
var ansibleDefaults = []string{
	"ANSIBLE_NOCOLOR=1", "ANSIBLE_RETRY_FILES_ENABLED=0", "ANSIBLE_FORCE_COLOR=0",
	"ANSIBLE_STDOUT_CALLBACK=default", "ANSIBLE_LOAD_CALLBACK_PLUGINS=0",
	"ANSIBLE_PIPELINING=1", "ANSIBLE_FORKS=50",
	"ANSIBLE_SSH_ARGS=-o ControlMaster=auto -o ControlPersist=60s",
}

// ansibleEnv is environ with each of ansibleDefaults it does not set.
func ansibleEnv(environ []string) []string {
	env := slices.Clone(environ)
	for _, d := range ansibleDefaults {
		k, _, _ := strings.Cut(d, "=")
		if !slices.ContainsFunc(environ, func(e string) bool { return strings.HasPrefix(e, k+"=") }) {
			env = append(env, d)
		}
	}
	return env
}

// PlaybookError is a playbook that failed on some hosts: each with
// Ansible's reason, the whole output in Log.
type PlaybookError struct {
	Book, Log string
	Failures  []Failure
}

func (e *PlaybookError) Error() string {
	errs := make([]error, 0, len(e.Failures))
	for _, f := range e.Failures {
		errs = append(errs, fmt.Errorf("host %s: %s", f.Host, f.Msg))
	}
	return fmt.Sprintf("ansible-playbook %s failed (see %s):\n%v", e.Book, e.Log, errors.Join(errs...))
}

// Failed reports whether host is one of the hosts that failed.
func (e *PlaybookError) Failed(host string) bool {
	return slices.ContainsFunc(e.Failures, func(f Failure) bool { return f.Host == host })
}

// Failure is a host that failed a playbook.
type Failure struct {
	Host string
	Msg  string
}

var (
	// fatalLine is ansible's default callback's line for a failed task:
	// `fatal: [h1]: UNREACHABLE! => {...}` or `failed: [h1] (item=…) => {...}`.
	fatalLine = regexp.MustCompile(`^(?:fatal|failed): \[([^\]]+)\][^=]*?(UNREACHABLE!|FAILED!)?\s*=> (.*)$`)
	// recapLine is a PLAY RECAP line.
	recapLine = regexp.MustCompile(`^(\S+)\s+: ok=\d+\s+changed=\d+\s+unreachable=(\d+)\s+failed=(\d+)`)
	taskLine  = regexp.MustCompile(`^TASK \[(.*)\] \**$`)
)

// Failures reads ansible-playbook's default output and returns the hosts
// that failed or were unreachable, in recap order, each with the task and
// the module's message ("msg") of its first failure.
func Failures(output string) []Failure {
	first := map[string]string{}
	task := ""
	var recap []Failure
	for _, line := range strings.Split(output, "\n") {
		line = strings.TrimRight(line, "\r")
		if m := taskLine.FindStringSubmatch(line); m != nil {
			task = m[1]
			continue
		}
		if m := fatalLine.FindStringSubmatch(line); m != nil {
			if _, seen := first[m[1]]; !seen {
				msg := detail(m[3])
				if m[2] == "UNREACHABLE!" {
					msg = "unreachable: " + msg
				}
				if task != "" {
					msg = fmt.Sprintf("task %q: %s", task, msg)
				}
				first[m[1]] = msg
			}
			continue
		}
		if m := recapLine.FindStringSubmatch(line); m != nil {
			unreachable, _ := strconv.Atoi(m[2])
			failed, _ := strconv.Atoi(m[3])
			if unreachable+failed > 0 {
				recap = append(recap, Failure{Host: m[1]})
			}
		}
	}
	for i := range recap {
		recap[i].Msg = first[recap[i].Host]
		if recap[i].Msg == "" {
			recap[i].Msg = "failed (no message in the output)"
		}
	}
	for _, h := range slices.Sorted(maps.Keys(first)) { // a host cut off before the recap
		if !slices.ContainsFunc(recap, func(f Failure) bool { return f.Host == h }) {
			recap = append(recap, Failure{Host: h, Msg: first[h]})
		}
	}
	return recap
}

// detail is the "msg" (and stderr) of a module's JSON result, or the text
// itself when it is not JSON.
func detail(s string) string {
	var r struct {
		Msg    string `json:"msg"`
		Stderr string `json:"stderr"`
	}
	if err := json.Unmarshal([]byte(s), &r); err != nil || r.Msg == "" && r.Stderr == "" {
		return strings.TrimSpace(s)
	}
	msg := strings.TrimSpace(r.Msg)
	if st := strings.TrimSpace(r.Stderr); st != "" && !strings.Contains(msg, st) {
		msg += ": " + st
	}
	return msg
}
