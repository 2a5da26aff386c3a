#!/usr/bin/env bash
# The main job: install what is missing, build, then run the example Portals
# ping-pong as 2 ranks on the default platform (2 BXI nodes behind one switch)
# and show what the program measured in simulated time.
set -euo pipefail
cd "$(dirname "$0")/.."

tools/install-deps.sh
cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo > /dev/null
cmake --build build -j"$(nproc)" --target s4bxi-run pingpong > /dev/null

echo "== s4bxi-run -n 2 build/examples/pingpong (simulated BXI, default platform)"
build/bin/s4bxi-run -n 2 --report build/quickstart-report.json build/examples/pingpong "$@"
echo "== report: build/quickstart-report.json"
