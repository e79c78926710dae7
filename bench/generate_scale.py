#!/usr/bin/env python3
"""Sizes a `full` generate run (configs/full.json: every catalogue workload, 4 shape instances, depth 3) from a
measured sample, then runs a slice of it under `mpirun -np 2 --mpi` (issue #47 item 5; bench/RESULTS.md,
"Generate at scale").

  python3 bench/generate_scale.py [--steptp build/steptp] [--sample 12] [--slice 6] [--out /tmp/steptp-scale]

1. `generate --config configs/full.json --plan-only` counts the units of the full plan.
2. A random sample of --sample workloads (seeded) runs with the full configuration on all cores (-j = cores):
   wall time, units, records and kept records per unit; core-seconds per unit = wall x cores / units.
3. Projection to the full plan: records, kept records, core-hours, and wall hours on N nodes of this machine.
4. A slice of --slice other workloads runs once in one process and once as `mpirun -np 2 ... --mpi` (each rank one
   shard, one core each: -j 1), and the two datasets are compared file by file (they must be byte-identical).
Prints one JSON object; nothing is written outside --out.
"""
import argparse
import filecmp
import json
import os
import random
import subprocess
import sys
import time


def run(cmd, **kw):
    t0 = time.monotonic()
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, **kw)
    return time.monotonic() - t0


def lines(path):
    try:
        with open(path) as f:
            return sum(1 for _ in f)
    except FileNotFoundError:
        return 0


def dataset_counts(out):
    kept = sum(lines(os.path.join(out, "archive", f"{s}.jsonl")) for s in ("train", "val", "test"))
    return lines(os.path.join(out, "archive", "all.jsonl")), kept


def same_tree(a, b):
    diffs = []
    for sub in ("archive", "chat", "eval"):
        for name in sorted(os.listdir(os.path.join(a, sub))):
            if not filecmp.cmp(os.path.join(a, sub, name), os.path.join(b, sub, name), shallow=False):
                diffs.append(f"{sub}/{name}")
    return diffs


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--steptp", default="build/steptp")
    ap.add_argument("--config", default="configs/full.json")
    ap.add_argument("--sample", type=int, default=12, help="workloads in the measured sample")
    ap.add_argument("--slice", type=int, default=6, help="workloads in the MPI slice")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--out", default="/tmp/steptp-scale")
    ap.add_argument("--no-mpi", action="store_true")
    a = ap.parse_args()
    exe, cores = os.path.abspath(a.steptp), os.cpu_count() or 1
    plan = json.loads(subprocess.run([exe, "generate", "--config", a.config, "--plan-only"], check=True,
                                     capture_output=True, text=True).stdout)
    listing = subprocess.run([exe, "workloads", "list"], check=True, capture_output=True, text=True).stdout
    names = sorted(line.split()[0] for line in listing.splitlines()[1:] if line.strip())
    rng = random.Random(a.seed)
    picked = rng.sample(names, a.sample + a.slice)
    sample, slc = picked[:a.sample], picked[a.sample:]
    base = [exe, "generate", "--config", a.config, "--no-progress"]
    out_s = os.path.join(a.out, "sample")
    wall = run(base + ["--out", out_s, "-j", str(cores), "--workloads", *sample])
    units = json.loads(subprocess.run(base[:4] + ["--plan-only", "--workloads", *sample], check=True,
                                      capture_output=True, text=True).stdout)["units"]
    records, kept = dataset_counts(out_s)
    per_unit_core_s = wall * cores / max(units, 1)
    res = {
        "machine": {"cores": cores, "cpu": open("/proc/cpuinfo").read().split("model name")[1].split("\n")[0].strip(": ")},
        "full_plan": plan,
        "sample": {"workloads": sample, "units": units, "wall_s": round(wall, 1), "records": records, "kept": kept,
                   "core_s_per_unit": round(per_unit_core_s, 2)},
        "projection": {
            "records": round(records / max(units, 1) * plan["units"]),
            "kept_records": round(kept / max(units, 1) * plan["units"]),
            "core_hours": round(per_unit_core_s * plan["units"] / 3600, 1),
            "wall_hours_on_1_node": round(per_unit_core_s * plan["units"] / 3600 / cores, 1),
            "wall_hours_on_16_nodes": round(per_unit_core_s * plan["units"] / 3600 / cores / 16, 2),
        },
    }
    if not a.no_mpi:
        one, two = os.path.join(a.out, "slice-1"), os.path.join(a.out, "slice-mpi")
        t1 = run(base + ["--out", one, "-j", "1", "--workloads", *slc])
        t2 = run(["mpirun", "--allow-run-as-root", "--oversubscribe", "-np", "2"] + base +
                 ["--out", two, "-j", "1", "--mpi", "--workloads", *slc])
        res["mpi_slice"] = {"workloads": slc, "one_process_j1_wall_s": round(t1, 1), "mpirun_np2_wall_s": round(t2, 1),
                            "speedup": round(t1 / t2, 2), "records": dataset_counts(two)[0],
                            "differs_from_one_process": same_tree(one, two)}
    json.dump(res, sys.stdout, indent=2)
    print()


if __name__ == "__main__":
    main()
