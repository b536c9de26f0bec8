// Package qa runs CometBFT's QA method on a candidate and a baseline
// (Run, Resume): each side's saturation search and grid, the QA load by
// the method's rule, then the tests — the long test, rotation, vote
// extensions, partition, absent stake as A/B experiments at that load,
// the rolling upgrade as one run, the storage matrix as a sweep — through
// package series, each figure judged by compare.JudgeQA; qa.json is
// rewritten before and after each step and the report (qa.md, qa.html)
// after each (Report rewrites it from the directory). What to run and how
// long it takes is the pure plan of package qa/plan; MeasureOverhead
// reads what earlier runs here took besides their load, for its estimate.
package qa
