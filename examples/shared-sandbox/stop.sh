#!/usr/bin/env bash
# Stops a shared sandbox started by start.sh: `stop.sh RUN_DIR` sends its start.sh SIGTERM and waits.
set -euo pipefail
run_dir=${1:?usage: stop.sh RUN_DIR}
pid=$(cat "$run_dir/start.pid" 2>/dev/null) || { echo "stop.sh: nothing running in $run_dir" >&2; exit 0; }
kill -TERM "$pid"
for _ in $(seq 1 300); do kill -0 "$pid" 2>/dev/null || exit 0; sleep 0.1; done
echo "stop.sh: start.sh ($pid) still running after 30 s" >&2
exit 1
