#!/usr/bin/env python3
"""Kernel-quality benchmark of `steptp search` (DATASET.md §9) against PyTorch eager and OpenBLAS.

Default mode: emits the tasks of bench/search_tasks.json as one JSONL (OUT/tasks.jsonl), runs
  steptp search --tasks OUT/tasks.jsonl --algorithm A --policy P --proposals N --measurements M --threads T
                --out OUT/search-A-P
runs bench/pytorch_eager.py (with /usr/bin/python3, Debian's python3-torch) on the same tasks and thread count
(OUT/pytorch.jsonl), and writes a markdown report (default OUT/search_results.md): per task the naive (root)
latency, the best program found, its speedup over naive, PyTorch eager, the best/PyTorch ratio (>1: faster than
PyTorch), the OpenBLAS library baseline that `steptp search` times where a BLAS routine exists, best vs OpenBLAS in
% of OpenBLAS's speed (>100%: faster than OpenBLAS), and the path length; geomeans; the machine, the thread count,
the date and the steptp commit.

Back-to-back re-timing (default; --retime-rounds 0 turns it off): the search times its programs and PyTorch runs
minutes later, so a machine that slows down in between (a busy neighbour of this virtual machine) moves the
best/PyTorch ratio. After both, --retime-rounds rounds each time PyTorch over every task (one process, as above)
and then every task's best program (`steptp measure`), and the report adds a second table: the medians over the
rounds and the median of the per-round ratios, with their geomean.

--save-paths DIR (default mode): stores each task's result path as DIR/WORKLOAD.json, or DIR/PATH.json for a task
with a "path" member (two shapes of one workload, as in bench/gemm_odd_tasks.json) (workload, params, steps by
candidate id; `steptp replay` rebuilds it), replacing a stored one only when the new speedup over naive is higher.
--replay DIR: instead of searching, replays every stored path (`steptp replay --measure`: re-verified, timed paired
with its naive program, OpenBLAS beside it) right after PyTorch on the same task, for --retime-rounds rounds, and
reports medians (OUT/replay_results.md): the figures of bench/RESULTS.md re-taken from bench/paths by anyone.

--algorithms: runs every algorithm (chain greedy beam dfs bfs mcts) x policy (--policies, default random cost) on
the same tasks and budgets, each into OUT/search-A-P, and tabulates fast_1.0, fast_2.0 and geomean_speedup from
each summary.json. A run that fails (say, a policy that is not built) is reported as such and the others go on.

Only the standard library is needed here (any python3); PyTorch runs in a /usr/bin/python3 child.
"""
import argparse
import datetime
import json
import math
import os
import platform
import shutil
import statistics
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
ALGORITHMS = ["chain", "greedy", "beam", "dfs", "bfs", "mcts"]


def log(msg):
    print(f"search_bench: {msg}", file=sys.stderr, flush=True)


def load_tasks(args):
    with open(args.tasks) as f:
        tasks = json.load(f)
    if args.limit > 0:
        tasks = tasks[:args.limit]
    return tasks


def emit_tasks(args, tasks, path):
    """One JSONL line per task (steptp workloads emit); returns the emitted task objects."""
    emitted = []
    with open(path + ".tmp", "w") as out:
        for t in tasks:
            cmd = [args.steptp, "workloads", "emit", t["workload"], "--dtype", t.get("dtype", "f32")]
            for k, v in t.get("params", {}).items():
                cmd += ["--set", f"{k}={v}"]
            r = subprocess.run(cmd, capture_output=True, text=True)
            if r.returncode != 0:
                sys.exit(f"search_bench: {' '.join(cmd)} failed: {r.stderr.strip()}")
            line = r.stdout.splitlines()[0]
            emitted.append(json.loads(line))
            out.write(line + "\n")
    os.replace(path + ".tmp", path)
    return emitted


def search_cmd(args, tasks_path, algorithm, policy, out):
    cmd = [args.steptp, "search", "--tasks", tasks_path, "--algorithm", algorithm, "--policy", policy,
           "--proposals", str(args.proposals), "--measurements", str(args.measurements),
           "--threads", str(args.threads), "--timer", args.timer, "--out", out]
    if args.repeats:
        cmd += ["--repeats", str(args.repeats)]
    if args.seed is not None:
        cmd += ["--seed", str(args.seed)]
    return cmd + args.search_arg


