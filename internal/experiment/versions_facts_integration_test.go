package experiment_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/cometlab/cometlab/internal/cometbft"
)

// checkSourceFacts checks a line's facts against its proven release's
// module source: the protocol versions and the e2e app node's config keys.
func checkSourceFacts(t *testing.T, l cometbft.Line) {
	t.Helper()
	out, err := exec.Command("go", "mod", "download", "-json", cometbft.ModuleOf(l.Proven)+"@"+l.Proven).Output()
	var info struct{ Dir, Error string }
	if err == nil {
		err = json.Unmarshal(out, &info)
	}
	if err != nil || info.Error != "" {
		t.Fatalf("go mod download %s: %v %s", l.Proven, err, info.Error)
	}
	src, err := os.ReadFile(filepath.Join(info.Dir, "version", "version.go"))
	if err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]string{`P2PProtocol\s+uint64\s*=\s*(\d+)`: strconv.Itoa(l.P2PProtocol),
		`BlockProtocol\s+uint64\s*=\s*(\d+)`: strconv.Itoa(l.BlockProtocol), `ABCISemVer\s*=\s*"([^"]+)"`: l.ABCI} {
		m := regexp.MustCompile(name).FindSubmatch(src)
		if m == nil || string(m[1]) != want {
			t.Errorf("version/version.go: %s gives %q, facts say %q", name, m, want)
		}
	}
	if got, err := medianTimeCommitOnly(info.Dir); err != nil || got != l.MedianTimeCommitOnly {
		t.Errorf("MedianTime counts commit votes only: %v (%v), facts say %v", got, err, l.MedianTimeCommitOnly)
	}
	keys, err := tomlTags(filepath.Join(info.Dir, "test", "e2e", "node", "config.go"), "Config")
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(keys, l.E2EAppKeys) {
		t.Errorf("e2e app keys %q, facts say %q", keys, l.E2EAppKeys)
	}
	checkKeyTypeFacts(t, l, info.Dir)
	checkMempoolFacts(t, l, info.Dir)
}

// checkMempoolFacts checks the proven release's mempool types and
// adaptive sync against the module source: config/config.go's
// MempoolType… constants (none before v0.37: flood only) and its
// BlockSyncConfig's AdaptiveSync field.
func checkMempoolFacts(t *testing.T, l cometbft.Line, dir string) {
	t.Helper()
	src, err := os.ReadFile(filepath.Join(dir, "config", "config.go"))
	if err != nil {
		t.Fatal(err)
	}
	got := []string{}
	for _, m := range regexp.MustCompile(`MempoolType\w+\s*=\s*"(\w+)"`).FindAllSubmatch(src, -1) {
		got = append(got, string(m[1]))
	}
	if len(got) == 0 {
		got = []string{cometbft.MempoolFlood}
	}
	if want := cometbft.MempoolsOf(l.Proven); !slices.Equal(got, want) {
		t.Errorf("config/config.go mempool types %q, facts say %q", got, want)
	}
	if has := regexp.MustCompile(`AdaptiveSync\s+bool`).Match(src); has != l.AdaptiveSync {
		t.Errorf("config/config.go has AdaptiveSync: %v, facts say %v", has, l.AdaptiveSync)
	}
}

