#!/usr/bin/env bash
# clicompare.sh OLD NEW: runs the same command lines with two cometlab
# binaries (each in a fresh copy of the fixtures) and prints, per line,
# whether stdout, stderr and the exit code are the same. Lines that start
# no testnet only: help, usage errors, analyze, report, compare, versions,
# prometheus-config, grafana-dashboard. Run ids and temporary paths are
# masked before the comparison. Exit 0 when every line is the same.
set -u
old=${1:?usage: clicompare.sh OLD NEW}
new=${2:?usage: clicompare.sh OLD NEW}
root=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
lines=(
  "--help" "run --help" "load --help" "analyze --help" "report --help" "readback --help"
  "testnet --help" "testnet up --help" "testnet down --help" "compare --help" "sweep --help"
  "saturate --help" "versions --help" "sentinel --help" "deploy --help" "prometheus-config --help"
  "grafana-dashboard --help" "ab --help"
  "run --frobnicate" "run -r 0" "run -s 1023" "run --cometbft-version v9.9.9" "run --shape zigzag"
  "run --manifest testdata/manifests/unknown-keys.bad.toml" "load -r 10" "sweep --rates 10 --txs x"
  "analyze R/small" "report R/small" "analyze R/qa" "compare R/small R/qa --out C"
  "compare R/small R/small --out C2" "versions" "prometheus-config --target 127.0.0.1:26660"
  "grafana-dashboard" "testnet down T" "ab --cand v0.40.0 --judge nope"
)
mask() { sed -E -e "s#$1#DIR#g" -e 's/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/UUID/g'; }
same=0 differ=0
for l in "${lines[@]}"; do
  for side in old new; do
    d="$work/$side"
    rm -rf "$d"; mkdir -p "$d/R"
    cp -r "$root/testdata/runs/small" "$root/testdata/runs/qa" "$d/R/"
    ln -s "$root/testdata" "$d/testdata"
    bin=$old; [ "$side" = new ] && bin=$new
    # shellcheck disable=SC2086
    (cd "$d" && timeout 120 "$bin" $l >"$work/$side.out" 2>"$work/$side.err" </dev/null; echo $? >"$work/$side.code")
    mask "$d" <"$work/$side.out" >"$work/$side.out.m"; mask "$d" <"$work/$side.err" >"$work/$side.err.m"
  done
  what=""
  cmp -s "$work/old.out.m" "$work/new.out.m" || what="$what stdout"
  cmp -s "$work/old.err.m" "$work/new.err.m" || what="$what stderr"
  cmp -s "$work/old.code" "$work/new.code" || what="$what exit($(cat "$work/old.code")→$(cat "$work/new.code"))"
  if [ -z "$what" ]; then same=$((same + 1)); printf 'same     %s\n' "$l"
  else differ=$((differ + 1)); printf 'DIFFERS  %s:%s\n' "$l" "$what"; fi
done
printf '%d same, %d differ\n' "$same" "$differ"
[ "$differ" -eq 0 ]