def run_search(args, tasks_path, algorithm, policy, out):
    """Runs one search; returns (ok, message). A rerun into the same OUT resumes from its cache."""
    cmd = search_cmd(args, tasks_path, algorithm, policy, out)
    log("$ " + " ".join(cmd))
    r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=None if args.verbose else subprocess.PIPE, text=True)
    if r.returncode != 0:
        msg = ((r.stderr or "") + (r.stdout or "")).strip().splitlines()
        msg = msg[-1] if msg else f"exit {r.returncode}"
        log(f"{algorithm}/{policy} failed: {msg}")
        return False, msg
    return True, ""


def run_pytorch(args, out, threads=None):
    py = args.python
    if not (shutil.which(py) or os.access(py, os.X_OK)):
        return False, f"{py} not found"
    cmd = [py, os.path.join(HERE, "pytorch_eager.py"), "--tasks", args.tasks, "--steptp", args.steptp,
           "--threads", str(threads or args.threads), "--out", out]
    if args.limit > 0:
        cmd += ["--limit", str(args.limit)]
    log("$ " + " ".join(cmd))
    r = subprocess.run(cmd, text=True)
    if r.returncode != 0 and not os.path.exists(out):
        return False, f"pytorch_eager.py exited {r.returncode}"
    return True, ""


def torch_of_task(args, task, stem):
    """PyTorch eager on one task, right before its replay (a process of its own, so that a guest whose speed drifts
    over minutes moves both sides of the ratio alike): {(workload, params JSON): row}, the faster of the
    --threads and 1-thread runs when --threads > 1 (PyTorch at its best: slower on more threads for some, MHA)."""
    one_task = stem + ".tasks.json"
    with open(one_task, "w") as f:
        json.dump([task], f)
    rows = []
    for n in ([args.threads] + ([1] if args.threads > 1 else [])):
        out = f"{stem}-{n}thread.jsonl"
        run_pytorch(argparse.Namespace(**{**vars(args), "tasks": one_task, "limit": 0}), out, threads=n)
        rows += read_jsonl(out)
    by = {}
    for r in rows:
        key = (r["workload"], json.dumps(r["params"], sort_keys=True))
        if r.get("median_ns") and (key not in by or r["median_ns"] < by[key]["median_ns"]):
            by[key] = r
    return by


def retime(args, tasks, emitted, results, out_dir):
    """Back-to-back re-timing (module docstring): {task index: (best_ns, torch_ns, ratio)}, medians over the rounds.
    Each round runs pytorch_eager.py over every task in one process, as the main run does (a fresh process timing a
    single small task pays page faults that a process which has run the larger tasks no longer pays: Swish 5.3 ms
    alone, 0.17 ms after them), then `steptp measure` of each best program."""
    res = match_results(emitted, results)
    best_paths, contract = {}, {}
    for i, (e, r) in enumerate(zip(emitted, res)):
        leir = ((r or {}).get("result") or {}).get("leir")
        contract[i] = "on" if (r or {}).get("fp_contract") else "off"  # timed as the search timed it
        if leir:
            best_paths[i] = os.path.join(out_dir, f"retime-{i}.json")
            with open(best_paths[i], "w") as f:
                json.dump(dict(e, leir=leir), f)
    samples = {i: ([], [], []) for i in best_paths}
    for k in range(args.retime_rounds):
        torch_out = os.path.join(out_dir, f"retime-pytorch-{k}.jsonl")
        ok, err = run_pytorch(args, torch_out)
        torch_by = {(r["workload"], json.dumps(r["params"], sort_keys=True)): r.get("median_ns")
                    for r in read_jsonl(torch_out)}
        for i, path in best_paths.items():
            t = tasks[i]
            m = subprocess.run([args.steptp, "measure", path, "--repeats", str(args.repeats or 10), "--threads",
                                str(args.threads), "--fp-contract", contract[i]], capture_output=True, text=True)
            p = torch_by.get((t["workload"], json.dumps(t.get("params", {}), sort_keys=True)))
            try:
                b = json.loads(m.stdout)["median"] * 1e9
            except (ValueError, KeyError):
                b = None
            if not b or not p:
                log(f"retime round {k + 1}: {t['workload']}: no time ({err or m.stderr.strip()[:200]})")
                continue
            samples[i][0].append(b)
            samples[i][1].append(p)
            samples[i][2].append(p / b)
        log(f"retime round {k + 1}/{args.retime_rounds} done")
    return {i: tuple(statistics.median(x) for x in v) for i, v in samples.items() if v[2]}


