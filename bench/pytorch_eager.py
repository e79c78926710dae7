#!/usr/bin/python3
"""PyTorch eager (CPU) reference timings for the tasks of bench/search_tasks.json.

Run with the Debian interpreter, which has python3-torch: /usr/bin/python3 bench/pytorch_eager.py.

Each workload is written in PyTorch exactly as steptp's LEIR defines it (layouts, transposes, epsilons, masks,
scales, bias shapes: read from `steptp workloads emit NAME --small`), in a dtype-generic way.

Timing mode (default): for each task, inputs of the task's known shapes (float32; the MHA mask is causal), then
torch.set_num_threads(T) + torch.no_grad(), warm-up calls, `number` calibrated so that one repeat lasts at least
--min-repeat-ms, then --repeats timed repeats. Prints one JSON line per task:
  {workload, params, median_ns, q1_ns, q3_ns, number, repeats, threads, torch_version, blas}

The library at its best: the script re-runs itself without OPENBLAS_CORETYPE and OPENBLAS_L2_SIZE (which force an
older OpenBLAS core; PyTorch's matmuls go through OpenBLAS) once the core OpenBLAS then detects computes a
512x256x384 sgemm within 1e-5 of the f64 product (else it keeps them), and with glibc's malloc thresholds raised
(MALLOC_MMAP_THRESHOLD_ 32 MiB, MALLOC_TRIM_THRESHOLD_ 1 GiB) so that PyTorch's temporaries are reused between
calls, as in a long-running process, instead of being mapped and page-faulted on every call, and with
OPENBLAS_NUM_THREADS = --threads (torch.set_num_threads does not bound OpenBLAS's own threads). `blas` records the
OpenBLAS core and configuration the timings ran on, the variables dropped, the check's error and PyTorch's BLAS build
line. Where OpenBLAS detects a core below the CPU's vector ISA (a guest that hides its CPU model), the script
re-runs with OPENBLAS_CORETYPE set to the CPU's best core, if that core passes the same check, and records it as
`forced`. --keep-blas-env times under the environment as given.

--check mode: verifies every definition against steptp's reference interpreter at small shapes. For each task the
small task is emitted, augmented with one f64 weight param Qzz* and one f64 0-d output Rzz* per output O
(Rzz = sum O*Qzz, a random projection that also catches permuted layouts), and run with `steptp run --seed S
--dist D` (f64 mode) for seeds 0 1 2 and both distributions. The same inputs are regenerated here with LEIR.md §11's
generator (SplitMix64, Box-Muller / uniform [0.5, 1.5], rounded to the buffer dtype), the PyTorch definition is
evaluated in float64, and its sum, min, max and projection of every output are compared with steptp's. Error
= |torch - steptp| / max(|steptp|, scale), scale being the largest |term| of that statistic; a definition passes
when every error is <= --tol (default 1e-4, the f32 tolerance; correct definitions reach ~1e-12). One JSON line per
task, exit 1 if any fails or could not be checked.
"""
import argparse
import json
import math
import os
import statistics
import subprocess
import sys
import tempfile
import time

FORCING_VARS = ("OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE")
STEADY_MALLOC = {"MALLOC_MMAP_THRESHOLD_": str(32 << 20), "MALLOC_TRIM_THRESHOLD_": str(1 << 30)}
STATE_VAR = "STEPTP_EAGER_BLAS"  # set in the re-executed process: JSON {"dropped": {...}} or {"kept": ..., ...}


def _reexec(env):
    os.execve(sys.executable, [sys.executable] + sys.argv, env)


