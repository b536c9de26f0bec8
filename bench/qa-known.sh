#!/usr/bin/env bash
# The QA's verdicts against known answers (issue 38), on real nodes over
# repeats: two `cometlab qa` runs of the long test alone on the default
# testnet (the other steps skipped), REPEAT counterbalanced rounds each:
#
#   regression  the candidate is the baseline with consensus.timeout_commit
#               doubled (1 s → 2 s): its blocks come a second later, so the
#               long test must judge block latency a regression (worse by
#               more than 10 % and significant over the rounds)
#   aa          the candidate is the baseline itself (an A/A): no figure may
#               be judged a regression, and the QA must pass
#
# It prints each QA's pass/fail line and the long test's latency figures
# with their verdicts, and exits non-zero when a known answer is missed.
#
#   flock /tmp/cometlab-nodes.lock bench/qa-known.sh [--smoke]
#
# Environment: REPEAT (rounds, default 3), RATE (tx/s, default 200),
# DURATION (default 30s), OUT (default a temporary directory), COMETLAB
# (default: built from this tree). At the defaults each QA is 2 × REPEAT
# runs of DURATION plus start-up and drain: about 5 minutes each.
#
# --smoke runs 2 rounds of 5 s at 50 tx/s to check the script; the A/A
# must still pass, the regression may not be significant.
set -euo pipefail
cd "$(dirname "$0")/.."

REPEAT=${REPEAT:-3}
RATE=${RATE:-200}
DURATION=${DURATION:-30s}
if [ "${1:-}" = "--smoke" ]; then
	REPEAT=2 RATE=50 DURATION=5s
fi
OUT=${OUT:-$(mktemp -d /tmp/cometlab-qaknown.XXXXXX)}
BIN=${COMETLAB:-$OUT/cometlab}
if [ -z "${COMETLAB:-}" ]; then
	go build -o "$BIN" ./cmd/cometlab
fi
SKIP=saturation,rotation,vote-extensions,partition,absent-stake,upgrade,storage

fail=0
for c in regression aa; do
	case $c in
	regression) base='' cand='consensus.timeout_commit=2s' ;;
	aa) base=v0.40.0 cand=v0.40.0 ;; # the same release, the same testnet on both sides
	esac
	set +e
	"$BIN" qa ${base:+--baseline "$base"} --candidate "$cand" --skip "$SKIP" --repeat "$REPEAT" -r "$RATE" -T "$DURATION" \
		--out "$OUT/$c" >"$OUT/$c.out" 2>"$OUT/$c.err"
	code=$?
	set -e
	echo "== $c (candidate $cand): exit $code"
	grep -E '^QA |^  long' "$OUT/$c.out" || true
	python3 - "$OUT/$c/qa.json" "$c" <<'EOF' || fail=1
import json, sys
rec = json.load(open(sys.argv[1]))
case = sys.argv[2]
long = next(s for s in rec["steps"] if s["id"] == "long")
verdicts = {}
for f in long.get("figures", []):
    verdicts[f["id"]] = f.get("verdict", "")
    if f["id"].startswith("block_latency") or f["id"].startswith("latency") or f["id"] == "blocks_per_minute":
        d = f.get("delta_pct")
        print(f'  {f["id"]:32} {f.get("baseline") or 0:10.1f} → {f.get("candidate") or 0:10.1f}  '
              f'{"" if d is None else f"{d:+.1f} %":>9}  {f.get("verdict", "")}')
regressions = [k for k, v in verdicts.items() if v == "regression"]
if case == "regression" and verdicts.get("block_latency_p50_ms") != "regression":
    print(f"  MISSED: block_latency_p50_ms judged {verdicts.get('block_latency_p50_ms')!r}, want regression")
    sys.exit(1)
if case == "aa" and regressions:
    print(f"  MISSED: the A/A judged regressions: {regressions}")
    sys.exit(1)
print(f"  known answer met ({len(regressions)} figure(s) judged regressions)")
EOF
done
echo "directories: $OUT"
exit $fail
