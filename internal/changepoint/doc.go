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
// The t test is not Otava's pooled Student test: a point's p-value is
// Student's t with the larger of the two sides' sample variances and that
// side's N − 1 degrees of freedom (testP). With pooled variances, one
// outlier among the few points at an end of a series is a change; with
// Welch's test, a short side whose variance is small by chance is. The
// merge pass measures again both neighbours of a removed point (Otava's,
// as read in 2026, its right neighbour and the point after that).
//
// The split is chosen among many and then tested, so the p-values are
// smaller than a test of one split fixed in advance would give, and flat
// noise has a change point more often than MaxP: at most
// (n − 2·MinPoints + 1)·MaxP for a series of n points with one false
// point (Bonferroni), and far less in practice (TestDetectFlat). A shift is found once MinPoints points follow it only
// if those points are no noisier than the ones before (their variance
// then decides, with few degrees of freedom); TestValidation measures
// precision, recall and how soon a shift is found at this machine's
// noise (docs/changepoints.md). Callers also gate on a minimum magnitude
// (NoiseFloor).
//
// The package is pure: it takes values and returns values, keeps no
// state, reads no clock and imports only stats.
package changepoint
