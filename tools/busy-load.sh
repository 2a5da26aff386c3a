# Sourced by the benchmark scripts that measure on a machine with other load:
# N busy processes beside the runs, started and stopped by the script, so that
# "other load" is the same from one use to the next. One takes half of a
# 2-core machine; as many as cores leave the job a third of the machine.
busy_pids=()

# start_busy_processes N
start_busy_processes() {
  local i
  for ((i = 0; i < $1; ++i)); do
    sh -c 'while :; do :; done' &
    busy_pids+=($!)
  done
}

stop_busy_processes() {
  [ ${#busy_pids[@]} -eq 0 ] || kill "${busy_pids[@]}" 2> /dev/null || true
  busy_pids=()
}
