#!/usr/bin/env bash
# Start-up soak (issue 18): many short jobs whose time is nearly all start-up
# and teardown, on a machine loaded by CPU hogs, counting the start-ups that
# hang or fail. The programs: an MPI ring (bench/mpi_ring.c: MPI_Init's PMI
# bootstrap through libs4bxi-pmi.so, a few messages, MPI_Finalize), and two
# Portals programs that bootstrap through PMI-1 themselves
# (tests/e2e/programs/pmi_bootstrap.c; pmi_while_parked.c, whose ranks sleep in
# the kernel past s4bxi/park-after before each PMI exchange), each at several
# rank counts. The issue's target: 0 hangs in 300 start-ups.
# Not a test: it runs for minutes and its times depend on the machine. A run
# that passes the wall-clock limit gets SIGTERM (then SIGKILL 10 s later) and
# counts as a hang; a non-zero exit, or a job that did not print its
# success line(s), counts as a failure. Either keeps its stderr (last lines),
# stdout and report in the log directory, whose path is printed. "noted"
# counts runs in which the server printed a stall note (it waited 10 s or
# more for a rank): slow start-ups that did end; their logs are kept too.
# Usage: tools/soak-startup.sh [--runs N] [--hogs K] [--ranks "2 8 32"]
#          [--limit SECONDS] [--keep-going] [--cfg=NAME:VALUE...]
#   --runs N      runs per configuration (default: 300 in all, shared out)
#   --hogs K      CPU hogs (sh busy loops) beside the jobs (default 2)
#   --ranks LIST  rank counts (default "2 8 32"; 32 fit the default platform's
#                 2 nodes of 16 cores, more get a two-level fat tree)
#   --limit S     wall-clock limit of one run (default 120)
#   --keep-going  go on after a hang or failure (default: stop at the first)
#   --cfg=...     passed to every run, e.g. --cfg=s4bxi/park-after:0.001
# Exit status: 0 when no run hung or failed, 1 otherwise, 2 for a usage error.
set -euo pipefail
cd "$(dirname "$0")/.."

runs=0 hogs=2 limit=120 keep_going=no
ranks_list=(2 8 32)
options=()
usage() { sed -n 's/^# \{0,1\}//; /^Usage:/,/^Exit status/p' "$0" >&2; exit 2; }
while [ $# -gt 0 ]; do
  case "$1" in
    --runs) runs=${2:?}; shift ;;
    --runs=*) runs=${1#*=} ;;
    --hogs) hogs=${2:?}; shift ;;
    --hogs=*) hogs=${1#*=} ;;
    --ranks) read -ra ranks_list <<< "${2:?}"; shift ;;
    --ranks=*) read -ra ranks_list <<< "${1#*=}" ;;
    --limit) limit=${2:?}; shift ;;
    --limit=*) limit=${1#*=} ;;
    --keep-going) keep_going=yes ;;
    --cfg=*) options+=("$1") ;;
    -h|--help) usage ;;
    *) echo "soak-startup.sh: unknown argument '$1'" >&2; usage ;;
  esac
  shift
done
for number in "$runs" "$hogs" "$limit" "${ranks_list[@]}"; do
  [[ "$number" =~ ^[0-9]+$ ]] || { echo "soak-startup.sh: '$number' is not a whole number" >&2; exit 2; }
done

cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo > /dev/null
cmake --build build -j"$(nproc)" --target s4bxi-run e2e_pmi_bootstrap e2e_pmi_while_parked > /dev/null
# The MPI ring needs Debian's OpenMPI and our build of its Portals components.
programs=()
if cmake --build build -j"$(nproc)" --target mpi_ring > /dev/null 2>&1 && [ -x build/bench/mpi_ring ]; then
  programs+=(mpi_ring)
else
  echo "soak-startup.sh: no MPI ring (OpenMPI or its Portals components not built): Portals programs only"
fi
programs+=(pmi_bootstrap pmi_while_parked)
run=build/bin/s4bxi-run

# What a program is run with, and how many of its lines say it succeeded.
command_of() {
  case "$1" in
    mpi_ring) echo "build/bench/mpi_ring 3" ;;
    pmi_bootstrap) echo "build/tests/programs/pmi_bootstrap" ;;
    # Three rounds, 60 ms asleep in the kernel before each exchange: past the
    # default park-after (40 ms), so every rank is parked at each one.
    pmi_while_parked) echo "build/tests/programs/pmi_while_parked 3 60" ;;
  esac
}
successes_expected() { [ "$1" = mpi_ring ] && echo 1 || echo "$2"; }
success_pattern() { [ "$1" = mpi_ring ] && echo "all values right" || echo "all checks passed"; }
# Beyond the default platform's 32 cores: one rank per node of a fat tree.
platform_of() {
  local ranks=$1 k=2
  [ "$ranks" -gt 32 ] || return 0
  while [ $((k * k)) -lt "$ranks" ]; do k=$((k * 2)); done
  echo "--platform=fattree:2;$k,$k;1,$k;1,1"
}

