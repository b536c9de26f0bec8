package experiment_test

import (
	"os"
	"strings"
	"testing"

	"github.com/cometlab/cometlab/internal/deploy"
	"github.com/cometlab/cometlab/internal/exitcode"
	"github.com/cometlab/cometlab/internal/experiment"
)

// qaNodes is the manifest of deploy's testdata/qa-hosts.ini: two
// validators and a seed.
const qaNodes = "name = \"qa\"\n[node.validator000]\n[node.validator001]\n[node.seed0]\nmode = \"seed\"\n"

// TestApplyInventory puts a manifest's nodes on the hosts of qa-infra's
// inventory form, and refuses, naming file:line or the node, every
// inventory that leaves something out or says what cometlab does not do.
func TestApplyInventory(t *testing.T) {
	qa, err := os.ReadFile("../deploy/testdata/qa-hosts.ini")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, manifest, inv, user string
		want                      []string // in the error, or, without one, in the hosts' and notes' description
	}{
		{name: "qa-infra", manifest: qaNodes, inv: string(qa), user: "root", want: []string{
			"validator000 on validator000 root@10.10.0.2:22", "validator001 on validator001 root@10.10.0.3:22", "seed0 on seed0 root@10.10.0.4:22",
			"load hosts [testnet-load-runner]",
			"note: inv.ini:7: [prometheus] host testnet-prometheus not used",
		}},
		{name: "ansible_user and ansible_port", manifest: "name = \"qa\"\n[node.validator000]\n",
			inv: "[validators]\n10.0.0.1 name=validator000 ansible_user=qa ansible_port=2222\n", want: []string{"validator000 on validator000 qa@10.0.0.1:2222"}},
		{name: "a node without a host", manifest: qaNodes + "[node.full00]\nmode = \"full\"\n", inv: string(qa), user: "root",
			want: []string{"--inventory inv.ini: node full00 has no host (no name=full00 in [validators validators2 ephemeral])"}},
		{name: "a host naming no node", manifest: "name = \"qa\"\n[node.validator000]\n", inv: string(qa), user: "root",
			want: []string{"inv.ini:3: [validators] host 203.0.113.11 (name=validator001) is no node of the manifest"}},
		{name: "another group", manifest: "name = \"qa\"\n[node.validator000]\n", inv: "[validators]\n10.0.0.1 name=validator000\n[web]\n10.0.0.2 name=w\n", user: "root",
			want: []string{"inv.ini:4: group [web]: cometlab reads"}},
		{name: "no ssh user", manifest: "name = \"qa\"\n[node.validator000]\n", inv: "[validators]\n10.0.0.1 name=validator000\n",
			want: []string{"inv.ini:2: host 10.0.0.1: no ssh user (ansible_user=… on its line, or --ssh-user)"}},
		{name: "bad ansible_port", manifest: "name = \"qa\"\n[node.validator000]\n", inv: "[validators]\n10.0.0.1 name=validator000 ansible_port=ssh\n", user: "root",
			want: []string{`inv.ini:2: host 10.0.0.1: ansible_port="ssh" is not a port`}},
		{name: "hosts of its own", manifest: "name = \"qa\"\n[host.h1]\naddress = \"10.0.0.1\"\nssh_user = \"qa\"\n[node.validator000]\nhost = \"h1\"\n", inv: string(qa), user: "root",
			want: []string{"--inventory inv.ini: the manifest has [host.*] tables of its own"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := loadManifest(t, "qa.toml", tt.manifest)
			hosts, err := deploy.ParseINI(strings.NewReader(tt.inv), "inv.ini")
			if err != nil {
				t.Fatal(err)
			}
			r, notes, err := experiment.ApplyInventory(m, hosts, "inv.ini", tt.user)
			var got string
			if err != nil {
				got = err.Error()
				if code, _ := exitcode.Of(err); code != exitcode.Usage {
					t.Errorf("exit code %d, want %d", code, exitcode.Usage)
				}
			} else {
				var b strings.Builder
				for _, n := range r.Nodes {
					h, _ := r.HostOf(n.Host)
					b.WriteString(n.Name + " on " + n.Host + " " + h.String() + "\n")
				}
				b.WriteString("load hosts [" + strings.Join(r.Load.Hosts, " ") + "]\n")
				for _, n := range notes {
					b.WriteString("note: " + n + "\n")
				}
				got = b.String()
			}
			for _, w := range tt.want {
				if !strings.Contains(got, w) {
					t.Errorf("got:\n%s\nwant %q in it", got, w)
				}
			}
		})
	}
}
