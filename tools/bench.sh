#!/usr/bin/env bash
# Builds and runs the benchmarks, and prints their figures. Not a test: the
# machine is shared and noisy, so IPC figures are ratios against a raw futex
# ping-pong measured in the same run, and every figure is the median of runs.
# Usage: tools/bench.sh [--smpi-only] [--load N] [put-iterations (default 100000)]
# (--smpi-only: only the last section, our wall time against SMPI's on the same
# MPI programs; it takes 1.5-3 minutes here. --load N: N busy processes beside
# every run, tools/busy-load.sh; none by default)
set -euo pipefail
cd "$(dirname "$0")/.."
smpi_only=0
load=0
arguments=()
while [ $# -gt 0 ]; do
  case "$1" in
    --smpi-only) smpi_only=1; shift ;;
    --load)
      load=${2:-}
      [[ "$load" =~ ^[0-9]+$ ]] || { echo "bench.sh: --load takes a count (0 or more)" >&2; exit 2; }
      shift 2 ;;
    *) arguments+=("$1"); shift ;;
  esac
done
iterations=${arguments[0]:-100000}

tools/install-deps.sh
cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo > /dev/null
targets=(s4bxi-run simgrid_rounds)
[ "$smpi_only" = 1 ] || targets+=(pingpong futex_pingpong ipc_noop put_pingpong put_get_latency)
cmake --build build -j"$(nproc)" --target "${targets[@]}" > /dev/null
# The MPI figures need Debian's OpenMPI and our build of its Portals components.
cmake --build build -j"$(nproc)" --target mpi_pingpong mpi_bandwidth mpi_alltoall mpi_stencil > /dev/null 2>&1 || true
# The OpenSHMEM figures need SOS, which shmem/ builds when tools/install-deps.sh prepared it.
[ "$smpi_only" = 1 ] || cmake --build build -j"$(nproc)" --target shmem_putget > /dev/null 2>&1 || true
run=build/bin/s4bxi-run
bench=build/bench

# shellcheck source=tools/smpi-platform.sh
source tools/smpi-platform.sh
# shellcheck source=tools/busy-load.sh
source tools/busy-load.sh
trap stop_busy_processes EXIT
start_busy_processes "$load"
[ "$load" = 0 ] || echo "== With $load busy processes beside every run"

median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

