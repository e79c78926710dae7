#!/usr/bin/env bash
# GPU harness for the CUDA lowering (LEIR.md §10.3). On a machine with nvcc and a GPU:
#   tools/cuda_check.sh [TASKS.jsonl ...]      (default: tests/lower/golden/tasks.jsonl tests/lower/c_tasks.jsonl)
# For every task: lower to CUDA, compile with nvcc into a shared object (cached), run it in the sandboxed runner on
# the LEIR.md §11 seeded inputs (3 seeds x N/U) and compare every output element with the interpreter.
# One JSON line per task; exit status 1 if any task fails. Set STEPTP (the steptp binary) and NVCC if needed.
set -uo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
steptp="${STEPTP:-$here/build/steptp}"
files=("$@")
[ ${#files[@]} -eq 0 ] && files=("$here/tests/lower/golden/tasks.jsonl" "$here/tests/lower/c_tasks.jsonl")
tmp="$(mktemp -d)"; trap 'rm -rf "$tmp"' EXIT
fail=0; n=0
for f in "${files[@]}"; do
  while IFS= read -r line; do
    [ -z "$line" ] && continue
    n=$((n+1)); echo "$line" > "$tmp/task.json"
    name="$(python3 -c 'import json,sys; print(json.load(sys.stdin)["workload"])' < "$tmp/task.json" 2>/dev/null || echo "task$n")"
    out="$("$steptp" lower --target cuda --check "$tmp/task.json" 2>&1)"; rc=$?
    echo "$name: $out"
    [ $rc -ne 0 ] && fail=$((fail+1))
  done < "$f"
done
echo "cuda_check: $((n-fail))/$n tasks match the interpreter"
[ $fail -eq 0 ]
