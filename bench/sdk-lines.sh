#!/usr/bin/env bash
# cometlab's own SDK chain on two SDK lines as a `cometlab ab` on real
# nodes (issue 50): SDK v0.53.8 with CometBFT v0.38.23 in-process (the
# baseline, go.sdk053.mod) against SDK v0.55.0 with CometBFT v0.40.0
# (the candidate, the chain's go.mod), on VALIDATORS validators, signed
# bank sends at RATE tx/s in all from ACCOUNTS accounts over 4
# connections, DURATION each run, REPEAT counterbalanced rounds. It is
# the real-node proof of the v0.53 line: its cold build is ~350 CPU-s
# (measured 2026-12-04), which CI's budget has no room for; the short
# lane checks its go.mod and build flags (TestSDKBuildArgs).
#
#   flock /tmp/cometlab-nodes.lock bench/sdk-lines.sh [cometlab ab flags…]
#
# Environment: REPEAT (2), RATE (100), DURATION (20s), VALIDATORS (4),
# ACCOUNTS (200), OUT (a new /tmp directory), COMETLAB (a cometlab built from
# this tree into OUT).
set -euo pipefail
cd "$(dirname "$0")/.."
repeat=${REPEAT:-2} rate=${RATE:-100} duration=${DURATION:-20s} vals=${VALIDATORS:-4} accounts=${ACCOUNTS:-200}
out=${OUT:-$(mktemp -d /tmp/cometlab-sdklines.XXXXXX)}
cometlab=${COMETLAB:-}
mkdir -p "$out"
if [[ -z $cometlab ]]; then
  go build -o "$out/cometlab" ./cmd/cometlab
  cometlab=$out/cometlab
fi
cat >"$out/sdk053.toml" <<TOML
name = "sdk-lines"
cometbft_version = "v0.38.23"
validators = $vals

[app]
kind = "sdk"
sdk_version = "v0.53.8"
accounts = $accounts

[load]
rate = $((rate / 4))
connections = 4
duration = "$duration"
TOML
rm -rf "$out/ab"
"$cometlab" ab --manifest "$out/sdk053.toml" --cand 'app.sdk_version=v0.55.0 cometbft_version=v0.40.0' \
  --repeat "$repeat" --out "$out/ab" "$@"
echo "comparison: $out/ab/compare.md"