def best_core_env():
    """First run: re-execute without the forcing variables and with the steady-state malloc thresholds."""
    if STATE_VAR in os.environ or "--keep-blas-env" in sys.argv or "--check" in sys.argv:
        return
    env = dict(os.environ)
    dropped = {k: env.pop(k) for k in FORCING_VARS if k in env}
    for k, v in STEADY_MALLOC.items():
        env.setdefault(k, v)
    # torch.set_num_threads does not bound OpenBLAS's own thread pool (Debian's torch calls it as a generic BLAS):
    # without this, "1 thread" ran PyTorch's matmuls on every core.
    threads = sys.argv[sys.argv.index("--threads") + 1] if "--threads" in sys.argv[:-1] else "1"
    env.setdefault("OPENBLAS_NUM_THREADS", threads)
    env[STATE_VAR] = json.dumps({"dropped": dropped})
    _reexec(env)


best_core_env()

try:
    import torch
    import torch.nn.functional as F
except ImportError:  # pragma: no cover
    sys.exit("pytorch_eager.py: torch is missing; run it with /usr/bin/python3 (Debian python3-torch)")

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)


def openblas_info():
    """The OpenBLAS core and configuration of this process (PyTorch's BLAS on Debian), or None."""
    import ctypes
    try:
        lib = ctypes.CDLL("libopenblas.so.0")
    except OSError:
        return None
    lib.openblas_get_corename.restype = ctypes.c_char_p
    lib.openblas_get_config.restype = ctypes.c_char_p
    return {"core": lib.openblas_get_corename().decode(), "config": lib.openblas_get_config().decode()}


def sgemm_check_error():
    """Largest relative error of a float32 matmul against the float64 product of the same inputs."""
    g = torch.Generator().manual_seed(0)
    a = torch.randn(512, 384, generator=g)
    b = torch.randn(384, 256, generator=g)
    ref = a.double() @ b.double()
    return float(((a @ b).double() - ref).abs().max() / ref.abs().max())


AVX512_CORES = ("SkylakeX", "Cooperlake", "SapphireRapids")
AVX2_CORES = ("Haswell", "Zen")


def core_level(core):
    """Vector level of an OpenBLAS core name: 3 AVX-512 kernels, 2 AVX2, 1 anything else (Prescott's SSE3...)."""
    return 3 if core in AVX512_CORES else 2 if core in AVX2_CORES else 1


def core_for_cpu():
    """The OpenBLAS core with this CPU's widest kernels, from /proc/cpuinfo's flags (runtime/best_core.hpp's rule):
    Cooperlake (AVX-512 F/BW/VL/DQ + BF16), SkylakeX (AVX-512 F/BW/VL/DQ), Haswell (AVX2 + FMA), else None."""
    try:
        with open("/proc/cpuinfo") as f:
            flags = next((ln.split(":", 1)[1].split() for ln in f if ln.startswith("flags")), [])
    except OSError:
        return None
    if all(x in flags for x in ("avx512f", "avx512bw", "avx512vl", "avx512dq")):
        return "Cooperlake" if "avx512_bf16" in flags else "SkylakeX"
    return "Haswell" if "avx2" in flags and "fma" in flags else None


