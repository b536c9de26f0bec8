package rpc

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/gorilla/websocket"
)

// HeaderQuery subscribes to new block headers: one small event per height,
// sent when the node has committed it.
const HeaderQuery = "tm.event='NewBlockHeader'"

// Header is the part of a new block header cometlab reads.
type Header struct {
	Height int64
	// LastBlockHash is the hash of block Height−1 (last_block_id.hash),
	// upper-case hex as CometBFT writes it.
	LastBlockHash string
	// AppHash is the app's hash after executing block Height−1.
	AppHash string
}

// SubscribeHeights subscribes to new block headers on the node at addr and
// calls fn with each height and the local time its event was read, until
// ctx ends or the connection breaks (the error says which). Reading time is
// taken before decoding, so decoding cost does not shift it.
func SubscribeHeights(ctx context.Context, addr string, fn func(height int64, at time.Time)) error {
	return SubscribeHeaders(ctx, addr, func(h Header, at time.Time) { fn(h.Height, at) })
}

// SubscribeHeaders is SubscribeHeights with the header's hashes.
func SubscribeHeaders(ctx context.Context, addr string, fn func(h Header, at time.Time)) error {
	url := WSAddr(addr)
	d := websocket.Dialer{HandshakeTimeout: 5 * time.Second}
	conn, _, err := d.DialContext(ctx, url, nil)
	if err != nil {
		return fmt.Errorf("subscribe %s: %w", url, err)
	}
	defer conn.Close()
	stop := context.AfterFunc(ctx, func() { conn.Close() })
	defer stop()

	req := request{JSONRPC: "2.0", ID: 1, Method: "subscribe", Params: map[string]any{"query": HeaderQuery}}
	if err := conn.WriteJSON(req); err != nil {
		return fmt.Errorf("subscribe %s: %w", url, err)
	}
	var ev struct {
		Result *struct {
			Data *struct {
				Value struct {
					Header struct {
						Height      Int64 `json:"height"`
						LastBlockID struct {
							Hash string `json:"hash"`
						} `json:"last_block_id"`
						AppHash string `json:"app_hash"`
					} `json:"header"`
				} `json:"value"`
			} `json:"data"`
		} `json:"result"`
		Error *Error `json:"error"`
	}
	for {
		_, msg, err := conn.ReadMessage()
		at := time.Now()
		if err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			return fmt.Errorf("subscription to %s: %w", url, err)
		}
		ev.Result, ev.Error = nil, nil
		if err := json.Unmarshal(msg, &ev); err != nil {
			return fmt.Errorf("subscription to %s: decode: %w", url, err)
		}
		if ev.Error != nil {
			return fmt.Errorf("subscribe %s: %w", url, ev.Error)
		}
		if ev.Result == nil || ev.Result.Data == nil {
			continue // the empty reply to the subscribe request
		}
		h := &ev.Result.Data.Value.Header
		fn(Header{Height: int64(h.Height), LastBlockHash: h.LastBlockID.Hash, AppHash: h.AppHash}, at)
	}
}