// checkKeyTypeFacts checks the line's key types against the module
// source: the ABCIPubKeyType constants of types/params.go
// (types/protobuf.go in v0.34), each the KeyType of a crypto package,
// and the build tag of a package that is a stub without it.
func checkKeyTypeFacts(t *testing.T, l cometbft.Line, dir string) {
	t.Helper()
	constant := regexp.MustCompile(`ABCIPubKeyType\w+\s*=\s*(\w+)\.KeyType`)
	var src []byte
	for _, f := range []string{"types/params.go", "types/protobuf.go"} {
		b, err := os.ReadFile(filepath.Join(dir, f))
		if err == nil && constant.Match(b) {
			src = b
			break
		}
	}
	if src == nil {
		t.Fatal("no ABCIPubKeyType constants in types/params.go or types/protobuf.go")
	}
	var got []string
	tags := map[string]string{}
	for _, m := range constant.FindAllSubmatch(src, -1) {
		pkg := filepath.Join(dir, "crypto", string(m[1]))
		files, _ := filepath.Glob(filepath.Join(pkg, "*.go"))
		name := ""
		for _, f := range files {
			b, _ := os.ReadFile(f)
			if k := regexp.MustCompile(`KeyType\s*=\s*"([^"]+)"`).FindSubmatch(b); k != nil {
				name = string(k[1])
			}
			// A tag the type needs: a file built with it, and a stub
			// built without it (crypto/bls12381's Enabled = false).
			if g := regexp.MustCompile(`(?m)^//go:build (\w+)$`).FindSubmatch(b); g != nil && !strings.HasSuffix(f, "_test.go") &&
				slices.ContainsFunc(files, func(o string) bool {
					ob, _ := os.ReadFile(o)
					return bytes.Contains(ob, []byte("//go:build !"+string(g[1])+"\n"))
				}) {
				tags[string(m[1])] = string(g[1])
			}
		}
		if name == "" {
			t.Errorf("crypto/%s: no KeyType constant", m[1])
			continue
		}
		got = append(got, name)
		i := slices.IndexFunc(l.KeyTypes, func(k cometbft.KeyType) bool { return k.Name == name })
		if i >= 0 && l.KeyTypes[i].Tag != tags[string(m[1])] {
			t.Errorf("key type %s: build tag %q, facts say %q", name, tags[string(m[1])], l.KeyTypes[i].Tag)
		}
	}
	var facts []string
	for _, k := range cometbft.KeyTypesOf(l.Proven) {
		facts = append(facts, k.Name)
	}
	slices.Sort(got)
	slices.Sort(facts)
	if !slices.Equal(got, facts) {
		t.Errorf("key types %q, facts say %q", got, facts)
	}
}

// medianTimeCommitOnly reports whether the source's MedianTime (BFT time)
// skips every vote but commit votes, rather than only absent ones.
func medianTimeCommitOnly(dir string) (bool, error) {
	fn := regexp.MustCompile(`func (\([^)]*\) )?MedianTime\(`)
	for _, f := range []string{"state/state.go", "types/block.go"} {
		src, err := os.ReadFile(filepath.Join(dir, f))
		if err != nil {
			return false, err
		}
		loc := fn.FindIndex(src)
		if loc == nil {
			continue
		}
		body := src[loc[0]:]
		if j := bytes.Index(body, []byte("WeightedMedian(")); j > 0 {
			body = body[:j]
		}
		return bytes.Contains(body, []byte("!= types.BlockIDFlagCommit")) || bytes.Contains(body, []byte("!= BlockIDFlagCommit")), nil
	}
	return false, fmt.Errorf("%s: no func MedianTime in state/state.go or types/block.go", dir)
}

// tomlTags returns the sorted toml tags of the named struct in a Go file.
func tomlTags(path, typeName string) ([]string, error) {
	file, err := parser.ParseFile(token.NewFileSet(), path, nil, 0)
	if err != nil {
		return nil, err
	}
	var keys []string
	ast.Inspect(file, func(n ast.Node) bool {
		ts, ok := n.(*ast.TypeSpec)
		if !ok || ts.Name.Name != typeName {
			return true
		}
		st, ok := ts.Type.(*ast.StructType)
		if !ok {
			return false
		}
		for _, fld := range st.Fields.List {
			if fld.Tag == nil {
				continue
			}
			tag, _ := strconv.Unquote(fld.Tag.Value)
			if k, _, _ := strings.Cut(reflect.StructTag(tag).Get("toml"), ","); k != "" && k != "-" {
				keys = append(keys, k)
			}
		}
		return false
	})
	if len(keys) == 0 {
		return nil, fmt.Errorf("%s: no toml tags in type %s", path, typeName)
	}
	slices.Sort(keys)
	return keys, nil
}
