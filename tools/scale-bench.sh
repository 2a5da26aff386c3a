#!/usr/bin/env bash
# How the emulator's cost grows with the number of ranks (issue 8's table):
# for each rank count, the wall time per simulated 8 B Put in a ring where every
# rank Puts to the next (bench/put_ring.c), start-up plus teardown per rank (the
# same program with no round), and peak resident memory of the server and of a
# rank, from the run's report. The raw futex and spin ping-pongs of the same run
# say what one process wake-up costs on this machine right now.
# Not a test: the figures depend on the machine and its load; the wall time
# per Put is the median of three runs (one above 1,024 ranks).
# Usage: tools/scale-bench.sh [--cfg=NAME:VALUE...] [rank counts...]   (default: 2 16 64 256 1024)
# (--cfg options go to every run, e.g. --cfg=s4bxi/early-put-answer:no to compare)
set -euo pipefail
cd "$(dirname "$0")/.."
counts=()
options=()
for arg in "$@"; do
  case "$arg" in
    --cfg=*) options+=("$arg") ;;
    *) counts+=("$arg") ;;
  esac
done
[ ${#counts[@]} -gt 0 ] || counts=(2 16 64 256 1024)

cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo > /dev/null
cmake --build build -j"$(nproc)" --target s4bxi-run put_ring futex_pingpong simgrid_rounds > /dev/null
run=build/bin/s4bxi-run
work=$(mktemp -d /tmp/s4bxi-scale.XXXXXX)
trap 'rm -rf "$work"' EXIT

now() { date +%s.%N; }
median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

# A two-level fat tree with one node per rank (k x k nodes, k >= 2).
platform_for() {
  local ranks=$1 k=2
  while [ $((k * k)) -lt "$ranks" ]; do k=$((k * 2)); done
  echo "fattree:2;$k,$k;1,$k;1,1"
}

build/bench/futex_pingpong 100000 > "$work/futex"
futex=$(awk '/futex-only/ { print $4 }' "$work/futex")
spin=$(awk '/spin-then-futex/ { print $4 }' "$work/futex")
printf "raw round trips on this machine now: futex %.2f us, spin-then-futex %.2f us\n" "$futex" "$spin"
# What SimGrid alone costs per event here, and how that grows with the
# number of actors (the emulator has about 6 per node).
build/bench/simgrid_rounds 200000 1 1024 6144 | sed 's/^/bare SimGrid: /'
# Of the wall time per Put, the part the server spent waiting for the rank
# processes' calls (the rest is simulating, answering included), and how many
# answers per Put had to wake a sleeping process, and SimGrid's scheduling
# rounds per Put (fewer with more ranks: the ring's ranks go in step, so
# their events share dates): the ring's report minus the report of the same
# job with no round (start-up and teardown).
printf "%7s | %13s %10s | %10s %12s %8s %8s | %11s %12s | %12s %12s\n" ranks "wall/Put us" "x futex" "waiting us" \
  "simulating us" "wakes" "rounds" "start+end s" "per rank ms" "server MiB" "rank MiB"
# The first number called $2 in the report $1.
field() { sed -n "s/.*\"$2\": \([0-9.e+-]*\).*/\1/p" "$1" | head -1; }
for ranks in "${counts[@]}"; do
  platform=$(platform_for "$ranks")
  # About 20,000 simulated Puts per measurement, at least 4 rounds.
  rounds=$((20000 / ranks)); [ "$rounds" -ge 4 ] || rounds=4
  start=$(now)
  "$run" -n "$ranks" --platform "$platform" --cfg=s4bxi/compute:none "${options[@]}" --report "$work/empty.json" \
    build/bench/put_ring 0 > /dev/null 2>&1
  end=$(now)
  repeats=3; [ "$ranks" -le 1024 ] || repeats=1
  : > "$work/per_put"
  for _ in $(seq "$repeats"); do
    "$run" -n "$ranks" --platform "$platform" --cfg=s4bxi/compute:none "${options[@]}" --report "$work/ring.json" \
      build/bench/put_ring "$rounds" 8 > "$work/ring.out" 2> "$work/ring.err" || { cat "$work/ring.err"; exit 1; }
    sed -n 's/.*wall \([0-9.]*\) us per simulated Put/\1/p' "$work/ring.out" >> "$work/per_put"
  done
  per_put=$(median < "$work/per_put")
  server_kb=$(field "$work/ring.json" server_max_rss_kb)
  rank_kb=$(field "$work/ring.json" rank_mean_max_rss_kb)
  waited=$(field "$work/ring.json" for_ranks_s); waited_empty=$(field "$work/empty.json" for_ranks_s)
  wakes=$(field "$work/ring.json" wake_ups); wakes_empty=$(field "$work/empty.json" wake_ups)
  engine=$(field "$work/ring.json" engine_rounds); engine_empty=$(field "$work/empty.json" engine_rounds)
  awk -v n="$ranks" -v p="$per_put" -v f="$futex" -v s="$start" -v e="$end" -v sk="$server_kb" -v rk="$rank_kb" \
    -v w="$waited" -v w0="$waited_empty" -v k="$wakes" -v k0="$wakes_empty" -v r="$rounds" \
    -v g="$engine" -v g0="$engine_empty" \
    'BEGIN { puts = r * n; wait = (w - w0) * 1e6 / puts; per_put = (g - g0) / puts
             printf "%7d | %13.1f %10.2f | %10.1f %12.1f %8.2f %8.2f | %11.2f %12.2f | %12.1f %12.2f\n", n, p, p / f,
                    wait, p - wait, (k - k0) / puts, per_put, e - s, (e - s) * 1000 / n, sk / 1024, rk / 1024 }'
done
