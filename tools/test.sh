#!/usr/bin/env bash
# Installs what is missing, builds, and runs every test (unit and end-to-end).
# Usage: tools/test.sh [extra ctest arguments]
set -euo pipefail
cd "$(dirname "$0")/.."

tools/install-deps.sh
cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo
cmake --build build -j"$(nproc)"
# End-to-end tests start real rank processes: two at a time suits a 2-core machine.
ctest --test-dir build --output-on-failure -j2 "$@"
