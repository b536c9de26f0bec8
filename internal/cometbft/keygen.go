package cometbft

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"text/template"
)

// KeygenProgram is cometlab's own key generator, written into a release's
// module source and built with it (see [Program.Own]): `cometlab-keygen
// TYPE KEYFILE` writes a new validator key of CometBFT key type TYPE with
// the release's own crypto packages, as priv_validator_key.json
// (privval.FilePVKey's JSON; the priv_validator_state.json of `cometbft
// init` stays, at height 0). `cometbft init` makes ed25519 keys only (no
// release has a key type flag); CometBFT's e2e runner makes the others in
// Go, as this does.
var KeygenProgram = Program{Name: "cometlab-keygen", Pkg: "cmd/cometlab-keygen", Own: true}

// keygenCase is how the keygen source makes one key type: the crypto
// package (in the release's module) and the Go expression assigned to
// (key crypto.PrivKey, err error).
type keygenCase struct {
	Name, Pkg, Expr string
}

// keygenCases are the key types' constructors, the same in every release
// that has the type (GenPrivKey of the type's crypto package).
var keygenCases = map[string]keygenCase{
	KeyEd25519:      {Pkg: "crypto/ed25519", Expr: "ed25519.GenPrivKey(), nil"},
	KeySecp256k1:    {Pkg: "crypto/secp256k1", Expr: "secp256k1.GenPrivKey(), nil"},
	KeySecp256k1Eth: {Pkg: "crypto/secp256k1eth", Expr: "secp256k1eth.GenPrivKey(), nil"},
	KeyMLDSA65:      {Pkg: "crypto/mldsa65", Expr: "mldsa65.GenPrivKey()"},
	KeyBLS12381:     {Pkg: "crypto/bls12381", Expr: "bls12381.GenPrivKey()"},
}

var keygenTemplate = template.Must(template.New("keygen").Parse(`// Command cometlab-keygen is written by cometlab into the source of
// CometBFT {{.Version}} and built with it: it writes a validator key of a
// CometBFT key type as privval.FilePVKey.Save does (the same fields,
// libs/json), with the release's own crypto packages.
package main

import (
	"fmt"
	"os"

	"{{.Module}}/crypto"
{{- range .Cases}}
	"{{$.Module}}/{{.Pkg}}"
{{- end}}
	cmtjson "{{.Module}}/libs/json"
)

// filePVKey is privval.FilePVKey's JSON.
type filePVKey struct {
	Address crypto.Address ` + "`json:\"address\"`" + `
	PubKey  crypto.PubKey  ` + "`json:\"pub_key\"`" + `
	PrivKey crypto.PrivKey ` + "`json:\"priv_key\"`" + `
}

func main() {
	if len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: cometlab-keygen TYPE KEYFILE")
		os.Exit(2)
	}
	var key crypto.PrivKey
	var err error
	switch os.Args[1] {
{{- range .Cases}}
	case {{printf "%q" .Name}}:
		key, err = {{.Expr}}
{{- end}}
	default:
		err = fmt.Errorf("key type %q: this build makes {{.Names}}", os.Args[1])
	}
	var b []byte
	if err == nil {
		pub := key.PubKey()
		b, err = cmtjson.MarshalIndent(filePVKey{Address: pub.Address(), PubKey: pub, PrivKey: key}, "", "  ")
	}
	if err == nil {
		err = os.WriteFile(os.Args[2], b, 0o600)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "cometlab-keygen:", err)
		os.Exit(1)
	}
}
`))

// keygenSource is the keygen's main.go for release version built with
// the build tags tags: a case for each key type the release has whose
// tag (if any) is among tags.
func keygenSource(version, tags string) ([]byte, error) {
	l, err := LineOf(version)
	if err != nil {
		return nil, err
	}
	var cases []keygenCase
	var names []string
	for _, k := range KeyTypesOf(version) {
		if k.Tag != "" && !slices.Contains(strings.Split(tags, ","), k.Tag) {
			continue
		}
		c, ok := keygenCases[k.Name]
		if !ok {
			return nil, fmt.Errorf("cometlab-keygen: no constructor for key type %s", k.Name)
		}
		c.Name = k.Name
		cases = append(cases, c)
		names = append(names, k.Name)
	}
	var b bytes.Buffer
	err = keygenTemplate.Execute(&b, map[string]any{"Version": version, "Module": l.ModulePath, "Cases": cases,
		"Names": strings.Join(names, ", ")})
	return b.Bytes(), err
}

// writeOwnSource writes an own program's main package into the copied
// module source src.
func writeOwnSource(prog Program, version, src string) error {
	if prog.Pkg != KeygenProgram.Pkg {
		return fmt.Errorf("%s: no source for own program %s", version, prog.Name)
	}
	code, err := keygenSource(version, prog.Tags)
	if err != nil {
		return err
	}
	dir := filepath.Join(src, filepath.FromSlash(prog.Pkg))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, "main.go"), code, 0o644)
}

// genValidatorKey replaces the validator key of home with a new one of
// key type keyType, made by the keygen binary.
func genValidatorKey(ctx context.Context, keygen, keyType, home string) error {
	if keygen == "" {
		return fmt.Errorf("a %s validator key needs the %s program of the node's release", keyType, KeygenProgram.Name)
	}
	out, err := exec.CommandContext(ctx, keygen, keyType, PrivValidatorKeyFile(home)).CombinedOutput()
	if err != nil {
		return fmt.Errorf("%s %s: %v: %s", keygen, keyType, err, tail(string(out), 5))
	}
	return nil
}
