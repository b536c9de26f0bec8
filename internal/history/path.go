package history

import (
	"errors"
	"path/filepath"
	"strings"
)

// Env names the index file (overriding the default place), or turns
// the history off with Off: runs are then not added when they end.
const Env = "COMETLAB_HISTORY"

// Off is the value of Env that turns the history off.
const Off = "off"

// DefaultRoots are the directories, relative to the current one, where
// cometlab puts runs, sweeps, searches and A/B experiments by default:
// what rebuild reads without --root.
func DefaultRoots() []string { return []string{"runs", "sweeps", "saturations", "ab"} }

// ErrOff is the error of Locate when Env turns the history off.
var ErrOff = errors.New("the history is off (" + Env + "=" + Off + ")")

// Locate returns the index file: flag when given, else Env's value, else
// $XDG_DATA_HOME/cometlab/history.db, else ~/.local/share/cometlab/history.db.
// Env set to Off gives ErrOff unless flag is given. getenv reads the
// environment (os.Getenv).
func Locate(flag string, getenv func(string) string) (string, error) {
	if flag != "" {
		return flag, nil
	}
	switch v := strings.TrimSpace(getenv(Env)); {
	case strings.EqualFold(v, Off):
		return "", ErrOff
	case v != "":
		return v, nil
	}
	if d := getenv("XDG_DATA_HOME"); d != "" && filepath.IsAbs(d) {
		return filepath.Join(d, "cometlab", "history.db"), nil
	}
	home := getenv("HOME")
	if home == "" {
		return "", errors.New("no home directory ($HOME) for the history index: give --index FILE or set " + Env)
	}
	return filepath.Join(home, ".local", "share", "cometlab", "history.db"), nil
}