# The last section, our wall time against SMPI's (SimGrid's own MPI, libsimgrid-dev),
# is a function so that --smpi-only can run it alone: the same MPI programs
# (bench/mpi_*.c), built with Debian's mpicc for us and with smpicc for SMPI, on
# the same simulated machine, network only on both sides (no compute injected),
# the two emulators' runs alternating so that both see the load of the same minutes.
smpi_comparison() {
  echo "== Wall time against SMPI (SimGrid's MPI): same programs and platform, network only, alternating runs, median of 3"
  if ! command -v smpicc > /dev/null || ! command -v smpirun > /dev/null; then
    echo "  skipped: no smpicc or smpirun (Debian package libsimgrid-dev)"
    return 0
  fi
  if [ ! -x "$bench/mpi_stencil" ]; then
    echo "  skipped: the MPI programs were not built (Debian's OpenMPI, libopenmpi-dev)"
    return 0
  fi
  local began work
  began=$(date +%s.%N)
  work=$(mktemp -d /tmp/s4bxi-bench-smpi.XXXXXX)
  # Enough iterations for a steady wall time per message, few enough for 1.5-3
  # minutes in all here: our start-up and teardown alone (Open MPI's, with its
  # PMI bootstrap in simulated time) take 3-5 s a job at 27-32 ranks on 2 cores.
  local pingpong_n=10000 sweep_n=50 alltoall_n=100 stencil_n=50

  # The flags of the mpicc side's CMake build (RelWithDebInfo).
  local program
  for program in mpi_pingpong mpi_bandwidth mpi_alltoall mpi_stencil; do
    smpicc -O2 -g -DNDEBUG -o "$work/$program" "bench/$program.c" > "$work/smpicc.log" 2>&1 ||
      { echo "  smpicc failed on bench/$program.c:"; cat "$work/smpicc.log"; return 1; }
  done

  # 2 ranks: our default platform, fattree:1;2;1;1, and for SMPI the same two
  # nodes written out (platforms/two-nodes.xml), PCIe links and NIC hosts
  # included: SMPI's route between the CPU hosts node0 and node1 crosses PCIe,
  # two BXI links and PCIe, as our messages do (without our NIC model).
  printf 'node0\nnode1\n' > "$work/hosts2"
  # 27 and 32 ranks: one rank per node of a 32-node two-level fat tree (8 leaf
  # switches of 4 nodes, each with 4 links up to 4 top switches: full
  # bisection), so that every message crosses the network on both sides (on our
  # default platform, 16 ranks share a node and its NIC, and SMPI would take a
  # host's loopback instead). Ours is a generated fattree: platform; SMPI's is
  # SimGrid's own fat-tree cluster with the same parameters
  # (tools/smpi-platform.sh says what differs).
  local tree='2;4,8;1,4;1,1'
  smpi_fattree "$run" "$tree" 32 "$work/fattree.xml" "$work/hosts32"

  # Network only: s4bxi/compute:none, and smpi/simulate-computation:no (with
  # smpi/host-speed, our CPU speed, only so that SMPI does not warn that it was
  # not given); the network model of our server (smpi_options). Collectives: the
  # algorithms that Open MPI 4.1.4's coll/tuned picks for these sizes
  # (coll_tuned_decision_fixed.c: an 8 B alltoall on 32 ranks, modified Bruck;
  # an allreduce of one double on 27 ranks, segmented ring, which falls back to
  # ring and then to recursive doubling below one element per rank), named on
  # both sides so that both simulate the same messages (SMPI's default
  # allreduce is another one).
  local ours=(--cfg=s4bxi/compute:none --mca coll_tuned_use_dynamic_rules 1
    --mca coll_tuned_alltoall_algorithm 3 --mca coll_tuned_allreduce_algorithm 3)
  local smpi
  read -r -a smpi < <(smpi_options "$run")
  smpi+=(--cfg=smpi/simulate-computation:no --cfg=smpi/alltoall:bruck --cfg=smpi/allreduce:rdb)

  # One job of one case on one side: the program's lines in $work/CASE.SIDE.ROUND,
  # the job's whole wall time (start-up included) appended to $work/CASE.SIDE.job.
  smpi_case() {
    local name=$1 side=$2 round=$3 ranks program arguments
    local out="$work/$name.$side.$round"
    case "$name" in
      pingpong) ranks=2 program=mpi_pingpong arguments=("$pingpong_n" 8) ;;
      sweep) ranks=2 program=mpi_bandwidth arguments=("$sweep_n" 4194304) ;;
      alltoall) ranks=32 program=mpi_alltoall arguments=("$alltoall_n" 8) ;;
      stencil) ranks=27 program=mpi_stencil arguments=("$stencil_n" 32) ;;
    esac
    local command
    if [ "$side" = ours ]; then
      command=("$run" -n "$ranks")
      [ "$ranks" -le 2 ] || command+=(--platform "fattree:$tree")
      # The reports count the round trips (below); the halo's is not printed.
      [ "$name" = stencil ] || command+=(--report "$out.json")
      command+=("${ours[@]}" "$bench/$program")
    else
      command=(smpirun -np "$ranks")
      if [ "$ranks" -le 2 ]; then
        command+=(-platform platforms/two-nodes.xml -hostfile "$work/hosts2")
      else
        command+=(-platform "$work/fattree.xml" -hostfile "$work/hosts32")
      fi
      command+=("${smpi[@]}" "$work/$program")
    fi
    local start end
    start=$(date +%s.%N)
    "${command[@]}" "${arguments[@]}" > "$out" 2> "$out.err" ||
      { echo "  failed: ${command[*]} ${arguments[*]} (its output in $work)"; tail -5 "$out.err"; return 1; }
    end=$(date +%s.%N)
    # (The runs of half the iterations, below, count in no median.)
    [ "$round" = half ] || awk -v s="$start" -v e="$end" 'BEGIN { print e - s }' >> "$work/$name.$side.job"
  }
  local name round side sides
  for name in pingpong sweep alltoall stencil; do
    for round in 1 2 3; do
      # Each side goes first in turn: the machine's load drifts.
      sides=(ours smpi)
      [ $((round % 2)) = 1 ] || sides=(smpi ours)
      for side in "${sides[@]}"; do
        smpi_case "$name" "$side" "$round"
      done
    done
  done

  # The simulated figures are not expected to agree: ours has PCIe and a NIC at
  # each end and BXI's wire format (4 MiB at 64/72 of the link's bandwidth), and
  # Open MPI's protocol over Portals 4, where a send completes on its Portals
  # ACK (mtl/portals4 counts SEND and ACK events: every step of a collective's
  # send-and-receive costs a round trip) and a message above 2 KiB is fetched
  # by the receiver (rendezvous); SMPI's sends below 64 KiB complete at once.
  #
  # The table. Wall: per simulated MPI message, alltoall or iteration, the
  # program's own measure of its timed loop (start-up and teardown left out:
  # they are in the last column, the job's wall time as the shell sees it).
  # Simulated: the same from run to run on each side (compute off): a figure
  # that varies is printed with all its values.
  printf "  %-42s | %13s | %13s | %9s | %-26s | %-26s | %s\n" case "our wall" "SMPI wall" "ours/SMPI" \
    "our simulated" "SMPI simulated" "job wall, ours / SMPI"
  local label simulated format
  for name in pingpong sweep alltoall stencil; do
    case "$name" in
      pingpong) label="8 B ping-pong, 2 ranks, per message"
        simulated='s/.*half round trip \([0-9.]*\) us.*/\1/p' format="%s us half round trip" ;;
      sweep) label="sweep 8 B to 4 MiB, 2 ranks, per message"
        simulated='s/.* B at \([0-9.]*\) MB\/s.*/\1/p' format="%s MB/s at 4 MiB" ;;
      alltoall) label="alltoall 8 B, 32 ranks, per alltoall"
        simulated='s/.*simulated \([0-9.]*\) us per .*/\1/p' format="%s us per alltoall" ;;
      stencil) label="3-D halo 32x32, 27 ranks, per iteration"
        simulated='s/.*simulated \([0-9.]*\) us per .*/\1/p' format="%s us per iteration" ;;
    esac
    local our_wall smpi_wall our_sim smpi_sim our_job smpi_job
    our_wall=$(sed -n 's/.*, wall \([0-9.]*\) us per .*/\1/p' "$work/$name".ours.? | median)
    smpi_wall=$(sed -n 's/.*, wall \([0-9.]*\) us per .*/\1/p' "$work/$name".smpi.? | median)
    # shellcheck disable=SC2059 # the format is the case's own
    our_sim=$(printf "$format" "$(sed -n "$simulated" "$work/$name".ours.? | sort -u | paste -sd/)")
    # shellcheck disable=SC2059
    smpi_sim=$(printf "$format" "$(sed -n "$simulated" "$work/$name".smpi.? | sort -u | paste -sd/)")
    our_job=$(median < "$work/$name.ours.job")
    smpi_job=$(median < "$work/$name.smpi.job")
    awk -v l="$label" -v o="$our_wall" -v s="$smpi_wall" -v os="$our_sim" -v ss="$smpi_sim" \
      -v oj="$our_job" -v sj="$smpi_job" 'BEGIN {
      printf "  %-42s | %10.2f us | %10.2f us | %8.1fx | %-26s | %-26s | %.1f s / %.1f s\n",
             l, o, s, o / s, os, ss, oj, sj }'
  done
  echo "  (iterations: ping-pong $pingpong_n, sweep $sweep_n per size, alltoall $alltoall_n, stencil $stencil_n; job wall: start-up and teardown included)"

  # Round trips between a rank and the server per MPI message: every Portals
  # call is one, but for the empty polls the process answered itself. Over the
  # whole job (MPI_Init's calls included: a few hundred), per message of the
  # ping-pong's loop (2 per iteration).
  local calls answered trips
  calls=$(sed -n 's/.*"totals": {.*"portals_calls": \([0-9]*\),.*/\1/p' "$work"/pingpong.ours.?.json |
    awk -v n="$pingpong_n" '{ print $1 / (2 * n) }' | median)
  answered=$(sed -n 's/.*"totals": {.*"answered_in_process": \([0-9]*\),.*/\1/p' "$work"/pingpong.ours.?.json |
    awk -v n="$pingpong_n" '{ print $1 / (2 * n) }' | median)
  trips=$(awk -v c="$calls" -v a="$answered" 'BEGIN { print c - a }')
  printf "  8 B ping-pong (ours): %.2f round trips per MPI message = %.2f Portals calls - %.2f answered in the process\n" \
    "$trips" "$calls" "$answered"
  # The server's answers in reports (one line each), and the messages of its
  # loops that the sweep prints.
  answers_in() { sed -n 's/.*"server_waiting": {.*"answers": \([0-9]*\),.*/\1/p' "$@"; }
  messages_in() { sed -n 's/.* for \([0-9]*\) messages).*/\1/p' "$1" | head -1; }
  # The sweep's: the server's answers over its whole job, per message of its
  # loops, start-up included (a few hundred answers).
  local sweep_trips
  sweep_trips=$(for out in "$work"/sweep.ours.?; do
    awk -v a="$(answers_in "$out.json")" -v m="$(messages_in "$out")" 'BEGIN { if (a != "" && m > 0) print a / m }'
  done | median)
  [ -z "$sweep_trips" ] ||
    printf "  sweep 8 B to 4 MiB (ours): %.2f round trips per MPI message over the whole job (start-up included)\n" \
      "$sweep_trips"
  # The alltoall's: the server's answers over its whole job, per alltoall and
  # per MPI message of its Bruck steps (32 ranks x 5 steps). The job's
  # start-up is in it too: about 4,400 answers, 44 per alltoall at 100.
  # Also its SimGrid scheduling rounds (engine_rounds, below), the same way.
  local answers alltoall_rounds
  answers=$(answers_in "$work"/alltoall.ours.?.json |
    awk -v n="$alltoall_n" '{ print $1 / n }' | median)
  alltoall_rounds=$(sed -n 's/.*"engine_rounds": \([0-9]*\),.*/\1/p' "$work"/alltoall.ours.?.json |
    awk -v n="$alltoall_n" '{ print $1 / n }' | median)
  if [ -n "$answers" ] && [ -n "$alltoall_rounds" ]; then
    awk -v a="$answers" -v r="$alltoall_rounds" 'BEGIN {
      printf "  alltoall 8 B, 32 ranks (ours): %.0f round trips per alltoall over the whole job (start-up included), %.2f per MPI message; %.0f SimGrid rounds per alltoall\n", a, a / 160, r }'
  fi
  # The same in steady state, start-up left out: one more run of each with
  # half the iterations, whose answers (the same from run to run under
  # compute:none) are taken from the first full run's, per message of the
  # difference (ping-pong: 2 per iteration; sweep: as it prints; alltoall:
  # 160 per alltoall).
  local full_n=("$pingpong_n" "$sweep_n" "$alltoall_n")
  pingpong_n=$((pingpong_n / 2)) sweep_n=$((sweep_n / 2)) alltoall_n=$((alltoall_n / 2))
  for name in pingpong sweep alltoall; do
    smpi_case "$name" ours half
  done
  pingpong_n=${full_n[0]} sweep_n=${full_n[1]} alltoall_n=${full_n[2]}
  local steady=()
  for name in pingpong sweep alltoall; do
    local full="$work/$name.ours.1" half="$work/$name.ours.half" messages
    case "$name" in
      pingpong) messages=$((2 * (pingpong_n - pingpong_n / 2))) ;;
      sweep) messages=$(( $(messages_in "$full") - $(messages_in "$half") )) ;;
      alltoall) messages=$((160 * (alltoall_n - alltoall_n / 2))) ;;
    esac
    steady+=("$(awk -v f="$(answers_in "$full.json")" -v h="$(answers_in "$half.json")" -v m="$messages" \
      'BEGIN { if (f != "" && h != "" && m > 0) printf "%.2f", (f - h) / m; else printf "?" }')")
  done
  printf "  round trips per MPI message in steady state (start-up left out): %s (ping-pong), %s (sweep), %s (alltoall)\n" \
    "${steady[@]}"

  # Where the rest goes: how long the server stands still for the ranks'
  # processes (the report's server_waiting: from an answer to the next call it
  # waits for), its share of the job's wall time, per answer, and how many
  # answers had to wake a sleeping process (a futex wake and a scheduling
  # delay each); and how long a rank ran from an answer to its next call
  # (ranks_ran_s: its own code, the MPI library's and libportals', and any
  # time it was off its CPU; the rest of a wait is the hand-overs, and runs of
  # ranks answered side by side overlap); and the rest of the wall time, when
  # the server is busy, per answer: its own work (the model, SimGrid, the
  # copies), which the server's instructions do not tell well (loops over
  # empty lists are cheap, cache misses and system calls are not: stop 47); and
  # how much of the wall time the server kept a CPU of its own (own_cpu,
  # s4bxi/server-cpu: start-up and the end included). Of the run whose share
  # is the median.
  local name
  for name in pingpong alltoall; do
    for report in "$work"/"$name".ours.?.json; do
      awk '/"wall_time_s":/ { gsub(/[,]/, "", $2); wall = $2 }
           /"server_waiting":/ { line = $0
             sub(/.*"for_ranks_s": /, "", line); split(line, w, ","); waited = w[1]
             line = $0; sub(/.*"answers": /, "", line); split(line, a, ","); answers = a[1]
             line = $0; sub(/.*"wake_ups": /, "", line); split(line, k, ","); woken = k[1]
             line = $0; sub(/.*"ranks_ran_s": /, "", line); split(line, t, ","); ran = t[1]
             line = $0; sub(/.*"ranks_ran": /, "", line); split(line, n, /[,}]/); runs = n[1] }
           /"own_cpu":/ { line = $0; sub(/.*"held_s": /, "", line); split(line, h, /[,}]/); held = h[1] }
           END { if (wall > 0 && answers > 0 && runs > 0)
                   printf "%.1f %.2f %.0f %.2f %.2f %.0f\n", 100 * waited / wall, 1e6 * waited / answers, 100 * woken / answers, 1e6 * ran / runs,
                          1e6 * (wall - waited) / answers, 100 * held / wall }' "$report"
    done | sort -n | awk -v name="$name" '{ share[NR] = $1; per[NR] = $2; woke[NR] = $3; run[NR] = $4; busy[NR] = $5; own[NR] = $6 }
      END { if (NR == 0) exit; m = int((NR + 1) / 2)
            printf "  %s (ours): the server waits for the ranks %.0f%% of the wall time, %.1f us per answer, and is busy %.1f us per answer; %.0f%% of the answers woke a sleeping process; a rank runs %.1f us from an answer to its next call; the server kept a CPU of its own %.0f%% of the wall time\n",
                   name == "pingpong" ? "8 B ping-pong" : "alltoall 8 B, 32 ranks", share[m], per[m], busy[m], woke[m], run[m], own[m] }'
  done

  # SimGrid's scheduling rounds per MPI message (the report's engine_rounds:
  # every sleep, message and wake-up of the model), and what SimGrid alone
  # takes for as many rounds, measured now with no model and no process
  # (bench/simgrid_rounds, with the server's own sleep: simserver/actor_sleep.hpp):
  # the part of our wall time per message that only fewer rounds can take away.
  local rounds round_us
  rounds=$(sed -n 's/.*"engine_rounds": \([0-9]*\),.*/\1/p' "$work"/pingpong.ours.?.json |
    awk -v n="$pingpong_n" '{ print $1 / (2 * n) }' | median)
  round_us=$("$bench/simgrid_rounds" 200000 1 | sed -n "s/.*round waking 1 of *1 actors, server's sleep: *\([0-9.]*\) us.*/\1/p")
  if [ -n "$rounds" ] && [ -n "$round_us" ]; then
    awk -v r="$rounds" -v u="$round_us" 'BEGIN {
      printf "  8 B ping-pong (ours): %.1f SimGrid rounds per MPI message; bare SimGrid takes %.3f us per round here: %.1f us per message\n",
             r, u, r * u }'
  fi

  # The same data on both sides: the residual must agree (up to the last digits:
  # the order of the allreduce's sum is the algorithm's).
  printf "  stencil residual after %d iterations: ours %s, SMPI %s\n" "$stencil_n" \
    "$(sed -n 's/.*residual \([-0-9.e+]*\).*/\1/p' "$work/stencil.ours.1")" \
    "$(sed -n 's/.*residual \([-0-9.e+]*\).*/\1/p' "$work/stencil.smpi.1")"

  # Wall time per message at each size too: where the sweep's wall time goes
  # (a size's 2 x 50 messages take a few milliseconds, so a slow start of the
  # job, or a slow stretch of the machine, shows as a size out of line).
  echo "  ping-pong sweep (first run of each): simulated half round trip and bandwidth, wall time per message:"
  printf "  %10s | %12s %12s | %12s %12s | %12s %12s %9s\n" size "ours us" "SMPI us" "ours MB/s" "SMPI MB/s" \
    "ours wall us" "SMPI wall us" ours/SMPI
  paste <(grep ' B: half round trip' "$work/sweep.ours.1") <(grep ' B: half round trip' "$work/sweep.smpi.1") |
    awk '{ printf "  %10s | %12s %12s | %12s %12s | %12s %12s %8.1fx\n", $1 " B", $6, $20, $8, $22, $11, $25,
           ($25 > 0 ? $11 / $25 : 0) }'
  awk -v b="$began" -v e="$(date +%s.%N)" 'BEGIN { printf "  (this section took %.0f s)\n", e - b }'
  rm -rf "$work"
}