def blas_state():
    """What the timings run on. In the re-executed process, a failed check re-executes once more with the forcing
    variables restored (the detected core is then not trusted). A core below the CPU's vector ISA (OpenBLAS 0.3.21
    detects Prescott on a guest that hides an AVX-512 Xeon's model) re-executes once with OPENBLAS_CORETYPE set to
    core_for_cpu(); if that core fails the check, once more without it."""
    state = json.loads(os.environ.get(STATE_VAR, "{}"))
    err = sgemm_check_error()
    if state.get("forced") and err > 1e-5:
        env = dict(os.environ)
        env.pop("OPENBLAS_CORETYPE", None)
        state = {k: v for k, v in state.items() if k != "forced"}
        state["forced_reason"] = f"OPENBLAS_CORETYPE={state.get('want')} failed the sgemm check (max rel err {err:.3g})"
        env[STATE_VAR] = json.dumps(state)
        _reexec(env)
    if state.get("dropped") and err > 1e-5:
        env = dict(os.environ)
        env.update(state["dropped"])
        env[STATE_VAR] = json.dumps({"kept": state["dropped"], "reason": f"sgemm check failed at the detected "
                                     f"core (max rel err {err:.3g})"})
        _reexec(env)
    info = openblas_info()
    want = core_for_cpu()
    if (info and want and STATE_VAR in os.environ and "want" not in state
            and core_level(info["core"]) < core_level(want)):
        env = dict(os.environ)
        env["OPENBLAS_CORETYPE"] = want
        state.update({"want": want, "forced": {"OPENBLAS_CORETYPE": want},
                      "forced_reason": f"OpenBLAS detected {info['core']} on a CPU whose widest kernels are {want}'s"})
        env[STATE_VAR] = json.dumps(state)
        _reexec(env)
    blas_line = [ln.strip() for ln in torch.__config__.show().splitlines() if "BLAS_INFO" in ln]
    return {"openblas": info, "forcing_vars": {k: os.environ.get(k) for k in FORCING_VARS},
            "forced": state.get("forced"), "forced_reason": state.get("forced_reason"),
            "dropped": state.get("dropped", {}), "kept": state.get("kept"), "reason": state.get("reason"),
            "sgemm_check_max_rel_err": err, "malloc": {k: os.environ.get(k) for k in STEADY_MALLOC},
            "openblas_threads": os.environ.get("OPENBLAS_NUM_THREADS"),
            "torch_blas": blas_line[0] if blas_line else None}


# ---------------------------------------------------------------------------------------------------------------
# Definitions: fn(x, p) with x the known non-output buffers by name, p the workload params. Returns the outputs in
# known order (a tensor, or a tuple for several outputs).

def _mha(x, p):
    a = x["A"]
    b, t, d = a.shape
    h = p["heads"]
    hd = d // h

    def heads(w, bias):  # Linear (weight [out, in]) then [b, t, h, hd] -> [b, h, t, hd]
        return (a @ w.transpose(0, 1) + bias).view(b, t, h, hd).transpose(1, 2)

    q, k, v = heads(x["Ac"], x["Ad"]), heads(x["Ae"], x["Af"]), heads(x["Ag"], x["Ah"])
    att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(hd))
    att = att.masked_fill(x["Aa"], float("-inf"))  # mask true = masked (LEIR: if_then_else(Aa, -inf, O))
    att = torch.softmax(att, dim=-1)
    y = (att @ v).transpose(1, 2).contiguous().view(b, t, d)
    return y @ x["Ai"].transpose(0, 1) + x["Aj"]


DEFS = {
    "Square_matrix_multiplication": lambda x, p: x["A"] @ x["C"],
    "Standard_matrix_multiplication": lambda x, p: x["A"] @ x["C"],
    "Tall_skinny_matrix_multiplication": lambda x, p: x["A"] @ x["C"],
    "Matrix_vector_multiplication": lambda x, p: x["A"] @ x["C"],
    "Batched_matrix_multiplication": lambda x, p: torch.bmm(x["A"], x["C"]),
    "Matmul_with_transposed_B": lambda x, p: x["A"] @ x["C"].transpose(0, 1),
    "conv_standard_2D__square_input__square_kernel": lambda x, p: F.conv2d(x["A"], x["D"]),
    "conv_depthwise_2D_square_input_square_kernel": lambda x, p: F.conv2d(x["A"], x["D"], groups=x["A"].shape[1]),
    "conv_pointwise_2D": lambda x, p: F.conv2d(x["A"], x["D"]),
    "softmax": lambda x, p: torch.softmax(x["A"], dim=1),
    "LogSoftmax": lambda x, p: torch.log_softmax(x["A"], dim=1),
    "LayerNorm": lambda x, p: F.layer_norm(x["A"], x["A"].shape[1:], weight=x["D"], bias=x["E"], eps=1e-5),
    "RMSNorm": lambda x, p: x["A"] / torch.sqrt(torch.mean(x["A"] ** 2, dim=1, keepdim=True) + 1e-5),
    # nn.BatchNorm2d in training mode: batch statistics, biased variance
    "BatchNorm": lambda x, p: F.batch_norm(x["A"], None, None, weight=x["F"], bias=x["G"], training=True, eps=1e-5),
    "GELU": lambda x, p: F.gelu(x["A"]),
    "ReLU": lambda x, p: torch.relu(x["A"]),
    "Swish": lambda x, p: x["A"] * torch.sigmoid(x["A"]),
    "Sum_reduction_over_a_dimension": lambda x, p: torch.sum(x["A"], dim=1, keepdim=True),
    "Max_Pooling_2D": lambda x, p: F.max_pool2d(x["A"], kernel_size=p.get("kernel", 2), stride=p.get("stride", 2),
                                                padding=p.get("padding", 1), dilation=p.get("dilation", 3)),
    "Gemm_Add_ReLU": lambda x, p: torch.relu(x["A"] @ x["E"].transpose(0, 1) + x["F"]),
    "Gemm_ReLU_Divide": lambda x, p: torch.relu(x["A"] @ x["G"].transpose(0, 1) + x["H"]) / x["F"],
    # steptp's definition: conv without bias, ReLU, then the literal 0.1
    "Conv2D_ReLU_BiasAdd": lambda x, p: torch.relu(F.conv2d(x["A"], x["F"])) + 0.1,
    "MHA": _mha,
}

