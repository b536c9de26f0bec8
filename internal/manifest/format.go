package manifest

import (
	"bytes"
	"fmt"
	"maps"
	"os"
	"slices"

	"github.com/pelletier/go-toml/v2"
)

// Manifest formats ([ReadOptions] Format).
const (
	// FormatAuto detects the format from the file's content (see
	// [DetectFormat]).
	FormatAuto = "auto"
	// FormatCometlab is cometlab's own manifest format.
	FormatCometlab = "cometlab"
	// FormatE2E is CometBFT's e2e manifest format (test/e2e/networks,
	// cometbft/qa-infra's testnets).
	FormatE2E = "e2e"
)

// Formats lists the values of ReadOptions.Format.
var Formats = []string{FormatAuto, FormatCometlab, FormatE2E}

// ReadOptions say how [Read] reads a manifest file.
type ReadOptions struct {
	// Format is FormatAuto (""), FormatCometlab or FormatE2E; a format
	// given wins over the detection.
	Format string
	// Lenient turns the refusals of e2e keys that do not change what is
	// measured (ipv6, prometheus = false, constant_flip, …) into
	// warnings; other refusals stay errors.
	Lenient bool
}

// LoadFile reads the manifest file at path in the format o names (see
// [Read]).
func LoadFile(path string, o ReadOptions) (Manifest, []string, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return Manifest{}, nil, fmt.Errorf("read manifest: %w", err)
	}
	return Read(path, data, o)
}

// Read decodes the manifest data (name is the file name for messages) in
// cometlab's format ([Parse]) or CometBFT's e2e format, as o says or as
// [DetectFormat] finds. It returns the warnings to print before anything
// starts: the e2e keys --lenient let through, each "FILE:LINE:COL: KEY:
// REASON (ignored: --lenient)". An e2e key cometlab does not take is an
// [*Error] naming file, line and key, like every other manifest problem.
func Read(name string, data []byte, o ReadOptions) (Manifest, []string, error) {
	format := o.Format
	switch format {
	case "", FormatAuto:
		format, _ = DetectFormat(data)
	case FormatCometlab, FormatE2E:
	default:
		return Manifest{}, nil, fmt.Errorf("invalid manifest format %q (want auto, cometlab or e2e)", o.Format)
	}
	if format == FormatE2E {
		return parseE2E(name, data, o.Lenient)
	}
	m, err := Parse(name, data)
	return m, nil, err
}

// cometlabTop and cometlabNode are the keys of cometlab's own format that
// the e2e format shares (validators, log_level, config, key_type,
// pbts_enable_height, validator_update and node at the top; mode, zone,
// config, seeds, persistent_peers, start_at and state_sync in a node
// table): the others mark a file.
var (
	cometlabTop  = []string{"name", "cometbft_version", "cometbft_binary", "cometbft_source", "cometbft_patches", "app", "validators", "log_level", "links", "absent", "evidence", "config", "node", "perturb", "rotate", "zones", "host", "sentinel", "load", "topology", "key_type", "pbts_enable_height", "libp2p", "validator_update"}
	cometlabNode = []string{"mode", "power", "cometbft_version", "cometbft_source", "cometbft_patches", "config", "zone", "host", "seeds", "persistent_peers", "start_at", "state_sync", "twin_of", "clock_skew"}
)

// DetectFormat tells a CometBFT e2e manifest from one of cometlab's own,
// and why: e2e when validators is a table (of voting powers), config an
// array, a node's mode "light", or a top-level or node key is one only
// the e2e format has; cometlab otherwise (a file both formats read alike,
// such as [node.X] tables alone, is read as cometlab's, which a --format
// given wins over), and for a file that does not decode.
func DetectFormat(data []byte) (format, reason string) {
	var doc map[string]any
	if err := toml.NewDecoder(bytes.NewReader(data)).Decode(&doc); err != nil {
		return FormatCometlab, "not valid TOML"
	}
	if _, ok := doc["validators"].(map[string]any); ok {
		return FormatE2E, "[validators] is a table of voting powers"
	}
	if _, ok := doc["config"].([]any); ok {
		return FormatE2E, "config is an array of KEY = VALUE strings"
	}
	for _, k := range slices.Sorted(maps.Keys(doc)) {
		if _, e2e := e2eTopKeys[k]; e2e && !slices.Contains(cometlabTop, k) {
			return FormatE2E, "key " + k + " is the e2e format's"
		}
	}
	nodes, _ := doc["node"].(map[string]any)
	for _, name := range slices.Sorted(maps.Keys(nodes)) {
		t, _ := nodes[name].(map[string]any)
		if _, ok := t["config"].([]any); ok {
			return FormatE2E, "node " + name + " config is an array of KEY = VALUE strings"
		}
		if t["mode"] == "light" {
			return FormatE2E, "node " + name + " is a light node"
		}
		for _, k := range slices.Sorted(maps.Keys(t)) {
			if _, e2e := e2eNodeKeys[k]; e2e && !slices.Contains(cometlabNode, k) {
				return FormatE2E, "node key " + name + "." + k + " is the e2e format's"
			}
		}
	}
	return FormatCometlab, "no key only the e2e format has"
}

// Warnings returns what reading m's file took leniently (see
// [ReadOptions]), each "FILE:LINE:COL: KEY: REASON (ignored: --lenient)".
func (m *Manifest) Warnings() []string { return slices.Clone(m.warnings) }
