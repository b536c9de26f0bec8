package load

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
)

// The JSON-RPC request of one broadcast, around the seq and the base64 tx:
//
//	{"jsonrpc":"2.0","id":<seq>,"method":"broadcast_tx_async","params":{"tx":"<base64>"}}
//
// or with broadcast_tx_sync (Config.Sync), whose reply carries CheckTx's
// code and log.
const (
	requestHead = `{"jsonrpc":"2.0","id":`
	requestMid  = `,"method":"broadcast_tx_async","params":{"tx":"`
	syncMid     = `,"method":"broadcast_tx_sync","params":{"tx":"`
	requestTail = `"}}`
)

// requestLen is the length of the request for a tx of size bytes and a seq
// of up to 20 digits.
func requestLen(size int) int {
	return len(requestHead) + 20 + len(requestMid) + base64.StdEncoding.EncodedLen(size) + len(requestTail)
}

// appendRequest appends the broadcast_tx_async request for tx with JSON-RPC
// id seq. It does not allocate when b has room.
func appendRequest(b []byte, seq uint64, tx []byte) []byte {
	b = append(b, requestHead...)
	b = strconv.AppendUint(b, seq, 10)
	b = append(b, requestMid...)
	b = base64.StdEncoding.AppendEncode(b, tx)
	return append(b, requestTail...)
}

// b64Block is the unit of incremental base64: 48 bytes encode to exactly 64
// characters, so each block's encoding depends on that block alone.
const b64Block = 48

// requestBuilder builds requests like appendRequest, but re-encodes to
// base64 only the 48-byte blocks of the tx that differ from the previous
// tx. Consecutive payloads differ only in their header and trailer (a
// 1024-byte tx is mostly the same padding), so this does about a fifth of
// the encoding work. One builder per connection; not safe for concurrent
// use.
type requestBuilder struct {
	prev []byte // the previous tx
	enc  []byte // base64 of prev
	sync bool   // broadcast_tx_sync rather than broadcast_tx_async
}

// append appends the request for tx with id seq to b.
func (rb *requestBuilder) append(b []byte, seq uint64, tx []byte) []byte {
	b = append(b, requestHead...)
	b = strconv.AppendUint(b, seq, 10)
	if rb.sync {
		b = append(b, syncMid...)
	} else {
		b = append(b, requestMid...)
	}
	b = append(b, rb.encode(tx)...)
	return append(b, requestTail...)
}

// encode returns the base64 of tx, valid until the next call.
func (rb *requestBuilder) encode(tx []byte) []byte {
	if len(tx) != len(rb.prev) {
		rb.prev = append(rb.prev[:0], tx...)
		rb.enc = base64.StdEncoding.AppendEncode(rb.enc[:0], tx)
		return rb.enc
	}
	for i := 0; i < len(tx); i += b64Block {
		end := min(i+b64Block, len(tx))
		if string(tx[i:end]) != string(rb.prev[i:end]) {
			// A whole block, or the final (possibly padded) one.
			base64.StdEncoding.Encode(rb.enc[i/3*4:], tx[i:end])
			copy(rb.prev[i:end], tx[i:end])
		}
	}
	return rb.enc
}

// reply is what cometlab reads from a JSON-RPC response to a broadcast:
//
//	{"jsonrpc":"2.0","id":7,"result":{"code":0,"data":"","log":"","codespace":"","hash":"AB…"}}
//	{"jsonrpc":"2.0","id":7,"error":{"code":-32603,"message":"Internal error","data":"mempool is full: …"}}
//
// String fields are slices of the input, still JSON-escaped when the matching
// escaped flag is set; text unescapes them.
type reply struct {
	id       uint64
	hasID    bool // id is a whole number (not null, a string or a fraction)
	isResult bool // a "result" member was present
	isError  bool // an "error" member was present
	code     int64
	log      jsonString // result.log
	hash     jsonString // result.hash
	message  jsonString // error.message
	data     jsonString // error.data (raw JSON text when it is not a string)
}

