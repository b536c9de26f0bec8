package cometbft

import (
	"bufio"
	"cmp"
	"context"
	"debug/buildinfo"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// SDKChainModule is the module path of cometlab's own Cosmos SDK chain,
// the sdkchain/ directory of cometlab's repository: a module of its own,
// so that cometlab's carries none of the SDK's dependencies.
const SDKChainModule = "github.com/cometlab/cometlab/sdkchain"

// SDKChainSourceEnv names the environment variable that gives the
// sdkchain/ directory when cometlab runs outside its repository.
const SDKChainSourceEnv = "COMETLAB_SDKCHAIN_SOURCE"

// sdkCacheDir is where SDK chain builds are cached, one directory per SDK
// release and source hash.
const sdkCacheDir = "sdk"

// SDKChainProgram is the SDK chain's binary in its cache directory.
var SDKChainProgram = Program{Name: "sdkchain", Pkg: "cmd/sdkchain"}

// SDKChainSource returns the sdkchain/ directory: $COMETLAB_SDKCHAIN_SOURCE
// when set, else the first sdkchain/ holding the chain's go.mod found
// walking up from the working directory, then from cometlab's executable.
func SDKChainSource() (string, error) {
	if d := os.Getenv(SDKChainSourceEnv); d != "" {
		if err := isSDKChain(d); err != nil {
			return "", fmt.Errorf("%s=%s: %w", SDKChainSourceEnv, d, err)
		}
		return filepath.Abs(d)
	}
	var starts []string
	if wd, err := os.Getwd(); err == nil {
		starts = append(starts, wd)
	}
	if exe, err := os.Executable(); err == nil {
		starts = append(starts, filepath.Dir(exe))
	}
	for _, s := range starts {
		for d := s; ; d = filepath.Dir(d) {
			if isSDKChain(filepath.Join(d, "sdkchain")) == nil {
				return filepath.Join(d, "sdkchain"), nil
			}
			if filepath.Dir(d) == d {
				break
			}
		}
	}
	return "", fmt.Errorf("app = %q builds cometlab's SDK chain from its source, the sdkchain/ directory of cometlab's repository: "+
		"none found above the working directory or cometlab's binary; run cometlab inside its checkout or set %s", AppSDK, SDKChainSourceEnv)
}

// isSDKChain says why dir is not the SDK chain's module (nil when it is).
func isSDKChain(dir string) error {
	f, err := os.Open(filepath.Join(dir, "go.mod"))
	if err != nil {
		return err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if mod, ok := strings.CutPrefix(strings.TrimSpace(sc.Text()), "module "); ok {
			if strings.Trim(mod, `"`) == SDKChainModule {
				return nil
			}
			return fmt.Errorf("%s/go.mod declares module %s, not %s", dir, mod, SDKChainModule)
		}
	}
	return fmt.Errorf("%s/go.mod declares no module", dir)
}

// OwnSDKChain is SDKChain from cometlab's own chain source (SDKChainSource):
// what a run of app = "sdk" and `versions --sdk` build.
func (f *Fetcher) OwnSDKChain(ctx context.Context, sdkVersion string) (string, BuildRecord, error) {
	src, err := SDKChainSource()
	if err != nil {
		return "", BuildRecord{}, err
	}
	return f.SDKChain(ctx, src, sdkVersion)
}

// sdkLineBuilds are the SDK releases the chain builds for from another
// go.mod than its own (the go command's -modfile, its go.sum beside it)
// with a build tag selecting that line's side of the chain's few
// line-specific files (sdkchain/app/sdk_v0*.go, cmd/sdkchain/server_v0*.go).
// The chain's go.mod is the default release's.
var sdkLineBuilds = map[string]struct{ modfile, tag string }{
	"v0.53.8": {"go.sdk053.mod", "sdk053"},
}

// sdkBuildArgs are the go command's arguments that build the chain for
// sdkVersion into out, and the go.mod that pins it.
func sdkBuildArgs(sdkVersion, out string) (args []string, modfile string) {
	args = []string{"build"}
	modfile = "go.mod"
	if b, ok := sdkLineBuilds[sdkVersion]; ok {
		args = append(args, "-modfile="+b.modfile, "-tags="+b.tag)
		modfile = b.modfile
	}
	return append(args, "-o", out, "./"+SDKChainProgram.Pkg), modfile
}

// SDKChain returns the path of cometlab's SDK chain built for SDK release
// sdkVersion from src (the sdkchain/ directory), and its build record;
// the build is cached by release and the hash of src's files, so an
// unchanged chain is built once (a cold build of the SDK's tree is about
// 5 minutes of CPU; a warm one links in seconds). The chain's go.mod (or
// the line's, sdkLineBuilds) pins the SDK and the CometBFT it runs
// in-process; sdkVersion must be the one it pins.
func (f *Fetcher) SDKChain(ctx context.Context, src, sdkVersion string) (string, BuildRecord, error) {
	var rec BuildRecord
	if err := isSDKChain(src); err != nil {
		return "", rec, err
	}
	_, modfile := sdkBuildArgs(sdkVersion, "")
	pinned, err := requiredVersion(filepath.Join(src, modfile), "github.com/cosmos/cosmos-sdk")
	if err != nil {
		return "", rec, err
	}
	if pinned != sdkVersion {
		return "", rec, fmt.Errorf("the SDK chain of %s requires cosmos-sdk %s in %s, not %s", src, pinned, modfile, sdkVersion)
	}
	files, err := listFiles(src)
	if err != nil {
		return "", rec, err
	}
	hash, err := hashFiles(src, files, []byte(sdkVersion))
	if err != nil {
		return "", rec, err
	}
	dir := filepath.Join(f.CacheDir, sdkCacheDir, sdkVersion+"-"+hash[:16])
	bin := filepath.Join(dir, SDKChainProgram.Name)
	if ok, _ := executable(bin); ok {
		return bin, cachedRecord(dir, rec), nil
	}
	g, err := f.goTool()
	if err != nil {
		return "", rec, fmt.Errorf("build the SDK chain: %w", err)
	}
	unlock, err := lockBuildDir(dir)
	if err != nil {
		return "", rec, err
	}
	defer unlock()
	if ok, _ := executable(bin); ok { // built by someone else meanwhile
		return bin, cachedRecord(dir, rec), nil
	}
	tmp, err := os.MkdirTemp(dir, ".build")
	if err != nil {
		return "", rec, err
	}
	defer os.RemoveAll(tmp)
	start := time.Now()
	f.say("building cometlab's SDK chain (Cosmos SDK %s) from %s; a first build of the SDK takes minutes", sdkVersion, src)
	// The flags of `go build` in sdkchain/ (its real-node test's): the
	// go build cache's packages are shared with it.
	out := filepath.Join(tmp, SDKChainProgram.Name)
	args, _ := sdkBuildArgs(sdkVersion, out)
	if _, stderr, err := g.run(ctx, src, "building the SDK chain", nil, args...); err != nil {
		if ctx.Err() != nil {
			return "", rec, fmt.Errorf("build the SDK chain: %w", ctx.Err())
		}
		return "", rec, fmt.Errorf("build the SDK chain from %s failed: %w; output:\n%s", src, err, tail(string(stderr), 20))
	}
	rec = BuildRecord{Version: sdkVersion, Method: MethodMainModule, Declares: SDKChainModule, GoVersion: g.env(ctx, "GOVERSION"),
		Seconds: time.Since(start).Round(100 * time.Millisecond).Seconds(), Built: time.Now().UTC(),
		Source: &SourceRecord{Path: src, Module: SDKChainModule, Version: sdkVersion, TreeHash: hash, Key: hash}}
	f.say("built the SDK chain in %s", time.Since(start).Round(time.Second))
	return bin, rec, install(rec, SDKChainProgram, out, dir)
}

// cachedRecord is the build record of the SDK chain cached in dir, or
// rec when it has none that reads.
func cachedRecord(dir string, rec BuildRecord) BuildRecord {
	if r, err := ReadProgramRecord(dir, SDKChainProgram); err == nil && r != nil {
		return *r
	}
	return rec
}

// requiredVersion returns the version go.mod at path requires of module.
func requiredVersion(path, module string) (string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return "", err
	}
	for _, line := range strings.Split(string(b), "\n") {
		fs := strings.Fields(strings.TrimPrefix(strings.TrimSpace(line), "require "))
		if len(fs) >= 2 && fs[0] == module {
			return fs[1], nil
		}
	}
	return "", errors.New(path + " does not require " + module)
}

