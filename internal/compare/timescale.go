package compare

import (
	"fmt"
	"strconv"
)

// TimeScaleMismatch says which sides (or runs of one side) were made at
// different time scales (run.json time_scale, 1 when absent); "" when
// all at one. Their figures are all in model time, but each scale puts a
// different load on the host, and the timers time scaling cannot reach
// weigh differently, so a comparison of them needs to be asked for.
func TimeScaleMismatch(sides []Side) string {
	var first float64
	var firstWho string
	for _, s := range sides {
		for _, r := range s.Runs {
			k, who := r.Run.Scale(), fmt.Sprintf("%s (%s)", s.Label, r.Dir)
			if firstWho == "" {
				first, firstWho = k, who
				continue
			}
			if k != first {
				return fmt.Sprintf("the runs were made at different time scales: %s at k = %s, %s at k = %s",
					firstWho, strconv.FormatFloat(first, 'g', -1, 64), who, strconv.FormatFloat(k, 'g', -1, 64))
			}
		}
	}
	return ""
}

// checkTimeScales refuses sides made at different time scales unless
// allow is set, and then returns the warning the comparison carries.
func checkTimeScales(sides []Side, allow bool) (warning string, err error) {
	msg := TimeScaleMismatch(sides)
	switch {
	case msg == "":
		return "", nil
	case !allow:
		return "", fmt.Errorf("%s: their figures are in model time and comparable, the load on their host is not; "+
			"give --allow-time-scale-mismatch to compare them anyway", msg)
	}
	return msg + " (--allow-time-scale-mismatch): their figures are in model time, but the host carried a different load " +
		"(CPU, memory and the timers that are not scaled differ; docs/timescale.md)", nil
}
