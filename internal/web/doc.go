// Package web is cometlab serve's local, read-only web view of the history
// index: the runs with filters, each run's figures and report, two runs
// compared, a figure's trend along a series with its change points, the
// change points of every series, and the QA reports.
//
// Every page is rendered on the server from templates embedded in the
// binary (no script, nothing from the network), with the figures titled,
// united and formatted as report.md does them (the metric dictionary). Each
// page has a JSON API at the same path under /api, and the page and its API
// are given the same value by one function. Files are served only from
// directories the index holds, opened through os.Root so that no path
// (.., an absolute path, a symlink) leaves them.
package web
