package rpc

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync/atomic"
	"time"
)

// Client calls a node's JSON-RPC endpoint over HTTP.
type Client struct {
	base string // http://host:port
	hc   *http.Client
	id   atomic.Uint64
}

// New returns a client for base, an http:// or tcp:// address of a node's
// RPC listener (a ws:// address is turned into its http:// twin).
func New(base string) *Client {
	return &Client{
		base: HTTPAddr(base),
		hc: &http.Client{Transport: &http.Transport{
			MaxIdleConnsPerHost: 16,
			DisableCompression:  true,
		}},
	}
}

// Addr returns the http:// address the client calls.
func (c *Client) Addr() string { return c.base }

// HTTPAddr normalises a node address to http://host:port.
func HTTPAddr(addr string) string {
	addr = strings.TrimSuffix(addr, "/websocket")
	for _, p := range []string{"tcp://", "ws://", "http://"} {
		if strings.HasPrefix(addr, p) {
			return "http://" + strings.TrimSuffix(strings.TrimPrefix(addr, p), "/")
		}
	}
	if strings.HasPrefix(addr, "wss://") {
		return "https://" + strings.TrimSuffix(strings.TrimPrefix(addr, "wss://"), "/")
	}
	return strings.TrimSuffix(addr, "/")
}

// WSAddr normalises a node address to ws://host:port/websocket.
func WSAddr(addr string) string {
	h := HTTPAddr(addr)
	if strings.HasPrefix(h, "https://") {
		return "wss://" + strings.TrimPrefix(h, "https://") + "/websocket"
	}
	return "ws://" + strings.TrimPrefix(h, "http://") + "/websocket"
}

// Error is a JSON-RPC error returned by a node.
type Error struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
	Data    string `json:"data"`
}

func (e *Error) Error() string {
	if e.Data != "" {
		return fmt.Sprintf("rpc error %d: %s: %s", e.Code, e.Message, e.Data)
	}
	return fmt.Sprintf("rpc error %d: %s", e.Code, e.Message)
}

type request struct {
	JSONRPC string         `json:"jsonrpc"`
	ID      uint64         `json:"id"`
	Method  string         `json:"method"`
	Params  map[string]any `json:"params"`
}

type response struct {
	Result json.RawMessage `json:"result"`
	Error  *Error          `json:"error"`
}

// raw calls method and returns the raw JSON result.
func (c *Client) raw(ctx context.Context, method string, params map[string]any) ([]byte, error) {
	if params == nil {
		params = map[string]any{}
	}
	body, err := json.Marshal(request{JSONRPC: "2.0", ID: c.id.Add(1), Method: method, Params: params})
	if err != nil {
		return nil, err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.base, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := c.hc.Do(req)
	if err != nil {
		return nil, fmt.Errorf("%s %s: %w", method, c.base, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, fmt.Errorf("%s %s: read: %w", method, c.base, err)
	}
	return b, nil
}

// Call calls method with params and decodes the result into out.
func (c *Client) Call(ctx context.Context, method string, params map[string]any, out any) error {
	b, err := c.raw(ctx, method, params)
	if err != nil {
		return err
	}
	var r response
	if err := json.Unmarshal(b, &r); err != nil {
		return fmt.Errorf("%s %s: decode: %w", method, c.base, err)
	}
	if r.Error != nil {
		return fmt.Errorf("%s %s: %w", method, c.base, r.Error)
	}
	if out == nil {
		return nil
	}
	if err := json.Unmarshal(r.Result, out); err != nil {
		return fmt.Errorf("%s %s: decode result: %w", method, c.base, err)
	}
	return nil
}

// Int64 decodes a JSON number or a string holding one (CometBFT encodes
// 64-bit integers as strings).
type Int64 int64

// UnmarshalJSON implements json.Unmarshaler.
func (n *Int64) UnmarshalJSON(b []byte) error {
	s := strings.Trim(string(b), `"`)
	if s == "" || s == "null" {
		*n = 0
		return nil
	}
	v, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return fmt.Errorf("not an integer: %s", b)
	}
	*n = Int64(v)
	return nil
}

// Status is the part of /status cometlab uses.
type Status struct {
	NodeInfo struct {
		ID      string `json:"id"`
		Network string `json:"network"`
		Version string `json:"version"`
		Moniker string `json:"moniker"`
	} `json:"node_info"`
	SyncInfo struct {
		LatestBlockHeight Int64     `json:"latest_block_height"`
		LatestBlockHash   string    `json:"latest_block_hash"` // upper-case hex
		LatestBlockTime   time.Time `json:"latest_block_time"`
		CatchingUp        bool      `json:"catching_up"`
		// EarliestBlockHeight is the lowest height the node stores: 1
		// (the initial height) unless it pruned or state-synced.
		EarliestBlockHeight Int64 `json:"earliest_block_height"`
	} `json:"sync_info"`
}

// Status calls /status.
func (c *Client) Status(ctx context.Context) (Status, error) {
	var s Status
	err := c.Call(ctx, "status", nil, &s)
	return s, err
}

// Height returns the node's latest committed height.
func (c *Client) Height(ctx context.Context) (int64, error) {
	s, err := c.Status(ctx)
	return int64(s.SyncInfo.LatestBlockHeight), err
}

// UnconfirmedTxs returns how many transactions are in the node's mempool.
func (c *Client) UnconfirmedTxs(ctx context.Context) (int64, error) {
	var r struct {
		Total Int64 `json:"total"`
	}
	err := c.Call(ctx, "num_unconfirmed_txs", nil, &r)
	return int64(r.Total), err
}

// ErrNoBlock means the node has no block at the asked height (yet).
var ErrNoBlock = errors.New("no block at this height")