if [ "$smpi_only" = 1 ]; then
  smpi_comparison
  exit 0
fi

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
# What waking a sleeping process costs, from another CPU (the server) and from
# its own (the warm rank relaying the wake: ipc/wake_relay.hpp), last round.
grep "wake from" /tmp/s4bxi-bench-out | sed 's/^/  /' || true

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
  : > /tmp/s4bxi-bench-mpi-trips
  n=$((iterations / 10))
  for round in 1 2 3; do
    "$run" -n 2 --cfg=s4bxi/compute:none --report "$report" "$bench/mpi_pingpong" "$n" 8 2> /dev/null > /tmp/s4bxi-bench-out
    sed -n 's/.*wall \([0-9.]*\) us per simulated message/\1/p' /tmp/s4bxi-bench-out >> /tmp/s4bxi-bench-mpi-wall
    mpi_half=$(sed -n 's/.*half round trip \([0-9.]*\) us.*/\1/p' /tmp/s4bxi-bench-out)
    sed -n 's/.*"portals_calls": \([0-9]*\),.*/\1/p' "$report" | head -1 | awk -v n="$n" '{ print $1 / (2 * n) }' >> /tmp/s4bxi-bench-mpi-calls
    # Round trips: the calls less those the process answered itself.
    sed -n 's/.*"portals_calls": \([0-9]*\), "answered_in_process": \([0-9]*\),.*/\1 \2/p' "$report" | head -1 |
      awk -v n="$n" '{ print ($1 - $2) / (2 * n) }' >> /tmp/s4bxi-bench-mpi-trips
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
  trips=$(median < /tmp/s4bxi-bench-mpi-trips)
  printf "  8 B ping-pong, half round trip: MPI %7.3f us | Portals %7.3f us\n" "$mpi_half" "$put_lat"
  printf "  4 MiB ping-pong bandwidth:      MPI %7.0f MB/s | Portals %7.0f MB/s\n" "$mpi_bw" "$put_bw"
  printf "  Portals calls per small blocking MPI message: %.1f (target <= 20), of which round trips to the server: %.1f\n" "$calls" "$trips"
  awk -v m="$mpi_wall" -v p="$put_wall" -v n="$n" 'BEGIN { printf "  wall per simulated 8 B message: MPI %.2f us, Portals Put %.2f us, ratio %.2f (target <= 2; %d iterations)\n", m, p, m / p, n }'
