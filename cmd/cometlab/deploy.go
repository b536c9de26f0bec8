package main

import (
	"fmt"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/cometlab/cometlab/internal/exitcode"
	"github.com/cometlab/cometlab/internal/experiment"
	"github.com/cometlab/cometlab/internal/manifest"
)

func newDeployCmd(st *state) *cobra.Command {
	var (
		tf   testnetFlags
		dir  string
		keep bool
		plan bool

		inventory, sshUser string
	)
	cmd := &cobra.Command{
		Use:   "deploy --manifest FILE --out DIR",
		Short: "Start the manifest's testnet on its [host.*] hosts through Ansible",
		Long: `Start a testnet whose nodes the manifest puts on hosts ([host.NAME] tables,
each node with host = "NAME") through ansible-playbook (ansible-core): cometlab
generates the homes with each node's p2p, RPC and metrics listeners on its
host's address (ports 26656, 26657 and 26660, 10 higher for each further node
of a host), writes DIR/inventory.json and the playbooks DIR/deploy.yml and
DIR/down.yml and DIR/load.yml (ansible.builtin modules only), and runs deploy.yml: the node
binary and homes are copied to each host's workdir and the nodes started
there as detached processes with pid files. cometlab then waits until every
node advances and writes DIR/testnet.json and DIR/prometheus.yml. A host
that fails is named with ansible's reason (the full output is in
DIR/deploy.log) and whatever started is stopped again.

With [load] hosts, cometlab copies itself to them (it must run there) for
'cometlab load --testnet DIR' to send the load from them (load.yml). DIR also
keeps the resolved manifest, whose [load] 'load --testnet' takes.

Load it with 'cometlab load --testnet DIR'; stop it, and fetch its logs and
homes back into DIR/collected/HOST, with 'cometlab testnet down --hosts DIR'.

With --plan, cometlab stops once the homes, inventory and playbooks are
written and checks them without running Ansible: every persistent peer and
seed of every node's config.toml is a node of the plan (its host's address,
that node's P2P port and id), and no host has two listeners on one port.
It exits 1, naming each problem, when a check fails.

--inventory FILE takes the hosts from an Ansible inventory instead of
[host.NAME] tables, INI or YAML (YAML when FILE ends in .yml, .yaml or
.json, or its first line that is not a comment does not start with "["):
the INI form qa-infra's Terraform writes (tf/templates/hosts.tmpl), or the
same groups as YAML (all:, children:, hosts:, vars:; group variables
inherited as Ansible does). Each node goes on the host of validators,
validators2 or ephemeral whose name is the node's name (its inventory
hostname without one), at its internal_ip, else its ansible_host (cometlab
reaches the nodes, and ssh, there); loadrunners hosts are the load hosts
unless [load] names its own; prometheus is noted and not used. A host's
cometlab_workdir (an absolute path) and cometlab_firewall (an Ansible
boolean), its own or its groups', set its workdir and firewall as a
[host.NAME] table's do; another cometlab_ variable is refused by name.`,
		Example: `  cometlab deploy --manifest hosts.toml --out qa-net --plan
  cometlab deploy --manifest qa.toml --inventory hosts.ini --ssh-user root --out qa-net --plan
  cometlab deploy --manifest qa.toml --inventory hosts.yml --out qa-net --plan
  cometlab deploy --manifest hosts.toml --out qa-net
  cometlab load --testnet qa-net -r 200 -T 60s
  cometlab testnet down --hosts qa-net`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if tf.manifest == "" {
				return exitcode.With(fmt.Errorf("--manifest: required (a manifest with [host.NAME] tables)"), exitcode.Usage)
			}
			m, err := deployManifest(st, &tf, cmd.Flags(), inventory, sshUser)
			if err != nil {
				return err
			}
			printWarnings(st.stderr, m)
			env, err := st.env(&tf)
			if err != nil {
				return err
			}
			s, err := experiment.Deploy(cmd.Context(), experiment.DeployOptions{Manifest: m, Dir: dir, Env: env,
				Keep: keep, Plan: plan})
			if err != nil {
				return err
			}
			for _, n := range s.Nodes {
				fmt.Fprintf(st.stdout, "%-12s %-9s host %-8s rpc %s  metrics %s\n", n.Name, n.Mode, n.Host, n.RPC, n.Metrics)
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&tf.manifest, "manifest", "", "TOML manifest with [host.NAME] tables and each node's host (required)")
	cmd.Flags().StringVar(&tf.version, "cometbft-version", "", "CometBFT release to run, built once and cached (default from the manifest)")
	cmd.Flags().StringVar(&tf.binary, "cometbft-binary", "", "copy this cometbft binary to the hosts instead of a release")
	cmd.Flags().DurationVar(&tf.startTimeout, "start-timeout", 90*time.Second, "how long each node's RPC port, then every node's first two heights, may take")
	cmd.Flags().StringVar(&dir, "out", "testnet-hosts", "directory for the homes, inventory, playbooks, their logs, testnet.json and prometheus.yml")
	tf.registerHosts(cmd.Flags())
	cmd.Flags().StringVar(&inventory, "inventory", "", "Ansible inventory, INI (qa-infra's tf/templates/hosts.tmpl form) or YAML, putting each node on the host whose name is the node's, instead of [host.NAME] tables")
	cmd.Flags().StringVar(&sshUser, "ssh-user", "", "with --inventory: the ssh user of hosts without ansible_user (their own or their groups')")
	cmd.Flags().BoolVar(&plan, "plan", false, "write the homes, inventory and playbooks into --out and check them (every node's peers resolve to a host's address and a node's P2P port there, ports unique per host) without running Ansible")
	cmd.Flags().BoolVar(&keep, "keep", false, "leave each host's workdir in place when 'testnet down --hosts' has fetched it (default: removed)")
	return cmd
}

// deployManifest is the manifest deploy starts: as resolve makes it, or,
// with an inventory file, its nodes put on the inventory's hosts
// (experiment.LoadInventory), printing what of it is not used.
func deployManifest(st *state, tf *testnetFlags, fs *pflag.FlagSet, inventory, sshUser string) (manifest.Resolved, error) {
	if inventory == "" {
		return resolve(tf, fs)
	}
	src, err := manifestSource(tf, fs)
	if err != nil {
		return manifest.Resolved{}, err
	}
	m, err := src.Manifest()
	if err != nil {
		return manifest.Resolved{}, exitcode.With(err, exitcode.Usage)
	}
	r, notes, err := experiment.LoadInventory(m, inventory, sshUser)
	for _, n := range notes {
		fmt.Fprintf(st.stderr, "note: %s\n", n)
	}
	return r, err
}
