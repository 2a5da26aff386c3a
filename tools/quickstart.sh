#!/usr/bin/env bash
# The main job: install what is missing, build, then run the example ping-pong
# as 2 ranks on the default platform (2 BXI nodes behind one switch), once
# written against Portals 4 and once against MPI (Debian's OpenMPI, carried by
# OpenMPI's own Portals 4 components into the simulated NIC), and show what
# both measured in simulated time, side by side.
set -euo pipefail
cd "$(dirname "$0")/.."

tools/install-deps.sh
cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo > /dev/null
cmake --build build -j"$(nproc)" --target s4bxi-run pingpong > /dev/null

echo "== s4bxi-run -n 2 build/examples/pingpong (Portals 4, simulated BXI, default platform)"
build/bin/s4bxi-run -n 2 --report build/quickstart-report.json build/examples/pingpong "$@" | tee build/quickstart-portals.txt
echo "== report: build/quickstart-report.json"

if ! cmake --build build -j"$(nproc)" --target mpi_pingpong_example > /dev/null 2>&1; then
  echo "== (no MPI example: Debian's OpenMPI or its Portals components are missing; tools/install-deps.sh installs them)"
  exit 0
fi
echo "== s4bxi-run -n 2 build/examples/mpi_pingpong (MPI, Debian's OpenMPI 4.1, same platform)"
build/bin/s4bxi-run -n 2 --report build/quickstart-mpi-report.json build/examples/mpi_pingpong | tee build/quickstart-mpi.txt
echo "== report: build/quickstart-mpi-report.json"

echo "== Portals and MPI side by side (simulated half round trip)"
printf "  %10s  %14s %14s  %15s %15s\n" "size(B)" "Portals(us)" "MPI(us)" "Portals(MB/s)" "MPI(MB/s)"
join <(awk '!/^#/ && NF == 4 { print $1, $3, $4 }' build/quickstart-portals.txt | sort -k1,1) \
     <(awk '!/^#/ && NF == 4 { print $1, $3, $4 }' build/quickstart-mpi.txt | sort -k1,1) |
  sort -n | awk '{ printf "  %10s  %14s %14s  %15s %15s\n", $1, $2, $4, $3, $5 }'
