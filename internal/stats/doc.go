// Package stats owns cometlab's statistics: the formulas that turn
// samples into figures and intervals, in one place, so that every
// package computes a mean, a percentile, a least-squares slope, a
// Student t quantile or a bootstrap interval the same way (and a report's
// numbers do not depend on which package made them).
//
// It holds:
//
//   - descriptive statistics of a sample: Mean, Variance, StdDev, RMS,
//     Min, Max and Percentile (linear interpolation, Hyndman & Fan
//     type 7, numpy's default);
//   - ordinary least squares: FitLine (slope, intercept and the slope's
//     standard error) and Line.SlopeCI95 (its Student t interval);
//   - Student's t distribution: TQuantile, TCDF and TSurvival, and the
//     standard normal's NormalCDF, NormalQuantile and NormalSurvival;
//   - the cluster bootstrap of a difference of statistics between two
//     samples: DistSample, Stat (with its parser Stat.Percentile),
//     Interval and BootstrapDiff;
//   - the comparison of two rates of counted events (per height, per
//     transaction): RateRatio (the conditional binomial test of two
//     Poisson rates, with the Clopper–Pearson interval of their ratio)
//     and RateDispersion (the runs' Pearson dispersion, by which
//     over-dispersed counts are scaled).
//
// Every function works in the unit of its input (a mean of latencies in ms
// is in ms; a slope is in the unit of y per unit of x) and converts
// nothing. Functions return NaN where a figure is undefined (an empty
// sample, a standard deviation of one value) rather than an error.
//
// stats imports no other cometlab package: the run analysis, the
// saturation criterion, compare, the sequential A/B test and the
// report import it.
// Tests, not callers, are the place for a second implementation (a
// reference to check against).
package stats
