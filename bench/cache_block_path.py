#!/usr/bin/env python3
"""Register blocking reached by strategy steps: one fixed path on GEMM 512^3, each step timed against the root.

The path (candidate ids of `steptp apply`) goes from the naive Square_matrix_multiplication to a register-blocked
kernel: loop_tiling (8 x 16), three loop_reorder swaps that put the reduction loop c outside the 8 x 32 block,
cache_read_write (write, scope l, attach depth 2: the block accumulates in a local cache) and loop_unrolling of the
block's rows. After each step the program is checked equivalent to the root (`steptp equiv`) and timed interleaved
against it (`steptp measure ROOT --compare STEP`, ABBA). The anchors in the same run: PyTorch eager at the same
thread count (bench/pytorch_eager.py, Debian's python3-torch) and OpenBLAS `cblas_sgemm`, as `steptp search`
times it for its library baseline (a one-measurement search of the root).

Usage: python3 bench/cache_block_path.py [--steptp build/steptp] [--out DIR] [--repeats N]
Prints a markdown table on stdout; step tasks go to DIR (default /tmp/cache_block_path).
"""
import argparse
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
PATH = [
    "loop_tiling@0/l0{fx0=8,fy0=16}",
    "loop_reorder@0{p=0,q=2}",
    "loop_reorder@0{p=2,q=4}",
    "loop_reorder@0{p=3,q=4}",
    'cache_read_write@0/s0{variant=write,access="D^{f32,g}_{d*64+tx,f*32+a}",scope=l,d=2}',
    "loop_unrolling@0.0/l1",
]


def run(cmd, **kw):
    r = subprocess.run(cmd, capture_output=True, text=True, **kw)
    if r.returncode != 0:
        sys.exit(f"cache_block_path: {' '.join(cmd)} failed ({r.returncode}): {r.stderr.strip()[:400]}")
    return r.stdout


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--steptp", default=os.path.join(ROOT, "build", "steptp"))
    ap.add_argument("--out", default="/tmp/cache_block_path")
    ap.add_argument("--repeats", type=int, default=7)
    ap.add_argument("--n", type=int, default=512, help="GEMM size (the path's tile sizes assume 512)")
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    root = os.path.join(a.out, "step0.jsonl")
    run([a.steptp, "workloads", "emit", "Square_matrix_multiplication", "--set", f"n={a.n}", "-o", root])
    files = [root]
    for i, cand in enumerate(PATH, 1):
        out = run([a.steptp, "apply", files[-1], "--candidate", cand])
        rec = json.loads(out.splitlines()[0])
        path = os.path.join(a.out, f"step{i}.jsonl")
        with open(path, "w") as f:
            f.write(json.dumps(rec["task"]) + "\n")
        files.append(path)
    rows = []
    for i, f in enumerate(files):
        eq = "root" if i == 0 else run([a.steptp, "equiv", root, f]).strip().splitlines()[-1].split(":")[0]
        m = json.loads(run([a.steptp, "measure", root, "--compare", f, "--repeats", str(a.repeats)]))
        leir = json.loads(open(f).readline())["leir"]
        rows.append((i, "(root)" if i == 0 else PATH[i - 1], m["after"]["median"], m["speedup"], eq, leir))
        print(f"cache_block_path: step {i}: {m['after']['median'] * 1e3:.3f} ms", file=sys.stderr, flush=True)
    torch = json.loads(run(["/usr/bin/python3", os.path.join(HERE, "pytorch_eager.py"), "--steptp", a.steptp,
                            "--only", "Square_matrix_multiplication", "--quiet"]).splitlines()[0])
    tasks = os.path.join(a.out, "root_tasks.jsonl")
    with open(tasks, "w") as f:
        f.write(open(root).readline())
    sdir = os.path.join(a.out, "search")
    run([a.steptp, "search", "--tasks", tasks, "--algorithm", "chain", "--policy", "random", "--proposals", "1",
         "--measurements", "1", "--out", sdir])
    res = json.loads(open(os.path.join(sdir, "results.jsonl")).readline())
    blas = (res.get("baseline") or {}).get("median_ns")
    print(f"| step | strategy candidate | ms | speedup over naive | vs PyTorch ({torch['median_ns'] / 1e6:.3f} ms) |"
          f" vs OpenBLAS ({blas / 1e6 if blas else float('nan'):.3f} ms) | equiv |")
    print("|---:|---|---:|---:|---:|---:|---|")
    for i, cand, sec, sp, eq, _ in rows:
        tv = torch["median_ns"] / 1e9 / sec
        bv = (blas / 1e9 / sec) if blas else float("nan")
        print(f"| {i} | `{cand}` | {sec * 1e3:.3f} | {sp:.2f}x | {tv:.2f}x | {bv:.2f}x | {eq} |")
    print(f"\nlast program: `{rows[-1][5]}`")


if __name__ == "__main__":
    main()
