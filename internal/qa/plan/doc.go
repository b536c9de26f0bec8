// Package plan is the QA method's plan, pure: the steps in the method's
// order (Steps), the runs of each and their estimate from the runs'
// lengths and a measured overhead (Make, Input, Overhead), the shrinking
// that fits a plan into a budget in a documented order, the storage
// matrix's knobs, the QA load by the method's rule over the candidate's
// saturation table (ChooseLoad, LoadRule, Knee, GridRates, Rate), and a
// side's manifest with the plan's changes applied (WithChanges). It does
// no I/O and imports neither experiment nor series: it is tested as
// saturation is, on values.
package plan
