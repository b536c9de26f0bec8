package manifest

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// ratePer is the length, in seconds, of each unit a rate may be given per.
var ratePer = map[string]float64{
	"s": 1, "sec": 1,
	"m": 60, "min": 60,
	"h": 3600,
}

// ParseRate parses a rate as people write it and returns it in tx/s: "400",
// "400/s", "400tx/s", "2.5/s", "24000/m" (= 400 tx/s), "24000tx/min",
// "1440000/h". Spaces around the parts are allowed. It checks only the
// form; [Manifest.Apply] checks that the rate is > 0.
func ParseRate(s string) (float64, error) {
	num, unit, perUnit := strings.Cut(strings.TrimSpace(s), "/")
	num = strings.TrimSpace(num)
	num = strings.TrimSpace(strings.TrimSuffix(strings.TrimSuffix(num, "txs"), "tx"))
	per := 1.0
	if perUnit {
		var ok bool
		if per, ok = ratePer[strings.TrimSpace(unit)]; !ok {
			return 0, fmt.Errorf("invalid rate %q: unknown unit %q (want s, m or h)", s, strings.TrimSpace(unit))
		}
	}
	v, err := strconv.ParseFloat(num, 64)
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) || !isDecimal(num) {
		return 0, fmt.Errorf("invalid rate %q (want tx/s, e.g. \"400\", \"400/s\", \"24000/m\")", s)
	}
	return v / per, nil
}

// isDecimal reports whether s is written with digits, a point, a sign and an
// exponent only: no hex, underscores, "inf" or "nan".
func isDecimal(s string) bool {
	for _, c := range []byte(s) {
		if !(c >= '0' && c <= '9' || c == '.' || c == '-' || c == '+' || c == 'e' || c == 'E') {
			return false
		}
	}
	return true
}