def path_name(task):
    """A task's stored path file: its "path" member (two shapes of one workload), else its workload."""
    name = task.get("path") or task["workload"]
    return "".join(c if c.isalnum() or c in "_-" else "_" for c in name)[:80] + ".json"


def save_paths(args, tasks, search_dir):
    """--save-paths DIR: each task's result path (the search's OUT/paths/NNN-*.json) as DIR/WORKLOAD.json in the
    catalogue form (workload, params, steps), replacing a stored path only when this search's speedup over the
    naive program is higher (both measured paired with the naive program in their own run)."""
    os.makedirs(args.save_paths, exist_ok=True)
    for i, t in enumerate(tasks):
        found = [f for f in os.listdir(os.path.join(search_dir, "paths")) if f.startswith(f"{i + 1:03d}-")] \
            if os.path.isdir(os.path.join(search_dir, "paths")) else []
        if not found:
            log(f"save-paths: {t['workload']}: no path in {search_dir}/paths")
            continue
        with open(os.path.join(search_dir, "paths", found[0])) as f:
            sp = json.load(f)
        dest = os.path.join(args.save_paths, path_name(t))
        old = None
        if os.path.exists(dest):
            with open(dest) as f:
                old = json.load(f)
        if old and (old.get("speedup") or 0) >= (sp.get("speedup") or 0):
            log(f"save-paths: {t['workload']}: kept the stored path ({old.get('speedup'):.2f}x >= "
                f"{sp.get('speedup') or 0:.2f}x)")
            continue
        out = {"workload": t["workload"], "params": t.get("params", {}), "dtype": t.get("dtype", "f32"),
               "steps": sp["steps"], "found_by": dict(sp.get("found_by", {}), proposals=args.proposals,
                                                      measurements=args.measurements, commit=steptp_commit(),
                                                      date=datetime.date.today().isoformat()),
               "speedup": sp.get("speedup")}
        with open(dest + ".tmp", "w") as f:
            f.write("{\n" + ",\n".join(
                f'  {json.dumps(k)}: ' + (json.dumps(v) if k != "steps" or not v else
                                         "[\n    " + ",\n    ".join(json.dumps(x) for x in v) + "\n  ]")
                for k, v in out.items()) + "\n}\n")
        os.replace(dest + ".tmp", dest)
        log(f"save-paths: {dest} ({len(sp['steps'])} steps, {sp.get('speedup') or 0:.2f}x)")


