package sentinel

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"
)

// outcome is the answer to one request: one response object (nil for a
// notification), the HTTP status it calls for and, for a refusal by a
// limit, how long to wait.
type outcome struct {
	body   []byte
	status int
	retry  time.Duration
}

// Handler returns the sentinel's HTTP handler: JSON-RPC over POST /, GET
// /<method>?<args> and websocket on /websocket.
func (s *Sentinel) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("/websocket", s.serveWS)
	mux.HandleFunc("/", s.serveHTTP)
	return mux
}

func (s *Sentinel) serveHTTP(w http.ResponseWriter, r *http.Request) {
	c := s.clients.get(ClientKey(&s.opts, r), time.Now())
	if !s.clients.open(c) {
		s.writeHTTP(w, false, []outcome{s.refusalOutcome(nil, s.connRefusal(c))})
		return
	}
	defer s.clients.close(c, time.Now())
	switch r.Method {
	case http.MethodPost:
		if r.URL.Path != "/" {
			http.NotFound(w, r)
			return
		}
		body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, s.opts.MaxBodyBytes))
		if err != nil {
			s.m.refused.WithLabelValues(ReasonBadRequest).Inc()
			status := http.StatusBadRequest
			if _, ok := errors.AsType[*http.MaxBytesError](err); ok {
				status = http.StatusRequestEntityTooLarge
			}
			s.writeHTTP(w, false, []outcome{{status: status,
				body: appendError(nil, nil, RPCError{Code: CodeInvalidRequest, Message: "Invalid Request", Data: "error reading request body: " + err.Error()})}})
			return
		}
		reqs, batch, err := ParseRequests(body, s.opts.MaxBatch)
		if err != nil {
			s.writeHTTP(w, false, []outcome{s.parseFailure(err)})
			return
		}
		s.writeHTTP(w, batch, s.handleAll(r.Context(), c, reqs, nil))
	case http.MethodGet:
		s.serveGET(w, r, c)
	default:
		w.Header().Set("Allow", "GET, POST")
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
	}
}

// parseFailure is the answer to a body that is not a request (or too large
// a batch).
func (s *Sentinel) parseFailure(err error) outcome {
	s.m.refused.WithLabelValues(ReasonBadRequest).Inc()
	if errors.Is(err, ErrBatchTooLarge) {
		return outcome{status: http.StatusBadRequest,
			body: appendError(nil, nil, RPCError{Code: CodeInvalidRequest, Message: "Invalid Request", Data: err.Error()})}
	}
	return outcome{status: http.StatusBadRequest,
		body: appendError(nil, nil, RPCError{Code: CodeParse, Message: "Parse error", Data: err.Error()})}
}

// serveGET answers GET /<method>?<args>, CometBFT's URI form: read-only
// methods are proxied as they are, broadcasts admitted like a POST.
func (s *Sentinel) serveGET(w http.ResponseWriter, r *http.Request, c *client) {
	method := strings.TrimPrefix(r.URL.Path, "/")
	if method == "num_unconfirmed_txs" {
		// Answered like the POST form, so that the sentinel's own
		// pending txs are counted in.
		s.writeHTTP(w, false, []outcome{s.handle1(r.Context(), c, Request{ID: uriID, Method: method}, nil)})
		return
	}
	switch Classify(method) {
	case ReadOnly:
		if ok, wait := allow(c.reads, time.Now()); !ok {
			s.writeHTTP(w, false, []outcome{s.refusalOutcome(uriID, s.readRefusal(c, wait))})
			return
		}
		req, err := http.NewRequestWithContext(r.Context(), http.MethodGet, s.node.Addr()+r.URL.RequestURI(), nil)
		if err == nil {
			var resp *http.Response
			if resp, err = s.hc.Do(req); err == nil {
				defer resp.Body.Close()
				s.m.reads.Inc()
				w.Header().Set("Content-Type", resp.Header.Get("Content-Type"))
				w.WriteHeader(resp.StatusCode)
				_, _ = io.Copy(w, resp.Body)
				return
			}
		}
		s.writeHTTP(w, false, []outcome{unreachable(uriID, err)})
	case Broadcast:
		tx, err := URITx(r.URL.Query())
		if err != nil {
			s.m.refused.WithLabelValues(ReasonBadRequest).Inc()
			s.writeHTTP(w, false, []outcome{{status: http.StatusBadRequest,
				body: appendError(nil, uriID, RPCError{Code: CodeInvalidParams, Message: "Invalid params", Data: err.Error()})}})
			return
		}
		s.writeHTTP(w, false, []outcome{s.broadcast(r.Context(), c, uriID, method, tx)})
	default:
		s.writeHTTP(w, false, []outcome{s.methodRefused(uriID, method)})
	}
}