# Small shapes for --check (every param given explicitly; non-square where the workload allows it, so that a
# transposed layout cannot pass by accident).
CHECK_PARAMS = {
    "Square_matrix_multiplication": {"n": 8},
    "Standard_matrix_multiplication": {"m": 8, "n": 6, "k": 5},
    "Tall_skinny_matrix_multiplication": {"m": 16, "n": 6, "k": 5},
    "Matrix_vector_multiplication": {"m": 8, "k": 40},
    "Batched_matrix_multiplication": {"b": 2, "m": 8, "n": 6, "k": 5},
    "Matmul_with_transposed_B": {"m": 8, "n": 6, "k": 5},
    "conv_standard_2D__square_input__square_kernel":
        {"batch": 2, "in_ch": 3, "out_ch": 4, "in_h": 9, "in_w": 9, "k_h": 3, "k_w": 3},
    "conv_depthwise_2D_square_input_square_kernel":
        {"batch": 2, "in_ch": 3, "out_ch": 3, "in_h": 9, "in_w": 9, "k_h": 3, "k_w": 3},
    "conv_pointwise_2D": {"batch": 2, "in_ch": 3, "out_ch": 4, "in_h": 6, "in_w": 6, "k_h": 1, "k_w": 1},
    "softmax": {"batch": 4, "dim": 40},
    "LogSoftmax": {"batch": 4, "dim": 40},
    "LayerNorm": {"batch": 2, "features": 4, "dim1": 6, "dim2": 5},
    "RMSNorm": {"batch": 2, "features": 4, "dim1": 6, "dim2": 5},
    "BatchNorm": {"batch": 2, "features": 4, "dim1": 6, "dim2": 5},
    "GELU": {"batch": 4, "dim": 40},
    "ReLU": {"batch": 4, "dim": 40},
    "Swish": {"batch": 4, "dim": 40},
    "Sum_reduction_over_a_dimension": {"batch": 2, "dim1": 7, "dim2": 5},
    "Max_Pooling_2D": {"batch": 2, "channels": 3, "in_h": 16, "in_w": 16, "kernel": 2, "stride": 2, "padding": 1,
                       "dilation": 3},
    "Gemm_Add_ReLU": {"batch": 4, "in": 12, "out": 8},
    "Gemm_ReLU_Divide": {"batch": 4, "in": 12, "out": 8},
    "Conv2D_ReLU_BiasAdd": {"batch": 2, "in_ch": 3, "out_ch": 4, "in_h": 9, "in_w": 9, "k": 3},
    "MHA": {"batch": 2, "seq": 8, "d_model": 16, "heads": 4},
}

