// Package changepoint finds the points where a series of figures (one
// figure of successive runs: block latency p50, committed tx/s) shifted to
// a new mean, and estimates the series' noise. It holds:
//
//   - Detect, the change points of a series (Point: index, p-value, the
//     segments on either side and the relative change), under a Config
//     (DefaultConfig: window 50, max p 0.001, min magnitude 0, 3 points a
//     side);
//   - NoiseFloor, a robust coefficient of variation of the point-to-point
//     noise, from which callers derive a minimum magnitude.
//
// The method is Hunter's (Fleming et al., "Hunter: Using Change Point
// Detection to Hunt for Performance Regressions", ICPE 2023; now Apache
// Otava): E-divisive means (Matteson and James, "A Nonparametric
// Approach for Multiple Change Point Analysis of Multivariate Data",
// JASA 2014) with its permutation test replaced by a t test, so that the
// same series always gives the same points, in two passes:
//
//  1. Split. In windows of Window points starting every Window/2 points,
//     repeatedly take the split of the window's intervals that maximises
//     the energy statistic Q̂ (α = 1) and keep it while the t test between
//     the two parts of its interval gives p < FirstPassP(MaxP) (10·MaxP,
//     Otava's relaxed first pass); each side has at least MinPoints
//     points. The union over the windows are the weak change points.
//  2. Merge. Measure every weak point against its neighbours (the
//     segments between them). While a point has p ≥ MaxP, remove the one
//     with the largest p; then while one has |relative change| <
//     MinMagnitude, remove the one with the smallest; after each removal
//     measure the removed point's neighbours again over the merged
//     segment. What remains is reported.
//
// The test is not Otava's Student t test alone: a point's p-value is the
// larger of Student's pooled and Welch's two-sided t tests, so that a lone
// outlier among the few points of a short side is not a change (Student's
// would call it one) and neither is a short side whose variance is small
// by chance (Welch's would). Otava's merge pass also measures the point
// after the removed one's right neighbour; here its two neighbours are.
//
// The split is chosen among many and then tested, so the p-values are
// smaller than a test of one split fixed in advance would give: on flat
// normal noise, a series of 60 points gets a change point with
// probability about 1.6 %, one of 200 points about 4 % (TestDetectFlat
// measures it; the Bonferroni bound over the 55 possible splits of 60
// points is 5.5 %). Callers gate on a minimum magnitude as well (NoiseFloor).
//
// The package is pure: it takes values and returns values, keeps no
// state, reads no clock and imports only stats.
package changepoint
