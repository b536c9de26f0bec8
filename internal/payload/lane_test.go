package payload_test

import (
	"fmt"
	"math"
	"strings"
	"testing"

	loadtime "github.com/cometbft/cometbft/test/loadtime/payload"
	"google.golang.org/protobuf/encoding/protowire"

	"github.com/cometlab/cometlab/internal/payload"
)

// TestEncodeLane encodes txs with a lane at the smallest size that holds
// it and beyond: each is exactly its size, carries the lane as loadtime's
// field 7 string (what v2.0's e2e app reads in CheckTx) and the connection
// in field 9, decodes to its header, and is still read by loadtime's
// FromBytes (which skips the fields it does not know).
func TestEncodeLane(t *testing.T) {
	lanes := []string{"1", "100", strings.Repeat("l", payload.MaxLaneLen)}
	for _, cfg := range encoderConfigs {
		for _, lane := range lanes {
			for _, size := range []int{payload.MinSizeWithLane(len(lane)), payload.MinSizeWithLane(len(lane)) + 2, 1024, 4096} {
				t.Run(fmt.Sprintf("%s/%d/%d", cfg.name, len(lane), size), func(t *testing.T) {
					e, err := payload.NewEncoder(cfg.connections, cfg.rate, uint64(size), cfg.id)
					if err != nil {
						t.Fatal(err)
					}
					for _, s := range samples {
						tx := e.EncodeLane(s.connection, s.seq, s.t, lane)
						if len(tx) != size {
							t.Fatalf("%+v: len = %d, want %d", s, len(tx), size)
						}
						checkLayout(t, tx)
						_, fields := parseProto(t, tx)
						var gotLane []byte
						conn7 := false
						for _, f := range fields {
							if f.num == 7 {
								gotLane = f.data
								conn7 = f.data == nil
							}
						}
						if string(gotLane) != lane || conn7 {
							t.Errorf("%+v: field 7 = %q (a varint: %v), want the lane %q", s, gotLane, conn7, lane)
						}
						h, err := payload.Decode(tx)
						if err != nil {
							t.Fatalf("%+v: Decode: %v", s, err)
						}
						want := payload.Header{Connections: cfg.connections, Rate: cfg.rate, Size: uint64(size),
							Time: s.t, ID: cfg.id, Connection: s.connection, Seq: s.seq, Lane: lane}
						if !equalHeader(h, want) || h.Lane != lane {
							t.Errorf("Decode = %+v, want %+v", h, want)
						}
						if _, err := loadtime.FromBytes(tx); err != nil {
							t.Errorf("%+v: loadtime's FromBytes: %v", s, err)
						}
					}
					// The same encoder without a lane again: field 7 is the
					// connection, and nothing of the lane is left.
					tx := e.Encode(3, 12345, testTime)
					h, err := payload.Decode(tx)
					if err != nil || h.Lane != "" || h.Connection != 3 || h.Seq != 12345 {
						t.Errorf("Encode after EncodeLane: %+v, %v", h, err)
					}
					checkLayout(t, tx)
				})
			}
		}
	}
}

// TestEncodeLaneRefused: a lane that does not fit panics (callers check
// MinSizeWithLane and MaxLaneLen first).
func TestEncodeLaneRefused(t *testing.T) {
	for _, c := range []struct {
		size int
		lane string
	}{
		{payload.MinSize(), "1"},
		{payload.MinSizeWithLane(3) - 2, "100"},
		{4096, strings.Repeat("l", payload.MaxLaneLen+1)},
	} {
		e, err := payload.NewEncoder(4, 100, uint64(c.size), testID)
		if err != nil {
			t.Fatal(err)
		}
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("size %d, lane of %d bytes: no panic", c.size, len(c.lane))
				}
			}()
			e.EncodeLane(1, 1, testTime, c.lane)
		}()
	}
}

// TestDecodeLaneErrors: a lane of the wrong wire type or too long is an
// error, a varint field 7 still the connection.
func TestDecodeLaneErrors(t *testing.T) {
	lane := func(s string) []byte {
		return protowire.AppendString(protowire.AppendTag(nil, 7, protowire.BytesType), s)
	}
	conn9 := protowire.AppendVarint(protowire.AppendTag(nil, 9, protowire.VarintType), 5)
	for _, c := range []struct {
		name, tx, err string
		conn          uint64
		lane          string
	}{
		{"lane and field 9", tx(pbConnections, pbTime, pbID, pbPadding, lane("50"), pbSeq, conn9), "", 5, "50"},
		{"field 7 varint", tx(pbConnections, pbTime, pbID, pbPadding,
			protowire.AppendVarint(protowire.AppendTag(nil, 7, protowire.VarintType), 6), pbSeq), "", 6, ""},
		{"lane too long", tx(pbConnections, pbTime, pbID, pbPadding, lane(strings.Repeat("x", payload.MaxLaneLen+1))), "lane has 33 bytes", 0, ""},
		{"field 7 fixed32", tx(pbConnections, pbTime, pbID, pbPadding,
			protowire.AppendFixed32(protowire.AppendTag(nil, 7, protowire.Fixed32Type), 1)), "field 7 has wire type 5", 0, ""},
		{"field 9 bytes", tx(pbConnections, pbTime, pbID, pbPadding,
			protowire.AppendString(protowire.AppendTag(nil, 9, protowire.BytesType), "x")), "field 9 has wire type 2", 0, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			h, err := payload.Decode([]byte(c.tx))
			if c.err != "" {
				if err == nil || !strings.Contains(err.Error(), c.err) {
					t.Fatalf("Decode: %v, want an error with %q", err, c.err)
				}
				return
			}
			if err != nil || h.Connection != c.conn || h.Lane != c.lane {
				t.Errorf("Decode = connection %d, lane %q, %v; want %d, %q", h.Connection, h.Lane, err, c.conn, c.lane)
			}
		})
	}
}

// TestLanePicker: over many transactions each lane gets its weight's
// share (within 2 %), a lane of weight 0 none, the same transaction
// always the same lane, and no lanes "".
func TestLanePicker(t *testing.T) {
	lanes := []payload.LaneWeight{{ID: "100", Weight: 1}, {ID: "50", Weight: 0}, {ID: "1", Weight: 3}}
	p := payload.NewLanePicker(lanes)
	counts := map[string]int{}
	const conns, per = 4, 25000
	for c := range uint64(conns) {
		for s := range uint64(per) {
			l := p.Pick(c, s)
			counts[l]++
			if again := p.Pick(c, s); again != l {
				t.Fatalf("(%d, %d): %q then %q", c, s, l, again)
			}
		}
	}
	n := float64(conns * per)
	if counts["50"] != 0 || math.Abs(float64(counts["100"])/n-0.25) > 0.02 || math.Abs(float64(counts["1"])/n-0.75) > 0.02 {
		t.Errorf("counts %v of %v, want 25 %% / 0 / 75 %%", counts, n)
	}
	for _, none := range []payload.LanePicker{{}, payload.NewLanePicker(nil), payload.NewLanePicker([]payload.LaneWeight{{ID: "1"}})} {
		if none.Pick(1, 2) != "" || none.Index(1, 2) != -1 {
			t.Errorf("a picker of no lanes picked %q", none.Pick(1, 2))
		}
	}
}
