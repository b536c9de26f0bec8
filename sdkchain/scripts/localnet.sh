#!/usr/bin/env bash
# localnet.sh DIR [VALIDATORS] [ACCOUNTS]: a local testnet of cometlab's
# own SDK chain, by hand (cometlab's `app = "sdk"` will do this itself):
# `sdkchain init` (the SDK's) per validator, config.toml made loopback-only with its
# own ports, peers and Prometheus (what cometlab's config writer does for
# a node), then `sdkchain testnet` writes the SDK genesis (ACCOUNTS funded
# load accounts, one gentx per validator) and app.toml into every home.
# It prints each node's start command and RPC address; start them with
# start.sh DIR. SDKCHAIN names the binary (default: sdkchain on PATH),
# BASE_PORT the first port (default 36000; node i uses BASE+10i…+2).
set -euo pipefail
dir=$1 v=${2:-4} accounts=${3:-100}
bin=${SDKCHAIN:-sdkchain} base=${BASE_PORT:-36000} chain=${CHAIN_ID:-sdk-local}
mkdir -p "$dir"
peers=()
for i in $(seq 0 $((v - 1))); do
  home=$dir/v$i
  "$bin" init "v$i" --home "$home" --chain-id "$chain" > /dev/null 2>&1
  id=$(python3 -c 'import sys, json, base64, hashlib
k = json.load(open(sys.argv[1]))["priv_key"]["value"]
print(hashlib.sha256(base64.b64decode(k)[32:]).hexdigest()[:40])' "$home/config/node_key.json")
  peers+=("$id@127.0.0.1:$((base + 10 * i))")
done
for i in $(seq 0 $((v - 1))); do
  cfg=$dir/v$i/config/config.toml p=$((base + 10 * i))
  others=$(printf '%s\n' "${peers[@]}" | grep -v "127.0.0.1:$p\$" | paste -sd, -)
  sed -i -e "s|^laddr = \"tcp://0.0.0.0:26656\"|laddr = \"tcp://127.0.0.1:$p\"|" \
    -e "s|^laddr = \"tcp://127.0.0.1:26657\"|laddr = \"tcp://127.0.0.1:$((p + 1))\"|" \
    -e "s|^prometheus_listen_addr = \":26660\"|prometheus_listen_addr = \"127.0.0.1:$((p + 2))\"|" \
    -e "s|^prometheus = false|prometheus = true|" \
    -e "s|^persistent_peers = \"\"|persistent_peers = \"$others\"|" \
    -e "s|^addr_book_strict = true|addr_book_strict = false|" \
    -e "s|^allow_duplicate_ip = false|allow_duplicate_ip = true|" \
    -e "s|^pprof_laddr = .*|pprof_laddr = \"\"|" \
    -e "s|^moniker = .*|moniker = \"v$i\"|" "$cfg"
  echo "v$i: $bin start --home $dir/v$i   # rpc http://127.0.0.1:$((p + 1)), metrics http://127.0.0.1:$((p + 2))/metrics"
done
vals=$(for i in $(seq 0 $((v - 1))); do printf 'v%d=%s/v%d,' "$i" "$dir" "$i"; done)
"$bin" testnet --chain-id "$chain" --accounts "$accounts" --validators "${vals%,}"
