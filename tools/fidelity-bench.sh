#!/usr/bin/env bash
# How close the default mode's MPI figures (compute measured: the program's
# CPU time between its MPI calls; s4bxi/library-compute:modelled) come to the
# network model's (s4bxi/compute:none) and to real BXI hardware (the S4BXI
# thesis, chapter 5: OSU benchmarks on 2 and 16 nodes), on a machine with
# other load. Not a test: it prints figures (docs/model.md, "What is measured").
#
# Usage: tools/fidelity-bench.sh [--load N (default 1)] [--runs R (default 3)]
#   --load N: N busy processes beside the runs (tools/busy-load.sh; 0: none).
#   --runs R: default-mode runs of each figure (their min, median and max,
#             and the spread (max - min) / median: run-to-run stability).
# Each figure under compute:none is run once: it is the same every run.
# It takes about 35 s here with the default load (2 cores), 1.5 min with two
# busy processes, most of it in the 16- and 27-rank runs.
set -euo pipefail
cd "$(dirname "$0")/.."
load=1
runs=3
while [ $# -gt 0 ]; do
  case "$1" in
    --load) load=${2:?--load needs a number}; shift 2 ;;
    --runs) runs=${2:?--runs needs a number}; shift 2 ;;
    *) echo "fidelity-bench.sh: unknown argument '$1' (usage: tools/fidelity-bench.sh [--load N] [--runs R])" >&2
       exit 2 ;;
  esac
done
[[ "$load" =~ ^[0-9]+$ && "$runs" =~ ^[1-9][0-9]*$ ]] ||
  { echo "fidelity-bench.sh: --load takes a count (0 or more) and --runs a count (1 or more)" >&2; exit 2; }

tools/install-deps.sh
cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo > /dev/null
cmake --build build -j"$(nproc)" --target s4bxi-run portals_sandia_legacy > /dev/null
if ! cmake --build build -j"$(nproc)" --target mpi_pingpong mpi_collective_latency mpi_stencil > /dev/null 2>&1 ||
   [ ! -e build/lib/libs4bxi-mpi-time.so ]; then
  echo "fidelity-bench.sh: the MPI programs or the MPI hooks were not built (Debian's OpenMPI, libopenmpi-dev)" >&2
  exit 1
fi
run=build/bin/s4bxi-run
bench=build/bench
work=$(mktemp -d /tmp/s4bxi-fidelity.XXXXXX)
# shellcheck source=tools/smpi-platform.sh
source tools/smpi-platform.sh
# shellcheck source=tools/busy-load.sh
source tools/busy-load.sh
finish() {
  stop_busy_processes
  rm -rf "$work"
}
trap finish EXIT
start_busy_processes "$load"

# The 16-rank figures on 16 nodes, as the thesis measured them (one rank per
# node of a two-level fat tree); the 2-rank ones on the default platform.
fattree16="fattree:2;4,4;1,2;1,2"

# The stencil under SMPI too (SimGrid's own MPI, libsimgrid-dev), its compute
# measured as SMPI measures it (smpi/simulate-computation, each rank's time
# between MPI calls), on the same machine in the same minutes: what another
# emulator that measures compute makes of the same program and cores.
smpi=0
if command -v smpicc > /dev/null && command -v smpirun > /dev/null &&
   smpicc -O2 -DNDEBUG -o "$work/mpi_stencil.smpi" bench/mpi_stencil.c > "$work/smpicc.log" 2>&1; then
  smpi=1
  smpi_fattree "$run" "2;4,4;1,2;1,2" 16 "$work/fattree16.xml" "$work/hosts16"
  smpi_fattree "$run" "2;4,8;1,4;1,1" 32 "$work/fattree32.xml" "$work/hosts32"
  read -r -a smpi_cfg < <(smpi_options "$run")
fi

# One stencil run under SMPI: smpi_stencil RANKS MODE (smpi: compute measured,
# smpinone: network only) ITERATIONS.
smpi_stencil() {
  local ranks=$1 mode=$2 iterations=$3 tree=16 simulate=yes
  [ "$ranks" -le 16 ] || tree=32
  [ "$mode" = smpi ] || simulate=no
  smpirun -np "$ranks" -platform "$work/fattree$tree.xml" -hostfile "$work/hosts$tree" "${smpi_cfg[@]}" \
    --cfg=smpi/simulate-computation:$simulate "$work/mpi_stencil.smpi" "$iterations" 32 2
}

# One figure, in microseconds (or MB/s), from one run: figure NAME MODE
# (default, none: s4bxi/compute:none, and for the stencils smpi and smpinone).
figure() {
  local name=$1 mode=$2 out="$work/out"
  local cfg=()
  [ "$mode" = default ] || cfg=(--cfg=s4bxi/compute:none)
  case "$mode:$name" in
    smpi*:stencil1) smpi_stencil 1 "$mode" 30 > "$out" 2>&1 ;;
    smpi*:stencil8) smpi_stencil 8 "$mode" 30 > "$out" 2>&1 ;;
    smpi*:stencil27) smpi_stencil 27 "$mode" 20 > "$out" 2>&1 ;;
    *) figure_ours "$name" > "$out" 2>&1 ;;
  esac || { echo "fidelity-bench.sh: the $name run ($mode) failed:" >&2; tail -5 "$out" >&2; exit 1; }
  case "$name" in
    latency*) sed -n 's/.*half round trip \([0-9.]*\) us.*/\1/p' "$out" ;;
    allreduce | alltoall | bcast) sed -n 's/.*: avg \([0-9.]*\) us.*/\1/p' "$out" ;;
    stencil*) sed -n 's/.*simulated \([0-9.]*\) us per iteration.*/\1/p' "$out" ;;
  esac
}

