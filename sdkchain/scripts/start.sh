#!/usr/bin/env bash
# start.sh DIR: start every node home DIR/v* of localnet.sh in the
# background (logs in DIR/v*.log, pids in DIR/pids) and wait until the
# first node's chain is at height 2. stop: kill $(cat DIR/pids).
set -euo pipefail
dir=$1 bin=${SDKCHAIN:-sdkchain}
: > "$dir/pids"
for home in "$dir"/v*/; do
  home=${home%/}
  setsid "$bin" start --home "$home" > "$home.log" 2>&1 &
  echo $! >> "$dir/pids"
done
# the first laddr of config.toml is [rpc]'s
rpc=$(sed -n 's|^laddr = "tcp://\(127.0.0.1:[0-9]*\)"|\1|p' "$dir/v0/config/config.toml" | head -1)
for _ in $(seq 120); do
  h=$(curl -s "http://$rpc/status" | python3 -c 'import sys, json; print(json.load(sys.stdin)["result"]["sync_info"]["latest_block_height"])' 2>/dev/null || echo 0)
  [ "$h" -ge 2 ] && { echo "height $h at $rpc"; exit 0; }
  sleep 1
done
echo "no height 2 at $rpc within 120 s; see $dir/v*.log" >&2
exit 1
