// Command flood sends broadcast_tx_async requests as fast as asked — open
// loop, never waiting for replies — over -c websockets from one client key,
// and counts the replies by kind. It is bench/sentinel-flood.sh's abusive
// client: the sentinel must refuse what it does not admit, explicitly, and
// stay within bounded memory.
//
//	flood -endpoint ws://127.0.0.1:26667/websocket -key flood -c 8 -r 100000 -T 60s
//
// It prints one line per second (sent, replies by kind) and a summary:
// requests sent per second, accepted, refused by JSON-RPC code, other
// errors, and replies never received.
package main

import (
	"bytes"
	"context"
	"encoding/base64"
	"flag"
	"fmt"
	"net/http"
	"os"
	"os/signal"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gorilla/websocket"
)

// counts are the replies seen, by kind.
type counts struct {
	sent, accepted, other, broken atomic.Int64
	mu                            sync.Mutex
	refused                       map[int]int64 // by JSON-RPC error code
}

func (c *counts) refuse(code int) {
	c.mu.Lock()
	c.refused[code]++
	c.mu.Unlock()
}

func (c *counts) replies() int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := c.accepted.Load() + c.other.Load()
	for _, v := range c.refused {
		n += v
	}
	return n
}

func main() {
	endpoint := flag.String("endpoint", "ws://127.0.0.1:26667/websocket", "websocket endpoint")
	key := flag.String("key", "flood", "client key (X-Client-Key header)")
	conns := flag.Int("c", 8, "websocket connections")
	rate := flag.Float64("r", 100_000, "requests per second, all connections together")
	dur := flag.Duration("T", 60*time.Second, "how long to flood")
	size := flag.Int("s", 64, "tx size in bytes")
	flag.Parse()
	ctx, cancel := signal.NotifyContext(context.Background(), os.Interrupt)
	defer cancel()
	ctx, cancelT := context.WithTimeout(ctx, *dur)
	defer cancelT()

	c := &counts{refused: map[int]int64{}}
	h := http.Header{}
	h.Set("X-Client-Key", *key)
	var wg sync.WaitGroup
	start := time.Now()
	for i := range *conns {
		ws, resp, err := websocket.DefaultDialer.DialContext(ctx, *endpoint, h)
		if err != nil {
			status := ""
			if resp != nil {
				status = resp.Status
			}
			fmt.Fprintf(os.Stderr, "flood: connection %d: %v %s\n", i, err, status)
			os.Exit(1)
		}
		wg.Add(2)
		go func() { defer wg.Done(); read(ws, c) }()
		go func() { defer wg.Done(); write(ctx, ws, i, *rate/float64(*conns), *size, c) }()
	}
	go func() {
		t := time.NewTicker(time.Second)
		defer t.Stop()
		for s := 1; ; s++ {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
				fmt.Printf("t=%ds sent %d replies %d\n", s, c.sent.Load(), c.replies())
			}
		}
	}()
	wg.Wait()
	el := time.Since(start).Seconds()
	sent := c.sent.Load()
	fmt.Printf("flood: %d requests in %.1f s (%.0f/s over %d connections), accepted %d, refused %v, other %d, unanswered %d, connections broken %d\n",
		sent, el, float64(sent)/el, *conns, c.accepted.Load(), c.refused, c.other.Load(), sent-c.replies(), c.broken.Load())
}

// write sends at rate (req/s) on ws until ctx ends, in batches every
// millisecond, then closes the connection after a grace for the replies.
func write(ctx context.Context, ws *websocket.Conn, conn int, rate float64, size int, c *counts) {
	pad := bytes.Repeat([]byte{'x'}, size)
	start := time.Now()
	run := strconv.FormatInt(start.UnixNano(), 36) + "-" + strconv.Itoa(conn) + "-" // unique across runs
	var n int64
	t := time.NewTicker(time.Millisecond)
	defer t.Stop()
	buf := make([]byte, 0, 2*size+128)
	for {
		select {
		case <-ctx.Done():
			time.Sleep(2 * time.Second) // replies in flight
			_ = ws.WriteControl(websocket.CloseMessage, websocket.FormatCloseMessage(websocket.CloseNormalClosure, ""),
				time.Now().Add(time.Second))
			ws.Close()
			return
		case <-t.C:
		}
		due := int64(time.Since(start).Seconds() * rate)
		for ; n < due; n++ {
			tx := strconv.AppendInt([]byte(run), n, 10)
			tx = append(append(tx, '='), pad[:max(0, size-len(tx)-1)]...)
			buf = append(buf[:0], `{"jsonrpc":"2.0","id":`...)
			buf = strconv.AppendInt(buf, n, 10)
			buf = append(buf, `,"method":"broadcast_tx_async","params":{"tx":"`...)
			buf = base64.StdEncoding.AppendEncode(buf, tx)
			buf = append(buf, `"}}`...)
			if err := ws.WriteMessage(websocket.TextMessage, buf); err != nil {
				c.broken.Add(1)
				return
			}
			c.sent.Add(1)
			if ctx.Err() != nil {
				break
			}
		}
	}
}

// read counts the replies on ws until it closes.
func read(ws *websocket.Conn, c *counts) {
	codeKey := []byte(`"error":{"code":`)
	for {
		_, msg, err := ws.ReadMessage()
		if err != nil {
			return
		}
		i := bytes.Index(msg, codeKey)
		if i < 0 {
			if bytes.Contains(msg, []byte(`"result"`)) {
				c.accepted.Add(1)
			} else {
				c.other.Add(1)
			}
			continue
		}
		rest := msg[i+len(codeKey):]
		j := bytes.IndexAny(rest, ",}")
		code, err := strconv.Atoi(string(bytes.TrimSpace(rest[:max(j, 0)])))
		if err != nil {
			c.other.Add(1)
			continue
		}
		c.refuse(code)
	}
}
