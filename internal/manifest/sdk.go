package manifest

import (
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/cometlab/cometlab/internal/cometbft"
)

// AppSDK is cometlab's own Cosmos SDK chain (sdkchain/): the node is the
// chain's binary, CometBFT in-process, and the load is signed bank sends
// from the genesis's funded accounts. Its settings go in an [app] table
// with kind = "sdk" (see SDK).
const AppSDK = cometbft.AppSDK

// SDKVersions maps each Cosmos SDK release cometlab's chain is built for
// to the CometBFT release its go.mod requires (the node's CometBFT).
var SDKVersions = map[string]string{"v0.55.0": "v0.40.0", "v0.53.8": "v0.38.23"}

// DefaultSDKVersion is the SDK release of app = "sdk" without a version.
const DefaultSDKVersion = "v0.55.0"

// SDK is the resolved settings of app = "sdk" (Resolved.AppConfig keys).
type SDK struct {
	// Version is the Cosmos SDK release (sdk_version), a key of
	// SDKVersions.
	Version string
	// Accounts is the number of funded load accounts in the genesis that
	// the load signs from (accounts): each belongs to one connection.
	Accounts int
	// Amount is the stake each send moves (amount), Fee its fee in stake
	// (fee; 0 for none), Gas its gas limit (gas).
	Amount, Fee int64
	Gas         int64
	// Unordered signs unordered transactions (unordered; SDK v0.53 and
	// later): no sequence, a unique timeout timestamp each.
	Unordered bool
	// Outputs, 2 or more, makes each transaction a MsgMultiSend to that
	// many accounts, Amount each (outputs); 0 or 1 a MsgSend.
	Outputs int
	// Binary is the user's own SDK chain's daemon (sdk_binary, an
	// absolute path; "" for cometlab's own chain): the node, with
	// CometBFT in-process, whose init and start are the SDK's. cometlab's
	// own chain (of Version) still writes the genesis and signs the load,
	// for a chain of Prefix and Denom.
	Binary string
	// Prefix is the chain's account address prefix (bech32_prefix) and
	// Denom its token (denom): staked, funded, sent and paid as fees.
	Prefix, Denom string
}

// Describe says what the load signs: "MsgSend of 1 stake, gas 100000, no
// fee, from 1000 accounts, sequenced" (run.json load.signed). The chain
// that takes it (the SDK line, a user's daemon) is not the load: an ab of
// two chains compares one load.
func (s SDK) Describe() string {
	msg := fmt.Sprintf("MsgSend of %d %s", s.Amount, s.Denom)
	if s.Outputs >= 2 {
		msg = fmt.Sprintf("MsgMultiSend of %d %s to %d accounts", s.Amount, s.Denom, s.Outputs)
	}
	fee := "no fee"
	if s.Fee > 0 {
		fee = fmt.Sprintf("fee %d %s", s.Fee, s.Denom)
	}
	return fmt.Sprintf("%s, gas %d, %s, from %d accounts, %s", msg, s.Gas, fee, s.Accounts, order(s.Unordered))
}

// order is "unordered" or "sequenced".
func order(unordered bool) string {
	if unordered {
		return "unordered"
	}
	return "sequenced"
}

// The [app] keys of app = "sdk", with their defaults.
var sdkDefaults = map[string]any{"sdk_version": DefaultSDKVersion, "accounts": int64(1000), "amount": int64(1), "fee": int64(0),
	"gas": int64(100_000), "unordered": false, "outputs": int64(0), "sdk_binary": "", "bech32_prefix": "cosmos", "denom": "stake"}

// UnorderedTTL is how long an unordered load's transactions stay valid
// after they are signed (just before the testnet starts): the chain
// refuses a timeout more than 10 minutes past its block time.
const UnorderedTTL = 9 * time.Minute

// SDKOf returns the SDK settings of a resolved app = "sdk"'s AppConfig.
func SDKOf(cfg map[string]any) SDK {
	get := func(k string) any {
		if v, ok := cfg[k]; ok {
			return v
		}
		return sdkDefaults[k]
	}
	s := SDK{Version: get("sdk_version").(string), Accounts: int(get("accounts").(int64)), Amount: get("amount").(int64),
		Fee: get("fee").(int64), Gas: get("gas").(int64), Unordered: get("unordered").(bool), Outputs: int(get("outputs").(int64)),
		Binary: get("sdk_binary").(string), Prefix: get("bech32_prefix").(string), Denom: get("denom").(string)}
	return s
}

