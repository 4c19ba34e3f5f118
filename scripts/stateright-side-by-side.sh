#!/usr/bin/env bash
# The exhaustive checker beside Stateright (`make bench-stateright`): Stateright 0.31's own Raft
# example (`examples/raft.rs` of the published crate, run as it ships: `raft check 3 8`) and
# `election-lab check-model` on Raft with 3 nodes at the same bounds — at most one crash (the
# example's `max_crashes((3 − 1)/2)`), an unordered network that neither loses nor duplicates,
# asynchronous timers, and the same depth (Stateright counts the initial state as depth 1 and
# expands states below its target depth: `raft check 3 8` explores schedules of up to 7 actions,
# which is `--depth 7` here). Each prints its states, unique states and CPU time (user + system,
# every thread: Stateright checks on all cores, check-model on one).
#
# Stateright is fetched from crates.io by cargo (the only step that needs the network) and built
# in a directory of its own: it is no dependency of this repository, and none of its code is in it.
# Usage: scripts/stateright-side-by-side.sh [DEPTH (Stateright's, default 8)]
set -euo pipefail
depth=${1:-8}
root=$(cd "$(dirname "$0")/.." && pwd)
work=${STATERIGHT_DIR:-${TMPDIR:-/tmp}/election-lab-stateright}
mkdir -p "$work/fetch/src"
cd "$work/fetch"
cat > Cargo.toml <<'EOF'
[package]
name = "fetch-stateright"
version = "0.0.0"
edition = "2021"
publish = false
[dependencies]
stateright = "=0.31.0"
EOF
echo 'fn main() {}' > src/main.rs
cargo fetch --quiet
crate=$(ls "${CARGO_HOME:-$HOME/.cargo}"/registry/cache/*/stateright-0.31.0.crate | head -1)
rm -rf "$work/stateright-0.31.0"
tar xzf "$crate" -C "$work"
cd "$work/stateright-0.31.0"
CARGO_TARGET_DIR="$work/target" cargo build --quiet --release --example raft 2> "$work/build.log" || { cat "$work/build.log"; exit 1; }
raft="$work/target/release/examples/raft"

exec 3>&1 # the CPU lines go straight to the terminal, past the filters of each command's output
cpu() { # COMMAND... : runs it, prints its output, then "cpu: USER+SYS seconds, peak RSS KB"
  local t
  t=$(mktemp)
  /usr/bin/time -f "%U %S %M" -o "$t" "$@" || true
  awk '{printf "cpu: %.2f s (user %.2f + system %.2f), peak RSS %d KB\n", $1 + $2, $1, $2, $3}' "$t" >&3
  rm -f "$t"
}

echo "== Stateright 0.31 examples/raft.rs: check 3 $depth (threads: $(nproc))"
cpu "$raft" check 3 "$depth" 2>/dev/null | grep -E "^Done"

cd "$root"
CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-$root/target} cargo build --quiet --release --offline -p election-lab
bin=${CARGO_TARGET_DIR:-$root/target}/release/election-lab
scenario="$work/raft3.json"
echo '{"algorithm":"raft","nodes":[1,2,3],"seed":1,"heartbeats":{"interval":3,"timeout":12}}' > "$scenario"
echo "== election-lab check-model raft3.json --property two-leaders-in-term --crashes 1 --unordered --depth $((depth - 1))"
cpu "$bin" check-model "$scenario" --property two-leaders-in-term --crashes 1 --unordered --depth $((depth - 1)) 2>&1 >/dev/null \
  | grep -E "two-leaders-in-term:|transitions"
