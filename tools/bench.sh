#!/usr/bin/env bash
# Builds and runs the benchmarks, and prints their figures. Not a test: the
# machine is shared and noisy, so IPC figures are ratios against a raw futex
# ping-pong measured in the same run, and every figure is the median of runs.
# Usage: tools/bench.sh [put-iterations (default 100000)]
set -euo pipefail
cd "$(dirname "$0")/.."
iterations=${1:-100000}

tools/install-deps.sh
cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo > /dev/null
cmake --build build -j"$(nproc)" --target s4bxi-run pingpong futex_pingpong ipc_noop put_pingpong put_get_latency > /dev/null
# The MPI figures need Debian's OpenMPI and our build of its Portals components.
cmake --build build -j"$(nproc)" --target mpi_pingpong > /dev/null 2>&1 || true
run=build/bin/s4bxi-run
bench=build/bench

median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

echo "== IPC: forwarded call (PtlGetUid, answered without simulation) vs raw futex ping-pong, 5 alternating rounds"
: > /tmp/s4bxi-bench-futex; : > /tmp/s4bxi-bench-spin; : > /tmp/s4bxi-bench-call
for round in 1 2 3 4 5; do
  "$bench/futex_pingpong" 100000 > /tmp/s4bxi-bench-out
  awk '/futex-only/ { print $4 }' /tmp/s4bxi-bench-out >> /tmp/s4bxi-bench-futex
  awk '/spin-then-futex/ { print $4 }' /tmp/s4bxi-bench-out >> /tmp/s4bxi-bench-spin
  "$run" -n 1 "$bench/ipc_noop" 200000 2> /dev/null | awk '{ print $5 }' >> /tmp/s4bxi-bench-call
done
futex=$(median < /tmp/s4bxi-bench-futex)
spin=$(median < /tmp/s4bxi-bench-spin)
call=$(median < /tmp/s4bxi-bench-call)
printf "  raw futex ping-pong        %8.3f us\n  raw spin+futex ping-pong   %8.3f us\n  forwarded Portals call     %8.3f us\n" "$futex" "$spin" "$call"
awk -v c="$call" -v f="$futex" -v s="$spin" 'BEGIN { printf "  ratio call/futex %.2f (target <= 3), call/spin-doorbell %.2f\n", c / f, c / s }'

echo "== Simulation cost: wall time per simulated Put with ACK (ping-pong, compute off), median of 3"
for size in 8 65536; do
  n=$iterations
  [ "$size" -gt 8 ] && n=$((iterations / 10))
  : > /tmp/s4bxi-bench-put
  for round in 1 2 3; do
    "$run" -n 2 --cfg=s4bxi/compute:none "$bench/put_pingpong" "$n" "$size" 2> /dev/null |
      sed -n 's/.*wall \([0-9.]*\) us per simulated Put/\1/p' >> /tmp/s4bxi-bench-put
  done
  printf "  %6s B Put: %8.2f us wall per simulated Put (%d iterations)\n" "$size" "$(median < /tmp/s4bxi-bench-put)" "$n"
done

echo "== E2E cost: wall time per simulated Put, s4bxi/e2e on and off (alternating runs, median of 5; target on/off <= 1.5)"
for size in 8 65536; do
  n=$((iterations / 5))
  [ "$size" -gt 8 ] && n=$((iterations / 20))
  : > /tmp/s4bxi-bench-e2e-on; : > /tmp/s4bxi-bench-e2e-off
  for round in 1 2 3 4 5; do
    for e2e in on off; do
      "$run" -n 2 --cfg=s4bxi/compute:none --cfg=s4bxi/e2e:$e2e "$bench/put_pingpong" "$n" "$size" 2> /dev/null |
        sed -n 's/.*wall \([0-9.]*\) us per simulated Put/\1/p' >> /tmp/s4bxi-bench-e2e-$e2e
    done
  done
  on=$(median < /tmp/s4bxi-bench-e2e-on)
  off=$(median < /tmp/s4bxi-bench-e2e-off)
  awk -v s="$size" -v on="$on" -v off="$off" -v n="$n" \
    'BEGIN { printf "  %6s B Put: E2E on %8.2f us, off %8.2f us per simulated Put, ratio %.2f (%d iterations)\n", s, on, off, on / off, n }'
