package analysis

import (
	"testing"

	"github.com/cometlab/cometlab/internal/results"
)

func TestEphemeral(t *testing.T) {
	ev := []results.Event{{Node: "ephemeral01", Kind: results.EventStart}, {Node: "ephemeral01", Kind: results.EventCaughtUp},
		{Node: "validator01", Kind: results.EventStart}}
	if !Ephemeral(ev, "ephemeral01") || Ephemeral(ev, "validator01") || Ephemeral(nil, "ephemeral01") {
		t.Error("Ephemeral: want true only for a node with a caught-up event")
	}
}