# One of our runs (cfg: figure's options): figure_ours NAME.
figure_ours() {
  case "$1" in
    latency0) "$run" -n 2 "${cfg[@]}" "$bench/mpi_pingpong" 2000 0 ;;
    latency1k) "$run" -n 2 "${cfg[@]}" "$bench/mpi_pingpong" 2000 1024 ;;
    allreduce) "$run" -n 16 --platform "$fattree16" "${cfg[@]}" "$bench/mpi_collective_latency" allreduce 4 100 ;;
    alltoall) "$run" -n 16 --platform "$fattree16" "${cfg[@]}" "$bench/mpi_collective_latency" alltoall 1 100 ;;
    bcast) "$run" -n 16 --platform "$fattree16" "${cfg[@]}" "$bench/mpi_collective_latency" bcast 1 100 ;;
    stencil1) "$run" -n 1 "${cfg[@]}" "$bench/mpi_stencil" 30 32 2 ;;
    stencil8) "$run" -n 8 --platform "$fattree16" "${cfg[@]}" "$bench/mpi_stencil" 30 32 2 ;;
    stencil27) "$run" -n 27 --platform "fattree:2;4,8;1,4;1,1" "${cfg[@]}" "$bench/mpi_stencil" 20 32 2 ;;
  esac
}

# min median max of the numbers on stdin.
stats() { sort -g | awk '{ v[NR] = $1 } END { m = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2; print v[1], m, v[NR] }'; }

declare -A none low median high
names=(latency0 latency1k allreduce alltoall bcast stencil1 stencil8 stencil27)
for name in "${names[@]}"; do
  none[$name]=$(figure "$name" none)
  for ((r = 0; r < runs; ++r)); do figure "$name" default; done > "$work/$name.default"
  read -r low[$name] median[$name] high[$name] < <(stats < "$work/$name.default")
  if [ "$smpi" = 1 ] && [[ "$name" == stencil* ]]; then
    none[smpi$name]=$(figure "$name" smpinone)
    for ((r = 0; r < runs; ++r)); do figure "$name" smpi; done > "$work/$name.smpi"
    read -r low[smpi$name] median[smpi$name] high[smpi$name] < <(stats < "$work/$name.smpi")
  fi
done

echo "== MPI figures in the default mode (measured compute) on a loaded machine ($load busy processes beside, $runs runs each)"
printf '  %-34s | %9s | %12s | %28s | %8s | %10s\n' figure "real BXI" "compute:none" "default: min / median / max" spread "median/real"
row() {
  local name=$1 label=$2 real=$3
  local spread ratio
  spread=$(awk -v a="${low[$name]}" -v m="${median[$name]}" -v b="${high[$name]}" 'BEGIN { printf "%.1f%%", (b - a) / m * 100 }')
  ratio=$(awk -v m="${median[$name]}" -v r="$real" 'BEGIN { printf "%+.0f%%", (m / r - 1) * 100 }')
  printf '  %-34s | %6s us | %9s us | %8s / %8s / %8s | %8s | %10s\n' "$label" "$real" "${none[$name]}" \
    "${low[$name]}" "${median[$name]}" "${high[$name]}" "$spread" "$ratio"
}
row latency0 "osu_latency 0 B, 2 ranks" 2.0
row latency1k "osu_latency 1 KiB, 2 ranks" 2.7
row allreduce "allreduce 4 B, 16 ranks on 16 nodes" 11.3
row alltoall "alltoall 1 B, 16 ranks on 16 nodes" 9.0
row bcast "bcast 1 B, 16 ranks on 16 nodes" 4.7
echo "  (real BXI: the thesis's OSU figures, as issue 22 quotes them; latencies are OSU's: half a round trip, and"
echo "   a collective's time per call averaged over the ranks)"

# The stencil: 3-D halo exchange of 32x32 faces plus two Jacobi sweeps of each
# rank's 32^3 block per iteration. Expected per iteration: one rank's compute
# (its default-mode time less its compute:none time, which is its exchange
# with itself) plus the network model's time for the same ranks.
echo "== 3-D stencil (halo exchange + 2 sweeps of a 32^3 block per iteration), simulated us per iteration"
# stencil_rows PREFIX LABEL: the expected and measured rows of one emulator
# (PREFIX: "" for ours, smpi for SMPI's runs of the same program).
stencil_rows() {
  local prefix=$1 label=$2 compute1 expected ratio name
  compute1=$(awk -v d="${median[${prefix}stencil1]}" -v n="${none[${prefix}stencil1]}" 'BEGIN { printf "%.3f", d - n }')
  echo "  $label: one rank's compute per iteration: ${compute1} us (median of the runs ${median[${prefix}stencil1]} us," \
       "less ${none[${prefix}stencil1]} us of network alone)"
  for ranks in 8 27; do
    name=${prefix}stencil$ranks
    expected=$(awk -v c="$compute1" -v n="${none[$name]}" 'BEGIN { printf "%.3f", c + n }')
    ratio=$(awk -v m="${median[$name]}" -v e="$expected" 'BEGIN { printf "%+.0f%%", (m / e - 1) * 100 }')
    echo "  $label: $ranks ranks: ${low[$name]} / ${median[$name]} / ${high[$name]} (min / median / max), expected $expected" \
         "(compute $compute1 + network ${none[$name]}): median $ratio"
  done
}
stencil_rows "" "s4bxi-run"
if [ "$smpi" = 1 ]; then
  stencil_rows smpi "SMPI     "
  echo "  (SMPI: the same program built with smpicc, smpi/simulate-computation:yes against :no, on SimGrid's"
  echo "   fat trees of the same parameters; its ranks are threads of one process that run one at a time)"
else
  echo "  (SMPI's side skipped: no smpicc or smpirun, or smpicc failed: $work/smpicc.log)"
fi
