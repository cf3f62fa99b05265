#!/usr/bin/env bash
# Three stateless replicas with one state key behind nginx (Debian's package), round robin:
# 2,000 calls and 50 suspensions whose retry lands on another replica; 0 lost, every
# suspension completed (toolnexus/tests/mcp/mcp_load_balancer.rs). Loopback only. Not in CI: it
# installs nginx when missing (apt-get, as root).
set -euo pipefail
cd "$(dirname "$0")/.."

if ! command -v nginx >/dev/null; then
    apt-get update -qq && apt-get install -y -qq nginx >/dev/null
fi
free_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
lb=$(free_port); r1=$(free_port); r2=$(free_port); r3=$(free_port)
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
nginx -p "$dir" -c "$dir/nginx.conf"
trap 'nginx -p "$dir" -c "$dir/nginx.conf" -s stop; rm -rf "$dir"' EXIT
TOOLNEXUS_LB_URL="http://127.0.0.1:$lb/mcp" TOOLNEXUS_LB_REPLICAS="$r1,$r2,$r3" \
    cargo test -p toolnexus --all-features --test mcp -- --ignored --nocapture mcp_load_balancer::