# ---------------------------------------------------------------------------------------------------------------


def emit(steptp, workload, params, dtype="f32", small=False):
    """The task steptp emits for this workload and params (one JSON object)."""
    cmd = [steptp, "workloads", "emit", workload, "--dtype", dtype]
    if small:
        cmd.append("--small")
    for k, v in params.items():
        cmd += ["--set", f"{k}={v}"]
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)}: {r.stderr.strip()}")
    return json.loads(r.stdout.splitlines()[0])


def outputs_of(res, task):
    outs = [k for k in task["known"] if k["role"] == "output"]
    if isinstance(res, torch.Tensor):
        res = (res,)
    if len(res) != len(outs):
        raise RuntimeError(f"definition returned {len(res)} outputs, the task has {len(outs)}")
    for k, r in zip(outs, res):
        if list(r.shape) != list(k["shape"]):
            raise RuntimeError(f"output {k['name']}: shape {list(r.shape)}, task {k['shape']}")
    return list(zip(outs, res))


# ---------------------------------------------------------------------------------------------------------------
# Timing

TORCH_DTYPE = {"f32": torch.float32, "f64": torch.float64, "f16": torch.float16, "bf16": torch.bfloat16}


def timing_inputs(task, workload, dtype):
    g = torch.Generator().manual_seed(0)
    x = {}
    for k in task["known"]:
        if k["role"] == "output":
            continue
        shape = k["shape"]
        if k["dtype"] == "bool":
            if workload.startswith(("MHA", "MQA", "GQA")):  # the causal mask: true above the diagonal
                t = shape[-1]
                x[k["name"]] = torch.triu(torch.ones(t, t, dtype=torch.bool), 1).view(*shape)
            else:
                x[k["name"]] = torch.rand(shape, generator=g) < 0.5
        elif k["dtype"].startswith(("i", "u")):
            x[k["name"]] = torch.zeros(shape, dtype=torch.int64)
        else:
            v = torch.randn(shape, generator=g, dtype=torch.float32)
            if not shape:  # a scalar constant (a divisor, a scale): keep it away from 0
                v = torch.tensor(2.0)
            x[k["name"]] = v.to(TORCH_DTYPE[k["dtype"]])
    return x


def time_call(fn, min_repeat_ns, repeats, warmup):
    for _ in range(warmup):
        fn()
    number = 1
    while True:
        t0 = time.perf_counter_ns()
        for _ in range(number):
            fn()
        dt = time.perf_counter_ns() - t0
        if dt >= min_repeat_ns:
            break
        number = max(number * 2, int(number * min_repeat_ns * 1.2 / max(dt, 1)) + 1)
    samples = []
    for _ in range(repeats):
        t0 = time.perf_counter_ns()
        for _ in range(number):
            fn()
        samples.append((time.perf_counter_ns() - t0) / number)
    samples.sort()
    q = statistics.quantiles(samples, n=4, method="inclusive") if len(samples) > 1 else [samples[0]] * 3
    return {"median_ns": statistics.median(samples), "q1_ns": q[0], "q3_ns": q[2], "number": number,
            "repeats": repeats}


