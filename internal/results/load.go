package results

import "slices"

// Load is the load that was asked for.
type Load struct {
	Connections   int     `json:"connections"`
	Rate          float64 `json:"rate"` // tx/s per connection
	Size          int     `json:"size"` // bytes per tx
	DurationS     float64 `json:"duration_s"`
	Pacing        string  `json:"pacing"`
	LateThreshold float64 `json:"late_threshold_s"`
	// Shape is the shape of a load whose rate changes ("ramp", "square",
	// "sine", "trace"); "" for a constant rate (and in runs made before
	// shapes).
	Shape string `json:"shape,omitempty"`
	// ShapeDetail describes the shape with its parameters, rates per
	// connection ("ramp 400→2400 tx/s").
	ShapeDetail string `json:"shape_detail,omitempty"`
	// Txs is the file of the user's own transactions the load sent (one a
	// line; see load.ParseTxs), matched on the chain by hash; "" for
	// loadtime payloads.
	Txs string `json:"txs,omitempty"`
	// Signed describes the load cometlab signed for the run (app =
	// "sdk": the message, amount, gas, fee, accounts and ordering), whose
	// file Txs is the run's own (signed for its chain): two runs with the
	// same Signed sent the same load. "" otherwise.
	Signed string `json:"signed,omitempty"`
	// Broadcast is "sync" when the load sent with broadcast_tx_sync (its
	// replies are CheckTx's verdicts); "" for broadcast_tx_async.
	Broadcast string `json:"broadcast,omitempty"`
	// Expected is the number of sends a shaped load's schedule holds; 0 for
	// a constant rate, whose count is c·r·duration.
	Expected int64 `json:"expected_txs,omitempty"`
	// Clients are the load's clients ([[load.client]]), in order; absent
	// for a load of one client. Connections is then their sum and Rate
	// the mean per connection.
	Clients []Client `json:"clients,omitempty"`
	// Lanes are the mempool lanes the load's transactions asked for, by
	// id, each picked by its weight from the transaction's connection and
	// sequence (payload.LanePicker); absent for the default lane.
	Lanes []Lane `json:"lanes,omitempty"`
}

// Lane is one mempool lane of a load: its id, its weight in the load and
// its priority in the app.
type Lane struct {
	ID       string `json:"id"`
	Weight   uint64 `json:"weight"`
	Priority int64  `json:"priority,omitempty"`
}

// Scale returns run.json's time scale k: 1 for a run in real time.
func (r Run) Scale() float64 {
	if r.TimeScale > 0 {
		return r.TimeScale
	}
	return 1
}

// HostTime returns the load as the host sent it at time scale k (the
// run's time_scale; run.json records the model's): rates (the clients'
// too) ÷k, duration and late threshold ×k; the expected count and the
// shape's description (the model's) are the same. l itself at k = 1.
func (l Load) HostTime(k float64) Load {
	if k == 0 || k == 1 {
		return l
	}
	l.Rate, l.DurationS, l.LateThreshold = l.Rate/k, l.DurationS*k, l.LateThreshold*k
	if l.Clients != nil {
		cs := make([]Client, len(l.Clients))
		for i, c := range l.Clients {
			c.Rate /= k
			cs[i] = c
		}
		l.Clients = cs
	}
	return l
}

// Equal reports whether l and o are the same load.
func (l Load) Equal(o Load) bool {
	return slices.Equal(l.Clients, o.Clients) && slices.Equal(l.Lanes, o.Lanes) && l.Connections == o.Connections && l.Rate == o.Rate &&
		l.Size == o.Size && l.DurationS == o.DurationS && l.Pacing == o.Pacing && l.LateThreshold == o.LateThreshold &&
		l.Shape == o.Shape && l.ShapeDetail == o.ShapeDetail && l.Expected == o.Expected && l.Signed == o.Signed &&
		(l.Txs == o.Txs || l.Signed != "") // a signed load's file is each run's own
}

// Client is one load client of a run: its connections are numbered
// FirstConn … FirstConn+Connections−1 in sent.csv and replies.csv.
type Client struct {
	Name        string  `json:"name"`
	Key         string  `json:"key"` // sent as X-Client-Key
	Connections int     `json:"connections"`
	Rate        float64 `json:"rate"` // tx/s per connection
	FirstConn   int     `json:"first_conn"`
}