// writeHTTP writes outcomes as one response (batch: a JSON array). The
// status is the first refusal's when any request was refused by a limit
// (429, with Retry-After the longest wait), else the single request's, else
// 200.
func (s *Sentinel) writeHTTP(w http.ResponseWriter, batch bool, outs []outcome) {
	status, retry := http.StatusOK, time.Duration(0)
	if len(outs) == 1 && outs[0].status != 0 {
		status = outs[0].status
	}
	for _, o := range outs {
		if o.status == http.StatusTooManyRequests {
			status = o.status
		}
		retry = max(retry, o.retry)
	}
	var b []byte
	if batch {
		b = append(b, '[')
	}
	n := 0
	for _, o := range outs {
		if o.body == nil {
			continue
		}
		if n > 0 {
			b = append(b, ',')
		}
		b = append(b, o.body...)
		n++
	}
	if batch {
		b = append(b, ']')
	}
	if n == 0 && status == http.StatusOK {
		w.WriteHeader(http.StatusOK) // only notifications: nothing to say
		return
	}
	w.Header().Set("Content-Type", "application/json")
	if retry > 0 {
		w.Header().Set("Retry-After", strconv.Itoa(retryAfter(retry)))
	}
	w.WriteHeader(status)
	_, _ = w.Write(b)
}

// handleAll answers reqs, concurrently when there are several (a sync or
// commit broadcast waits for the node). ws is the websocket the requests
// came on, or nil.
func (s *Sentinel) handleAll(ctx context.Context, c *client, reqs []Request, ws *wsConn) []outcome {
	outs := make([]outcome, len(reqs))
	if len(reqs) == 1 {
		outs[0] = s.handle(ctx, c, reqs[0], ws)
		return outs
	}
	var wg sync.WaitGroup
	for i, r := range reqs {
		wg.Go(func() { outs[i] = s.handle(ctx, c, r, ws) })
	}
	wg.Wait()
	return outs
}

// handle answers one request. A notification (no id) is carried out but
// gets no body.
func (s *Sentinel) handle(ctx context.Context, c *client, r Request, ws *wsConn) outcome {
	o := s.handle1(ctx, c, r, ws)
	if r.ID == nil {
		o.body = nil
	}
	return o
}

func (s *Sentinel) handle1(ctx context.Context, c *client, r Request, ws *wsConn) outcome {
	switch Classify(r.Method) {
	case Broadcast:
		// The client's bucket first: a flood is refused before its tx is
		// decoded.
		if ref := s.rateRefusal(c); ref != nil {
			return s.refusalOutcome(r.ID, ref)
		}
		tx, err := TxParam(r.Params)
		if err != nil {
			s.m.refused.WithLabelValues(ReasonBadRequest).Inc()
			return outcome{status: http.StatusOK,
				body: appendError(nil, r.ID, RPCError{Code: CodeInvalidParams, Message: "Invalid params", Data: err.Error()})}
		}
		return s.broadcastRated(ctx, c, r.ID, r.Method, tx)
	case ReadOnly:
		if ok, wait := allow(c.reads, time.Now()); !ok {
			return s.refusalOutcome(r.ID, s.readRefusal(c, wait))
		}
		if r.ID == nil {
			r.ID = json.RawMessage(`"sentinel-notification"`)
		}
		body, err := s.post(ctx, r)
		if err != nil {
			return unreachable(r.ID, err)
		}
		s.m.reads.Inc()
		if r.Method == "num_unconfirmed_txs" {
			body = s.addPending(body)
		}
		return outcome{status: http.StatusOK, body: trimJSON(body)}
	case Subscribe:
		if ws == nil {
			return s.methodRefused(r.ID, r.Method)
		}
		if ok, wait := allow(c.reads, time.Now()); !ok {
			return s.refusalOutcome(r.ID, s.readRefusal(c, wait))
		}
		if err := ws.subscribe(ctx, r); err != nil {
			return unreachable(r.ID, err)
		}
		s.m.reads.Inc()
		return outcome{} // the node's reply comes on the relay
	}
	return s.methodRefused(r.ID, r.Method)
}

