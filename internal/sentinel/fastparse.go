package sentinel

import (
	"encoding/base64"
	"encoding/json"
)

// parseFast reads the common request — one JSON object with at most the
// keys jsonrpc, id, method and params, once each, in any order: jsonrpc a
// string and method a name (letters, digits, '_'), id an integer, a plain
// string or null, params {"tx":"<base64>"} or ["<base64>"] — in one pass
// without reflection; ok is false for anything else (the caller falls back
// to encoding/json, which reads the same request alike: FuzzParseRequests
// checks both). A flooding client's frames are mostly this shape, and
// encoding/json's passes over a 1-KB tx were the sentinel's costliest work.
func parseFast(b []byte) (r Request, ok bool) {
	p := fastParser{b: b}
	p.ws()
	if !p.eat('{') {
		return r, false
	}
	var seen [4]bool
	for first := true; ; first = false {
		p.ws()
		if p.eat('}') {
			if first {
				break
			}
			return r, false // a trailing comma
		}
		key, ok := p.plainString()
		if !ok {
			return r, false
		}
		p.ws()
		if !p.eat(':') {
			return r, false
		}
		p.ws()
		var k int
		switch string(key) {
		case "jsonrpc":
			k = 0
			_, ok = p.plainString()
		case "id":
			k = 1
			r.ID, ok = p.id()
		case "method":
			k = 2
			var m []byte
			if m, ok = p.plainString(); ok {
				r.Method = string(m)
				ok = isName(m)
			}
		case "params":
			k = 3
			r.Params, ok = p.params()
		default:
			return r, false
		}
		if !ok || seen[k] {
			return r, false
		}
		seen[k] = true
		p.ws()
		if p.eat(',') {
			continue
		}
		if p.eat('}') {
			break
		}
		return r, false
	}
	p.ws()
	if p.i != len(b) {
		return r, false
	}
	r.ID = normID(r.ID)
	return r, true
}

type fastParser struct {
	b []byte
	i int
}

func (p *fastParser) ws() {
	for p.i < len(p.b) && (p.b[p.i] == ' ' || p.b[p.i] == '\t' || p.b[p.i] == '\n' || p.b[p.i] == '\r') {
		p.i++
	}
}

func (p *fastParser) eat(c byte) bool {
	if p.i < len(p.b) && p.b[p.i] == c {
		p.i++
		return true
	}
	return false
}

// plainString reads a string of printable ASCII without escapes and returns
// its contents.
func (p *fastParser) plainString() ([]byte, bool) {
	if !p.eat('"') {
		return nil, false
	}
	start := p.i
	for ; p.i < len(p.b); p.i++ {
		switch c := p.b[p.i]; {
		case c == '"':
			p.i++
			return p.b[start : p.i-1], true
		case c == '\\' || c < 0x20 || c > 0x7e:
			return nil, false
		}
	}
	return nil, false
}

// id reads an integer, a plain string or null, and returns it raw.
func (p *fastParser) id() (json.RawMessage, bool) {
	start := p.i
	switch {
	case p.i < len(p.b) && p.b[p.i] == '"':
		if _, ok := p.plainString(); !ok {
			return nil, false
		}
	case len(p.b)-p.i >= 4 && string(p.b[p.i:p.i+4]) == "null":
		p.i += 4
	default:
		p.eat('-')
		d := p.i
		for p.i < len(p.b) && p.b[p.i] >= '0' && p.b[p.i] <= '9' {
			p.i++
		}
		if n := p.i - d; n == 0 || n > 1 && p.b[d] == '0' || n > 18 {
			return nil, false
		}
	}
	return json.RawMessage(p.b[start:p.i]), true
}

// params reads {"tx":"<base64>"} or ["<base64>"] (whitespace allowed
// between the tokens) and returns it raw.
func (p *fastParser) params() (json.RawMessage, bool) {
	start := p.i
	named := p.eat('{')
	if !named && !p.eat('[') {
		return nil, false
	}
	p.ws()
	if named {
		if k, ok := p.plainString(); !ok || string(k) != "tx" {
			return nil, false
		}
		p.ws()
		if !p.eat(':') {
			return nil, false
		}
		p.ws()
	}
	s, ok := p.plainString()
	if !ok || !isBase64(s) {
		return nil, false
	}
	p.ws()
	if named && !p.eat('}') || !named && !p.eat(']') {
		return nil, false
	}
	return json.RawMessage(p.b[start:p.i]), true
}

func isName(b []byte) bool {
	for _, c := range b {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_') {
			return false
		}
	}
	return len(b) > 0
}

func isBase64(b []byte) bool {
	for _, c := range b {
		if !(c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '+' || c == '/' || c == '=') {
			return false
		}
	}
	return true
}

// txFast decodes params of the shape parseFast accepts without
// encoding/json; ok is false for any other shape.
func txFast(params json.RawMessage) (tx []byte, ok bool, err error) {
	p := fastParser{b: params}
	if raw, good := p.params(); !good || len(raw) != len(params) {
		return nil, false, nil
	}
	// Find the string again: it is the only one after the key, if any.
	q := fastParser{b: params}
	q.i = 1
	q.ws()
	s, _ := q.plainString()
	if params[0] == '{' {
		q.ws()
		q.eat(':')
		q.ws()
		s, _ = q.plainString()
	}
	tx = make([]byte, base64.StdEncoding.DecodedLen(len(s)))
	n, err := base64.StdEncoding.Decode(tx, s)
	return tx[:n], true, err
}