def replay_report(args, tasks):
    """--replay DIR: rounds of, per task, PyTorch (torch_of_task) then `steptp replay --measure` of its stored path
    (re-verified, timed paired with its naive program, OpenBLAS beside it); medians over the rounds."""
    rows = {i: {"naive": [], "best": [], "torch": [], "blas": [], "ratio": []} for i in range(len(tasks))}
    info = {}
    for i, t in enumerate(tasks):
        if not os.path.exists(os.path.join(args.replay, path_name(t))):
            log(f"replay: {t['workload']}: no stored path {os.path.join(args.replay, path_name(t))}")
    for k in range(max(1, args.retime_rounds)):
        for i, t in enumerate(tasks):
            path = os.path.join(args.replay, path_name(t))
            if not os.path.exists(path):
                continue
            torch_by = {} if args.no_pytorch else torch_of_task(args, t, os.path.join(args.out, f"replay-pytorch-{k}-{i}"))
            cmd = [args.steptp, "replay", path, "--measure", "--repeats", str(args.repeats or 15), "--threads",
                   str(args.threads)] + args.replay_arg
            m = subprocess.run(cmd, capture_output=True, text=True)
            try:
                j = json.loads(m.stdout)
            except ValueError:
                log(f"replay round {k + 1}: {t['workload']}: {m.stderr.strip()[-300:]}")
                continue
            if not j.get("equivalent") or not j.get("result_ns"):
                log(f"replay round {k + 1}: {t['workload']}: not equivalent or not timed: {m.stderr.strip()[-300:]}")
                continue
            info[i] = j
            pt = torch_by.get((t["workload"], json.dumps(t.get("params", {}), sort_keys=True)), {})
            r = rows[i]
            r["naive"].append(j["root_ns"])
            r["best"].append(j["result_ns"])
            if (j.get("baseline") or {}).get("median_ns"):
                r["blas"].append(j["baseline"]["median_ns"])
            if pt.get("median_ns"):
                r["torch"].append(pt["median_ns"])
                r["ratio"].append(pt["median_ns"] / j["result_ns"])
        log(f"replay round {k + 1}/{max(1, args.retime_rounds)} done")
    med = lambda v: statistics.median(v) if v else None
    lib = next((j["library"] for j in info.values() if j.get("library")), None)
    lib_text = "n/a" if not lib else (f"{lib['library'].get('openblas_core')} ({lib['library'].get('openblas_config')})"
                                      + (f", run without {', '.join(lib['dropped'])}" if lib.get("dropped") else "")
                                      + "".join(f", forced {k}={v} ({lib.get('forced_reason')})"
                                                for k, v in (lib.get("forced") or {}).items()))
    torch_text = "" if args.threads == 1 else (f"; PyTorch per task the faster of its {args.threads}-thread and "
                                               "1-thread runs of that round")
    extra = "".join(" " + a for a in args.replay_arg)
    lines = header(args, f"Best replayable programs ({args.replay}) against PyTorch eager and OpenBLAS",
                   [f"* paths: {args.replay}; `steptp replay PATH --measure --repeats {args.repeats or 15} --threads "
                    f"{args.threads}{extra}` per task, "
                    f"{max(1, args.retime_rounds)} rounds; PyTorch timed on each task right before its replay "
                    "(pytorch_eager.py, a process per task); medians over the rounds (best/PyTorch: median of the "
                    "per-round ratios)" + torch_text,
                    f"* OpenBLAS: {lib_text}",
                    "* steptp kernels: " + ("FMA contraction (`-ffp-contract=fast`, replay's default), "
                                            if any(j.get("fp_contract") for j in info.values())
                                            else "no contraction (`-ffp-contract=off`), ")
                    + "each result also checked compiled against the interpreter (`lowering_check`): "
                    + (", ".join(f"{tasks[i]['workload']} failed" for i, j in info.items()
                                 if not (j.get("lowering_check") or {}).get("ok")) or "all ok")
                    + "".join(f"; contraction refused for {tasks[i]['workload']} (timed uncontracted: "
                              f"{j['fp_contract_refused']})" for i, j in info.items() if j.get("fp_contract_refused"))])
    lines += ["| # | workload | steps | class | naive ms | best ms | speedup | PyTorch ms | best/PyTorch | OpenBLAS ms |"
              " best vs OpenBLAS |", "|---:|---|---:|---|---:|---:|---:|---:|---:|---:|---:|"]
    ratios, blas = [], []
    for i, t in enumerate(tasks):
        r, j = rows[i], info.get(i, {})
        n, b, p, o, q = med(r["naive"]), med(r["best"]), med(r["torch"]), med(r["blas"]), med(r["ratio"])
        ratios.append(q)
        vs = o / b if o and b else None
        blas.append(vs)
        lines.append(f"| {i + 1} | {t.get('path') or t['workload']} | {len(j.get('steps', []))} | {j.get('class', 'n/a')} | {ms(n)} | "
                     f"{ms(b)} | {ratio(n / b if n and b else None)} | {ms(p)} | {ratio(q)} | {ms(o)} | "
                     f"{ratio(vs * 100 if vs else None, '{:.1f}%')} |")
    g, cnt = geomean(ratios)
    gb, cb = geomean(blas)
    below = sum(1 for q in ratios if q is not None and q < 0.8)
    lines += ["", f"Geomean best/PyTorch **{ratio(g)}** over {cnt} tasks ({below} below 0.8x); best vs OpenBLAS "
              f"{ratio(gb * 100 if gb else None, '{:.1f}%')} over {cb} tasks.", ""]
    return "\n".join(lines) + "\n"


def retime_report(args, tasks, rows):
    lines = ["", f"Back-to-back re-timing ({args.retime_rounds} rounds of pytorch_eager.py over every task, then "
             "`steptp measure` of every best program; medians over the rounds):", "",
             "| # | workload | best ms | PyTorch ms | best/PyTorch |", "|---:|---|---:|---:|---:|"]
    for i, t in enumerate(tasks):
        b, p, q = rows.get(i, (None, None, None))
        lines.append(f"| {i + 1} | {t['workload']} | {ms(b)} | {ms(p)} | {ratio(q)} |")
    g, n = geomean([rows[i][2] for i in rows])
    return lines + ["", f"* best/PyTorch, re-timed: {ratio(g)} over {n} tasks", ""]


