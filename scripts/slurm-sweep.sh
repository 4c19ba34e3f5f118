#!/usr/bin/env bash
# Runs an experiment (election-lab sweep) on a Slurm cluster: N array tasks, each one slice of
# the runs, then a merge job that writes what `election-lab sweep` writes on one machine.
#
#   scripts/slurm-sweep.sh SPEC.json N [OUTDIR]   submit the N tasks and the merge job
#   scripts/slurm-sweep.sh --status OUTDIR        which slices are done, failed or still to come
#   scripts/slurm-sweep.sh --resubmit OUTDIR      submit again the slices that left no part (a
#                                                 failed task), alone, and a new merge job
#   scripts/slurm-sweep.sh --help
#
# The array is submitted as --array=1-N: task K runs `election-lab sweep SPEC --shard slurm/N
# --part` (slice K = SLURM_ARRAY_TASK_ID; N is given rather than read from
# SLURM_ARRAY_TASK_COUNT, so that a task resubmitted alone, `sbatch --array=K`, still runs slice
# K of N) and writes OUTDIR/parts/part-K.csv. The merge job waits for every task to succeed
# (--dependency=afterok, cancelled if one fails) and runs `election-lab sweep --merge`, which
# also refuses an incomplete set by name, into OUTDIR/rows.csv, summary.csv, summary.md and
# plot.svg. A failed task writes OUTDIR/failed/K (its slice, exit code, node and job) and says
# so in OUTDIR/logs/task-K.err; --resubmit runs just the missing slices again.
#
# ELECTION_LAB names the election-lab binary (default: election-lab on PATH); the tasks run the
# same file, so on a real cluster it and OUTDIR must be on a file system every node sees. Each
# task asks for CPUS_PER_TASK cores (default 1) and runs that many threads. SBATCH_EXTRA adds
# options to both sbatch calls (e.g. "--partition=short --account=mylab --time=1:00:00").
# Exit codes: 0 submitted; 2 bad arguments, no binary, no sbatch, or a spec election-lab refuses.
set -euo pipefail

usage() { sed -n '2,29s/^# \{0,1\}//p' "$0"; }
die() { echo "slurm-sweep.sh: $*" >&2; exit 2; }

