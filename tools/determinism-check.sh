#!/usr/bin/env bash
# Runs one job several times, some at once and beside CPU hogs, and says
# whether every run's trace is the same as the first's: with
# s4bxi/compute:none a run must not depend on real time (docs/model.md), and
# a real-time dependence shows under load, now and then. Prints the first
# rows that differ, and keeps the traces that differ.
#
# Usage: tools/determinism-check.sh [--rounds R] [--at-once C] [--hogs H] [--keep DIR] -- S4BXI-RUN-ARGS...
#   --rounds R    rounds of runs (default 5)
#   --at-once C   runs at once in each round (default 3)
#   --hogs H      CPU hogs beside them (tools/busy-load.sh; default 2)
#   --keep DIR    where the traces go (default: a temporary directory, removed
#                 unless some differ)
# s4bxi/compute:none is added to the job's options. Example:
#   tools/determinism-check.sh -- -n 16 --platform "fattree:2;4,4;1,2;1,2" \
#       build/tests/mpi_programs/mpi_collectives
# Exit status: 0 all the same, 1 some differ or a run failed, 2 bad usage.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2 # (no set -e: a run that fails is reported, not fatal)

rounds=5 at_once=3 hogs=2 keep=""
while [ $# -gt 0 ]; do
  case "$1" in
    --rounds) rounds=${2:?}; shift 2 ;;
    --at-once) at_once=${2:?}; shift 2 ;;
    --hogs) hogs=${2:?}; shift 2 ;;
    --keep) keep=${2:?}; shift 2 ;;
    --) shift; break ;;
    *) echo "determinism-check: unknown option '$1' (the job's arguments come after --)" >&2; exit 2 ;;
  esac
done
for n in "$rounds" "$at_once" "$hogs"; do
  [[ "$n" =~ ^[0-9]+$ ]] || { echo "determinism-check: '$n' is not a count" >&2; exit 2; }
done
[ $# -gt 0 ] || { echo "determinism-check: no job given (s4bxi-run's arguments after --)" >&2; exit 2; }
run=build/bin/s4bxi-run
[ -x "$run" ] || { echo "determinism-check: $run not built (cmake --build build)" >&2; exit 2; }

work=${keep:-$(mktemp -d /tmp/s4bxi-determinism.XXXXXX)}
mkdir -p "$work"
# shellcheck source=tools/busy-load.sh
source tools/busy-load.sh
trap stop_busy_processes EXIT
trap 'stop_busy_processes; exit 130' INT TERM
start_busy_processes "$hogs"

failed=0
for r in $(seq "$rounds"); do
  pids=()
  for c in $(seq "$at_once"); do
    "$run" --cfg=s4bxi/compute:none --trace "$work/trace.$r.$c" "$@" > "$work/out.$r.$c" 2>&1 &
    pids+=($!)
  done
  for c in $(seq "$at_once"); do
    if ! wait "${pids[$((c - 1))]}"; then
      echo "run $r.$c failed; its output ends with:"
      tail -3 "$work/out.$r.$c"
      failed=1
    fi
  done
done
stop_busy_processes

reference=$work/trace.1.1/events.csv
differ=0 compared=0
for trace in "$work"/trace.*/events.csv; do
  [ -f "$trace" ] || continue
  compared=$((compared + 1))
  if ! cmp -s "$reference" "$trace"; then
    differ=$((differ + 1))
    if [ "$differ" -eq 1 ]; then
      echo "${trace#"$work"/} differs from trace.1.1; first rows that differ:"
      diff "$reference" "$trace" | head -8
    fi
  fi
done
echo "$compared traces, $differ differ from the first ($rounds rounds of $at_once at once, beside $hogs CPU hogs)"
if [ "$differ" -gt 0 ] || [ "$failed" -ne 0 ]; then
  echo "traces kept in $work"
  exit 1
fi
[ -n "$keep" ] || rm -rf "$work"
exit 0