def read_jsonl(path):
    if not os.path.exists(path):
        return []
    with open(path) as f:
        return [json.loads(line) for line in f if line.strip()]


# ---------------------------------------------------------------------------------------------------------------
# Environment

def machine():
    model, cpus, cores, sockets = platform.processor() or "?", os.cpu_count(), None, None
    try:
        out = subprocess.run(["lscpu"], capture_output=True, text=True).stdout
        for line in out.splitlines():
            k, _, v = line.partition(":")
            k, v = k.strip(), v.strip()
            if k == "Model name":
                model = v
            elif k == "CPU(s)":
                cpus = v
            elif k == "Core(s) per socket":
                cores = v
            elif k == "Socket(s)":
                sockets = v
    except OSError:
        pass
    phys = int(cores) * int(sockets) if cores and sockets and cores.isdigit() and sockets.isdigit() else None
    return f"{model}, {cpus} logical CPUs" + (f" ({phys} cores)" if phys else "")


def steptp_commit():
    try:
        head = subprocess.run(["git", "-C", ROOT, "rev-parse", "--short=12", "HEAD"], capture_output=True,
                              text=True).stdout.strip()
        dirty = subprocess.run(["git", "-C", ROOT, "status", "--porcelain", "--untracked-files=no", "--", "src",
                                "CMakeLists.txt"], capture_output=True, text=True).stdout.strip()
        return head + (" (with uncommitted changes under src/ or CMakeLists.txt)" if dirty else "")
    except OSError:
        return "?"


def steptp_version(args):
    try:
        return subprocess.run([args.steptp, "--version"], capture_output=True, text=True).stdout.strip()
    except OSError:
        return "?"


def header(args, title, extra):
    lines = [f"# {title}", "",
             f"* date: {datetime.datetime.now().astimezone().isoformat(timespec='seconds')}",
             f"* machine: {machine()}",
             f"* threads: {args.threads} (steptp's measured kernels and library baseline, and torch.set_num_threads)",
             f"* steptp: {steptp_version(args)}, commit {steptp_commit()}",
             (f"* replayed paths (no search); repeats {args.repeats or 15}" if args.replay else
              f"* budgets per task: {args.proposals} proposals, {args.measurements} measurements; timer {args.timer}"
              + (f"; repeats {args.repeats}" if args.repeats else "")),
             f"* tasks: {args.tasks}" + (f" (first {args.limit})" if args.limit > 0 else "")]
    lines += extra
    if args.timer != "real":
        lines.append("* **timer fixed: latencies are a deterministic model, not measurements; the PyTorch and "
                     "OpenBLAS columns are not comparable.**")
    return lines + [""]


# ---------------------------------------------------------------------------------------------------------------
# Formatting

def ms(ns):
    if ns is None:
        return "n/a"
    return f"{ns / 1e6:.3f}" if ns >= 1e5 else f"{ns / 1e6:.4g}"


def ratio(x, fmt="{:.2f}x"):
    return "n/a" if x is None else fmt.format(x)


def geomean(xs):
    xs = [x for x in xs if x is not None and x > 0 and math.isfinite(x)]
    return (math.exp(sum(math.log(x) for x in xs) / len(xs)), len(xs)) if xs else (None, 0)


def fmt_params(p):
    return " ".join(f"{k}={v}" for k, v in p.items())


def match_results(emitted, results):
    """The result line of each emitted task: by the root program's text, else by position."""
    by_leir = {}
    for r in results:
        leir = (r.get("root") or {}).get("leir")
        if leir:
            by_leir.setdefault(leir, r)
    out = []
    for i, t in enumerate(emitted):
        r = by_leir.get(t["leir"])
        if r is None and i < len(results) and results[i].get("workload") == t["workload"]:
            r = results[i]
        out.append(r)
    return out


