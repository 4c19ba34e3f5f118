#!/bin/sh
# Measures the player's wasm as the first load downloads it, for a set of cargo features of the
# app (issue 29's per-family player and lessons on demand were measured this way, on the branch
# `family-proto`): the player binary built with the `wasm-release` profile, `wasm-bindgen
# --target web`, `wasm-opt -O2` (index.html's data-wasm-opt="2"), then `gzip -9`. Only the wasm
# differs between such builds, so the difference of two runs is the difference of the size test's
# first load. Usage: scripts/measure-player.sh [FEATURES] (comma-separated; none: the player as
# shipped); NO_DEFAULT=1 builds without the default features (no lesson player, `lessons`), as the
# per-family players are. Needs CARGO_TARGET_DIR, and wasm-opt on PATH (www/node_modules/.bin
# after npm ci).
set -eu
features="${1:-}"
target="${CARGO_TARGET_DIR:?set CARGO_TARGET_DIR}"
case "${NO_DEFAULT:-}" in
  "" | 0) no_default="" ;;
  *) no_default="--no-default-features" ;;
esac
name="${features:-none}${no_default:+-no-default}"
out="$target/measure/$name"
mkdir -p "$out"
cargo build --offline --profile wasm-release --target wasm32-unknown-unknown -p election-lab-www \
  --bin election-lab-www $no_default ${features:+--features "$features"}
wasm-bindgen --target web --no-typescript --out-dir "$out" \
  "$target/wasm32-unknown-unknown/wasm-release/election-lab-www.wasm"
wasm-opt -O2 --enable-bulk-memory --enable-nontrapping-float-to-int --enable-sign-ext --enable-mutable-globals \
  --enable-reference-types --enable-multivalue \
  -o "$out/player.wasm" "$out/election-lab-www_bg.wasm"
raw=$(wc -c < "$out/player.wasm")
gz=$(gzip -9 -c "$out/player.wasm" | wc -c)
glue=$(gzip -9 -c "$out/election-lab-www.js" | wc -c)
echo "features=${features:-none}${no_default:+ $no_default} player wasm: $raw B raw, $gz B gzip -9; glue $glue B gzip -9"
