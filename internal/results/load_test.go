package results

import "testing"

// TestSignedLoadEqual: two runs of one signed load (an SDK chain's: each
// run's file its own, signed for its chain) have equal loads; another
// signed load, or files of the user's own that differ, do not.
func TestSignedLoadEqual(t *testing.T) {
	a := Load{Connections: 4, Rate: 50, DurationS: 20, Pacing: "even", Txs: "/r1/sdk-txs.b64", Signed: "MsgSend of 1 stake"}
	b := a
	b.Txs = "/r2/sdk-txs.b64"
	c := b
	c.Signed = "MsgMultiSend of 1 stake to 3 accounts"
	own := Load{Connections: 4, Rate: 50, DurationS: 20, Pacing: "even", Txs: "/r1/txs"}
	other := own
	other.Txs = "/r2/txs"
	for _, tt := range []struct {
		x, y Load
		want bool
	}{{a, b, true}, {b, c, false}, {own, other, false}, {own, own, true}, {a, own, false}} {
		if got := tt.x.Equal(tt.y); got != tt.want {
			t.Errorf("%+v Equal %+v = %v, want %v", tt.x, tt.y, got, tt.want)
		}
	}
}