// resolveSDKApp checks app = "sdk"'s settings and returns them with
// their defaults (sdk_binary made absolute: relative to the manifest's
// directory, or found on PATH when it is a bare name).
func (m *Manifest) resolveSDKApp(ps *problems, settings map[string]any, binary string) map[string]any {
	out := maps.Clone(sdkDefaults)
	for _, k := range sortedKeys(settings) {
		v := settings[k]
		def, known := sdkDefaults[k]
		if !known {
			ps.add(f("app", k), "unknown key for app = %q (it takes: %s)", AppSDK, strings.Join(slices.Sorted(maps.Keys(sdkDefaults)), ", "))
			continue
		}
		switch def.(type) {
		case int64:
			n, ok := v.(int64)
			zero := k == "fee" || k == "outputs"
			if !ok || n < 0 || (n == 0 && !zero) {
				ps.add(f("app", k), "must be a positive integer%s, got %v", map[bool]string{true: " or 0"}[zero], v)
				continue
			}
		case bool:
			if _, ok := v.(bool); !ok {
				ps.add(f("app", k), "must be true or false, got %v", v)
				continue
			}
		case string:
			s, isString := v.(string)
			msg := ""
			switch {
			case !isString:
				msg = fmt.Sprintf("must be a string, got %v", v)
			case k == "sdk_version":
				if _, ok := SDKVersions[s]; !ok {
					msg = fmt.Sprintf("cometlab's SDK chain is built for %s, got %v", strings.Join(slices.Sorted(maps.Keys(SDKVersions)), ", "), v)
				}
			case k == "sdk_binary":
				s, msg = m.sdkBinary(s)
				v = s
			case k == "bech32_prefix" && !bech32Prefix.MatchString(s):
				msg = fmt.Sprintf("must be an address prefix (lower-case letters and digits, starting with a letter), got %q", s)
			case k == "denom" && !sdkDenom.MatchString(s):
				msg = fmt.Sprintf("must be an SDK denom (a letter, then 2 to 127 letters, digits or /:._-), got %q", s)
			}
			if msg != "" {
				ps.add(f("app", k), "%s", msg)
				if k == "sdk_binary" {
					out[k] = v // a user's chain still, for the other checks
				}
				continue
			}
		}
		out[k] = v
	}
	if out["sdk_binary"] == "" {
		delete(out, "sdk_binary") // cometlab's own chain
	} else {
		// the genesis and the load are written by cometlab's own chain of
		// the default SDK release, which is no setting of the user's chain
		if _, declared := settings["sdk_version"]; declared {
			ps.add(f("app", "sdk_version"), "builds cometlab's own chain; with sdk_binary the node is your chain's daemon: leave sdk_version out")
		}
		delete(out, "sdk_version")
	}
	if binary != "" {
		ps.add(f("cometbft_binary"), "with app = %q the node is the SDK chain's binary, CometBFT in-process: no cometbft_binary", AppSDK)
	}
	return out
}

// bech32Prefix and sdkDenom are what an account prefix and a denom may be
// (the SDK's denom rule).
var (
	bech32Prefix = regexp.MustCompile(`^[a-z][a-z0-9]{0,19}$`)
	sdkDenom     = regexp.MustCompile(`^[a-zA-Z][a-zA-Z0-9/:._-]{2,127}$`)
)

// sdkBinary is sdk_binary's absolute path, or why it is no program: a
// bare name is looked up on PATH, a relative path is the manifest's
// directory's.
func (m *Manifest) sdkBinary(path string) (string, string) {
	if path == "" {
		return "", "must name your chain's daemon (a path, or a program on PATH)"
	}
	if !strings.ContainsRune(path, filepath.Separator) {
		found, err := exec.LookPath(path)
		if err != nil {
			return path, fmt.Sprintf("%q is not on PATH: give its path", path)
		}
		path = found
	}
	path = m.relative(path, "app.sdk_binary")
	if abs, err := filepath.Abs(path); err == nil {
		path = abs
	}
	st, err := os.Stat(path)
	switch {
	case err != nil:
		return path, fmt.Sprintf("%s: no such file", path)
	case st.IsDir() || st.Mode()&0o111 == 0:
		return path, fmt.Sprintf("%s is not an executable file", path)
	}
	return path, ""
}

