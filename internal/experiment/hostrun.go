package experiment

import (
	"context"
	"errors"
	"fmt"

	"github.com/google/uuid"
)

// runOnHosts is Run for a manifest whose nodes are on [host.*] hosts: the
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
func runOnHosts(ctx context.Context, opts Options) (Result, error) {
	m := opts.Manifest
	id := uuid.New()
	dir := opts.Dir
	if dir == "" {
		dir = DefaultRunDir(id.String())
	}
	hard := opts.Hard
	if hard == nil {
		hard = context.WithoutCancel(ctx)
	}
	if _, err := Deploy(ctx, DeployOptions{Manifest: m, Dir: dir, Env: opts.Env}); err != nil {
		return Result{Dir: dir}, fmt.Errorf("run on hosts: %w", err)
	}
	res, err := loadDeployed(ctx, opts, dir, id)
	if derr := DownHosts(hard, dir, opts.Out); derr != nil {
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
	lo := LoadOptions{Workload: m.Load, Dir: dir, Readback: true, Env: opts.Env, Collect: opts.Collect, RunID: id.String(), TimeScale: m.TimeScale}
	tl.Apply(&lo)
	res, err := Load(ctx, lo)
	if res.Dir == "" {
		res.Dir = dir
	}
	return res, err
}
