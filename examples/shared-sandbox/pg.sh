#!/usr/bin/env bash
# A throwaway PostgreSQL cluster in a run directory, from the machine's own binaries (initdb,
# pg_ctl under /usr/lib/postgresql/*/bin or on PATH): `pg.sh init RUN_DIR` creates and starts it
# on a free loopback port and prints its URL; `pg.sh stop RUN_DIR` / `pg.sh start RUN_DIR` stop
# and start it again (what a database outage looks like); `pg.sh destroy RUN_DIR` stops it.
# As root, initdb refuses to run: the cluster then runs as the `postgres` user.
set -euo pipefail

command=${1:?usage: pg.sh init|start|stop|destroy RUN_DIR}
run_dir=${2:?usage: pg.sh init|start|stop|destroy RUN_DIR}
pg_dir="$run_dir/postgres"

find_bin() {
  local dir
  for dir in $(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -t/ -k5 -rn); do
    if [[ -x "$dir/initdb" && -x "$dir/pg_ctl" ]]; then echo "$dir"; return; fi
  done
  if command -v initdb >/dev/null 2>&1; then dirname "$(command -v initdb)"; return; fi
  echo "pg.sh: no PostgreSQL binaries (initdb, pg_ctl) under /usr/lib/postgresql/*/bin or on PATH; install PostgreSQL 14+ or give DATABASE_URL" >&2
  exit 3
}

as_owner() {
  if [[ $(id -u) -eq 0 ]]; then runuser -u postgres -- "$@"; else "$@"; fi
}

free_port() {
  node -e "const s=require('net').createServer().listen(0,'127.0.0.1',()=>{console.log(s.address().port);s.close()})"
}

pg_start() {
  local port bin
  port=$(cat "$pg_dir/port")
  bin=$(cat "$pg_dir/bin")
  as_owner "$bin/pg_ctl" -D "$pg_dir/data" -l "$pg_dir/server.log" -w -t 60 \
    -o "-c listen_addresses=127.0.0.1 -c port=$port -c unix_socket_directories=$pg_dir -c max_connections=100" start >/dev/null
}

pg_stop() {
  [[ -f "$pg_dir/data/postmaster.pid" ]] || return 0
  as_owner "$(cat "$pg_dir/bin")/pg_ctl" -D "$pg_dir/data" -w -t 60 -m fast stop >/dev/null
}

case "$command" in
  init)
    bin=$(find_bin)
    mkdir -p "$pg_dir"
    if [[ $(id -u) -eq 0 ]]; then
      chmod 755 "$run_dir"
      chown postgres: "$pg_dir"
    fi
    echo "$bin" >"$pg_dir/bin"
    free_port >"$pg_dir/port"
    as_owner "$bin/initdb" -D "$pg_dir/data" -U postgres --auth=trust --encoding=UTF8 --no-locale >"$pg_dir/initdb.log"
    pg_start
    echo "postgres://postgres@127.0.0.1:$(cat "$pg_dir/port")/postgres"
    ;;
  start) pg_start ;;
  stop) pg_stop ;;
  destroy) pg_stop ;;
  *) echo "usage: pg.sh init|start|stop|destroy RUN_DIR" >&2; exit 2 ;;
esac
