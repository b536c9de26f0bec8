package manifest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestSourceManifest(t *testing.T) {
	file := filepath.Join(t.TempDir(), "m.toml")
	if err := os.WriteFile(file, []byte("validators = 4\n[perturb.validator03]\naction = \"pause\"\nat = \"3s\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	part := "50/50@5s,duration=6s"
	for _, tt := range []struct {
		name                string
		src                 Source
		want                string // an error's text; "" for none
		perturbs, partition bool
	}{
		{name: "default", src: Source{}},
		{name: "bad format, no file", src: Source{Read: ReadOptions{Format: "yaml"}}, want: `--format: invalid manifest format "yaml"`},
		{name: "perturb over the file", src: Source{Path: file, Overrides: Overrides{Perturb: []string{"validator02:kill@5s"}}}, perturbs: true},
		{name: "partition", src: Source{Overrides: Overrides{Partition: &part}}, partition: true},
		{name: "perturb twice", src: Source{Overrides: Overrides{Perturb: []string{"validator02:kill", "validator02:pause"}}},
			want: "--perturb: node validator02 given twice"},
		{name: "perturb unparsable", src: Source{Overrides: Overrides{Perturb: []string{"validator02"}}}, want: `--perturb "validator02": no node`},
		{name: "missing file", src: Source{Path: file + ".absent"}, want: "read manifest"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			m, r, err := tt.src.Resolve()
			if tt.want != "" {
				if err == nil || !strings.Contains(err.Error(), tt.want) {
					t.Fatalf("error %v, want %q", err, tt.want)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if tt.perturbs {
				if len(r.Perturbations) != 2 || m.Perturb["validator02"].Action != "kill" || m.Perturb["validator03"].Action != "pause" {
					t.Errorf("perturbations %+v: want the file's validator03 and the flag's validator02", r.Perturbations)
				}
			}
			if (r.Partition != nil) != tt.partition {
				t.Errorf("partition %+v, want one: %v", r.Partition, tt.partition)
			}
		})
	}
}