def run_timing(args, tasks):
    blas = blas_state()
    if not args.quiet:
        core = blas["openblas"]["core"] if blas["openblas"] else "?"
        forced = "".join(f", forced {k}={v} ({blas['forced_reason']})" for k, v in (blas["forced"] or {}).items())
        print(f"pytorch_eager: OpenBLAS core {core}, dropped {sorted(blas['dropped']) or 'nothing'}{forced}, sgemm "
              f"check max rel err {blas['sgemm_check_max_rel_err']:.2g}", file=sys.stderr, flush=True)
    torch.set_num_threads(args.threads)
    out = open(args.out, "w") if args.out else sys.stdout
    failed = 0
    for t in tasks:
        w, p = t["workload"], t.get("params", {})
        rec = {"workload": w, "params": p, "threads": args.threads, "torch_version": torch.__version__,
               "blas": blas}
        try:
            if w not in DEFS:
                raise RuntimeError("no PyTorch definition for this workload")
            task = emit(args.steptp, w, p, args.dtype)
            x = timing_inputs(task, w, args.dtype)
            fn = DEFS[w]
            with torch.no_grad():
                outputs_of(fn(x, p), task)  # shape check
                rec.update(time_call(lambda: fn(x, p), args.min_repeat_ms * 1e6, args.repeats, args.warmup))
        except Exception as e:  # noqa: BLE001 - one failed task must not stop the others
            failed += 1
            rec.update({"median_ns": None, "q1_ns": None, "q3_ns": None, "error": str(e)})
        print(json.dumps(rec), file=out, flush=True)
        if out is not sys.stdout and not args.quiet:
            ms = rec["median_ns"] / 1e6 if rec["median_ns"] is not None else None
            print(f"pytorch {w}: {ms if ms is None else f'{ms:.3f} ms'}" + (f"  ERROR {rec['error']}" if
                  "error" in rec else ""), file=sys.stderr, flush=True)
    if out is not sys.stdout:
        out.close()
    return 1 if failed else 0


# ---------------------------------------------------------------------------------------------------------------
# Check against steptp's reference interpreter (LEIR.md §11 inputs)

M64 = (1 << 64) - 1


class SplitMix64:
    def __init__(self, seed):
        self.s = seed & M64

    def next(self):
        self.s = (self.s + 0x9E3779B97F4A7C15) & M64
        z = self.s
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & M64
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & M64
        return z ^ (z >> 31)

    def u01(self):
        return (self.next() >> 11) * 2.0 ** -53


def round_to(v, dtype):
    if dtype == "f32":
        return torch.tensor(v, dtype=torch.float64).to(torch.float32).to(torch.float64)
    if dtype in ("f16", "bf16"):
        t = torch.float16 if dtype == "f16" else torch.bfloat16
        return torch.tensor(v, dtype=torch.float64).to(t).to(torch.float64)
    return torch.tensor(v, dtype=torch.float64)


def gen_inputs(task, seed, dist):
    """LEIR.md §11 inputs (float and bool buffers; integer buffers are not supported here)."""
    g = SplitMix64(2 * seed + (1 if dist == "U" else 0))
    two_pi = 6.283185307179586476925286766559
    x = {}
    for k in task["known"]:
        if k["role"] == "output":
            continue
        n = math.prod(k["shape"])
        vals = []
        if k["dtype"] == "bool":
            for _ in range(n):
                vals.append(g.u01() < 0.5)
            x[k["name"]] = torch.tensor(vals, dtype=torch.bool).reshape(k["shape"])
            continue
        if k["dtype"] not in ("f32", "f64", "f16", "bf16"):
            raise RuntimeError(f"integer known buffer {k['name']} ({k['dtype']}): not supported by the check")
        for _ in range(n):
            if dist == "U":
                vals.append(0.5 + g.u01())
            else:
                u1 = g.u01()
                u2 = g.u01()
                vals.append(math.sqrt(-2.0 * math.log(1.0 - u1)) * math.cos(two_pi * u2))
        x[k["name"]] = round_to(vals, k["dtype"]).reshape(k["shape"])
    return x