def per_task_report(args, tasks, emitted, results, torch_rows, search_dir, torch_note):
    res = match_results(emitted, results)
    torch_by = {(r["workload"], json.dumps(r["params"], sort_keys=True)): r for r in torch_rows}
    torch_ver = next((r.get("torch_version") for r in torch_rows if r.get("torch_version")), None)
    blas = next((r.get("blas") for r in torch_rows if r.get("blas")), None) or {}
    core = (blas.get("openblas") or {}).get("core", "?")
    dropped = ", ".join(f"{k}={v}" for k, v in sorted((blas.get("dropped") or {}).items())) or "none"
    dropped += "".join(f"; forced: {k}={v}" for k, v in sorted((blas.get("forced") or {}).items()))
    extra = [f"* search: `--algorithm {args.algorithm} --policy {args.policy}`, results in `{search_dir}`",
             f"* PyTorch eager: {'torch ' + torch_ver if torch_ver else 'n/a'} (bench/pytorch_eager.py, "
             f"/usr/bin/python3, torch.no_grad, median of 15 repeats of >= 1 ms){torch_note}; its OpenBLAS core "
             f"{core} (dropped: {dropped}; {blas.get('torch_blas') or 'BLAS build n/a'})",
             "* OpenBLAS: the library baseline of `steptp search` (cblas routine, where one exists; its core is in "
             "the search's summary.json, `library_baseline`)", ""]
    lines = header(args, f"steptp search vs PyTorch eager vs OpenBLAS ({args.algorithm}/{args.policy})", extra)
    lines += ["| # | workload | params | naive ms | best ms | speedup | PyTorch ms | best/PyTorch | OpenBLAS ms | "
              "best vs OpenBLAS | path | search s | measured/s | status |",
              "|---:|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|"]
    times = {}  # task_id -> run.json task_times entry (tasks searched in this run, not resumed)
    run_json = os.path.join(search_dir, "run.json")
    if os.path.exists(run_json):
        with open(run_json) as f:
            times = {t["task_id"]: t for t in json.load(f).get("task_times", [])}
    sp, vs_torch, vs_blas, naive_torch = [], [], [], []
    paths = []
    for i, (t, r) in enumerate(zip(tasks, res)):
        tr = torch_by.get((t["workload"], json.dumps(t.get("params", {}), sort_keys=True)))
        torch_ns = tr.get("median_ns") if tr else None
        naive = best = blas = speed = None
        plen, status, routine = None, "missing", None
        tt = times.get(r.get("task_id")) if r is not None else None
        if r is not None:
            status = r.get("status", "?") + (f": {r['error']}" if r.get("error") else "")
            naive = ((r.get("root") or {}).get("latency") or {}).get("median_ns")
            b = r.get("baseline")
            if isinstance(b, dict):
                blas, routine = b.get("median_ns"), b.get("routine")
            if r.get("result"):
                best = r["result"].get("latency_ns")
                speed = r["result"].get("speedup")
                path = r["result"].get("path") or []
                plen = len(path)
                paths.append((t["workload"], [s.get("strategy") for s in path]))
        tratio = torch_ns / best if torch_ns and best else None
        bratio = blas / best * 100 if blas and best else None
        if naive and torch_ns:
            naive_torch.append(torch_ns / naive)
        sp.append(speed)
        vs_torch.append(tratio)
        vs_blas.append(bratio / 100 if bratio else None)
        lines.append(f"| {i + 1} | {t['workload']} | {fmt_params(t.get('params', {}))} | {ms(naive)} | {ms(best)} | "
                     f"{ratio(speed)} | {ms(torch_ns)} | {ratio(tratio)} | "
                     f"{ms(blas) + (f' ({routine})' if routine else '')} | {ratio(bratio, '{:.1f}%')} | "
                     f"{'n/a' if plen is None else plen} | "
                     f"{'n/a' if tt is None else format(tt['wall_s'], '.0f')} | "
                     f"{'n/a' if tt is None else format(tt['measured_per_s'], '.2f')} | {status} |")
    g_sp, n_sp = geomean(sp)
    g_t, n_t = geomean(vs_torch)
    g_b, n_b = geomean(vs_blas)
    g_nt, n_nt = geomean(naive_torch)
    lines += ["", "Geomeans:", "",
              f"* speedup over naive: {ratio(g_sp)} over {n_sp} tasks",
              f"* best/PyTorch: {ratio(g_t)} over {n_t} tasks (naive vs PyTorch, same convention: {ratio(g_nt)})",
              f"* best vs OpenBLAS: {ratio(g_b * 100 if g_b else None, '{:.1f}%')} over {n_b} tasks", ""]
    summ = os.path.join(search_dir, "summary.json")
    if os.path.exists(summ):
        with open(summ) as f:
            s = json.load(f)
        fp = s.get("fast_p", {})
        lines += [f"steptp summary: fast_p over naive {json.dumps(fp.get('naive'))}, over the baseline "
                  f"{json.dumps(fp.get('baseline'))}; geomean_speedup {s.get('geomean_speedup')}, "
                  f"geomean_speedup_vs_baseline {s.get('geomean_speedup_vs_baseline')}; mean budget use "
                  f"{json.dumps(s.get('mean_budget_use'))}", ""]
    if paths:
        lines += ["Paths (strategies of the best program, root first):", ""]
        lines += [f"* {w}: {' > '.join(p) if p else '(root)'}" for w, p in paths]
        lines.append("")
    return "\n".join(lines)


