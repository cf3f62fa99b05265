#!/usr/bin/env bash
# Instructions per call of every routine of the `execute` bench (toolnexus/benches/execute.rs),
# counted by callgrind: repeatable to the instruction, where wall-clock time on a shared
# machine swings ±50%. The numbers are in toolnexus/benches/README.md. Needs valgrind. Not
# part of CI:
#
#     bash scripts/callgrind-execute.sh            # every routine, 100,000 calls each
#     bash scripts/callgrind-execute.sh tool_execute floor_from_value
#     CODEGEN_UNITS=1 bash scripts/callgrind-execute.sh   # also with one codegen unit
#
# The bench profile is the default release profile, as users build it (SPEC §9). With
# CODEGEN_UNITS=N the bench is built with that many codegen units instead, in its own target
# directory (target/cgu-N), so the two builds do not evict each other.
#
# Each routine runs in its own process; callgrind counts only `measured_loop` (the calls and
# the drop of their results, not making their inputs), and the count is divided by the calls.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
CALLS=100000
ROUTINES=("$@")
if [[ ${#ROUTINES[@]} -eq 0 ]]; then
    ROUTINES=(floor_from_value floor_boxed tool_execute toolkit_execute
        floor_from_str str_via_value tool_execute_json toolkit_execute_json
        limited_tool_execute limited_tool_execute_json
        error_floor_from_value error_tool_execute error_floor_from_str error_toolkit_execute_json
        nested_floor_from_value nested_tool_execute nested_floor_from_str nested_tool_execute_json
        paid_floor_from_str paid_tool_execute_json
        ints_floor_from_str ints_toolkit_execute_json capped_toolkit_execute_json
        ints_floor_from_value ints_toolkit_execute capped_toolkit_execute)
fi

cd "$ROOT"
units="default"
if [[ -n "${CODEGEN_UNITS:-}" ]]; then
    units="$CODEGEN_UNITS"
    export CARGO_PROFILE_BENCH_CODEGEN_UNITS="$CODEGEN_UNITS"
    export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$ROOT/target/cgu-$CODEGEN_UNITS}"
fi
bench=$(cargo bench -p toolnexus --bench execute --no-run --message-format=json 2>/dev/null |
    sed -n 's/.*"executable":"\([^"]*\)".*/\1/p' | tail -1)
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

echo "instructions per call ($CALLS calls, $(rustc --version), bench profile: release, codegen-units = $units):"
for routine in "${ROUTINES[@]}"; do
    TOOLNEXUS_BENCH_CALLS=$CALLS TOOLNEXUS_BENCH_ROUTINE=$routine \
        valgrind --tool=callgrind --callgrind-out-file="$out/$routine" \
        --toggle-collect='execute::measured_loop*' "$bench" >/dev/null 2>&1
    total=$(sed -n 's/^totals: \([0-9]*\).*/\1/p' "$out/$routine")
    awk -v r="$routine" -v t="$total" -v n="$CALLS" 'BEGIN { printf "  %-28s %8.0f\n", r, t / n }'
done