done

echo "== Tracing cost: wall time per simulated 8 B Put, without and with --trace (alternating runs, median of 3)"
# A tenth of the iterations: the trace takes about 4 KB per Put.
n=$((iterations / 10))
trace_dir=$(mktemp -d /tmp/s4bxi-bench-trace.XXXXXX)
: > /tmp/s4bxi-bench-off; : > /tmp/s4bxi-bench-on
for round in 1 2 3; do
  "$run" -n 2 --cfg=s4bxi/compute:none "$bench/put_pingpong" "$n" 8 2> /dev/null |
    sed -n 's/.*wall \([0-9.]*\) us per simulated Put/\1/p' >> /tmp/s4bxi-bench-off
  "$run" -n 2 --cfg=s4bxi/compute:none --trace "$trace_dir" "$bench/put_pingpong" "$n" 8 2> /dev/null |
    sed -n 's/.*wall \([0-9.]*\) us per simulated Put/\1/p' >> /tmp/s4bxi-bench-on
done
off=$(median < /tmp/s4bxi-bench-off)
on=$(median < /tmp/s4bxi-bench-on)
rows=$(($(wc -l < "$trace_dir/events.csv") - 1))
size=$(du -sm "$trace_dir" | cut -f1)
rm -rf "$trace_dir"
printf "  off %8.2f us, on %8.2f us per simulated Put (%d iterations; %d events, %d MB)\n" "$off" "$on" "$n" "$rows" "$size"
awk -v a="$off" -v b="$on" 'BEGIN { printf "  ratio on/off %.2f (target <= 2)\n", b / a }'

echo "== Preemption cost: wall time of a fixed compute loop (busy_compute work=600, about 0.15 s of CPU), with and without preemption (alternating runs, median of 5)"
cmake --build build -j"$(nproc)" --target e2e_busy_compute > /dev/null
: > /tmp/s4bxi-bench-preempt-on; : > /tmp/s4bxi-bench-preempt-off
for round in 1 2 3 4 5; do
  for quantum in on off; do
    cfg=()
    [ "$quantum" = off ] && cfg=(--cfg=s4bxi/sync-quantum:0)
    "$run" -n 1 "${cfg[@]}" build/tests/programs/busy_compute work=600 2>&1 > /dev/null |
      sed -n 's/.*wall time \([0-9.]*\) s.*/\1/p' >> /tmp/s4bxi-bench-preempt-$quantum
  done
done
on=$(median < /tmp/s4bxi-bench-preempt-on)
off=$(median < /tmp/s4bxi-bench-preempt-off)
awk -v on="$on" -v off="$off" 'BEGIN { printf "  with %.3f s, without %.3f s of wall time, ratio %.3f (target: a few percent)\n", on, off, on / off }'

echo "== Simulated figures, DESIGN.md reference set-up (BXI links 11.1 GB/s, compute off)"
"$run" -n 2 --cfg=s4bxi/compute:none --cfg=s4bxi/bxi-bandwidth:11.1e9 "$bench/put_get_latency" 1000 8 65536 2> /dev/null |
  sed 's/^/  /'
echo "   (S4BXI 4.2: Put 8 B 2.77 us, Get 8 B 3.43 us, Put 64 KiB 9.46 us, Get 64 KiB 9.70 us)"

echo "== Default platform: 8 B Put-with-ACK and where its time goes (each part measured by zeroing it)"
put8() { "$run" -n 2 --cfg=s4bxi/compute:none "$@" "$bench/put_get_latency" 200 8 2> /dev/null | awk '/Put-WaitAck/ { print $4 }'; }
total=$(put8)
no_pci=$(put8 --cfg=s4bxi/pci-latency:0 --cfg=s4bxi/model-pci-commands:no)
no_nic=$(put8 --cfg=s4bxi/nic-tx-delay:0 --cfg=s4bxi/nic-rx-delay:0 --cfg=s4bxi/nic-response-delay:0)
no_wire=$(put8 --cfg=s4bxi/bxi-latency:0)
awk -v t="$total" -v p="$no_pci" -v n="$no_nic" -v w="$no_wire" 'BEGIN {
  printf "  Put 8 B + ACK: %.3f us = PCIe %.3f + NIC processing %.3f + wire latency %.3f + rest (bandwidth terms) %.3f\n",
         t, t - p, t - n, t - w, t - (t - p) - (t - n) - (t - w) }'
