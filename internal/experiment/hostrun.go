package experiment

import (
	"context"
	"errors"
	"fmt"

	"github.com/google/uuid"
)

// runOnHosts is Run for a manifest whose nodes are on [host.*] hosts,
// from the same start as a local run's (s: its id, directory and hard
// context): the
// run deploys a testnet of its own into its run directory (Deploy: the
// homes under DIR/nodes as a local run's, the inventory, playbooks and
// their logs beside them), loads it as `load --testnet DIR` does (from
// the [load] hosts when the manifest has them), and stops it through
// down.yml, which fetches the hosts' logs and homes back into
// DIR/collected — whatever ended the load, and also on an interrupt
// (bounded by Env.Hard, as a local run's clean-up). What hosts cannot do
// the manifest refused when it was resolved; a series of such runs (sweep,
// saturate, ab, qa) deploys once per run, as it starts a fresh local
// testnet per run.
func runOnHosts(ctx context.Context, s runStart, opts Options) (Result, error) {
	dir := s.dir
	if _, err := Deploy(ctx, DeployOptions{Manifest: opts.Manifest, Dir: dir, Env: opts.Env}); err != nil {
		return Result{Dir: dir}, fmt.Errorf("run on hosts: %w", err)
	}
	res, err := loadDeployed(ctx, opts, dir, s.id)
	if derr := DownHosts(s.hard, dir, opts.Out); derr != nil {
		err = errors.Join(err, fmt.Errorf("stopping the testnet on its hosts (stop it with `cometlab testnet down --hosts %s`): %w", dir, derr))
	}
	return res, err
}

// loadDeployed loads the testnet deployed into dir, recording the run
// there with id: the deployment's endpoints, nodes, zones, app and load
// hosts, the manifest's workload and the run's collection options.
func loadDeployed(ctx context.Context, opts Options, dir string, id uuid.UUID) (Result, error) {
	tl, err := ReadTestnetLoad(dir)
	if err != nil {
		return Result{Dir: dir}, err
	}
	m := opts.Manifest
	lo := LoadOptions{Manifest: m, Dir: dir, Readback: true, Env: opts.Env, Collect: opts.Collect, RunID: id.String()}
	tl.Apply(&lo)
	res, err := Load(ctx, lo)
	if res.Dir == "" {
		res.Dir = dir
	}
	return res, err
}
