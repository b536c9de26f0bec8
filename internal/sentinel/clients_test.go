package sentinel

import (
	"net/http/httptest"
	"net/netip"
	"testing"
	"time"
)

func TestBucket(t *testing.T) {
	l := newLimiter(10, 3) // 10/s, burst 3
	now := time.Unix(1000, 0)
	for i := range 3 {
		if ok, _ := allow(l, now); !ok {
			t.Fatalf("burst token %d refused", i)
		}
	}
	ok, wait := allow(l, now)
	if ok || wait != 100*time.Millisecond {
		t.Fatalf("4th: ok %v wait %v, want refused for 100ms", ok, wait)
	}
	// A refusal takes no token: 100 ms later exactly one is there.
	if ok, _ := allow(l, now.Add(100*time.Millisecond)); !ok {
		t.Fatal("refused after the refill")
	}
	if ok, _ := allow(l, now.Add(100*time.Millisecond)); ok {
		t.Fatal("two tokens after one refill")
	}
	if ok, _ := allow(nil, now); !ok {
		t.Fatal("no limit refused")
	}
	if got := retryAfter(100 * time.Millisecond); got != 1 {
		t.Fatalf("retryAfter %d", got)
	}
}

func TestClientKey(t *testing.T) {
	proxies := []netip.Prefix{netip.MustParsePrefix("10.0.0.0/8")}
	for _, tc := range []struct {
		name, remote, xff, header, query, want string
	}{
		{"remote address", "192.0.2.1:5000", "", "", "", "192.0.2.1"},
		{"untrusted proxy: XFF ignored", "192.0.2.1:5000", "203.0.113.9", "", "", "192.0.2.1"},
		{"trusted proxy: XFF's last untrusted", "10.1.2.3:5000", "198.51.100.1, 203.0.113.9, 10.9.9.9", "", "", "203.0.113.9"},
		{"trusted proxy, no XFF", "10.1.2.3:5000", "", "", "", "10.1.2.3"},
		{"trusted proxy, malformed hop", "10.1.2.3:5000", "junk", "", "", "10.1.2.3"},
		{"header wins", "192.0.2.1:5000", "", "greedy", "", "greedy"},
		{"api key", "192.0.2.1:5000", "", "", "k1", "k1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := &Options{ClientHeader: "X-Client-Key", APIKeyParam: "apikey", TrustedProxies: proxies}
			r := httptest.NewRequest("POST", "/?apikey="+tc.query, nil)
			r.RemoteAddr = tc.remote
			if tc.xff != "" {
				r.Header.Set("X-Forwarded-For", tc.xff)
			}
			if tc.header != "" {
				r.Header.Set("X-Client-Key", tc.header)
			}
			if got := ClientKey(o, r); got != tc.want {
				t.Fatalf("key %q, want %q", got, tc.want)
			}
		})
	}
}
