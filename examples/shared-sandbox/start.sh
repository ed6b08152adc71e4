#!/usr/bin/env bash
# One shared sandbox behind a real load balancer: PostgreSQL, three `lnpr serve --database-url`
# replicas and nginx (round-robin) in front, all in one run directory. Prints the balancer's URL
# and runs until Ctrl-C / SIGTERM (or `stop.sh RUN_DIR`), then stops everything it started.
#
# Environment (all optional):
#   DATABASE_URL   an existing PostgreSQL 14+ database (default: a throwaway cluster, see pg.sh)
#   BALANCER_PORT  nginx's port on 127.0.0.1 (default 8787)
#   REPLICAS       how many replicas (default 3)
#   RUN_DIR        where configs, pids and logs go (default: a new directory under /tmp)
#   PUBLIC_URL     the URL clients use (default http://127.0.0.1:BALANCER_PORT): links and the
#                  relay's URL in nwcUrl point there, so everything goes through the balancer
#   LNPR           how to run the CLI (default: this checkout's, `node --import tsx src/cli/main.ts`)
#   LNPR_SERVE_ARGS  more `lnpr serve` flags for every replica (e.g. "--config accounts.json")
#   NGINX          the nginx binary (default: nginx on PATH, or /usr/sbin/nginx)
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
balancer_port=${BALANCER_PORT:-8787}
replicas=${REPLICAS:-3}
run_dir=${RUN_DIR:-$(mktemp -d /tmp/lnpr-shared-sandbox.XXXXXX)}
mkdir -p "$run_dir"
run_dir=$(cd "$run_dir" && pwd)
public_url=${PUBLIC_URL:-http://127.0.0.1:$balancer_port}
lnpr=${LNPR:-node --import tsx $root/src/cli/main.ts}
nginx=${NGINX:-$(command -v nginx || echo /usr/sbin/nginx)}
[[ -x "$nginx" ]] || { echo "start.sh: no nginx (looked for $nginx); install it or set NGINX" >&2; exit 3; }

echo $$ >"$run_dir/start.pid"
stopping=0
own_database=0
supervisors=()
nginx_pid=

stop_all() {
  stopping=1
  trap - INT TERM EXIT
  echo "stopping (run directory $run_dir)" >&2
  [[ -n "$nginx_pid" ]] && kill -QUIT "$nginx_pid" 2>/dev/null || true
  # Each supervisor passes SIGTERM on to its replica: in-flight requests finish, writes flush.
  for pid in "${supervisors[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
  for pid in "${supervisors[@]}"; do wait "$pid" 2>/dev/null || true; done
  [[ -n "$nginx_pid" ]] && wait "$nginx_pid" 2>/dev/null || true
  if [[ $own_database -eq 1 ]]; then "$here/pg.sh" destroy "$run_dir" || true; fi
  rm -f "$run_dir/start.pid"
  exit 0
}
trap stop_all INT TERM EXIT

free_port() {
  node -e "const s=require('net').createServer().listen(0,'127.0.0.1',()=>{console.log(s.address().port);s.close()})"
}

# 1. PostgreSQL.
if [[ -z "${DATABASE_URL:-}" ]]; then
  own_database=1
  DATABASE_URL=$("$here/pg.sh" init "$run_dir")
fi

# 2. The replicas, each under a small supervisor that starts it again when it ends: a replica whose
#    accounts were taken over while it could not reach the database exits 75; a killed one comes back too.
supervise() {
  local index=$1 port=$2 child=
  # SIGTERM lets the replica finish its requests and flush; one still running 20 s later is killed.
  trap 'stop_replica; exit 0' TERM INT
  stop_replica() {
    [[ -n "$child" ]] || return 0
    kill -TERM "$child" 2>/dev/null || true
    for _ in $(seq 1 200); do kill -0 "$child" 2>/dev/null || break; sleep 0.1; done
    kill -KILL "$child" 2>/dev/null || true
    wait "$child" 2>/dev/null || true
  }
  while true; do
    # shellcheck disable=SC2086 # $lnpr and LNPR_SERVE_ARGS are word lists on purpose.
    (cd "$root" && exec $lnpr serve --host 127.0.0.1 --port "$port" \
      --database-url "$DATABASE_URL" --advertise-url "http://127.0.0.1:$port" \
      --trust-proxy 127.0.0.1 --public-url "$public_url" --log-level warn ${LNPR_SERVE_ARGS:-}) \
      >>"$run_dir/replica-$index.log" 2>&1 &
    child=$!
    echo "$child" >"$run_dir/replica-$index.pid"
    local code=0
    wait "$child" || code=$?
    child=
    echo "supervisor: replica $index exited ($code) at $(date -u +%FT%TZ); starting it again" >>"$run_dir/replica-$index.log"
    sleep 0.5
  done
}

upstreams=""
for index in $(seq 1 "$replicas"); do
  port=$(free_port)
  echo "$port" >"$run_dir/replica-$index.port"
  # awk -v turns the \n into a newline.
  upstreams+="        server 127.0.0.1:$port;\\n"
  supervise "$index" "$port" &
  supervisors+=($!)
done

# 3. nginx, from the template, in the foreground (as a child of this script).
mkdir -p "$run_dir/nginx"
user_line=""
[[ $(id -u) -eq 0 ]] && user_line="user root;"
upstreams=${upstreams%\\n}
awk -v run="$run_dir" -v port="$balancer_port" -v user="$user_line" -v servers="$upstreams" '
  { gsub(/@RUN_DIR@/, run); gsub(/@BALANCER_PORT@/, port); gsub(/@USER_LINE@/, user); gsub(/@UPSTREAM_SERVERS@/, servers); print }
' "$here/nginx.conf.template" >"$run_dir/nginx/nginx.conf"
"$nginx" -t -q -p "$run_dir/nginx" -e "$run_dir/nginx/error.log" -c "$run_dir/nginx/nginx.conf"
"$nginx" -p "$run_dir/nginx" -e "$run_dir/nginx/error.log" -c "$run_dir/nginx/nginx.conf" &
nginx_pid=$!

# 4. Ready when the sandbox answers through the balancer.
for _ in $(seq 1 300); do
  if curl -fsS -o /dev/null "http://127.0.0.1:$balancer_port/healthz" 2>/dev/null; then
    cat <<INFO
lnpr shared sandbox: $replicas replicas on PostgreSQL behind nginx
  balancer: http://127.0.0.1:$balancer_port   (public URL: $public_url)
  relay (NWC): ${public_url/http/ws}/nostr
  replicas: $(for index in $(seq 1 "$replicas"); do printf 'http://127.0.0.1:%s ' "$(cat "$run_dir/replica-$index.port")"; done)
  database: $(sed -E 's#(//[^:/@]+):[^@]*@#\1:***@#' <<<"$DATABASE_URL")
  run directory: $run_dir (replica-N.log, nginx/, postgres/)
  stop: Ctrl-C, or $here/stop.sh $run_dir
INFO
    echo "ready"
    wait "$nginx_pid" || true
    echo "start.sh: nginx ended; stopping the rest" >&2
    stop_all
  fi
  if ! kill -0 "$nginx_pid" 2>/dev/null; then echo "start.sh: nginx did not start; see $run_dir/nginx/error.log" >&2; exit 1; fi
  sleep 0.2
done
echo "start.sh: the sandbox did not answer through the balancer within 60 s; see $run_dir/replica-*.log" >&2
exit 1