// trimJSON drops the trailing newline of a node's reply.
func trimJSON(b []byte) []byte { return []byte(strings.TrimSpace(string(b))) }

// broadcast admits one tx: refused, queued (async: acknowledged now), or —
// sync and commit — answered with the node's reply once forwarded.
func (s *Sentinel) broadcast(ctx context.Context, c *client, id json.RawMessage, method string, tx []byte) outcome {
	if ref := s.rateRefusal(c); ref != nil {
		return s.refusalOutcome(id, ref)
	}
	return s.broadcastRated(ctx, c, id, method, tx)
}

// rateRefusal takes a token from c's bucket, or returns the refusal.
func (s *Sentinel) rateRefusal(c *client) *refusal {
	if ok, wait := allow(c.bucket, time.Now()); !ok {
		return s.refuse(ReasonClientRate, CodeClientRate, http.StatusTooManyRequests, wait,
			"client rate limit exceeded ("+strconv.FormatFloat(c.limits.Rate, 'g', -1, 64)+" tx/s, burst "+strconv.Itoa(c.limits.Burst)+")")
	}
	return nil
}

// broadcastRated is broadcast once the client's bucket has let tx pass.
func (s *Sentinel) broadcastRated(ctx context.Context, c *client, id json.RawMessage, method string, tx []byte) outcome {
	if s.opts.NoQueue {
		return s.passThrough(ctx, c, id, method, tx)
	}
	it, ref := s.admit(c, method, tx)
	if ref != nil {
		return s.refusalOutcome(id, ref)
	}
	if it.reply == nil {
		return outcome{status: http.StatusOK, body: appendResult(nil, id, asyncAccepted(tx))}
	}
	select {
	case rep := <-it.reply:
		return outcome{status: http.StatusOK, body: rep.append(nil, id)}
	case <-ctx.Done():
		return outcome{} // the caller left; the tx is forwarded all the same
	}
}

// passThrough is the plain token bucket (NoQueue): the tx goes to the node
// at once, as the client sent it (its bucket already passed).
func (s *Sentinel) passThrough(ctx context.Context, c *client, id json.RawMessage, method string, tx []byte) outcome {
	s.m.admitted.WithLabelValues(method).Inc()
	rep, err := s.call(ctx, method, json.RawMessage(`{"tx":"`+base64.StdEncoding.EncodeToString(tx)+`"}`))
	if err != nil {
		s.m.nodeErr.WithLabelValues("unreachable").Inc()
		return unreachable(id, err)
	}
	s.m.forwarded.Inc()
	if why := rep.nodeRejection(); why == "" {
		s.forwarded.Add(1)
	} else {
		s.m.nodeErr.WithLabelValues("rejected").Inc()
	}
	return outcome{status: http.StatusOK, body: rep.append(nil, id)}
}

func (s *Sentinel) refusalOutcome(id json.RawMessage, r *refusal) outcome {
	return outcome{status: r.status, retry: r.retry, body: appendError(nil, id, r.err)}
}

func (s *Sentinel) connRefusal(c *client) *refusal {
	return s.refuse(ReasonConnections, CodeConnections, http.StatusTooManyRequests, time.Second,
		"too many connections ("+strconv.Itoa(c.limits.MaxConns)+" per client)")
}

func (s *Sentinel) readRefusal(c *client, wait time.Duration) *refusal {
	return s.refuse(ReasonReadRate, CodeClientRate, http.StatusTooManyRequests, wait,
		"client read rate limit exceeded ("+strconv.FormatFloat(c.limits.ReadRate, 'g', -1, 64)+" calls/s)")
}

func (s *Sentinel) methodRefused(id json.RawMessage, method string) outcome {
	s.m.refused.WithLabelValues(ReasonMethod).Inc()
	return outcome{status: http.StatusForbidden,
		body: appendError(nil, id, RPCError{Code: CodeMethodNotFound, Message: "Method not found",
			Data: "the sentinel does not serve " + strconv.Quote(method)})}
}

func unreachable(id json.RawMessage, err error) outcome {
	return outcome{status: http.StatusBadGateway,
		body: appendError(nil, id, RPCError{Code: CodeInternal, Message: "node unreachable", Data: err.Error()})}
}
