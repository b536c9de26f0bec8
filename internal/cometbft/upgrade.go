package cometbft

import (
	"fmt"
	"strings"
)

// CheckUpgrade says whether a node that runs release from may be stopped
// and started again on its home with release to (a rolling upgrade, as
// CometBFT's e2e runner's upgrade perturbation), from the lines' facts:
// to must be of a known line and newer than from; within one line a patch
// upgrade is allowed; across lines the upgrade is refused when the lines'
// stores are not known compatible (another default db_backend, another
// ABCI major version, whose stored ABCI responses and app state differ)
// or when their nodes cannot share a network (Mix: the chain never starts
// or may halt). It returns nil or every reason.
func CheckUpgrade(from, to string) error {
	lt, err := LineOf(to)
	if err != nil {
		return err
	}
	lf, err := LineOf(from)
	if err != nil {
		return fmt.Errorf("the node's release: %w", err)
	}
	switch c := compareVersions(from, to); {
	case c == 0:
		return fmt.Errorf("%s is the release the node already runs", to)
	case c > 0:
		return fmt.Errorf("%s is older than the node's release %s: a downgrade is refused", to, from)
	}
	if lf.Prefix == lt.Prefix {
		return nil
	}
	var why []string
	if lf.DBBackend != lt.DBBackend {
		why = append(why, fmt.Sprintf("their stores are not compatible: the default db_backend is %s in %s and %s in %s", lf.DBBackend, lf.Prefix, lt.DBBackend, lt.Prefix))
	}
	if major(lf.ABCI) != major(lt.ABCI) {
		why = append(why, fmt.Sprintf("their stores are not compatible: ABCI %s (%s) and ABCI %s (%s) store other ABCI responses and app state", lf.ABCI, lf.Prefix, lt.ABCI, lt.Prefix))
	}
	if mx := Mix(lf, lt); !mx.Starts || mx.MayHalt {
		why = append(why, "their nodes cannot share a network: "+strings.Join(mx.Why, "; "))
	}
	if len(why) == 0 {
		return nil
	}
	return fmt.Errorf("%s → %s crosses release lines and %s", from, to, strings.Join(why, "; and "))
}

// major returns the major part of a semantic version, "2" of "2.0.0".
func major(v string) string {
	m, _, _ := strings.Cut(v, ".")
	return m
}
