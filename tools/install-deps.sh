#!/usr/bin/env bash
# Installs the Debian 12 packages the emulator needs to build and test, if any
# is missing. Everything comes from the distribution: nothing is downloaded
# from anywhere else. --plot also installs what tools/model-check.sh draws with.
set -euo pipefail

packages=(
  build-essential    # gcc/g++, make, libc.a (the static-binary refusal test builds one)
  cmake
  pkg-config
  libsimgrid-dev     # the simulation kernel (S4U)
  libdw-dev          # elfutils: reading the program's ELF/DWARF before launch
  libelf-dev
  libunwind-dev
  libgtest-dev       # GoogleTest
)
if [ "${1:-}" = "--plot" ]; then
  packages+=(gnuplot-nox)
fi

missing=()
for package in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$package")
  fi
done
if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi

echo "install-deps: installing ${missing[*]}"
sudo=()
if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo > /dev/null; then
    sudo=(sudo)
  else
    echo "install-deps: missing packages (${missing[*]}) and not root; install them with apt-get" >&2
    exit 1
  fi
fi
export DEBIAN_FRONTEND=noninteractive
"${sudo[@]}" apt-get update -qq
"${sudo[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
