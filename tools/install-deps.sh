#!/usr/bin/env bash
# Installs the Debian 12 packages the emulator needs to build and test, if any
# is missing. Everything comes from the distribution: nothing is downloaded
# from anywhere else. --plot also installs what tools/model-check.sh draws with.
#
# It also fetches Debian's source package of the installed OpenMPI, once, into
# a cache (preload/openmpi builds OpenMPI's Portals 4 components from it):
#   S4BXI_OPENMPI_SOURCE  where the unpacked tree goes (default
#                         /var/cache/s4bxi/openmpi-source/openmpi-<upstream version>,
#                         which is also CMake's default for the same variable)
#
# And it prepares Sandia OpenSHMEM (SOS) from the team's tarball, once, into a
# cache (shmem/ builds it against our libportals): unpacked and bootstrapped
# (./autogen.sh, which needs the autotools above). Without the tarball (a clone
# outside the team) it says so and goes on: the OpenSHMEM tests are skipped.
#   S4BXI_SOS_TARBALL     the tarball (default ../shared/thirdparty/SOS-1.5.3.tar.gz
#                         next to the repository)
#   S4BXI_SOS_SOURCE      where the bootstrapped tree goes (default
#                         /var/cache/s4bxi/sos-source/SOS-<version>, also CMake's default)
set -euo pipefail

packages=(
  build-essential    # gcc/g++, make, libc.a (the static-binary refusal test builds one)
  cmake
  pkg-config
  libsimgrid-dev     # the simulation kernel (S4U)
  libjemalloc-dev    # the server's allocator (docs/figures.md: 1,024 ranks)
  libdw-dev          # elfutils: reading the program's ELF/DWARF before launch
  libelf-dev
  libunwind-dev
  libgtest-dev       # GoogleTest
  gdb                # s4bxi-run --gdb (tests/e2e/test_debugger.cpp)
  tmux               # --gdb with several ranks: a window each
  libopenmpi-dev     # the stock MPI our Portals components plug into (with its devel headers)
  openmpi-bin        # mpicc, mpirun, ompi_info
  python3            # generates the MPI wrappers of libs4bxi-mpi-time.so from mpi.h (preload/mpi_hooks/)
  dpkg-dev           # dpkg-source, to unpack OpenMPI's source package
  debian-archive-keyring  # verifies the source indices fetched below
  # Real-world test programs: Debian's own prebuilt MPI binaries, run unmodified
  # by tests/e2e/test_mpi_debian.cpp
  netpipe-openmpi    # NPopenmpi: ping-pong integrity check and latencies
  hpcc               # HPC Challenge: HPL, PTRANS, RandomAccess, FFT, latency/bandwidth
  lammps             # lmp: molecular dynamics
  mumps-test         # MUMPS's dsimpletest: a sparse direct solve
  python3-mpi4py     # Python MPI programs (mpi4py over Debian's OpenMPI) and its mpi4py.bench
  autoconf           # SOS's ./autogen.sh (OpenSHMEM, shmem/)
  automake
  libtool
)
if [ "${1:-}" = "--plot" ]; then
  packages+=(gnuplot-nox)
fi

sudo=()
if [ "$(id -u)" -ne 0 ] && command -v sudo > /dev/null; then
  sudo=(sudo)
