package results

import "time"

// Source is run.json's record of CometBFT code built from a source tree
// or a patched release (the manifest's cometbft_source and
// cometbft_patches), read before the build.
type Source struct {
	// Nodes are the nodes that ran it.
	Nodes []string `json:"nodes"`
	// Path is the tree's directory ("" for a patched release); Release
	// the release patched ("" for a tree).
	Path    string `json:"path,omitempty"`
	Release string `json:"release,omitempty"`
	// Module is the module path its go.mod declares; SemVer what its
	// version/version.go declares; Line the release line cometlab read
	// from them and Version the release it derives from.
	Module  string `json:"module"`
	SemVer  string `json:"semver,omitempty"`
	Line    string `json:"line"`
	Version string `json:"version"`
	// Commit, Branch and Describe are a git tree's HEAD, branch and `git
	// describe --always --dirty`; Dirty says it had changes beyond HEAD
	// (untracked files too) and DiffHash is their SHA-256. TreeHash is a
	// plain directory's SHA-256 of its files.
	Commit   string `json:"commit,omitempty"`
	Branch   string `json:"branch,omitempty"`
	Describe string `json:"describe,omitempty"`
	Dirty    bool   `json:"dirty,omitempty"`
	DiffHash string `json:"diff_sha256,omitempty"`
	TreeHash string `json:"tree_sha256,omitempty"`
	// CommitTime is the commit's committer time (UTC): a history trend's
	// order by commit.
	CommitTime time.Time `json:"commit_time,omitzero"`
	// Patches are the patch files applied, in order, with their SHA-256.
	Patches []SourcePatch `json:"patches,omitempty"`
	// Key is cometlab's build cache key of the code (a SHA-256).
	Key string `json:"key"`
}

// SourcePatch is a patch file a source was built with.
type SourcePatch struct {
	Path   string `json:"path"`
	SHA256 string `json:"sha256"`
}

// Binary is a program the run's nodes ran, as its build information says
// (debug/buildinfo): which module at which version (Sum, the module's
// go.sum hash, names its content whatever its commit), the Go that built
// it, its build tags and whether cgo was on. A binary without build
// information (not a Go program, or stripped of it) has only Path.
type Binary struct {
	Nodes     []string `json:"nodes"`
	Path      string   `json:"path"`
	Main      string   `json:"main,omitempty"` // the main package's path
	Module    string   `json:"module,omitempty"`
	Version   string   `json:"version,omitempty"` // "(devel)" for a tree built as the main module
	Sum       string   `json:"sum,omitempty"`
	GoVersion string   `json:"go_version,omitempty"`
	Tags      string   `json:"tags,omitempty"`
	CGO       bool     `json:"cgo,omitempty"`
}
