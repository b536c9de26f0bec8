package results

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// HashesFile holds what each node committed at each height: the block's
// hash and the app hash after executing it, one row per node, height and
// source (see HashRow). The safety check compares them across nodes.
const HashesFile = "hashes.csv"

// HashesHeader is the header row of hashes.csv.
const HashesHeader = "height,node,block_hash,app_hash,source"

// Sources of a hashes.csv row.
const (
	// HashFromHeader: the node's new-block-header event for Height+1,
	// whose last_block_id.hash is block Height's hash and whose app_hash
	// is the app's state after executing block Height (a node commits
	// Height+1 only when both match its own state).
	HashFromHeader = "header"
	// HashFromStatus: the node's /status at the run's end: its latest
	// height and that block's hash (no app hash).
	HashFromStatus = "status"
	// HashFromApp: the node's /abci_info at the run's end: the app's last
	// committed height and its app hash (no block hash). A node whose app
	// diverged halts before any header carries its app hash; this row
	// names it.
	HashFromApp = "app"
)

// HashRow is one row of hashes.csv. Hashes are upper-case hex, "" when
// the source does not give one.
type HashRow struct {
	Height    int64
	Node      string
	BlockHash string
	AppHash   string
	Source    string // HashFromHeader, HashFromStatus or HashFromApp
}

// AppendCSV appends the row (without newline).
func (h *HashRow) AppendCSV(b []byte) []byte {
	b = strconv.AppendInt(b, h.Height, 10)
	b = append(b, ',')
	b = appendField(b, h.Node)
	b = append(b, ',')
	b = appendField(b, h.BlockHash)
	b = append(b, ',')
	b = appendField(b, h.AppHash)
	b = append(b, ',')
	return appendField(b, h.Source)
}

func (h *HashRow) parse(f []string) error {
	if len(f) != 5 {
		return errFields(5, f)
	}
	p := parser{f: f}
	h.Height = p.int(0)
	h.Node = strings.Clone(f[1])
	h.BlockHash = strings.Clone(f[2])
	h.AppHash = strings.Clone(f[3])
	h.Source = strings.Clone(f[4])
	return p.err
}

// ReadHashes reads dir/hashes.csv (or .gz); a run without one (made
// before the file was written) has no rows and no error.
func ReadHashes(dir string) ([]HashRow, error) {
	rows, err := readAll[HashRow](filepath.Join(dir, HashesFile), HashesHeader)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	return rows, err
}

// EvidenceFile holds the evidence of misbehaviour committed in the run's
// blocks: one row per piece of evidence and validator it accuses.
const EvidenceFile = "evidence.csv"

// EvidenceHeader is the header row of evidence.csv.
const EvidenceHeader = "height,type,evidence_height,validator"

// Evidence is one row of evidence.csv: block Height carried evidence of
// Type (as CometBFT's JSON names it: "DuplicateVoteEvidence",
// "LightClientAttackEvidence") of misbehaviour at EvidenceHeight by the
// validator whose address (upper-case hex) is Validator.
type Evidence struct {
	Height         int64
	Type           string
	EvidenceHeight int64
	Validator      string
}

// AppendCSV appends the row (without newline).
func (e *Evidence) AppendCSV(b []byte) []byte {
	b = strconv.AppendInt(b, e.Height, 10)
	b = append(b, ',')
	b = appendField(b, e.Type)
	b = append(b, ',')
	b = strconv.AppendInt(b, e.EvidenceHeight, 10)
	b = append(b, ',')
	return appendField(b, e.Validator)
}

func (e *Evidence) parse(f []string) error {
	if len(f) != 4 {
		return errFields(4, f)
	}
	p := parser{f: f}
	e.Height = p.int(0)
	e.Type = strings.Clone(f[1])
	e.EvidenceHeight = p.int(2)
	e.Validator = strings.Clone(f[3])
	return p.err
}

// ReadEvidence reads dir/evidence.csv (or .gz); a run without one has no
// rows and no error.
func ReadEvidence(dir string) ([]Evidence, error) {
	rows, err := readAll[Evidence](filepath.Join(dir, EvidenceFile), EvidenceHeader)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	return rows, err
}

// ValidatorNames maps each validator address (upper-case hex) of the run
// directory dir's node homes (nodes/NAME/config/priv_validator_key.json)
// to NAME; a run without homes (a load of another chain) has none. A key
// held by two homes (a twin and its validator) is named as the genesis
// names its validator.
func ValidatorNames(dir string) (map[string]string, error) {
	paths, err := filepath.Glob(filepath.Join(dir, NodesDir, "*", "config", "priv_validator_key.json"))
	if err != nil {
		return nil, err
	}
	names := map[string]string{}
	shared := false
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			return nil, err
		}
		var k struct {
			Address string `json:"address"`
		}
		if err := json.Unmarshal(b, &k); err != nil {
			return nil, fmt.Errorf("%s: %w", p, err)
		}
		addr := strings.ToUpper(k.Address)
		_, twice := names[addr]
		shared = shared || twice
		names[addr] = filepath.Base(filepath.Dir(filepath.Dir(p)))
	}
	if !shared {
		return names, nil
	}
	gens, err := filepath.Glob(filepath.Join(dir, NodesDir, "*", "config", "genesis.json"))
	if err != nil || len(gens) == 0 {
		return nil, fmt.Errorf("two homes hold one validator key and no home has a genesis to name it (%v)", err)
	}
	gen, err := os.ReadFile(gens[0])
	if err != nil {
		return nil, err
	}
	var g struct {
		Validators []struct {
			Address string `json:"address"`
			Name    string `json:"name"`
		} `json:"validators"`
	}
	if err := json.Unmarshal(gen, &g); err != nil {
		return nil, fmt.Errorf("%s: %w", gens[0], err)
	}
	for _, v := range g.Validators {
		if v.Name != "" {
			names[strings.ToUpper(v.Address)] = v.Name
		}
	}
	return names, nil
}