fi
as_root() {
  if [ "$(id -u)" -ne 0 ] && [ ${#sudo[@]} -eq 0 ]; then
    echo "install-deps: $1 needs root and sudo is missing; run this script as root" >&2
    exit 1
  fi
  shift
  "${sudo[@]}" "$@"
}

missing=()
for package in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$package")
  fi
done
export DEBIAN_FRONTEND=noninteractive
if [ ${#missing[@]} -gt 0 ]; then
  echo "install-deps: installing ${missing[*]}"
  as_root "installing ${missing[*]}" apt-get update -qq
  as_root "installing ${missing[*]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

# --- Sandia OpenSHMEM, bootstrapped once per tarball ---
# The stamp is the tarball's checksum: another tarball (another version, or
# the same name rebuilt) is prepared again, the same one never.
repository=$(cd "$(dirname "$0")/.." && pwd)
sos_tarball=${S4BXI_SOS_TARBALL:-$repository/../shared/thirdparty/SOS-1.5.3.tar.gz}
if [ ! -f "$sos_tarball" ]; then
  echo "install-deps: no SOS tarball at $sos_tarball: OpenSHMEM is not built and its tests are skipped"
else
  sos_name=$(basename "$sos_tarball" .tar.gz)
  sos_target=${S4BXI_SOS_SOURCE:-/var/cache/s4bxi/sos-source/$sos_name}
  sos_sum=$(sha256sum "$sos_tarball" | cut -d' ' -f1)
  if [ ! -f "$sos_target/.s4bxi-tarball-sha256" ] || [ "$(cat "$sos_target/.s4bxi-tarball-sha256")" != "$sos_sum" ]; then
    echo "install-deps: preparing $sos_name from $sos_tarball into $sos_target"
    started=$SECONDS
    as_root "preparing $sos_name" mkdir -p "$(dirname "$sos_target")"
    # Unpacked and bootstrapped beside the target, then moved in place whole,
    # so that an interrupted run never leaves a tree that looks complete.
    sos_work=$(as_root "preparing $sos_name" mktemp -d "$(dirname "$sos_target")/.prepare.XXXXXX")
    as_root "preparing $sos_name" tar -xzf "$sos_tarball" -C "$sos_work"
    if [ ! -x "$sos_work/$sos_name/autogen.sh" ]; then
      as_root cleaning rm -rf "$sos_work"
      echo "install-deps: $sos_tarball has no $sos_name/autogen.sh: not an SOS source tarball" >&2
      exit 1
    fi
    if ! as_root "preparing $sos_name" env -C "$sos_work/$sos_name" ./autogen.sh > "$sos_work/autogen.log" 2>&1; then
      echo "install-deps: $sos_name's ./autogen.sh failed (its output is in $sos_work/autogen.log)" >&2
      exit 1
    fi
    as_root "preparing $sos_name" rm -rf "$sos_target"
    as_root "preparing $sos_name" mv "$sos_work/$sos_name" "$sos_target"
    as_root cleaning rm -rf "$sos_work"
    echo "$sos_sum" | as_root "preparing $sos_name" tee "$sos_target/.s4bxi-tarball-sha256" > /dev/null
    echo "install-deps: $sos_name prepared in $sos_target ($((SECONDS - started)) s)"
  fi
fi

# --- OpenMPI's source package, for exactly the installed libopenmpi-dev ---
# The version must match the installed headers and libraries (same ABI), so the
# source version comes from dpkg, not from whatever the archive has newest.
read -r source_name source_version upstream_version < <(
  dpkg-query -W -f='${source:Package} ${source:Version} ${source:Upstream-Version}\n' libopenmpi-dev)
target=${S4BXI_OPENMPI_SOURCE:-/var/cache/s4bxi/openmpi-source/openmpi-$upstream_version}
stamp="$target/.s4bxi-source-version"
if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$source_name $source_version" ]; then
  exit 0
fi

# The system's sources stay untouched: a private sources list names the
# deb-src twins of the Debian archives apt already uses (found through
# apt-cache policy, so both sources formats and disabled entries are handled),
# with its own index directory and no binary package cache.
cache=/var/cache/s4bxi/openmpi-source/apt
origins() {
  apt-cache policy | awk '
    /^ *[0-9]+ [a-z+]+:\/\// { uri = $2; suite = $3; component = $3
                               sub(/\/[^\/]*$/, "", suite); sub(/.*\//, "", component); next }
    /^ +release / && uri != "" && /o=Debian,/ { print uri, suite, component; uri = "" }'
}
if [ -z "$(origins)" ]; then
  as_root "reading the package indices" apt-get update -qq  # e.g. a container whose lists were cleaned
fi
keyring=/usr/share/keyrings/debian-archive-keyring.gpg
list=$(origins | sort -u | awk -v keyring="$keyring" '{
    key[$1 " " $2] = key[$1 " " $2] " " $3 }
  END { for (k in key) { split(k, p, " "); print "deb-src [signed-by=" keyring "] " p[1] " " p[2] key[k] } }')
if [ -z "$list" ]; then
  echo "install-deps: apt knows no Debian archive to fetch the source of $source_name $source_version from; add one to /etc/apt/sources.list.d/" >&2
  exit 1
fi

echo "install-deps: fetching the source of $source_name $source_version into $target"
started=$SECONDS
as_root "fetching $source_name's source" mkdir -p "$cache/lists/partial" "$cache/sources.list.d" "$(dirname "$target")"
printf '%s\n' "$list" | as_root "fetching $source_name's source" tee "$cache/sources.list" > /dev/null
private=(
  -o "Dir::Etc::SourceList=$cache/sources.list"
  -o "Dir::Etc::SourceParts=$cache/sources.list.d"
  -o "Dir::State::Lists=$cache/lists"
  -o "Dir::Cache::pkgcache=" -o "Dir::Cache::srcpkgcache="
)
as_root "fetching $source_name's source" apt-get "${private[@]}" update -qq
# Downloaded and unpacked next to the target, then moved in place whole, so
# that an interrupted fetch never leaves a tree that looks complete. The
# directory belongs to apt's download user so that the download is sandboxed.
work=$(as_root "fetching $source_name's source" mktemp -d "$(dirname "$target")/.fetch.XXXXXX")
trap 'as_root cleaning rm -rf "$work"' EXIT
if getent passwd _apt > /dev/null; then
  as_root "fetching $source_name's source" chown _apt "$work"
fi
as_root "fetching $source_name's source" env -C "$work" apt-get "${private[@]}" source -qq "$source_name=$source_version"
as_root "fetching $source_name's source" rm -rf "$target"
as_root "fetching $source_name's source" mv "$work/$source_name-$upstream_version" "$target"
echo "$source_name $source_version" | as_root "fetching $source_name's source" tee "$stamp" > /dev/null
echo "install-deps: $source_name $source_version unpacked in $target ($((SECONDS - started)) s)"
