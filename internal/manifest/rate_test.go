package manifest

import (
	"strings"
	"testing"
)

func TestParseRate(t *testing.T) {
	for _, tc := range []struct {
		in      string
		want    float64
		wantErr string
	}{
		{in: "400", want: 400},
		{in: "400/s", want: 400},
		{in: "400tx/s", want: 400},
		{in: "400 tx/s", want: 400},
		{in: " 400 / s ", want: 400},
		{in: "400txs/sec", want: 400},
		{in: "2.5/s", want: 2.5},
		{in: "24000/m", want: 400},
		{in: "24000tx/min", want: 400},
		{in: "1440000/h", want: 400},
		{in: "1e3", want: 1000},
		{in: "0", want: 0}, // form only: Apply rejects it
		{in: "", wantErr: "invalid rate"},
		{in: "fast", wantErr: "invalid rate"},
		{in: "400/d", wantErr: `unknown unit "d"`},
		{in: "400/", wantErr: `unknown unit ""`},
		{in: "/s", wantErr: "invalid rate"},
		{in: "inf", wantErr: "invalid rate"},
		{in: "NaN/s", wantErr: "invalid rate"},
		{in: "0x10", wantErr: "invalid rate"},
		{in: "1_000", wantErr: "invalid rate"},
	} {
		t.Run(tc.in, func(t *testing.T) {
			got, err := ParseRate(tc.in)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Errorf("ParseRate(%q) = %v, %v; want an error containing %q", tc.in, got, err, tc.wantErr)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Errorf("ParseRate(%q) = %v, %v; want %v", tc.in, got, err, tc.want)
			}
		})
	}
}
