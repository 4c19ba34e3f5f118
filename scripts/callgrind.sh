#!/usr/bin/env bash
# Instructions per message of the engine's hot path, measured with valgrind's callgrind
# (perf is not available everywhere; instruction counts are also steadier than timings).
#
#   scripts/callgrind.sh [N] [--annotate] [--script] [--no-trace]
#
# Builds the release CLI, writes the Bully worst case for N nodes (default 300: node N crashed,
# nodes 1..N-1 start at t = 0, no heartbeats, N²-N-1 messages) to a temp file, runs
# `election-lab run` under callgrind and prints the total instructions (Ir) of the whole process
# divided by
#   * all messages sent (summary.total_messages), and
#   * delivered messages: total minus the N-1 ELECTIONs sent to the crashed node (dropped).
# The count covers the whole process (start-up, JSON parsing and printing included), which is
# negligible next to ~10⁵ messages. `--annotate` also prints the top functions. `--script` runs
# the scripted Bully (the template crate/scripts/bully.rhai, issue 26) instead of the built-in;
# `--no-trace` runs in summary-only mode (`run --no-trace`). The binary is looked for in
# $CARGO_TARGET_DIR when that is set.
set -euo pipefail

N=300
ANNOTATE=0
SCRIPT=0
NO_TRACE=0
for arg in "$@"; do
  case "$arg" in
    --annotate) ANNOTATE=1 ;;
    --script) SCRIPT=1 ;;
    --no-trace) NO_TRACE=1 ;;
    ''|*[!0-9]*) echo "usage: $0 [N] [--annotate] [--script] [--no-trace]" >&2; exit 2 ;;
    *) N=$arg ;;
  esac
done
if [ "$N" -lt 3 ]; then
  echo "N must be at least 3" >&2
  exit 2
fi

ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT"
cargo build --release -q -p election-lab --bin election-lab
BIN="${CARGO_TARGET_DIR:-$ROOT/target}/release/election-lab"
ALGORITHM=bully
ARGS=()
if [ "$SCRIPT" = 1 ]; then
  ALGORITHM=bully-script
  ARGS+=(--script "$ROOT/crate/scripts/bully.rhai")
fi
if [ "$NO_TRACE" = 1 ]; then
  ARGS+=(--no-trace)
fi

TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

# The scenario: nodes 1..N, leader N crashes at t=0, everyone else starts at t=0.
{
  printf '{"algorithm":"%s","seed":425,"initial_leader":%d,"heartbeats":null,' "$ALGORITHM" "$N"
  printf '"nodes":['
  for ((i = 1; i <= N; i++)); do printf '%s%d' "$([ "$i" -gt 1 ] && echo ,)" "$i"; done
  printf '],"schedule":[{"at":0,"crash":%d}' "$N"
  for ((i = 1; i < N; i++)); do printf ',{"at":0,"start":%d}' "$i"; done
  printf '],"stop":{"max_time":1000000,"max_steps":100000000}}\n'
} > "$TMP/scenario.json"

valgrind --tool=callgrind --callgrind-out-file="$TMP/callgrind.out" \
  "$BIN" run "${ARGS[@]}" "$TMP/scenario.json" > "$TMP/summary.json" 2> "$TMP/valgrind.log"

IR=$(sed -n 's/.*Collected : \([0-9]*\).*/\1/p' "$TMP/valgrind.log" | tail -1)
if [ -z "$IR" ]; then
  echo "could not read the instruction count from valgrind's log:" >&2
  cat "$TMP/valgrind.log" >&2
  exit 1
fi
TOTAL=$(sed -n 's/.*"total_messages":\([0-9]*\).*/\1/p' "$TMP/summary.json")
EXPECTED=$((N * N - N - 1))
if [ "$TOTAL" != "$EXPECTED" ]; then
  echo "expected $EXPECTED messages (N²-N-1), the run sent $TOTAL" >&2
  exit 1
fi
DELIVERED=$((TOTAL - (N - 1)))

echo "$ALGORITHM worst case N=$N: $TOTAL messages ($DELIVERED delivered, $((N - 1)) ELECTIONs to the crashed N$N dropped)"
echo "instructions (Ir, whole process): $IR"
awk -v ir="$IR" -v t="$TOTAL" -v d="$DELIVERED" \
  'BEGIN { printf "Ir per message sent:      %.0f\nIr per message delivered: %.0f\n", ir / t, ir / d }'

if [ "$ANNOTATE" = 1 ]; then
  callgrind_annotate --inclusive=no "$TMP/callgrind.out" 2>/dev/null | sed -n '1,60p'
fi