binary() {
  local bin
  if [ -n "${ELECTION_LAB:-}" ]; then
    bin=$(command -v -- "$ELECTION_LAB") || die "ELECTION_LAB=$ELECTION_LAB is not an executable"
  else
    bin=$(command -v election-lab) ||
      die "no election-lab on PATH: set ELECTION_LAB=/path/to/election-lab (cargo build --release -p election-lab builds target/release/election-lab)"
  fi
  case "$bin" in /*) ;; *) bin=$(cd "$(dirname -- "$bin")" && pwd)/$(basename -- "$bin") ;; esac
  echo "$bin"
}

need_slurm() {
  command -v sbatch >/dev/null && command -v squeue >/dev/null ||
    die "sbatch is not on PATH: run this on a Slurm login node (or try scripts/slurm-local.sh)"
}

# The settings a sweep directory was submitted with.
load() {
  out=$(cd "$1" 2>/dev/null && pwd) || die "$1: no such directory"
  [ -f "$out/sweep.env" ] || die "$out: not a directory of scripts/slurm-sweep.sh (no sweep.env)"
  # shellcheck source=/dev/null
  . "$out/sweep.env"
}

missing() {
  local k
  for k in $(seq "$N"); do [ -f "$out/parts/part-$k.csv" ] || echo "$k"; done
}

# Array tasks of this sweep still queued or running (their ids), from the jobs file.
queued() {
  local ids
  ids=$(awk '$1 == "array" {print $2}' "$out/jobs" | paste -sd, -)
  [ -n "$ids" ] && squeue -h -r -j "$ids" -o %K 2>/dev/null | sort -n | paste -sd, - || true
}

submit() { # submit TASKS: the array tasks (1-N or a list), then the merge after them
  local array merge
  array=$(sbatch --parsable --job-name="sweep-$NAME" --array="$1" --cpus-per-task="$CPUS" \
    --output="$out/logs/task-%a.out" --error="$out/logs/task-%a.err" $SBATCH_EXTRA "$out/task.sh")
  array=${array%%;*}
  merge=$(sbatch --parsable --job-name="merge-$NAME" --dependency="afterok:$array" --kill-on-invalid-dep=yes \
    --output="$out/logs/merge.out" --error="$out/logs/merge.err" $SBATCH_EXTRA "$out/merge.sh")
  merge=${merge%%;*}
  printf 'array %s %s\nmerge %s\n' "$array" "$1" "$merge" >>"$out/jobs"
  echo "slurm-sweep.sh: slices $1 of $N as array job $array; merge job $merge after they all succeed"
  echo "  outputs: $out/rows.csv summary.csv summary.md plot.svg"
  echo "  status:  $0 --status $out"
}

case "${1:-}" in
  -h|--help) usage; exit 0 ;;
  --status)
    [ $# -eq 2 ] || { usage >&2; exit 2; }
    load "$2"
    done_=0
    for k in $(seq "$N"); do
      if [ -f "$out/parts/part-$k.csv" ]; then
        done_=$((done_ + 1))
      elif [ -f "$out/failed/$k" ]; then
        echo "failed: $(cat "$out/failed/$k")"
      else
        echo "slice $k/$N: not done yet"
      fi
    done
    echo "$done_ of $N slices done"
    if [ -f "$out/rows.csv" ]; then
      echo "merged: $out/rows.csv summary.csv summary.md plot.svg"
    elif command -v scontrol >/dev/null; then
      merge=$(awk '$1 == "merge" {m = $2} END {print m}' "$out/jobs")
      state=$(scontrol show job "$merge" 2>/dev/null | grep -o 'JobState=[^ ]* Reason=[^ ]*' || true)
      echo "merge job $merge: ${state:-no longer known to Slurm}"
    fi
    exit 0 ;;
  --resubmit)
    [ $# -eq 2 ] || { usage >&2; exit 2; }
    load "$2"
    need_slurm
    still=$(queued)
    [ -z "$still" ] || die "slices $still are still queued or running: wait for them (or scancel them) first"
    todo=$(missing | paste -sd, -)
    [ -n "$todo" ] || die "every slice of $out is done; nothing to resubmit"
    for k in ${todo//,/ }; do rm -f "$out/failed/$k"; done
    submit "$todo"
    exit 0 ;;
  -*) usage >&2; exit 2 ;;
esac

[ $# -ge 2 ] && [ $# -le 3 ] || { usage >&2; exit 2; }
spec=$1
N=$2
[ -f "$spec" ] || die "$spec: no such file"
[[ "$N" =~ ^[1-9][0-9]*$ ]] || die "N must be a whole number of tasks (at least 1), not '$N'"
NAME=$(basename -- "$spec" .json)
out=${3:-slurm-sweep-$NAME}
BIN=$(binary)
need_slurm
CPUS=${CPUS_PER_TASK:-1}
[[ "$CPUS" =~ ^[1-9][0-9]*$ ]] || die "CPUS_PER_TASK must be a whole number, not '$CPUS'"
SBATCH_EXTRA=${SBATCH_EXTRA:-}
# The spec is checked here, not in N failed tasks: election-lab builds every line of it and
# replays its first run.
if ! err=$("$BIN" sweep "$spec" --replay 0 2>&1 >/dev/null); then
  case "$err" in *"history budget"*) ;; *) die "$spec: ${err#election-lab: }" ;; esac
fi
if [ -e "$out" ] && [ -n "$(ls -A "$out" 2>/dev/null)" ]; then
  die "$out already holds files: choose another OUTDIR (or $0 --resubmit $out)"
fi
mkdir -p "$out"/{parts,logs,failed}
out=$(cd "$out" && pwd)
cp -- "$spec" "$out/spec.json"
printf 'N=%q\nNAME=%q\nBIN=%q\nCPUS=%q\nSBATCH_EXTRA=%q\n' "$N" "$NAME" "$BIN" "$CPUS" "$SBATCH_EXTRA" >"$out/sweep.env"
: >"$out/jobs"

cat >"$out/task.sh" <<EOF
#!/usr/bin/env bash
# Slice SLURM_ARRAY_TASK_ID of $N of $out/spec.json (written by scripts/slurm-sweep.sh).
set -uo pipefail
out=$(printf %q "$out")
k=\${SLURM_ARRAY_TASK_ID:?not a task of a Slurm job array}
export RAYON_NUM_THREADS=\${SLURM_CPUS_PER_TASK:-1}
part=\$out/parts/part-\$k.csv
rm -f "\$out/failed/\$k"
$(printf %q "$BIN") sweep "\$out/spec.json" --shard slurm/$N --part >"\$part.tmp"
code=\$?
if [ \$code -eq 0 ]; then
  mv "\$part.tmp" "\$part"
  exit 0
fi
rm -f "\$part.tmp"
why="slice \$k/$N failed (exit \$code) on \$(hostname -s), job \${SLURM_ARRAY_JOB_ID:-?}_\$k"
echo "\$why" >"\$out/failed/\$k"
echo "slurm-sweep: \$why; resubmit it alone: scripts/slurm-sweep.sh --resubmit \$out" >&2
exit \$code
EOF
cat >"$out/merge.sh" <<EOF
#!/usr/bin/env bash
# The merge of the $N slices of $out/spec.json (written by scripts/slurm-sweep.sh).
set -euo pipefail
cd $(printf %q "$out")
bin=$(printf %q "$BIN")
# The parts there are: election-lab names any slice missing (and refuses to merge without it).
parts=()
for k in \$(seq $N); do [ ! -f "parts/part-\$k.csv" ] || parts+=("parts/part-\$k.csv"); done
[ \${#parts[@]} -gt 0 ] || { echo "slurm-sweep: no slice of $N has finished: nothing to merge" >&2; exit 2; }
"\$bin" sweep --merge "\${parts[@]}" --svg plot.svg.tmp >rows.csv.tmp
"\$bin" sweep --merge "\${parts[@]}" --summary >summary.csv.tmp
"\$bin" sweep --merge "\${parts[@]}" --summary --markdown >summary.md.tmp
for f in plot.svg rows.csv summary.csv summary.md; do mv "\$f.tmp" "\$f"; done
echo "merged $N slices: \$PWD/rows.csv summary.csv summary.md plot.svg"
EOF
chmod +x "$out/task.sh" "$out/merge.sh"
submit "1-$N"
