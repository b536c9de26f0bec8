package results

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestPrecommitRoundTrip(t *testing.T) {
	dir := t.TempDir()
	if got, err := ReadPrecommits(dir); got != nil || err != nil {
		t.Fatalf("no precommits.csv: got %v, %v; want nothing and no error", got, err)
	}
	rows := []Precommit{{Height: 5, Validator: "AA", Node: "validator01", Flag: "commit", OffsetMs: 812.5},
		{Height: 5, Validator: "BB", Flag: "absent"}, {Height: 6, Validator: "CC", Node: "v,3", Flag: "nil", OffsetMs: -3}}
	writeRecords(t, filepath.Join(dir, PrecommitFile), PrecommitHeader, &rows[0], &rows[1], &rows[2])
	got, err := ReadPrecommits(dir)
	if err != nil || !reflect.DeepEqual(got, rows) {
		t.Errorf("got %+v, %v; want %+v", got, err, rows)
	}
	// A flag outside the vocabulary is an error naming it.
	bad := PrecommitHeader + "\n5,AA,v1,maybe,1.0\n"
	if err := os.WriteFile(filepath.Join(dir, PrecommitFile), []byte(bad), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadPrecommits(dir); err == nil || !strings.Contains(err.Error(), "maybe") {
		t.Errorf("flag maybe: got %v", err)
	}
}

// TestValidatorNames: each node home's validator key names its address
// (upper-cased); a key that is not JSON is an error naming the file.
func TestValidatorNames(t *testing.T) {
	dir := t.TempDir()
	for name, addr := range map[string]string{"validator01": "ab12", "validator02": "CD34"} {
		cfg := filepath.Join(dir, NodesDir, name, "config")
		if err := os.MkdirAll(cfg, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(cfg, "priv_validator_key.json"), []byte(`{"address":"`+addr+`"}`), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	got, err := ValidatorNames(dir)
	want := map[string]string{"AB12": "validator01", "CD34": "validator02"}
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("got %v, %v; want %v", got, err, want)
	}
	// A twin holds validator01's key ("zz" sorts after it, "a-twin"
	// before): the genesis names the validator, whatever the order.
	for _, twin := range []string{"zz-twin", "a-twin"} {
		cfg := filepath.Join(dir, NodesDir, twin, "config")
		if err := os.MkdirAll(cfg, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(cfg, "priv_validator_key.json"), []byte(`{"address":"ab12"}`), 0o600); err != nil {
			t.Fatal(err)
		}
		gen := `{"validators":[{"address":"AB12","name":"validator01"},{"address":"CD34","name":"validator02"}]}`
		if err := os.WriteFile(filepath.Join(cfg, "genesis.json"), []byte(gen), 0o644); err != nil {
			t.Fatal(err)
		}
		if got, err := ValidatorNames(dir); err != nil || !reflect.DeepEqual(got, want) {
			t.Errorf("with %s, a twin of validator01: got %v, %v; want %v", twin, got, err, want)
		}
	}
	bad := filepath.Join(dir, NodesDir, "validator01", "config", "priv_validator_key.json")
	if err := os.WriteFile(bad, []byte("{"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := ValidatorNames(dir); err == nil || !strings.Contains(err.Error(), "priv_validator_key.json") {
		t.Errorf("bad key: got %v", err)
	}
}

// TestAutopsyRoundTrip writes verdicts (evidence with commas and quotes)
// and reads them back; Time is not in the file.
func TestAutopsyRoundTrip(t *testing.T) {
	dir := t.TempDir()
	vs := []Verdict{{Height: 7, Round: 1, Proposer: "validator02", IntervalMs: 4210.5, Cause: "proposer_absent", Node: "validator03",
		Evidence: `round 1, interval 4210 ms (median 1010); validator03 "kill" -2.0 s`}, {Height: 9, Cause: "unexplained"}}
	if err := WriteAutopsy(dir, vs); err != nil {
		t.Fatal(err)
	}
	got, err := ReadAutopsy(dir)
	if err != nil || !reflect.DeepEqual(got, vs) {
		t.Errorf("got %+v, %v; want %+v", got, err, vs)
	}
}
