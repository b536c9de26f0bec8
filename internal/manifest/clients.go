package manifest

import (
	"fmt"
	"strings"

	"github.com/cometlab/cometlab/internal/shape"
)

// ManifestClient is one [[load.client]] table: a load client of its own,
// with its connections, its rate per connection and the key a gateway
// (the [sentinel]) tells it apart by. With clients, the run's load is the
// sum of theirs and the report accounts for each; [load] connections and
// rate are then not given (size, duration, pacing and target are shared).
type ManifestClient struct {
	// Name names the client in reports, [a-z0-9_-]+, unique. Required.
	//
	//	name = "greedy"
	Name string `toml:"name"`

	// Key is the client key sent as the X-Client-Key header on each of its
	// websocket handshakes. Default: the name.
	//
	//	key = "api-key-7"
	Key string `toml:"key,omitempty"`

	// Connections is the client's number of websocket connections (>= 1).
	// Default 1.
	//
	//	connections = 4
	Connections int `toml:"connections,omitempty"`

	// Rate is the client's tx/s per connection (> 0). Required.
	//
	//	rate = 3600
	Rate float64 `toml:"rate"`
}

// Client is one resolved [[load.client]].
type Client struct {
	Name, Key   string
	Connections int
	Rate        float64 // tx/s per connection
}

// FirstConn returns the number of the first connection of client i in the
// send log: the clients' connections are numbered one after the other, in
// manifest order.
func (l Workload) FirstConn(i int) int {
	n := 0
	for _, c := range l.Clients[:i] {
		n += c.Connections
	}
	return n
}

// Client returns client i's own workload: its connections and rate, the
// rest shared.
func (l Workload) Client(i int) Workload {
	c := l.Clients[i]
	w := l
	w.Clients = nil
	w.Connections, w.Rate = c.Connections, c.Rate
	return w
}

// resolveClients reads the [[load.client]] tables into l: l.Clients, and
// l.Connections and l.Rate become their sums (the total connections, and
// the total rate per connection, so that connections × rate is the
// offered load).
func (m *Manifest) resolveClients(ps *problems, l *Workload) {
	mc := m.Load.Clients
	if len(mc) == 0 {
		return
	}
	at := func(i int, field string, format string, args ...any) {
		parts := f("load", "client")
		e := &Error{File: m.file, Field: fmt.Sprintf("load.client[%d]", i+1), Msg: fmt.Sprintf(format, args...)}
		if field != "" {
			e.Field += "." + field
		}
		if p := m.pos[strings.Join(parts, ".")]; i < len(p) {
			e.Line, e.Column = p[i].line, p[i].column
		}
		ps.errs = append(ps.errs, e)
	}
	for _, k := range []string{"connections", "rate"} {
		if len(m.pos["load."+k]) > 0 || m.origin["load."+k] != "" {
			ps.add(f("load", k), "not with [[load.client]] tables: give each client its own %s", k)
		}
	}
	if m.Load.Txs != "" {
		ps.add(f("load", "txs"), "not with [[load.client]] tables: clients send loadtime payloads")
	}
	if l.Shape.Kind != "" && l.Shape.Kind != shape.Constant {
		ps.add(f("load", "shape"), "only the constant shape with [[load.client]] tables, got %q", l.Shape.Kind)
	}
	names, keys := map[string]bool{}, map[string]bool{}
	total, conns := 0.0, 0
	for i, c := range mc {
		r := Client{Name: c.Name, Key: c.Key, Connections: c.Connections, Rate: c.Rate}
		dup := names[c.Name]
		switch {
		case c.Name == "":
			at(i, "", "needs a name")
		case !nodeName.MatchString(c.Name):
			at(i, "name", "invalid client name %q (want [a-z0-9_-]+)", c.Name)
		case dup:
			at(i, "name", "client %q appears twice", c.Name)
		}
		names[c.Name] = true
		if r.Key == "" {
			r.Key = r.Name
		}
		if keys[r.Key] && !dup {
			at(i, "key", "key %q is another client's too: a gateway could not tell them apart", r.Key)
		}
		keys[r.Key] = true
		if r.Connections == 0 {
			r.Connections = 1
		}
		if msg := checkConnections(r.Connections); msg != "" {
			at(i, "connections", "%s", msg)
		}
		if msg := checkRate(c.Rate); msg != "" {
			at(i, "rate", "%s", msg)
		}
		l.Clients = append(l.Clients, r)
		total += float64(r.Connections) * r.Rate
		conns += max(r.Connections, 0)
	}
	if conns > 0 {
		l.Connections, l.Rate = conns, total/float64(conns)
	}
}

// encodeClients is the [[load.client]] tables Encode writes.
func encodeClients(cs []Client) []ManifestClient {
	var out []ManifestClient
	for _, c := range cs {
		mc := ManifestClient{Name: c.Name, Connections: c.Connections, Rate: c.Rate}
		if c.Key != c.Name {
			mc.Key = c.Key
		}
		out = append(out, mc)
	}
	return out
}
