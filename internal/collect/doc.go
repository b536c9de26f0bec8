// Package collect gathers what a live or finished testnet shows: the chain
// walk (blocks → one record per committed transaction of the run) and the
// local time every node commits every height (block adoption).
package collect