configs=()
for program in "${programs[@]}"; do
  for ranks in "${ranks_list[@]}"; do configs+=("$program:$ranks"); done
done
# Runs per configuration: --runs, or 300 in all shared out (the first ones get
# one more when 300 does not divide).
declare -A planned
for i in "${!configs[@]}"; do
  if [ "$runs" -gt 0 ]; then
    planned[${configs[$i]}]=$runs
  else
    planned[${configs[$i]}]=$((300 / ${#configs[@]} + (i < 300 % ${#configs[@]} ? 1 : 0)))
  fi
done
rounds=0
for config in "${configs[@]}"; do [ "${planned[$config]}" -le "$rounds" ] || rounds=${planned[$config]}; done

work=$(mktemp -d /tmp/s4bxi-soak.XXXXXX)
mkfifo "$work/never"
logs=$(mktemp -d /tmp/s4bxi-soak-logs.XXXXXX)
hog_pids=()
current="" watcher=""
cleanup() {
  # The job in progress (timeout passes SIGTERM on to the launcher, which
  # stops its ranks), then the hogs.
  if [ -n "$current" ] && kill -0 "$current" 2> /dev/null; then
    kill -TERM "$current" 2> /dev/null || true
    wait "$current" 2> /dev/null || true
  fi
  [ -z "$watcher" ] || kill "$watcher" 2> /dev/null || true
  for pid in "${hog_pids[@]}"; do kill "$pid" 2> /dev/null || true; done
  for pid in "${hog_pids[@]}"; do wait "$pid" 2> /dev/null || true; done
  rm -rf "$work"
  rmdir "$logs" 2> /dev/null || true
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
for _ in $(seq "$hogs"); do
  sh -c 'while :; do :; done' &
  hog_pids+=($!)
done

now() { date +%s.%N; }
# What every process and thread of a job does (the timeout command leads its
# own process group): state, kernel wait channel, system call, and for a rank
# its PMI_RANK; taken just before the limit, to say where a hung job is stuck.
snapshot() {
  local group=$1 pid task rank
  echo "--- processes of the job at $(date -Is), just before the limit"
  for pid in $(ps -e -o pid=,pgid= | awk -v g="$group" '$2 == g { print $1 }'); do
    rank=$({ tr '\0' '\n' < "/proc/$pid/environ"; } 2> /dev/null | sed -n 's/^PMI_RANK=//p')
    echo "pid $pid${rank:+ (rank $rank)}: $(ps -o stat=,etime=,time=,args= -p "$pid" | cut -c1-160)"
    for task in /proc/"$pid"/task/*; do
      [ -d "$task" ] || continue
      echo "  thread ${task##*/} $(cut -d' ' -f3 "$task/stat" 2> /dev/null) in $(cat "$task/wchan" 2> /dev/null)," \
        "syscall $(cut -d' ' -f1-3 "$task/syscall" 2> /dev/null)"
    done
  done
}
# Median and maximum of a column of seconds ("-" for none).
median() { sort -g | awk '{ v[NR] = $1 } END { if (NR == 0) print "-"; else printf "%.3f\n", (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
maximum() { sort -g | awk '{ v = $1 } END { if (NR == 0) print "-"; else printf "%.3f\n", v }'; }

declare -A done_runs ok failed hung noted
for config in "${configs[@]}"; do
  done_runs[$config]=0 ok[$config]=0 failed[$config]=0 hung[$config]=0 noted[$config]=0
  : > "$work/times-${config/:/-}"
done
echo "start-up soak: ${#configs[@]} configurations (${configs[*]}), $rounds rounds at most, $hogs CPU hogs," \
  "limit ${limit} s per run, $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg)${options[*]:+, options ${options[*]}}"
echo "logs of hung, failed or noted runs go to $logs"

# One run of a configuration; keeps its log when it went wrong or was slow.
soak_one() {
  local config=$1 index=$2 program=${1%:*} ranks=${1#*:}
  local platform; platform=$(platform_of "$ranks")
  local program_and_args; read -ra program_and_args <<< "$(command_of "$program")"
  local command=("$run" -n "$ranks" ${platform:+"$platform"} "${options[@]}" --report "$work/report.json" "${program_and_args[@]}")
  local start end status=0
  rm -f "$work/report.json"
  start=$(now)
  # In the background, so that a signal to this script is handled at once.
  timeout --verbose -s TERM -k 10 "$limit" "${command[@]}" > "$work/out" 2> "$work/err" &
  current=$!
  # A watcher that takes the snapshot a second before the limit: read times
  # out on a FIFO that never delivers (a builtin: no process to leave behind).
  rm -f "$work/snapshot"
  (read -rt "$((limit > 1 ? limit - 1 : 1))" <> "$work/never" || snapshot "$current" > "$work/snapshot") &
  watcher=$!
  wait "$current" || status=$?
  current=""
  kill "$watcher" 2> /dev/null || true
  wait "$watcher" 2> /dev/null || true
  end=$(now)
  local seconds; seconds=$(awk -v s="$start" -v e="$end" 'BEGIN { printf "%.3f", e - s }')
  local verdict=ok
  # timeout's status after its SIGTERM (124), or after its SIGKILL (137).
  if { [ "$status" -eq 124 ] || [ "$status" -eq 137 ]; } && awk -v s="$seconds" -v l="$limit" 'BEGIN { exit !(s >= l) }'; then
    verdict=hung
  elif [ "$status" -ne 0 ]; then
    verdict=failed
  elif [ "$(grep -c "$(success_pattern "$program")" "$work/out")" -ne "$(successes_expected "$program" "$ranks")" ]; then
    verdict=failed # exit 0 without every success line
  fi
  done_runs[$config]=$((done_runs[$config] + 1))
  local note=no
  grep -q '^s4bxi-run: note:' "$work/err" && note=yes && noted[$config]=$((noted[$config] + 1))
  case "$verdict" in
    ok) ok[$config]=$((ok[$config] + 1)); echo "$seconds" >> "$work/times-${config/:/-}" ;;
    failed) failed[$config]=$((failed[$config] + 1)) ;;
    hung) hung[$config]=$((hung[$config] + 1)) ;;
  esac
  if [ "$verdict" != ok ] || [ "$note" = yes ]; then
    local log="$logs/${program}-${ranks}-run${index}-${verdict}.log"
    {
      echo "command: ${command[*]}"
      echo "verdict: $verdict, exit status $status, wall time $seconds s, $(date -Is), load average $(cut -d' ' -f1-3 /proc/loadavg)"
      echo "--- stderr (last 200 lines)"; tail -n 200 "$work/err"
      echo "--- stdout (last 50 lines)"; tail -n 50 "$work/out"
      [ "$verdict" != hung ] || cat "$work/snapshot" 2> /dev/null || true
    } > "$log"
    [ -f "$work/report.json" ] && cp "$work/report.json" "${log%.log}.report.json"
    local noted_text=""; [ "$note" = no ] || noted_text=", with a stall note"
    echo "  $config run $index: $verdict (exit status $status, $seconds s$noted_text): $log"
  fi
  [ "$verdict" = ok ]
}

soak_start=$(now)
stopped=no
for round in $(seq "$rounds"); do
  for config in "${configs[@]}"; do
    [ "$round" -le "${planned[$config]}" ] || continue
    if ! soak_one "$config" "$round" && [ "$keep_going" = no ]; then
      stopped=yes
      break 2
    fi
  done
  total=0 bad=0
  for config in "${configs[@]}"; do
    total=$((total + done_runs[$config])) bad=$((bad + failed[$config] + hung[$config]))
  done
  # One progress line every 5 rounds (and the last).
  if [ $((round % 5)) -eq 0 ] || [ "$round" -eq "$rounds" ]; then
    awk -v r="$round" -v n="$rounds" -v t="$total" -v b="$bad" -v s="$soak_start" -v e="$(now)" \
      'BEGIN { printf "  round %d/%d: %d start-ups, %d hung or failed, %.0f s\n", r, n, t, b, e - s }'
  fi
done
[ "$stopped" = no ] || echo "stopped at the first hang or failure (--keep-going goes on)"

printf "%-22s %6s %6s %7s %6s %6s %10s %10s\n" configuration runs ok failed hung noted "median s" "max s"
: > "$work/times-all"
all_runs=0 all_ok=0 all_failed=0 all_hung=0 all_noted=0
for config in "${configs[@]}"; do
  times="$work/times-${config/:/-}"
  cat "$times" >> "$work/times-all"
  printf "%-22s %6d %6d %7d %6d %6d %10s %10s\n" "${config%:*} x${config#*:}" "${done_runs[$config]}" \
    "${ok[$config]}" "${failed[$config]}" "${hung[$config]}" "${noted[$config]}" \
    "$(median < "$times")" "$(maximum < "$times")"
  all_runs=$((all_runs + done_runs[$config])) all_ok=$((all_ok + ok[$config]))
  all_failed=$((all_failed + failed[$config])) all_hung=$((all_hung + hung[$config]))
  all_noted=$((all_noted + noted[$config]))
done
printf "%-22s %6d %6d %7d %6d %6d %10s %10s\n" total "$all_runs" "$all_ok" "$all_failed" "$all_hung" "$all_noted" \
  "$(median < "$work/times-all")" "$(maximum < "$work/times-all")"
awk -v s="$soak_start" -v e="$(now)" 'BEGIN { printf "(median and max over the runs that succeeded; soak took %.0f s)\n", e - s }'
if [ -n "$(ls -A "$logs")" ]; then echo "logs kept in $logs"; fi
[ "$all_failed" -eq 0 ] && [ "$all_hung" -eq 0 ]
