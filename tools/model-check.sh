#!/usr/bin/env bash
# Runs the standard microbenchmarks (thesis section 4.6: Put-WaitAck,
# Get-WaitReply, Put-NoWait, Get-NoWait, Put-WaitSend) from 1 B to 4 MiB on the
# default platform, writes the table and draws latency and bandwidth curves.
# Usage: tools/model-check.sh [OUTPUT_DIR (default build/model-check)] [s4bxi-run options...]
# e.g.   tools/model-check.sh out --cfg=s4bxi/bxi-bandwidth:11.1e9
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-build/model-check}
shift || true

tools/install-deps.sh --plot
cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo > /dev/null
cmake --build build -j"$(nproc)" --target s4bxi-run microbench > /dev/null
mkdir -p "$out"

table="$out/microbenchmarks.tsv"
printf "operation\tsize_B\ttime_per_op_us\tbandwidth_MBps\n" > "$table"
for op in put-waitack get-waitreply put-nowait get-nowait put-waitsend; do
  # No-wait batches must stay within the NIC's command queue to measure its pipeline.
  iterations=100
  build/bin/s4bxi-run -n 2 --cfg=s4bxi/compute:none "$@" build/bench/microbench "$op" -i "$iterations" -s 1 -m 4194304 2> /dev/null |
    awk -v OFS='\t' '!/^#/ { print $1, $2, $3, $4 }' >> "$table"
done
echo "table: $table"
column -t "$table" | sed 's/^/  /'

# One data file per operation, for gnuplot.
operations="put-waitack get-waitreply put-nowait get-nowait put-waitsend"
for op in $operations; do
  awk -F'\t' -v op="$op" '$1 == op { print $2, $3, $4 }' "$table" > "$out/$op.dat"
done

plot() { # $1 output file, $2 data column, $3 y label, $4 extra gnuplot line
  gnuplot <<GNUPLOT
set terminal pngcairo size 900,600 noenhanced
set output "$1"
set logscale x 2
$4
set format x "%.0b %BB"
set xlabel "message size"
set ylabel "$3"
set key top left
set grid
set title "s4bxi emulator, default platform (2 nodes, 1 switch), simulated"
operations = "$operations"
plot for [op in operations] "$out/".op.".dat" using 1:$2 with linespoints title op
GNUPLOT
}
plot "$out/latency.png" 2 "time per operation (us)" "set logscale y 10"
plot "$out/bandwidth.png" 3 "bandwidth (MB/s)" ""
echo "curves: $out/latency.png $out/bandwidth.png"