// jsonString is a string value as it appears in the input, without quotes.
type jsonString struct {
	raw     []byte
	escaped bool
}

// text returns the unescaped string.
func (s jsonString) text() string {
	if !s.escaped {
		return string(s.raw)
	}
	var out string
	q := make([]byte, 0, len(s.raw)+2)
	q = append(append(append(q, '"'), s.raw...), '"')
	if err := json.Unmarshal(q, &out); err != nil {
		return string(s.raw)
	}
	return out
}

// ok reports whether the node accepted the tx: a result with code 0.
func (r *reply) ok() bool { return r.isResult && !r.isError && r.code == 0 }

// messageText returns the Message of a results.Reply: the CheckTx log of a
// result, or "message: data" of an error.
func (r *reply) messageText() string {
	if !r.isError {
		return r.log.text()
	}
	m, d := r.message.text(), r.data.text()
	switch {
	case d == "":
		return m
	case m == "":
		return d
	}
	return m + ": " + d
}

var errNotObject = errors.New("reply is not a JSON object")

// parseReply parses a JSON-RPC response without allocating. It reads only
// the members named in reply and skips any other value; it returns an error
// for input that is not a JSON object or is cut short.
func parseReply(b []byte) (reply, error) {
	var r reply
	p := scanner{b: b}
	err := p.object(func(key []byte) error {
		switch string(key) {
		case "id":
			r.id, r.hasID = p.uint()
			if !r.hasID {
				return p.skip()
			}
			return nil
		case "result":
			r.isResult = true
			return p.member(func(key []byte) error {
				switch string(key) {
				case "code":
					return p.int(&r.code)
				case "log":
					return p.string(&r.log)
				case "hash":
					return p.string(&r.hash)
				}
				return p.skip()
			})
		case "error":
			r.isError = true
			return p.member(func(key []byte) error {
				switch string(key) {
				case "code":
					return p.int(&r.code)
				case "message":
					return p.string(&r.message)
				case "data":
					return p.stringOrRaw(&r.data)
				}
				return p.skip()
			})
		}
		return p.skip()
	})
	if err != nil {
		return reply{}, err
	}
	return r, nil
}

// scanner is a small JSON reader over b.
type scanner struct {
	b []byte
	i int
}

func (p *scanner) ws() {
	for p.i < len(p.b) {
		switch p.b[p.i] {
		case ' ', '\t', '\n', '\r':
			p.i++
		default:
			return
		}
	}
}

func (p *scanner) errorf(format string, args ...any) error {
	return fmt.Errorf("reply at byte %d: "+format, append([]any{p.i}, args...)...)
}

// object reads a whole top-level object, calling fn with each key while the
// scanner is at its value; fn must consume the value.
func (p *scanner) object(fn func(key []byte) error) error {
	p.ws()
	if p.i >= len(p.b) || p.b[p.i] != '{' {
		return errNotObject
	}
	if err := p.members(fn); err != nil {
		return err
	}
	p.ws()
	if p.i != len(p.b) {
		return p.errorf("trailing data")
	}
	return nil
}

// member reads an object value (fn as for object), or skips null or any
// other value.
func (p *scanner) member(fn func(key []byte) error) error {
	p.ws()
	if p.i < len(p.b) && p.b[p.i] == '{' {
		return p.members(fn)
	}
	return p.skip()
}

// members reads the object at p.i ('{' … '}').
func (p *scanner) members(fn func(key []byte) error) error {
	p.i++ // '{'
	p.ws()
	if p.i < len(p.b) && p.b[p.i] == '}' {
		p.i++
		return nil
	}
	for {
		p.ws()
		var key jsonString
		if err := p.string(&key); err != nil {
			return err
		}
		p.ws()
		if p.i >= len(p.b) || p.b[p.i] != ':' {
			return p.errorf("want ':'")
		}
		p.i++
		p.ws()
		if err := fn(key.raw); err != nil {
			return err
		}
		p.ws()
		if p.i >= len(p.b) {
			return p.errorf("unexpected end")
		}
		switch p.b[p.i] {
		case ',':
			p.i++
		case '}':
			p.i++
			return nil
		default:
			return p.errorf("want ',' or '}'")
		}
	}
}