def augment(task):
    """Adds a weight param Qzz<i> (f64, the output's shape) and a 0-d f64 output Rzz<i> = sum(O * Qzz<i>) per
    output O. The weights come last among the non-outputs, so the task's own inputs keep their values."""
    outs = [k for k in task["known"] if k["role"] == "output"]
    non_out = [k for k in task["known"] if k["role"] != "output"]
    suffix = "acdefghijk"
    extra_p, extra_o, nests = [], [], []
    for i, o in enumerate(outs):
        q, r = "Qzz" + suffix[i], "Rzz" + suffix[i]
        extra_p.append({"name": q, "role": "param", "dtype": "f64", "shape": list(o["shape"])})
        extra_o.append({"name": r, "role": "output", "dtype": "f64", "shape": []})
        vs = ["z" + "acdfghjkmnopqrsuw"[d] for d in range(len(o["shape"]))]
        if not vs:
            nests.append(f"L^{{1}}_{{za=0}}[{r}^{{f64,g}}={r}^{{f64,g}}+{o['name']}^{{{o['dtype']},g}}*"
                         f"{q}^{{f64,g}};];")
            continue
        heads = "".join(f"L^{{{n}}}_{{{v}=0}}" for n, v in zip(o["shape"], vs))
        sub = "_{" + ",".join(vs) + "}"
        nests.append(f"{heads}[{r}^{{f64,g}}={r}^{{f64,g}}+{o['name']}^{{{o['dtype']},g}}{sub}*"
                     f"{q}^{{f64,g}}{sub};];")
    aug = dict(task)
    aug["known"] = non_out + extra_p + outs + extra_o
    aug["leir"] = task["leir"] + "".join(nests)
    return aug, [(o["name"], "Rzz" + suffix[i], "Qzz" + suffix[i]) for i, o in enumerate(outs)]


def steptp_run(steptp, path, seed, dist):
    r = subprocess.run([steptp, "run", path, "--seed", str(seed), "--dist", dist], capture_output=True, text=True)
    if r.returncode != 0:
        raise RuntimeError(f"steptp run failed: {(r.stderr or r.stdout).strip()[:500]}")
    stats = {}
    for line in r.stdout.splitlines():
        parts = line.split()
        if len(parts) >= 6 and parts[3].startswith("checksum="):
            stats[parts[0]] = {kv.split("=")[0]: float(kv.split("=")[1]) for kv in parts[3:6]}
    return stats


def rel_err(a, b, scale):
    if math.isnan(a) and math.isnan(b):
        return 0.0
    if math.isnan(a) or math.isnan(b):
        return math.inf
    if a == b:
        return 0.0
    return abs(a - b) / max(abs(b), scale, 1e-300)


def check_one(args, w, tmpdir):
    p = CHECK_PARAMS.get(w)
    if p is None:
        raise RuntimeError("no small check shape for this workload")
    if w not in DEFS:
        raise RuntimeError("no PyTorch definition for this workload")
    task = emit(args.steptp, w, p, "f32", small=True)
    aug, proj = augment(task)
    path = os.path.join(tmpdir, f"{w}.json")
    with open(path, "w") as f:
        json.dump(aug, f)
    worst, where, nan_runs = 0.0, None, 0
    for seed in args.seeds:
        for dist in ("N", "U"):
            ref = steptp_run(args.steptp, path, seed, dist)
            x = gen_inputs(aug, seed, dist)
            with torch.no_grad():
                res = outputs_of(DEFS[w]({k: v for k, v in x.items() if not k.startswith("Qzz")}, p), task)
            any_nan = False
            for (k, o), (oname, rname, qname) in zip(res, proj):
                o = o.to(torch.float64)
                fin = torch.isfinite(o)
                any_nan |= bool(torch.isnan(o).any())
                terms = (o * x[qname])
                mine = {"checksum": float(o.sum()), "min": float(o[~torch.isnan(o)].min()) if fin.any() else math.nan,
                        "max": float(o[~torch.isnan(o)].max()) if fin.any() else math.nan}
                if torch.isnan(o).any():
                    mine["min"] = mine["max"] = math.nan
                amax = float(o[fin].abs().max()) if fin.any() else 0.0
                tmax = float(terms[torch.isfinite(terms)].abs().max()) if torch.isfinite(terms).any() else 0.0
                pairs = [(f"{oname}.sum", mine["checksum"], ref[oname]["checksum"], amax),
                         (f"{oname}.min", mine["min"], ref[oname]["min"], amax),
                         (f"{oname}.max", mine["max"], ref[oname]["max"], amax),
                         (f"{oname}.projection", float(terms.sum()), ref[rname]["checksum"], tmax)]
                for name, a, b, s in pairs:
                    e = rel_err(a, b, s)
                    if where is None or e > worst:
                        worst, where = e, (name, seed, dist, a, b)
            nan_runs += any_nan
    return {"max_rel_err": worst, "worst": {"stat": where[0], "seed": where[1], "dist": where[2],
                                            "torch": where[3], "steptp": where[4]},
            "runs": len(args.seeds) * 2, "runs_with_nan": nan_runs, "check_params": p}


