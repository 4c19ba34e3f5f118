#!/usr/bin/env bash
# Regenerates the README's experiment plots and summaries: runs every ready-made experiment in
# experiments/ with the release CLI and writes, for each, docs/experiments/<id>.svg (the plot,
# the same picture the browser draws) and docs/experiments/<id>.csv (its summary: one row per
# line and node count).
#
#   scripts/plots.sh            # every experiment (about 15 s of sweeps on this machine)
#   scripts/plots.sh ID...      # only these (e.g. raft-figure-16-scale)
set -euo pipefail
cd "$(dirname "$0")/.."

cargo build --release --offline --quiet -p election-lab
bin=target/release/election-lab
out=docs/experiments
mkdir -p "$out"

if [ "$#" -gt 0 ]; then ids=("$@"); else ids=(); for f in experiments/*.json; do ids+=("$(basename "$f" .json)"); done; fi
for id in "${ids[@]}"; do
  spec="experiments/$id.json"
  [ -f "$spec" ] || { echo "no experiment $spec" >&2; exit 2; }
  start=$(date +%s%N)
  "$bin" sweep "$spec" --summary --svg "$out/$id.svg" > "$out/$id.csv"
  ms=$(( ($(date +%s%N) - start) / 1000000 ))
  printf '%-32s %6d ms  -> %s.svg, %s.csv\n' "$id" "$ms" "$out/$id" "$out/$id"
done