// string reads a string value into s.
func (p *scanner) string(s *jsonString) error {
	if p.i >= len(p.b) || p.b[p.i] != '"' {
		return p.errorf("want a string")
	}
	start := p.i + 1
	escaped := false
	for j := start; j < len(p.b); j++ {
		switch c := p.b[j]; {
		case c == '\\':
			escaped = true
			j++
		case c == '"':
			*s = jsonString{raw: p.b[start:j], escaped: escaped}
			p.i = j + 1
			return nil
		case c < 0x20:
			return p.errorf("control character in string")
		}
	}
	return p.errorf("unterminated string")
}

// stringOrRaw reads a string, or keeps any other value as its raw JSON text.
func (p *scanner) stringOrRaw(s *jsonString) error {
	if p.i < len(p.b) && p.b[p.i] == '"' {
		return p.string(s)
	}
	start := p.i
	if err := p.skip(); err != nil {
		return err
	}
	if string(p.b[start:p.i]) == "null" {
		*s = jsonString{}
		return nil
	}
	*s = jsonString{raw: p.b[start:p.i]}
	return nil
}

// uint reads a number made only of digits that fits a uint64. It leaves
// the scanner where it was when the value is anything else.
func (p *scanner) uint() (uint64, bool) {
	j := p.i
	var v uint64
	for ; j < len(p.b) && '0' <= p.b[j] && p.b[j] <= '9'; j++ {
		d := uint64(p.b[j] - '0')
		if v > (1<<64-1-d)/10 {
			return 0, false
		}
		v = v*10 + d
	}
	if j == p.i || (j < len(p.b) && (p.b[j] == '.' || p.b[j] == 'e' || p.b[j] == 'E')) {
		return 0, false
	}
	p.i = j
	return v, true
}

// int reads an integer (optionally negative) into v.
func (p *scanner) int(v *int64) error {
	neg := p.i < len(p.b) && p.b[p.i] == '-'
	if neg {
		p.i++
	}
	u, ok := p.uint()
	if !ok || u > 1<<63 || (!neg && u == 1<<63) {
		return p.errorf("want an integer")
	}
	if neg {
		*v = -int64(u)
	} else {
		*v = int64(u)
	}
	return nil
}

// skip skips one value of any kind.
func (p *scanner) skip() error {
	p.ws()
	if p.i >= len(p.b) {
		return p.errorf("unexpected end")
	}
	switch c := p.b[p.i]; {
	case c == '"':
		var s jsonString
		return p.string(&s)
	case c == '{':
		return p.members(func([]byte) error { return p.skip() })
	case c == '[':
		p.i++
		p.ws()
		if p.i < len(p.b) && p.b[p.i] == ']' {
			p.i++
			return nil
		}
		for {
			if err := p.skip(); err != nil {
				return err
			}
			p.ws()
			if p.i >= len(p.b) {
				return p.errorf("unexpected end")
			}
			if p.b[p.i] == ']' {
				p.i++
				return nil
			}
			if p.b[p.i] != ',' {
				return p.errorf("want ',' or ']'")
			}
			p.i++
		}
	case c == '-' || ('0' <= c && c <= '9'):
		j := p.i + 1
		for j < len(p.b) && (('0' <= p.b[j] && p.b[j] <= '9') || p.b[j] == '.' || p.b[j] == 'e' ||
			p.b[j] == 'E' || p.b[j] == '+' || p.b[j] == '-') {
			j++
		}
		p.i = j
		return nil
	default:
		for _, lit := range [...]string{"true", "false", "null"} {
			if len(p.b)-p.i >= len(lit) && string(p.b[p.i:p.i+len(lit)]) == lit {
				p.i += len(lit)
				return nil
			}
		}
		return p.errorf("unexpected %q", c)
	}
}
