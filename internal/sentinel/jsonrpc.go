package sentinel

import (
	"bytes"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"strings"
)

// JSON-RPC 2.0 error codes the sentinel answers with. The standard ones
// are CometBFT's; the -3200x codes name the sentinel's own limits, so that
// a client can tell which limit refused it from the code alone.
const (
	CodeParse          = -32700 // the body is not JSON
	CodeInvalidRequest = -32600 // not a JSON-RPC request, or too large a batch
	CodeMethodNotFound = -32601 // a method the sentinel does not serve (unsafe or unknown)
	CodeInvalidParams  = -32602 // a broadcast without a readable tx
	CodeInternal       = -32603 // the node could not be reached
	CodeClientRate     = -32001 // the client's token bucket is empty
	CodeClientQueue    = -32002 // the client's queue is full
	CodeGlobalBuffer   = -32003 // the sentinel's buffer is full
	CodeConnections    = -32004 // the client has too many open connections
	CodeShutdown       = -32005 // the sentinel is stopping
)

// Request is one JSON-RPC request as the sentinel reads it.
type Request struct {
	ID     json.RawMessage `json:"id"` // nil for a notification (no reply is due)
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
}

// marshal encodes r as a JSON-RPC 2.0 request (for the node).
func (r Request) marshal() ([]byte, error) {
	return json.Marshal(struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id,omitempty"`
		Method  string          `json:"method"`
		Params  json.RawMessage `json:"params,omitempty"`
	}{"2.0", r.ID, r.Method, r.Params})
}

// RPCError is a JSON-RPC error object.
type RPCError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
	Data    string `json:"data,omitempty"`
}

// ErrBatchTooLarge is returned by ParseRequests for a batch of more than
// the allowed number of requests.
var ErrBatchTooLarge = errors.New("batch request exceeds maximum allowed number of requests")

// ParseRequests parses a POST body or a websocket frame: one request, or a
// batch (a JSON array) of at most maxBatch requests (0: no limit). batch
// says which it was. An empty batch is an error, as in JSON-RPC 2.0.
func ParseRequests(b []byte, maxBatch int) (reqs []Request, batch bool, err error) {
	b = bytes.TrimLeft(b, " \t\r\n")
	if len(b) > 0 && b[0] == '[' {
		if err := json.Unmarshal(b, &reqs); err != nil {
			return nil, true, fmt.Errorf("parse batch: %w", err)
		}
		if len(reqs) == 0 {
			return nil, true, errors.New("empty batch")
		}
		if maxBatch > 0 && len(reqs) > maxBatch {
			return nil, true, fmt.Errorf("%w (%d > %d)", ErrBatchTooLarge, len(reqs), maxBatch)
		}
		for i := range reqs {
			reqs[i].ID = normID(reqs[i].ID)
		}
		return reqs, true, nil
	}
	if r, ok := parseFast(b); ok {
		return []Request{r}, false, nil
	}
	var r Request
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, false, fmt.Errorf("parse request: %w", err)
	}
	r.ID = normID(r.ID)
	return []Request{r}, false, nil
}

// normID makes an explicit null id and an absent one the same: no id.
func normID(id json.RawMessage) json.RawMessage {
	if len(id) == 0 || string(id) == "null" {
		return nil
	}
	return id
}

// TxParam returns the tx of a broadcast's params: {"tx":"<base64>"} or
// ["<base64>"], as CometBFT accepts them.
func TxParam(params json.RawMessage) ([]byte, error) {
	if tx, ok, err := txFast(params); ok {
		if err != nil {
			return nil, fmt.Errorf("params.tx: %w", err)
		}
		return tx, nil
	}
	var s string
	var named struct {
		Tx *string `json:"tx"`
	}
	var pos []string
	switch {
	case len(params) == 0:
		return nil, errors.New("missing params.tx")
	case json.Unmarshal(params, &named) == nil && named.Tx != nil:
		s = *named.Tx
	case json.Unmarshal(params, &pos) == nil && len(pos) == 1:
		s = pos[0]
	default:
		return nil, errors.New("params want {\"tx\": \"<base64>\"}")
	}
	tx, err := base64.StdEncoding.DecodeString(s)
	if err != nil {
		return nil, fmt.Errorf("params.tx: %w", err)
	}
	return tx, nil
}