def algorithms_report(args, rows):
    extra = [f"* policies: {' '.join(args.policies)}; algorithms: {' '.join(args.algorithm_list)}", ""]
    lines = header(args, "steptp search: algorithms x policies", extra)
    lines += ["| algorithm | policy | tasks | improved | errors | fast_1.0 | fast_2.0 | geomean speedup | "
              "fast_1.0 vs OpenBLAS | budget use (P / M) | wall s | status |",
              "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|"]
    pct = lambda x: "n/a" if x is None else f"{100 * x:.0f}%"  # noqa: E731
    for alg, pol, s, wall, err in rows:
        if s is None:
            lines.append(f"| {alg} | {pol} | | | | | | | | | | failed: {err} |")
            continue
        naive = s.get("fast_p", {}).get("naive", {})
        base = s.get("fast_p", {}).get("baseline", {})
        use = s.get("mean_budget_use") or {}
        g = s.get("geomean_speedup")
        lines.append(f"| {alg} | {pol} | {s.get('tasks')} | {s.get('improved')} | {s.get('errors')} | "
                     f"{pct(naive.get('1.0'))} | {pct(naive.get('2.0'))} | {ratio(g)} | "
                     f"{pct(base.get('1.0'))} ({base.get('tasks', 0)} tasks) | "
                     f"{pct(use.get('proposals'))} / {pct(use.get('measurements'))} | "
                     f"{'n/a' if wall is None else f'{wall:.0f}'} | ok |")
    lines += ["", "fast_p (DATASET.md §9.4, as in KernelBench): the fraction of all tasks whose result exists, is "
              "correct and has speedup > p over the naive root (vs OpenBLAS: over the library baseline, on the tasks "
              "that have one); geomean of the best speedups, 1.0 for a task without result.", ""]
    return "\n".join(lines)


# ---------------------------------------------------------------------------------------------------------------

