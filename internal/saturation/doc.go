// Package saturation decides where a network stops keeping up with its
// load, from runs at different rates.
//
//   - The criterion (Criterion, DefaultCriterion, Criterion.Judge): a run keeps up
//     when it finished, committed ≥ 98 % of its load, its block latency did
//     not keep rising through the steady window, its mempools drained and
//     few heights needed a second round. Each check's bound is a field.
//   - The evidence a run gives the criterion (EvidenceOf, LatencyTrend, TrendFit,
//     CountRounds, DrainOfMetrics, DrainOfChain) and the rate it is
//     estimated to sustain (Evidence.Estimate).
//   - The search stepper (SearchConfig.Next, Conclude): a pure function of
//     the runs so far that picks the next rate, grows geometrically with
//     short probes until a failure, then narrows the bracket with
//     full-length runs.
//   - The c × r table of a sweep (Tables): per cell the verdict over its
//     repeats, the saturation diagonal and the saturated plateau.
//   - Its figures in the metric dictionary (Dictionary) and its records:
//     sweep.json (SweepRecord, whose cells extend results.SweepCell with
//     their evidence and verdict) and saturate.json (SearchRecord).
//
// Everything but ReadSweep and ReadSearch is pure: values in, values out.
// The directory layout, statuses and modes are package results'.
package saturation
