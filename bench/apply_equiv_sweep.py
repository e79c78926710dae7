#!/usr/bin/env python3
"""Runs every candidate `steptp apply` offers on the `--small` instance of every catalogue workload through
`steptp equiv`'s checker (`apply --verify` uses the same options) and counts the verdicts per strategy (OUT/rows.jsonl grows as workloads finish; issue #47
"one verdict"; bench/RESULTS.md, "Apply candidates under steptp equiv").

  python3 bench/apply_equiv_sweep.py [--steptp build/steptp] [-j 2] [--only NAME,...] [--classes R,D,...]
                                     [--out /tmp/steptp-sweep]

For each workload: `workloads emit NAME --small --dtype f32`, then for each of the 43 strategies
`apply --strategy S TASK --verify -o OUT` (every candidate, the default domain policy). A candidate is accepted
when its record's `equivalence.equivalent` is true; a candidate that fails to apply (StrategyError on stderr) is
counted apart. Prints one JSON object (per-strategy candidates/accepted, and every rejected candidate with its
code and message) and writes it to OUT/sweep.json. Exit status 1 when a candidate was rejected.
"""
import argparse
import concurrent.futures as cf
import json
import os
import subprocess
import sys
import time


def workload_names(steptp):
    out = subprocess.run([steptp, "workloads", "list"], check=True, capture_output=True, text=True).stdout
    rows = out.splitlines()[1:-1]  # header ... "N workloads"
    return [r.split()[0] for r in rows if r.strip()]


def strategy_names(steptp, classes=None):
    """Registered strategies (those whose class, as `strategies list` prints it, is in `classes`, when given)."""
    out = subprocess.run([steptp, "strategies", "list"], check=True, capture_output=True, text=True).stdout
    rows = [line.split("\t") for line in out.splitlines() if line.strip()]
    return [r[1] for r in rows if classes is None or r[3] in classes]


def sweep_workload(steptp, name, strategies, outdir):
    task = os.path.join(outdir, name + ".jsonl")
    subprocess.run([steptp, "workloads", "emit", name, "--small", "--dtype", "f32", "-o", task], check=True,
                   capture_output=True)
    rows = []
    for s in strategies:
        res = os.path.join(outdir, f"{name}.{s}.jsonl")
        p = subprocess.run([steptp, "apply", "--strategy", s, task, "--verify", "-o", res], capture_output=True,
                           text=True)
        if p.returncode not in (0, 1):
            rows.append({"workload": name, "strategy": s, "error": p.stderr.strip()[-400:]})
            continue
        failed_apply = [l for l in p.stderr.splitlines() if l.startswith("steptp: ") and "@" in l]
        for l in failed_apply:
            rows.append({"workload": name, "strategy": s, "apply_error": l})
        with open(res) as f:
            for line in f:
                r = json.loads(line)
                e = r["equivalence"]
                rows.append({"workload": name, "strategy": s, "candidate": r["candidate"], "class": r["class"],
                             "equivalent": e["equivalent"], "code": e["code"], "message": e["message"]})
        os.remove(res)
    os.remove(task)
    return rows


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--steptp", default="build/steptp")
    ap.add_argument("-j", type=int, default=os.cpu_count())
    ap.add_argument("--only", default="", help="comma-separated workload names (default: the whole catalogue)")
    ap.add_argument("--classes", default="",
                    help="comma-separated strategy classes as `strategies list` prints them (E, R, D, P, E/R, ...; "
                         "default: every strategy)")
    ap.add_argument("--out", default="/tmp/steptp-sweep")
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    names = workload_names(a.steptp)
    if a.only:
        unknown = [n for n in a.only.split(",") if n not in names]
        if unknown:
            sys.exit(f"apply_equiv_sweep: unknown workload(s) in --only: {', '.join(unknown)} (`steptp workloads list`)")
        names = a.only.split(",")
    strategies = strategy_names(a.steptp, set(a.classes.split(",")) if a.classes else None)
    t0 = time.monotonic()
    rows = []
    with cf.ThreadPoolExecutor(max_workers=a.j) as ex:
        futs = {ex.submit(sweep_workload, a.steptp, n, strategies, a.out): n for n in names}
        with open(os.path.join(a.out, "rows.jsonl"), "w") as log:  # per candidate, as workloads finish
            for i, f in enumerate(cf.as_completed(futs), 1):
                rows.extend(f.result())
                for r in f.result():
                    log.write(json.dumps(r) + "\n")
                log.flush()
                print(f"[{i}/{len(names)}] {futs[f]}", file=sys.stderr, flush=True)
    per = {s: {"candidates": 0, "accepted": 0, "apply_errors": 0} for s in strategies}
    rejected, errors = [], []
    for r in rows:
        if "error" in r:
            errors.append(r)
        elif "apply_error" in r:
            per[r["strategy"]]["apply_errors"] += 1
            errors.append(r)
        else:
            per[r["strategy"]]["candidates"] += 1
            if r["equivalent"]:
                per[r["strategy"]]["accepted"] += 1
            else:
                rejected.append(r)
    summary = {"workloads": len(names), "candidates": sum(v["candidates"] for v in per.values()),
               "accepted": sum(v["accepted"] for v in per.values()), "rejected": rejected, "errors": errors,
               "per_strategy": per, "wall_s": round(time.monotonic() - t0, 1), "jobs": a.j}
    with open(os.path.join(a.out, "sweep.json"), "w") as f:
        json.dump(summary, f, indent=1)
    print(json.dumps({k: v for k, v in summary.items() if k != "per_strategy"}, indent=1))
    return 1 if rejected or errors else 0


if __name__ == "__main__":
    sys.exit(main())