// SDKSpec is what an SDK chain's testnet needs besides its nodes.
type SDKSpec struct {
	// Tool is cometlab's own SDK chain (built by SDKChain), whose
	// testnet and presign write the genesis and sign the load; "" for
	// the nodes' binary, which is that chain.
	Tool string
	// Prefix is the chain's account address prefix and Denom its token
	// ("": cometlab's chain's, cosmos and stake).
	Prefix, Denom string
	// UserChain is set for the user's own chain (its daemon the nodes'
	// binary): its app.toml keeps its app-side mempool settings.
	UserChain bool
}

func (s SDKSpec) denom() string { return cmp.Or(s.Denom, "stake") }

// tool is the binary that writes the testnet and signs its load.
func (s SDKSpec) tool(nodes []NodeSpec) string {
	if s.Tool != "" || len(nodes) == 0 {
		return s.Tool
	}
	return nodes[0].Binary
}

// chainArgs are testnet's and presign's flags for the chain.
func (s SDKSpec) chainArgs() []string {
	return []string{"--bech32-prefix", cmp.Or(s.Prefix, "cosmos"), "--denom", s.denom()}
}

// PresignArgs are the arguments of the tool's presign for the chain
// (followed by the load's own): Presign runs it.
func (s SDKSpec) PresignArgs() []string { return append([]string{"presign"}, s.chainArgs()...) }