echo "== Default platform: 4 MiB ping-pong bandwidth"
"$run" -n 2 --cfg=s4bxi/compute:none build/examples/pingpong -m 4194304 -i 5 2> /dev/null | awk '$1 == 4194304 { printf "  4 MiB: %.1f us one way, %.0f MB/s\n", $3, $4 }'

if [ -x "$bench/mpi_pingpong" ]; then
  echo "== MPI (Debian's Open MPI over the simulated NIC) next to Portals, default platform, compute off, median of 3"
  report=$(mktemp /tmp/s4bxi-bench-report.XXXXXX)
  : > /tmp/s4bxi-bench-mpi-wall; : > /tmp/s4bxi-bench-put-wall; : > /tmp/s4bxi-bench-mpi-calls
  n=$((iterations / 10))
  for round in 1 2 3; do
    "$run" -n 2 --cfg=s4bxi/compute:none --report "$report" "$bench/mpi_pingpong" "$n" 8 2> /dev/null > /tmp/s4bxi-bench-out
    sed -n 's/.*wall \([0-9.]*\) us per simulated message/\1/p' /tmp/s4bxi-bench-out >> /tmp/s4bxi-bench-mpi-wall
    mpi_half=$(sed -n 's/.*half round trip \([0-9.]*\) us.*/\1/p' /tmp/s4bxi-bench-out)
    sed -n 's/.*"portals_calls": \([0-9]*\),.*/\1/p' "$report" | head -1 | awk -v n="$n" '{ print $1 / (2 * n) }' >> /tmp/s4bxi-bench-mpi-calls
    "$run" -n 2 --cfg=s4bxi/compute:none "$bench/put_pingpong" "$n" 8 2> /dev/null |
      sed -n 's/.*wall \([0-9.]*\) us per simulated Put/\1/p' >> /tmp/s4bxi-bench-put-wall
  done
  rm -f "$report"
  mpi_bw=$("$run" -n 2 --cfg=s4bxi/compute:none "$bench/mpi_pingpong" 20 4194304 2> /dev/null | sed -n 's/.*us, \([0-9.]*\) MB\/s.*/\1/p')
  # Both half round trips of a ping-pong: MPI_Send/MPI_Recv against PtlPut/PtlEQWait.
  put_lat=$("$run" -n 2 --cfg=s4bxi/compute:none build/examples/pingpong -m 8 -i 200 2> /dev/null | awk '$1 == 8 { print $3 }')
  put_bw=$("$run" -n 2 --cfg=s4bxi/compute:none build/examples/pingpong -m 4194304 -i 5 2> /dev/null | awk '$1 == 4194304 { print $4 }')
  mpi_wall=$(median < /tmp/s4bxi-bench-mpi-wall)
  put_wall=$(median < /tmp/s4bxi-bench-put-wall)
  calls=$(median < /tmp/s4bxi-bench-mpi-calls)
  printf "  8 B ping-pong, half round trip: MPI %7.3f us | Portals %7.3f us\n" "$mpi_half" "$put_lat"
  printf "  4 MiB ping-pong bandwidth:      MPI %7.0f MB/s | Portals %7.0f MB/s\n" "$mpi_bw" "$put_bw"
  printf "  Portals calls per small blocking MPI message: %.1f (target <= 20)\n" "$calls"
  awk -v m="$mpi_wall" -v p="$put_wall" -v n="$n" 'BEGIN { printf "  wall per simulated 8 B message: MPI %.2f us, Portals Put %.2f us, ratio %.2f (target <= 2; %d iterations)\n", m, p, m / p, n }'
fi
