// Package sequential holds the stepping rule of an A/B experiment: given
// the paired samples of every judged metric so far (one value of the base
// and one of the candidate per AB pair), Step says for each metric
// whether the candidate is worse, better, within the threshold
// (equivalent) or not yet decided, and whether the experiment may stop.
//
// The method is a group-sequential design with a Lan–DeMets alpha-spending
// function (O'Brien–Fleming type by default, Pocock type on request),
// applied to the paired t-test of the per-pair differences, one look per
// pair; "within the threshold" is Schuirmann's two one-sided tests (TOST)
// under a spending function of its own. The increments of the spent alpha
// are used as the levels of the looks (a Bonferroni split of α over the
// looks), which bounds the false-alarm rate over all looks by α for any
// correlation between the looks: conservative, but exact in the bound and
// needing no numerical integration. See Step for the formulas. A count of
// events over an exposure (slow heights over heights: Metric's exposures
// set) is looked at as a rate instead, by the conditional test of two
// rates (stats.RateRatioRuns) and the interval of their ratio (lookRate).
//
//   - K. K. G. Lan and D. L. DeMets, "Discrete sequential boundaries for
//     clinical trials", Biometrika 70(3):659–663, 1983.
//   - P. C. O'Brien and T. R. Fleming, "A multiple testing procedure for
//     clinical trials", Biometrics 35(3):549–556, 1979.
//   - S. J. Pocock, "Group sequential methods in the design and analysis of
//     clinical trials", Biometrika 64(2):191–199, 1977.
//   - D. J. Schuirmann, "A comparison of the two one-sided tests procedure
//     and the power approach for assessing the equivalence of average
//     bioavailability", J. Pharmacokinet. Biopharm. 15(6):657–680, 1987.
//
// The package is pure: it takes values and returns values, and imports no
// other package of cometlab (the caller maps metric ids, directions and
// thresholds from packages analysis and compare).
package sequential
