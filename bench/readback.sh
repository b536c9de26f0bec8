#!/usr/bin/env bash
# Read-back benchmark: cometlab's chain walk (over RPC, from a live node)
# versus CometBFT's loadtime `report` (from a stopped node's data directory),
# on the same chain, side by side. Prints both times and both latency
# summaries (min/mean/max must agree within 1 ms).
#
#   bench/readback.sh [TXS_PER_S_PER_CONN] [CONNECTIONS] [SECONDS]
#
# Default: 2 connections × 225 tx/s × 400 s ≈ 180k transactions of 1 KiB on
# a 4-validator v0.38.26 testnet (the line loadtime's report is built for;
# the issue's anchor: loadtime report took 4.0 s for 185k transactions).
# Takes about 8 minutes. Run it on a quiet machine.
set -euo pipefail
cd "$(dirname "$0")/.."
RATE=${1:-225}
CONNS=${2:-2}
SECS=${3:-400}
VERSION=v0.38.26
TOOLS=${XDG_CACHE_HOME:-$HOME/.cache}/cometlab/tools/$VERSION
WORK=$(mktemp -d /tmp/cometlab-readback.XXXXXX)
trap 'go run ./cmd/cometlab testnet down "$WORK/testnet" >/dev/null 2>&1 || true' EXIT

go build -o "$WORK/cometlab" ./cmd/cometlab
if [ ! -x "$TOOLS/report" ]; then
  mkdir -p "$TOOLS"
  GOBIN="$TOOLS" go install "github.com/cometbft/cometbft/test/loadtime/cmd/report@$VERSION"
fi

"$WORK/cometlab" testnet up --dir "$WORK/testnet" --cometbft-version "$VERSION" >"$WORK/up.txt"
RPC=$(awk '$1=="validator01"{print $4}' "$WORK/up.txt")
echo "testnet up: validator01 at $RPC; loading $CONNS × $RATE tx/s × ${SECS}s"
"$WORK/cometlab" load --endpoint "$RPC" -c "$CONNS" -r "$RATE" -T "${SECS}s" --out "$WORK/run" >/dev/null 2>"$WORK/load.err" || {
  echo "load failed:"; tail -20 "$WORK/load.err"; exit 1; }

# cometlab: walk the run's heights again over RPC from the live node.
t0=$(date +%s.%N)
"$WORK/cometlab" readback "$WORK/run" >"$WORK/readback.out" 2>"$WORK/readback.err"
t1=$(date +%s.%N)
WALK=$(grep -o 'read-back: [0-9]* blocks.*' "$WORK/readback.err" | tail -1)

# loadtime's report leaves out the chain's last block (it needs the time of
# H+1 and reads blocks base…height−1): let two more blocks pass first.
sleep 4
"$WORK/cometlab" testnet down "$WORK/testnet" >/dev/null 2>&1

# loadtime report: reads the stopped node's block store.
t2=$(date +%s.%N)
"$TOOLS/report" --database-type goleveldb --data-dir "$WORK/testnet/nodes/validator01/data" >"$WORK/loadtime.txt"
t3=$(date +%s.%N)

python3 - "$WORK" "$t0" "$t1" "$t2" "$t3" "$WALK" <<'PY'
import json, re, sys
work, t0, t1, t2, t3, walk = sys.argv[1], *map(float, sys.argv[2:6]), sys.argv[6]
s = json.load(open(f"{work}/run/summary.json"))["metrics"]
lt = open(f"{work}/loadtime.txt").read()
def dur(name):
    m = re.search(name + r": ([0-9.]+)(ms|s|µs)", lt)
    v, u = float(m.group(1)), m.group(2)
    return v * {"s": 1000, "ms": 1, "µs": 0.001}[u]
valid = re.search(r"Total Valid Tx: (\d+)", lt).group(1)
print()
print(f"{'':28}{'cometlab (RPC, live node)':>28}{'loadtime report (data dir)':>30}")
print(f"{'transactions':28}{int(s['committed_txs']):>28}{valid:>30}")
print(f"{'wall time, s':28}{t1-t0:>28.2f}{t3-t2:>30.2f}")
for k, name in (("min", "Minimum Latency"), ("mean", "Average Latency"), ("max", "Maximum Latency")):
    print(f"{'block latency ' + k + ', ms':28}{s['block_latency_' + k + '_ms']:>28.3f}{dur(name):>30.3f}")
print(f"\nspeed-up: {(t3-t2)/(t1-t0):.1f}×   ({walk}; cometlab's time includes analysis and report)")
PY
echo "work directory: $WORK"