def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter, epilog=__doc__)
    ap.add_argument("--tasks", default=os.path.join(HERE, "search_tasks.json"),
                    help="JSON list of {workload, params[, dtype][, path: the stored path's file name]} "
                         "(default bench/search_tasks.json)")
    ap.add_argument("--steptp", default=os.path.join(ROOT, "build", "steptp"), help="steptp binary")
    ap.add_argument("--python", default="/usr/bin/python3", help="interpreter with torch for pytorch_eager.py")
    ap.add_argument("--out", default=os.path.join(ROOT, "out", "bench-search"),
                    help="output directory (default out/bench-search, gitignored)")
    ap.add_argument("--report", help="markdown report (default OUT/search_results.md, or "
                    "OUT/search_algorithms.md with --algorithms)")
    ap.add_argument("--algorithm", default="mcts", choices=ALGORITHMS, help="default mode: algorithm (mcts)")
    ap.add_argument("--policy", default="cost", help="default mode: policy (cost)")
    ap.add_argument("--algorithms", action="store_true", help="every algorithm x --policies instead")
    ap.add_argument("--algorithm-list", nargs="+", default=ALGORITHMS, help="--algorithms: these algorithms")
    ap.add_argument("--policies", nargs="+", default=["random", "cost"], help="--algorithms: these policies")
    ap.add_argument("--proposals", type=int, default=40, help="P per task (default 40)")
    ap.add_argument("--measurements", type=int, default=20, help="M per task (default 20)")
    ap.add_argument("--threads", type=int, default=1, help="threads for steptp and PyTorch (default 1)")
    ap.add_argument("--timer", default="real", choices=["real", "fixed"], help="steptp search --timer")
    ap.add_argument("--repeats", type=int, help="steptp search --repeats")
    ap.add_argument("--seed", type=int, help="steptp search --seed")
    ap.add_argument("--limit", type=int, default=0, help="only the first N tasks (0 = all)")
    ap.add_argument("--no-pytorch", action="store_true", help="skip the PyTorch eager timings")
    ap.add_argument("--retime-rounds", type=int, default=3,
                    help="back-to-back re-timing rounds of each best program and PyTorch (0 = off; default 3)")
    ap.add_argument("--fresh", action="store_true", help="delete each search OUT first (else a rerun resumes)")
    ap.add_argument("--replay-arg", action="append", default=[],
                    help="extra argument passed to steptp replay (repeatable, e.g. --replay-arg=--fp-contract=off)")
    ap.add_argument("--search-arg", action="append", default=[],
                    help="extra argument passed to steptp search (repeatable, e.g. --search-arg=--no-baseline)")
    ap.add_argument("--verbose", action="store_true", help="show steptp search's progress on stderr")
    ap.add_argument("--save-paths", metavar="DIR",
                    help="default mode: store each task's result path as DIR/WORKLOAD.json (DIR/PATH.json for a task with a "
                         "\"path\" member; e.g. bench/paths) when "
                         "its speedup over naive beats the stored one")
    ap.add_argument("--replay", metavar="DIR",
                    help="instead of searching: replay, re-verify and time every task's DIR/WORKLOAD.json or DIR/PATH.json (steptp replay "
                         "--measure), each right after PyTorch on the same task (a process per task), --retime-rounds rounds")
    args = ap.parse_args()

    if not os.access(args.steptp, os.X_OK):
        sys.exit(f"search_bench: {args.steptp} is not an executable (build steptp first: make build)")
    args.tasks = os.path.abspath(args.tasks)
    os.makedirs(args.out, exist_ok=True)
    tasks = load_tasks(args)
    tasks_path = os.path.join(args.out, "tasks.jsonl")
    emitted = emit_tasks(args, tasks, tasks_path)
    log(f"{len(tasks)} tasks -> {tasks_path}")

    if args.replay:
        text = replay_report(args, tasks)
        report = args.report or os.path.join(args.out, "replay_results.md")
        failed = 0
    elif args.algorithms:
        rows = []
        for alg in args.algorithm_list:
            for pol in args.policies:
                out = os.path.join(args.out, f"search-{alg}-{pol}")
                if args.fresh and os.path.isdir(out):
                    shutil.rmtree(out)
                t0 = datetime.datetime.now()
                ok, err = run_search(args, tasks_path, alg, pol, out)
                wall = (datetime.datetime.now() - t0).total_seconds()
                s = None
                if ok:
                    with open(os.path.join(out, "summary.json")) as f:
                        s = json.load(f)
                rows.append((alg, pol, s, wall, err))
        text = algorithms_report(args, rows)
        report = args.report or os.path.join(args.out, "search_algorithms.md")
        failed = sum(1 for r in rows if r[2] is None)
    else:
        out = os.path.join(args.out, f"search-{args.algorithm}-{args.policy}")
        if args.fresh and os.path.isdir(out):
            shutil.rmtree(out)
        ok, err = run_search(args, tasks_path, args.algorithm, args.policy, out)
        if ok and args.save_paths:
            save_paths(args, tasks, out)
        torch_path = os.path.join(args.out, "pytorch.jsonl")
        torch_note = ""
        if args.no_pytorch:
            torch_note = " (skipped: --no-pytorch)"
        else:
            tok, terr = run_pytorch(args, torch_path)
            if not tok:
                torch_note = f" (failed: {terr})"
        results = read_jsonl(os.path.join(out, "results.jsonl")) if ok else []
        torch_rows = [] if args.no_pytorch else read_jsonl(torch_path)
        text = per_task_report(args, tasks, emitted, results, torch_rows, out, torch_note)
        if ok and not args.no_pytorch and args.retime_rounds > 0 and args.timer == "real":
            text += "\n".join(retime_report(args, tasks, retime(args, tasks, emitted, results, out)))
        if not ok:
            text += f"\n**steptp search failed: {err}**\n"
        report = args.report or os.path.join(args.out, "search_results.md")
        failed = 0 if ok else 1
    with open(report + ".tmp", "w") as f:
        f.write(text)
    os.replace(report + ".tmp", report)
    print(text)
    log(f"report: {report}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
