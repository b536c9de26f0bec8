package resultstest

import (
	"reflect"
	"strings"
	"testing"
)

const sample = `# A comment.
next a=1 flag
  200/20s pass
# a comment in the input

400/20s fail
----
grow 800/20s
# not a comment: output

simulate knee=500
----
`

func TestParseCases(t *testing.T) {
	cases, err := parseCases("f.txt", strings.Split(sample, "\n"))
	if err != nil {
		t.Fatal(err)
	}
	want := []Case{
		{Pos: "f.txt:2", Line: "next a=1 flag", Cmd: "next", Args: map[string]string{"a": "1", "flag": ""},
			Input: []string{"200/20s pass", "400/20s fail"}, Want: "grow 800/20s\n# not a comment: output", outFrom: 7, outTo: 9},
		{Pos: "f.txt:11", Line: "simulate knee=500", Cmd: "simulate", Args: map[string]string{"knee": "500"}, outFrom: 12, outTo: 12},
	}
	if !reflect.DeepEqual(cases, want) {
		t.Errorf("got  %+v\nwant %+v", cases, want)
	}
}

func TestParseCasesErrors(t *testing.T) {
	for _, tt := range []struct{ name, text, want string }{
		{"empty", "", "f.txt: no case"},
		{"comments only", "# nothing\n\n", "f.txt: no case"},
		{"no separator", "next\n200/20s pass\n", "f.txt:1: next: no ---- line"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := parseCases("f.txt", strings.Split(tt.text, "\n"))
			if err == nil || err.Error() != tt.want {
				t.Errorf("error %v, want %s", err, tt.want)
			}
		})
	}
}

func TestRewrite(t *testing.T) {
	lines := strings.Split(sample, "\n")
	cases, err := parseCases("f.txt", lines)
	if err != nil {
		t.Fatal(err)
	}
	got := strings.Join(rewrite(lines, cases, []string{"done", "1 grow\n2 bracket"}), "\n")
	want := strings.Replace(sample, "grow 800/20s\n# not a comment: output\n", "done\n", 1) + "1 grow\n2 bracket\n"
	if got != want {
		t.Errorf("got:\n%s\nwant:\n%s", got, want)
	}
}
