#!/usr/bin/env bash
# Instructions a remote call costs in the calling process: McpTools (Toolkit::execute of a
# remote tool) against rmcp's own client (peer.call_tool) calling the same stdio server
# (toolnexus/tests/fixtures/fake_mcp_server.py, tool `pid`). Counted by callgrind in the
# client process only (the server is a child, not traced). Each side runs with N and 2N
# calls; (count(2N) - count(N)) / N is its cost per call, without the server's start and the
# handshake. Needs valgrind and python3. Not part of CI:
#
#     bash scripts/callgrind-mcp-client.sh [N]     # N = 200 by default
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
N="${1:-200}"
cd "$ROOT"
bench=$(cargo bench -p toolnexus --features mcp-client --bench mcp_client --no-run --message-format=json 2>/dev/null |
    sed -n 's/.*"executable":"\([^"]*\)".*/\1/p' | tail -1)
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

count() { # mode calls
    TOOLNEXUS_BENCH_MODE=$1 TOOLNEXUS_BENCH_CALLS=$2 \
        valgrind --tool=callgrind --callgrind-out-file="$out/$1-$2" "$bench" >/dev/null 2>&1
    sed -n 's/^totals: \([0-9]*\).*/\1/p' "$out/$1-$2"
}

echo "instructions per remote call in the client ($N more calls, $(rustc --version), bench profile):"
declare -A per
for mode in rmcp ours; do
    one=$(count "$mode" "$N")
    two=$(count "$mode" $((2 * N)))
    per[$mode]=$(( (two - one) / N ))
    printf "  %-5s %8d\n" "$mode" "${per[$mode]}"
done
awk -v o="${per[ours]}" -v r="${per[rmcp]}" 'BEGIN { printf "  ours / rmcp: %.2fx\n", o / r }'
