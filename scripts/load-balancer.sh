#!/usr/bin/env bash
# Three stateless replicas with one state key behind nginx (Debian's package), round robin:
# 2,000 calls and 50 suspensions whose retry lands on another replica; 0 lost, every
# suspension completed (toolnexus/tests/mcp/mcp_load_balancer.rs). Then three
# `examples/mcp_server` processes on one Redis (Debian's redis-server) behind another nginx
# server, with counts: a replayed approval runs once, 50 tasks polled through the balancer
# complete, and a replica killed with SIGKILL mid-run loses nothing silently
# (tests/readme_and_examples/examples.rs, `replicas_on_one_redis_behind_nginx_lose_nothing`),
# and plain calls/s through nginx to them against three replicas without Redis.
# Loopback only. Not in CI: it installs nginx and redis-server when missing (apt-get, as root).
set -euo pipefail
cd "$(dirname "$0")/.."

if ! command -v nginx >/dev/null || ! command -v redis-server >/dev/null; then
    apt-get update -qq && apt-get install -y -qq nginx redis-server >/dev/null
fi
free_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
lb=$(free_port); r1=$(free_port); r2=$(free_port); r3=$(free_port)
lb_redis=$(free_port); e1=$(free_port); e2=$(free_port); e3=$(free_port); redis_port=$(free_port)
lb_plain=$(free_port); p1=$(free_port); p2=$(free_port); p3=$(free_port)
dir=$(mktemp -d)
cat >"$dir/nginx.conf" <<CONF
worker_processes 1;
pid $dir/nginx.pid;
error_log $dir/error.log;
events {}
http {
    access_log $dir/access.log;
    client_body_temp_path $dir/body;
    proxy_temp_path $dir/proxy;
    upstream replicas {
        server 127.0.0.1:$r1;
        server 127.0.0.1:$r2;
        server 127.0.0.1:$r3;
        keepalive 16;
    }
    upstream redis_replicas {
        server 127.0.0.1:$e1;
        server 127.0.0.1:$e2;
        server 127.0.0.1:$e3;
        keepalive 16;
    }
    upstream plain_replicas {
        server 127.0.0.1:$p1;
        server 127.0.0.1:$p2;
        server 127.0.0.1:$p3;
        keepalive 16;
    }
    server {
        listen 127.0.0.1:$lb_plain;
        location / {
            proxy_pass http://plain_replicas;
            proxy_http_version 1.1;
            proxy_set_header Connection "";
            proxy_set_header Host \$host;
        }
    }
    server {
        listen 127.0.0.1:$lb_redis;
        location / {
            proxy_pass http://redis_replicas;
            proxy_http_version 1.1;
            proxy_set_header Connection "";
            proxy_set_header Host \$host;
        }
    }
    server {
        listen 127.0.0.1:$lb;
        location / {
            proxy_pass http://replicas;
            proxy_http_version 1.1;
            proxy_set_header Connection "";
            proxy_set_header Host \$host;
            # Event streams go through as they are written.
            proxy_buffering off;
        }
    }
}
CONF
pids=()
stop_all() {
    nginx -p "$dir" -c "$dir/nginx.conf" -s stop 2>/dev/null || true
    for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
    rm -rf "$dir"
}
trap stop_all EXIT
nginx -p "$dir" -c "$dir/nginx.conf"
TOOLNEXUS_LB_URL="http://127.0.0.1:$lb/mcp" TOOLNEXUS_LB_REPLICAS="$r1,$r2,$r3" \
    cargo test -p toolnexus --all-features --test mcp -- --ignored --nocapture mcp_load_balancer::

# The replicas on Redis: no persistence, a data dir of its own.
redis-server --bind 127.0.0.1 --port "$redis_port" --dir "$dir" --save '' --appendonly no \
    --logfile "$dir/redis.log" &
pids+=($!)
for _ in $(seq 1 100); do
    redis-cli -p "$redis_port" ping 2>/dev/null | grep -q PONG && break
    sleep 0.05
done
cargo build --examples --all-features
examples="${CARGO_TARGET_DIR:-target}/debug/examples"
for port in "$e1" "$e2" "$e3"; do
    MCP_STATE_KEY="the key every replica is given, 32 bytes or more" \
        MCP_REDIS_URL="redis://127.0.0.1:$redis_port/" MCP_TASK_AFTER_MS=0 \
        MCP_TASK_LEASE_MS=1500 "$examples/mcp_server" --http "127.0.0.1:$port" --stateless \
        2>>"$dir/replicas.log" &
    pids+=($!)
done
# The same replicas without Redis, for the calls/s comparison.
for port in "$p1" "$p2" "$p3"; do
    MCP_STATE_KEY="the key every replica is given, 32 bytes or more" \
        "$examples/mcp_server" --http "127.0.0.1:$port" --stateless 2>>"$dir/replicas.log" &
    pids+=($!)
done
for port in "$e1" "$e2" "$e3" "$p1" "$p2" "$p3"; do
    for _ in $(seq 1 100); do
        (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null && break
        sleep 0.05
    done
done
TOOLNEXUS_LB_REDIS_ADDR="127.0.0.1:$lb_redis" TOOLNEXUS_LB_REDIS_VICTIM="${pids[3]}" \
    TOOLNEXUS_LB_PLAIN_ADDR="127.0.0.1:$lb_plain" \
    cargo test -p toolnexus-tests --all-features --test readme_and_examples -- --ignored \
    --nocapture replicas_on_one_redis_behind_nginx_lose_nothing