// Presign runs the tool's presign with args (PresignArgs and the load's).
func (spec Spec) Presign(ctx context.Context, args []string) ([]byte, error) {
	bin := spec.SDK.tool(spec.Nodes)
	out, err := exec.CommandContext(ctx, bin, args...).CombinedOutput()
	if err != nil {
		return out, fmt.Errorf("%s presign: %v: %s", bin, err, strings.TrimSpace(string(out)))
	}
	return out, nil
}

// sdkGenesisAsCometBFT rewrites the SDK genesis at path (as a chain's
// `init` writes it: consensus.params, consensus.validators, a numeric
// initial_height) in CometBFT's format (consensus_params, validators, the
// height a string), keeping its app_state, so that the homes' genesis is
// written as every testnet's; a CometBFT genesis is left as it is.
// sdkchain testnet writes the SDK's format again.
func sdkGenesisAsCometBFT(path string) error {
	gen, err := readGenesisMap(path)
	if err != nil {
		return err
	}
	c, isSDK := gen["consensus"].(map[string]any)
	if _, cmt := gen["consensus_params"]; cmt || !isSDK {
		return nil
	}
	gen["consensus_params"] = c["params"]
	vals, _ := c["validators"].([]any)
	if vals == nil {
		vals = []any{}
	}
	gen["validators"] = vals
	delete(gen, "consensus")
	delete(gen, "app_name")
	delete(gen, "app_version")
	if h, ok := gen["initial_height"].(json.Number); ok {
		gen["initial_height"] = h.String()
	}
	out, err := json.MarshalIndent(gen, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(out, '\n'), 0o600)
}

// sdkGenesis turns the homes' CometBFT genesis into the SDK chain's:
// `sdkchain testnet` (cometlab's chain, spec.SDK.Tool or the nodes' own
// binary) writes the funded accounts, one gentx per validator from its
// consensus key at its genesis power, and cometlab's app.toml settings
// into every home, keeping the chain id, time, consensus parameters and
// the chain's other app state that init and writeGenesis gave them, and
// config.toml as writeConfig wrote it.
func sdkGenesis(ctx context.Context, spec Spec, homes []Home) error {
	var vals, others []string
	for i, n := range spec.Nodes {
		if n.Mode == ModeValidator {
			vals = append(vals, n.Name+"="+homes[i].Dir)
		} else {
			others = append(others, homes[i].Dir)
		}
	}
	args := append([]string{"testnet", "--chain-id", spec.ChainID, "--accounts", strconv.Itoa(max(spec.SDKAccounts, 1)),
		"--validators", strings.Join(vals, ",")}, spec.SDK.chainArgs()...)
	if len(others) > 0 {
		args = append(args, "--nodes", strings.Join(others, ","))
	}
	if spec.SDK.UserChain {
		args = append(args, "--keep-mempool")
	}
	bin := spec.SDK.tool(spec.Nodes)
	if out, err := exec.CommandContext(ctx, bin, args...).CombinedOutput(); err != nil {
		return fmt.Errorf("the SDK chain's genesis: %s testnet: %v: %s", bin, err, tail(string(out), 10))
	}
	return nil
}

// LinkedCometBFT is the CometBFT release the Go program at path links
// (an SDK chain's daemon: CometBFT in-process), read from the build
// information the go command stamped into it, or why it has none. A
// replaced module gives the version it replaces (its release line's
// facts are the ones its config.toml has), and replaced says by what.
func LinkedCometBFT(path string) (version, replaced string, err error) {
	bi, err := buildinfo.ReadFile(path)
	if err != nil {
		return "", "", fmt.Errorf("%s: no Go build information to read its CometBFT from: %w", path, err)
	}
	for _, d := range bi.Deps {
		if d.Path != "github.com/cometbft/cometbft" {
			continue
		}
		if d.Replace != nil {
			replaced = d.Replace.Path + "@" + d.Replace.Version
		}
		return d.Version, replaced, nil
	}
	return "", "", fmt.Errorf("%s links no github.com/cometbft/cometbft: is it an SDK chain's daemon?", path)
}