fi

if [ -x "$bench/shmem_putget" ]; then
  echo "== OpenSHMEM (Sandia's SOS over the simulated NIC) next to Portals, default platform, compute off"
  # Both in the program's simulated clock: a blocking put completed by
  # shmem_quiet (SOS waits for the Portals ACK) against PtlPut and its ACK, a
  # blocking get against PtlGet and its REPLY; bandwidth: back-to-back
  # non-blocking puts and gets of 4 MiB, against the Portals ping-pong.
  shmem_lat=$("$run" -n 2 --cfg=s4bxi/compute:none "$bench/shmem_putget" latency 8 1000 2> /dev/null)
  shmem_bw=$("$run" -n 2 --cfg=s4bxi/compute:none "$bench/shmem_putget" bandwidth 4194304 20 2> /dev/null)
  portals_lat=$("$run" -n 2 --cfg=s4bxi/compute:none "$bench/put_get_latency" 200 8 2> /dev/null)
  portals_bw=$("$run" -n 2 --cfg=s4bxi/compute:none build/examples/pingpong -m 4194304 -i 5 2> /dev/null | awk '$1 == 4194304 { print $4 }')
  printf "  8 B put:   SHMEM %7.3f us | Portals Put, wait for ACK   %7.3f us\n" \
    "$(sed -n 's/.*: put \([0-9.]*\) us.*/\1/p' <<< "$shmem_lat")" "$(awk '/Put-WaitAck/ { print $4 }' <<< "$portals_lat")"
  printf "  8 B get:   SHMEM %7.3f us | Portals Get, wait for REPLY %7.3f us\n" \
    "$(sed -n 's/.*get \([0-9.]*\) us.*/\1/p' <<< "$shmem_lat")" "$(awk '/Get-WaitReply/ { print $4 }' <<< "$portals_lat")"
  printf "  4 MiB:     SHMEM put %6.0f MB/s, get %6.0f MB/s | Portals ping-pong %6.0f MB/s\n" \
    "$(sed -n 's/.*put \([0-9]*\) MB\/s.*/\1/p' <<< "$shmem_bw")" "$(sed -n 's/.*get \([0-9]*\) MB\/s.*/\1/p' <<< "$shmem_bw")" "$portals_bw"
fi

smpi_comparison
