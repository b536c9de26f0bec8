// Package exitcode owns cometlab's process exit codes: what each one means,
// and how an error carries the code the process ends with when the error
// reaches main (after k6's errext and errext/exitcodes).
//
// Whoever knows what a failure means gives the error its code where the
// error is made (With); main finds it again through any wrapping (Of). An
// error without a code means Failed.
package exitcode