// URITx reads the tx argument of a GET broadcast the way CometBFT's URI
// handler does: 0x-prefixed hex, or a JSON-quoted string of the raw bytes.
func URITx(q url.Values) ([]byte, error) {
	v := q.Get("tx")
	switch {
	case v == "":
		return nil, errors.New("missing tx argument")
	case strings.HasPrefix(v, "0x"):
		tx, err := hex.DecodeString(v[2:])
		if err != nil {
			return nil, fmt.Errorf("tx argument: %w", err)
		}
		return tx, nil
	case strings.HasPrefix(v, `"`):
		s, err := strconv.Unquote(v)
		if err != nil {
			return nil, fmt.Errorf("tx argument: %w", err)
		}
		return []byte(s), nil
	}
	return nil, errors.New(`tx argument wants 0x<hex> or "<string>"`)
}

// uriID is the id CometBFT's URI (GET) handler answers with.
var uriID = json.RawMessage("-1")

// appendResult appends a success response with a raw result.
func appendResult(b []byte, id, result json.RawMessage) []byte {
	b = append(b, `{"jsonrpc":"2.0","id":`...)
	b = appendID(b, id)
	b = append(b, `,"result":`...)
	b = append(b, result...)
	return append(b, '}')
}

// appendError appends an error response.
func appendError(b []byte, id json.RawMessage, e RPCError) []byte {
	eb, _ := json.Marshal(e) // a struct of ints and strings always marshals
	return appendRawError(b, id, eb)
}

// appendRawError appends an error response with a raw error object.
func appendRawError(b []byte, id, e json.RawMessage) []byte {
	b = append(b, `{"jsonrpc":"2.0","id":`...)
	b = appendID(b, id)
	b = append(b, `,"error":`...)
	b = append(b, e...)
	return append(b, '}')
}

func appendID(b []byte, id json.RawMessage) []byte {
	if len(id) == 0 {
		return append(b, "null"...)
	}
	return append(b, id...)
}

// upstreamReply is a node's JSON-RPC response, result or error kept raw.
type upstreamReply struct {
	Result json.RawMessage `json:"result"`
	Error  json.RawMessage `json:"error"`
}

// appendReply appends r as the response to id.
func (r upstreamReply) append(b []byte, id json.RawMessage) []byte {
	if len(r.Error) > 0 && string(r.Error) != "null" {
		return appendRawError(b, id, r.Error)
	}
	if len(r.Result) == 0 {
		return appendResult(b, id, json.RawMessage("null"))
	}
	return appendResult(b, id, r.Result)
}

// mempoolFull reports whether a node's rejection (nodeRejection) says its
// mempool has no room: "mempool is full: …", or — while it rechecks after a
// block — "… so it is considered as full".
func mempoolFull(why string) bool {
	return strings.Contains(why, "mempool is full") || strings.Contains(why, "considered as full")
}

// nodeRejection returns why the node refused a broadcast, or "" when it
// accepted it: the error's message and data, or a non-zero CheckTx code and
// log.
func (r upstreamReply) nodeRejection() string {
	if len(r.Error) > 0 && string(r.Error) != "null" {
		var e RPCError
		if json.Unmarshal(r.Error, &e) != nil {
			return string(r.Error)
		}
		if e.Data != "" {
			return e.Message + ": " + e.Data
		}
		return e.Message
	}
	var res struct {
		Code int64  `json:"code"`
		Log  string `json:"log"`
	}
	if json.Unmarshal(r.Result, &res) != nil {
		return "unreadable result: " + string(r.Result)
	}
	if res.Code != 0 {
		return fmt.Sprintf("code %d: %s", res.Code, res.Log)
	}
	return ""
}