// resolveSDK checks what an SDK chain's testnet cannot do (the rest of
// the manifest resolved): every node runs the CometBFT of the SDK line,
// in-process (no other release, tree or patch, no upgrade), with ed25519
// keys (the gentxs are ed25519 validators), on local nodes; the load is
// the chain's signed sends (no --txs file, no clients, lanes or
// app-side mempool), with an account per connection at least.
func (m *Manifest) resolveSDK(ps *problems, r *Resolved) {
	if r.App != AppSDK {
		return
	}
	s := SDKOf(r.AppConfig)
	r.Load.Sync = true // every CheckTx refusal named with its reason
	want := SDKVersions[s.Version]
	if s.Binary != "" {
		// the user's chain links the CometBFT it links: the manifest says
		// which (config.toml's keys are its line's), the run checks it
		_, inFile := m.pos["cometbft_version"]
		_, byFlag := m.origin["cometbft_version"]
		if !inFile && !byFlag || m.CometBFTVersion == "" {
			ps.add(f("app", "sdk_binary"), "say which CometBFT release your chain links: cometbft_version = \"vX.Y.Z\" (`%s version --long` lists it)", filepath.Base(s.Binary))
		}
		want = r.CometBFTVersion
	}
	var trees, others []string
	asked := ""
	for _, n := range r.Nodes {
		switch {
		case n.Source != nil:
			trees = append(trees, n.Name)
		case n.Version != "" && n.Version != want:
			others, asked = append(others, n.Name), n.Version
		}
		if n.Mempool == cometbft.MempoolApp {
			ps.add(f("node", n.Name, "mempool"), "cometlab's SDK chain keeps its app-side mempool off (CometBFT's mempool orders the transactions)")
		}
	}
	if len(trees) > 0 {
		ps.add(f("cometbft_source"), "with app = %q the node is the SDK chain's binary, CometBFT %s in-process: no source tree or patches (%s)", AppSDK, want, strings.Join(trees, ", "))
	}
	if len(others) > 0 && s.Binary != "" {
		ps.add(f("cometbft_version"), "every node runs your chain's daemon, CometBFT %s in-process, and %s ask for %s", want, strings.Join(others, ", "), asked)
	} else if len(others) > 0 {
		leave := ""
		if want == cometbft.DefaultVersion {
			leave = " (or leave it out)"
		}
		ps.add(f("cometbft_version"), "SDK %s is built with CometBFT %s, and %s ask for %s: set cometbft_version = %q%s", s.Version, want, strings.Join(others, ", "), asked, want, leave)
	}
	if r.KeyType != "" && r.KeyType != cometbft.KeyEd25519 {
		ps.add(f("key_type"), "cometlab's SDK chain makes its validators from ed25519 consensus keys, got %q", r.KeyType)
	}
	for _, n := range r.Nodes {
		if n.ClockSkew != 0 {
			ps.add(f("node", n.Name, "clock_skew"), "a skewed clock needs a node built with CometBFT's clock_skew tag, and cometlab's SDK chain is not")
		}
	}
	if r.TimeScaleAuto {
		ps.add(f("time_scale"), "\"auto\" probes the host with loadtime payloads, which an SDK chain refuses: give a number")
	}
	if len(m.Hosts) > 0 {
		ps.add(f("host"), "an SDK chain runs on local nodes only for now: [host.*] testnets run the kvstore or the e2e app")
	}
	l := r.Load
	if l.TxsFile != "" {
		ps.add(f("load", "txs"), "with app = %q the load is the chain's signed bank sends, which cometlab signs for the run", AppSDK)
	}
	if len(l.Clients) > 0 {
		ps.add(f("load", "client"), "with app = %q the load is one client's signed sends: no [[load.client]]", AppSDK)
	}
	if s.Outputs >= s.Accounts {
		ps.add(f("app", "outputs"), "%d outputs from %d accounts: each multi-send pays the accounts after its own, so give fewer outputs than accounts", s.Outputs, s.Accounts)
	}
	if l.Connections > s.Accounts {
		ps.add(f("app", "accounts"), "%d accounts for %d connections: each connection signs from accounts of its own, so give at least one per connection", s.Accounts, l.Connections)
	}
	if s.Unordered && l.Duration > UnorderedTTL-time.Minute {
		ps.add(f("app", "unordered"), "unordered transactions expire %s after they are signed (the chain takes at most 10 minutes): a load of %s outlives them", UnorderedTTL, l.Duration)
	}
}
