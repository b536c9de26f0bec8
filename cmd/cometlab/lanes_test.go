package main

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestIntegrationFilesSkipShort keeps the two test lanes apart. A test
// that starts a process (nodes, apps, sshd, ansible, prometheus, the go
// command, cometlab itself) or reaches past loopback lives in a file named
// *_integration_test.go, and skips under -short, so that `go test -short
// ./...` starts none. Every Test function of such a file must begin with
// `if testing.Short() {…}`, or with a call to a helper of its package
// (e.g. `bin := binary(t)`) that does. (That the ordinary files start no
// process is checked by tracing the short lane: see the README.)
func TestIntegrationFilesSkipShort(t *testing.T) {
	root := filepath.Join("..", "..")
	byDir := map[string][]*ast.File{}
	var integration []string
	fset := token.NewFileSet()
	err := filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".")) && path != root {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		byDir[filepath.Dir(path)] = append(byDir[filepath.Dir(path)], f)
		if strings.HasSuffix(path, "_integration_test.go") {
			integration = append(integration, path)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(integration) == 0 {
		t.Fatal("no *_integration_test.go files found")
	}
	for _, path := range integration {
		var file *ast.File
		helpers := map[string]*ast.FuncDecl{}
		for _, f := range byDir[filepath.Dir(path)] {
			if fset.Position(f.Package).Filename == path {
				file = f
			}
			for _, d := range f.Decls {
				if fd, ok := d.(*ast.FuncDecl); ok && fd.Recv == nil {
					helpers[fd.Name.Name] = fd
				}
			}
		}
		for _, d := range file.Decls {
			fd, ok := d.(*ast.FuncDecl)
			if !ok || fd.Recv != nil || !strings.HasPrefix(fd.Name.Name, "Test") || fd.Name.Name == "TestMain" {
				continue
			}
			if !skipsShort(fd, helpers, 2) {
				t.Errorf("%s: %s does not begin by skipping under -short (if testing.Short() {t.Skip(…)}, or a helper that does)",
					path, fd.Name.Name)
			}
		}
	}
}

// skipsShort reports whether fd's first statement (after t.Helper()) is an if on
// testing.Short(), or calls a helper whose own first statement is (depth
// helpers deep).
func skipsShort(fd *ast.FuncDecl, helpers map[string]*ast.FuncDecl, depth int) bool {
	if fd.Body == nil {
		return false
	}
	body := fd.Body.List
	for len(body) > 0 && isHelperCall(body[0]) {
		body = body[1:]
	}
	if len(body) == 0 {
		return false
	}
	first := body[0]
	if s, ok := first.(*ast.IfStmt); ok {
		return mentionsShort(s.Cond)
	}
	if depth == 0 {
		return false
	}
	var call *ast.CallExpr
	switch s := first.(type) {
	case *ast.ExprStmt:
		call, _ = s.X.(*ast.CallExpr)
	case *ast.AssignStmt:
		if len(s.Rhs) == 1 {
			call, _ = s.Rhs[0].(*ast.CallExpr)
		}
	}
	if call == nil {
		return false
	}
	id, ok := call.Fun.(*ast.Ident)
	if !ok || helpers[id.Name] == nil {
		return false
	}
	return skipsShort(helpers[id.Name], helpers, depth-1)
}

// isHelperCall reports whether s is t.Helper() (of any variable).
func isHelperCall(s ast.Stmt) bool {
	e, ok := s.(*ast.ExprStmt)
	if !ok {
		return false
	}
	call, ok := e.X.(*ast.CallExpr)
	if !ok {
		return false
	}
	sel, ok := call.Fun.(*ast.SelectorExpr)
	return ok && sel.Sel.Name == "Helper" && len(call.Args) == 0
}

// mentionsShort reports whether e calls testing.Short().
func mentionsShort(e ast.Expr) bool {
	found := false
	ast.Inspect(e, func(n ast.Node) bool {
		if sel, ok := n.(*ast.SelectorExpr); ok && sel.Sel.Name == "Short" {
			if x, ok := sel.X.(*ast.Ident); ok && x.Name == "testing" {
				found = true
			}
		}
		return !found
	})
	return found
}

// TestPrereqSkipsFail keeps a CI run from passing a real-node test it did
// not run: in the *_integration_test.go files and the test helper packages
// (a folder named …test), the one skip allowed in place is the lane rule's
// (a t.Skip inside `if testing.Short() {…}`); a test that lacks what it
// needs (root, a program, a port, COMETLAB_PROMETHEUS) ends through
// testnettest.Prereq, which fails it where CI=true.
func TestPrereqSkipsFail(t *testing.T) {
	root := filepath.Join("..", "..")
	prereq := filepath.Join("internal", "testnet", "testnettest", "prereq.go")
	fset := token.NewFileSet()
	checked := 0
	err := filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".")) && path != root {
			return filepath.SkipDir
		}
		helper := strings.HasSuffix(filepath.Base(filepath.Dir(path)), "test") && !strings.HasSuffix(path, "_test.go")
		if d.IsDir() || !strings.HasSuffix(path, ".go") || !(helper || strings.HasSuffix(path, "_integration_test.go")) ||
			strings.HasSuffix(path, prereq) {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		checked++
		for _, pos := range straySkips(f) {
			t.Errorf("%s: a skip outside `if testing.Short() {…}`: call testnettest.Prereq for a missing prerequisite", fset.Position(pos))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if checked == 0 {
		t.Fatal("no integration test or test helper file found")
	}
}

// straySkips returns where f calls Skip, Skipf or SkipNow (of any
// variable) other than in the body of an if on testing.Short().
func straySkips(f *ast.File) []token.Pos {
	var short [][2]token.Pos // the bodies of ifs on testing.Short()
	var skips []token.Pos
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.IfStmt:
			if mentionsShort(n.Cond) {
				short = append(short, [2]token.Pos{n.Body.Pos(), n.Body.End()})
			}
		case *ast.CallExpr:
			if sel, ok := n.Fun.(*ast.SelectorExpr); ok && strings.HasPrefix(sel.Sel.Name, "Skip") {
				skips = append(skips, n.Pos())
			}
		}
		return true
	})
	var stray []token.Pos
	for _, p := range skips {
		if !slices.ContainsFunc(short, func(b [2]token.Pos) bool { return b[0] <= p && p < b[1] }) {
			stray = append(stray, p)
		}
	}
	return stray
}