def run_check(args, tasks):
    torch.set_num_threads(args.threads)
    out = open(args.out, "w") if args.out else sys.stdout
    bad = 0
    seen = set()
    with tempfile.TemporaryDirectory(prefix="steptp-check-") as tmpdir:
        for t in tasks:
            w = t["workload"]
            if w in seen:
                continue
            seen.add(w)
            rec = {"workload": w}
            try:
                rec.update(check_one(args, w, tmpdir))
                rec["ok"] = rec["max_rel_err"] <= args.tol and rec["runs_with_nan"] < rec["runs"]
            except Exception as e:  # noqa: BLE001
                rec.update({"ok": False, "error": str(e)})
            bad += not rec["ok"]
            print(json.dumps(rec), file=out, flush=True)
            if not args.quiet:
                msg = (f"max rel err {rec['max_rel_err']:.2e} ({rec['worst']['stat']})" if "max_rel_err" in rec
                       else rec["error"])
                print(f"check {w}: {'PASS' if rec['ok'] else 'FAIL'}  {msg}", file=sys.stderr, flush=True)
    if out is not sys.stdout:
        out.close()
    if not args.quiet:
        print(f"check: {len(seen) - bad}/{len(seen)} definitions pass", file=sys.stderr)
    return 1 if bad else 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--tasks", default=os.path.join(HERE, "search_tasks.json"),
                    help="JSON list of {workload, params} (default bench/search_tasks.json)")
    ap.add_argument("--steptp", default=os.path.join(ROOT, "build", "steptp"), help="steptp binary")
    ap.add_argument("--threads", type=int, default=1, help="torch.set_num_threads (default 1)")
    ap.add_argument("--dtype", default="f32", help="element dtype of the timed tasks (default f32)")
    ap.add_argument("--repeats", type=int, default=15, help="timed repeats (default 15)")
    ap.add_argument("--warmup", type=int, default=3, help="untimed calls first (default 3)")
    ap.add_argument("--min-repeat-ms", type=float, default=1.0, help="calibrate so one repeat lasts this long")
    ap.add_argument("--limit", type=int, default=0, help="only the first N tasks (0 = all)")
    ap.add_argument("--only", nargs="*", help="only these workloads")
    ap.add_argument("--check", action="store_true", help="verify the definitions against steptp run (small shapes)")
    ap.add_argument("--seeds", type=int, nargs="*", default=[0, 1, 2], help="--check: input seeds (default 0 1 2)")
    ap.add_argument("--tol", type=float, default=1e-4, help="--check: max relative error (default 1e-4)")
    ap.add_argument("--out", help="write the JSON lines here instead of stdout")
    ap.add_argument("--quiet", action="store_true", help="no progress on stderr")
    ap.add_argument("--keep-blas-env", action="store_true",
                    help="time under OPENBLAS_CORETYPE/OPENBLAS_L2_SIZE and malloc settings as given")
    args = ap.parse_args()
    with open(args.tasks) as f:
        tasks = json.load(f)
    if args.only:
        tasks = [t for t in tasks if t["workload"] in args.only]
    if args.limit > 0:
        tasks = tasks[:args.limit]
    if not os.access(args.steptp, os.X_OK):
        sys.exit(f"pytorch_eager.py: {args.steptp} is not an executable (build steptp first)")
    return run_check(args, tasks) if args.check else run_timing(args, tasks)


if __name__ == "__main__":
    sys.exit(main())
