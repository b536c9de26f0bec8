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

func TestValidatorNames(t *testing.T) {
	dir := t.TempDir()
	home := filepath.Join("nodes", "validator01")
	if err := os.MkdirAll(filepath.Join(dir, home, "config"), 0o755); err != nil {
		t.Fatal(err)
	}
	gen := `{"validators":[{"address":"ab12","name":"validator01"},{"address":"CD34","name":"validator02"}]}`
	if err := os.WriteFile(filepath.Join(dir, home, "config", "genesis.json"), []byte(gen), 0o644); err != nil {
		t.Fatal(err)
	}
	run := Run{Nodes: []Node{{Name: "x"}, {Name: "missing", Home: "nodes/none"}, {Name: "validator01", Home: home}}}
	got, err := ValidatorNames(dir, run)
	want := map[string]string{"AB12": "validator01", "CD34": "validator02"}
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("got %v, %v; want %v", got, err, want)
	}
	if err := os.WriteFile(filepath.Join(dir, home, "config", "genesis.json"), []byte("{"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := ValidatorNames(dir, run); err == nil || !strings.Contains(err.Error(), "genesis.json") {
		t.Errorf("bad genesis: got %v", err)
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
