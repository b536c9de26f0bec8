package main

import (
	"fmt"

	"github.com/cometbft/cometbft/version"
)

// main prints the version, as `cometbft version` does.
func main() { fmt.Println(version.TMCoreSemVer) }
