"""The engine (swishgrad_numba.engine): compile and call costs, throughput. (Once against the fused passes,
which issue 39 deleted: the engine is the only path.)

    python bench/engine_compare.py cold                # first calls of every operator x kernel x dtype,
                                                       # a fresh process with an empty Numba cache
    python bench/engine_compare.py speed [--grains 256,1024] [--n 4194304] [--threads 2]
                                                       # warm calls: 2^22 and 4,096 elements, per grain
    python bench/engine_compare.py first [--tree OTHER]
                                                       # a kernel read from source: its first call, in a
                                                       # fresh process (this NUMBA_CACHE_DIR, warm); and
                                                       # warm 4,096-element calls of every operator,
                                                       # kernel (A2, 950) and dtype it takes; --tree: the
                                                       # package of another checkout, by this script
    python bench/engine_compare.py broadcast           # the broadcast walk's first call per pair of input
                                                       # dtypes (CPU s), a fresh process, an empty cache
    python bench/engine_compare.py middle [--sizes 15,17,19,20] [--threads 1,2] [--cases all|OP:KERNEL:DTYPE,...]
                                   [--paths machine,engine[,nowarm,hot]] [--turns 15]
                                                       # middle sizes: each row's face
                                                       # (OP_BENCHES[op].emulator), the engine as a call
                                                       # takes it against the machine alone, one process,
                                                       # alternated turns, min of the turns' means

``cold`` runs each combination of :data:`swishgrad_numba.benchmark.family.OP_BENCHES` (operator), kernel
(the A2's, the 950's) and dtype once at 4,096 elements in one child process whose ``NUMBA_CACHE_DIR`` is
a new empty folder, and prints the total and the slowest; then, in the same process, the row machine's
operators (RmsNorm, SwiGlu on both kernels, SwiGluGrad on the A2's; 16 x 256), totalled apart. ``speed`` times
each grain in one process, the best of several rounds. ``middle`` (:func:`middle`) times, per operator x kernel x
dtype (``--cases all``: every one :data:`swishgrad_numba.benchmark.family.OP_BENCHES` takes, float32, float16
and bfloat16), size and thread count, the paths asked: the engine as a call takes it (``engine``: the hot tier
from :data:`swishgrad_numba.engine.hot.HOT_MIN_ELEMENTS`, and from ``HOT_WARM_MIN_ELEMENTS`` once warm: the
engine's stream is called ``HOT_WARM_ELEMENTS`` elements' worth first; the machine below), the machine
alone (``machine``: the hot tier off), the hot tier alone (``hot``: its threshold 0) and the engine without
the warm rule (``nowarm``: a middle launch on the machine), round-robin
(:func:`swishgrad_numba.benchmark.timing.time_interleaved`), the least of the turns' means, with the ratio
of each later path to the first (under 1: the later faster). A report, not a test.
"""
from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]

_COLD = r"""
import json, sys, time
t0 = time.perf_counter()
import numpy as np
import swishgrad_numba as sg
from swishgrad_numba.benchmark.family import OP_BENCHES
from swishgrad_numba.ops import get_operator
t_import = time.perf_counter() - t0
rows = []
for op, bench in OP_BENCHES.items():
    name = {"silu": "silu", "swish": "swish"}.get(op, op)
    if not bench.elementwise:     # the row operators: row_ops below
        continue
    for platform in (sg.REFERENCE_PLATFORM, sg.ASCEND950_PLATFORM):
        if platform.architecture not in get_operator(name).kernels:
            continue
        for dtype in ("float32", "float16", "bfloat16"):
            rng = np.random.default_rng(0)
            x = rng.uniform(-3, 3, 4096).astype(np.float32).astype(sg.bfloat16 if dtype == "bfloat16" else dtype)
            g = x[::-1].copy()
            out = np.empty_like(x)
            t = time.perf_counter()
            bench.emulator(g, x, out, bench.beta, platform)
            rows.append((op, platform.architecture, dtype, time.perf_counter() - t))
row_ops = []   # the row machine's operators: RmsNorm, SwiGlu, SwiGluGrad (A2)
for platform in (sg.REFERENCE_PLATFORM, sg.ASCEND950_PLATFORM):
    for dtype in ("float32", "float16", "bfloat16"):
        np_dtype = sg.bfloat16 if dtype == "bfloat16" else dtype
        x = np.random.default_rng(0).uniform(-3, 3, (16, 256)).astype(np.float32).astype(np_dtype)
        calls = [("rms_norm", lambda: sg.rms_norm(x, np.ones(256, np_dtype), platform=platform)),
                 ("swiglu", lambda: sg.swiglu(x, platform=platform))]
        if platform is sg.REFERENCE_PLATFORM:
            calls.append(("swiglu_backward", lambda: sg.swiglu_backward(x[:, :128].copy(), x, platform=platform)))
        for name, call in calls:
            t = time.perf_counter()
            call()
            row_ops.append((name, platform.architecture, dtype, time.perf_counter() - t))
print(json.dumps({"import": t_import, "rows": rows, "row_ops": row_ops}))
"""


_FIRST = r"""
import json, sys, time
from pathlib import Path
import numpy as np
import swishgrad_numba as sg
from swishgrad_numba.benchmark.family import OP_BENCHES
from swishgrad_numba.ops import get_operator, read_kernel
kernels = Path(sys.argv[1])
rows = []
for folder, dtype in (("a2_swish_back", "float32"), ("dag_swish_toy", "float16"), ("a2_scaled_abs", "bfloat16")):
    x = np.linspace(-3, 3, 4096).astype(np.float32).astype(sg.bfloat16 if dtype == "bfloat16" else dtype)
    t = time.perf_counter()
    op = read_kernel(kernels / folder)
    t_read = time.perf_counter() - t
    args = {"a2_swish_back": dict(dy=x, x=x, sconf=1.1), "dag_swish_toy": dict(x=x, beta=0.6),
            "a2_scaled_abs": dict(x=x, scale=1.3, unusedAttr=7.0)}[folder]
    t = time.perf_counter()
    op.run(**args)
    rows.append((folder, dtype, t_read, time.perf_counter() - t))
calls = []
for platform in (sg.REFERENCE_PLATFORM, sg.ASCEND950_PLATFORM):
    for name, bench in OP_BENCHES.items():
        if platform.architecture not in get_operator(name).kernels or not bench.elementwise:
            continue
        for dtype in ("float32", "float16", "bfloat16"):
            x = np.linspace(-3, 3, 4096).astype(np.float32).astype(sg.bfloat16 if dtype == "bfloat16" else dtype)
            g, out = x[::-1].copy(), np.empty_like(x)
            try:
                bench.emulator(g, x, out, bench.beta, platform)
            except (TypeError, ValueError):   # a dtype this kernel does not take
                continue
            best = float("inf")
            for _ in range(5):
                t = time.perf_counter()
                for _ in range(50):
                    bench.emulator(g, x, out, bench.beta, platform)
                best = min(best, (time.perf_counter() - t) / 50)
            calls.append((name, platform.architecture, dtype, best))
print(json.dumps({"read": rows, "calls": calls}))
"""


_BROADCAST = r"""
import json, time
import numpy as np
import swishgrad_numba as sg
rng = np.random.default_rng(0)
base = rng.uniform(-3, 3, (64, 64)).astype(np.float32)
def arr(a, dtype):
    return a.astype(sg.bfloat16 if dtype == "bfloat16" else dtype)
t = time.process_time()
sg.silu_backward(base, base, platform=sg.REFERENCE_PLATFORM)           # the machine and the flat launch
rows = [("machine (flat A2 SiluGrad float32)", time.process_time() - t)]
pairs = (("silu_grad", "float32", "float32"), ("silu_grad", "float16", "float16"),
         ("silu_grad", "bfloat16", "bfloat16"), ("silu_grad", "float16", "float32"),
         ("silu_grad", "float32", "bfloat16"), ("leaky_relu_grad", "float16", "float16"),
         ("gelu_grad_v2", "float32", "float32"))
for op, gd, xd in pairs:
    g, x = arr(base, gd), arr(base[0], xd)                          # x broadcast along the rows
    t = time.process_time()
    if op == "silu_grad":
        sg.silu_backward(g, x, platform=sg.ASCEND950_PLATFORM)
    elif op == "leaky_relu_grad":
        sg.leaky_relu_backward(g, arr(base, xd), 0.01, platform=sg.ASCEND950_PLATFORM)
    else:
        sg.gelu_backward_v2(g, arr(base, xd), platform=sg.ASCEND950_PLATFORM)
    rows.append((f"{op} 950 {gd}/{xd}", time.process_time() - t))
print(json.dumps(rows))
"""


def broadcast_cold() -> list:
    """The broadcast walk's first calls on the engine, per pair of input dtypes, in a fresh process with
    an empty cache (the machine compiled first, by a flat call): CPU seconds each."""
    with tempfile.TemporaryDirectory(prefix="engine-broadcast-") as cache:
        env = dict(os.environ, NUMBA_CACHE_DIR=cache,
                   PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
        done = subprocess.run([sys.executable, "-c", _BROADCAST], env=env, capture_output=True, text=True,
                              check=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


def first(tree: Path = ROOT) -> dict:
    """A kernel read from source, its first call in a fresh process (this ``NUMBA_CACHE_DIR``, the
    machine already in it); then warm 4,096-element calls of every operator, kernel (the A2's, the 950's)
    and dtype (float32, float16, bfloat16) it takes. ``tree``: the package of another checkout (its own
    ``NUMBA_CACHE_DIR`` in the environment), run by this script, for a before/after comparison."""
    env = dict(os.environ, PYTHONPATH=str(tree) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    done = subprocess.run([sys.executable, "-c", _FIRST, str(ROOT / "tests" / "fixtures" / "kernels")], env=env,
                          capture_output=True, text=True, check=True, cwd=tree)
    return json.loads(done.stdout.strip().splitlines()[-1])


def cold() -> dict:
    """First calls in a fresh process with an empty cache."""
    with tempfile.TemporaryDirectory(prefix="engine-cold-") as cache:
        env = dict(os.environ, NUMBA_CACHE_DIR=cache,
                   PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
        t, cpu = time.perf_counter(), resource.getrusage(resource.RUSAGE_CHILDREN)
        done = subprocess.run([sys.executable, "-c", _COLD], env=env, capture_output=True, text=True, check=True)
        wall, after = time.perf_counter() - t, resource.getrusage(resource.RUSAGE_CHILDREN)
    result = json.loads(done.stdout.strip().splitlines()[-1])
    result["wall"], result["cpu"] = wall, after.ru_utime + after.ru_stime - cpu.ru_utime - cpu.ru_stime
    result["load"] = os.getloadavg()[0]
    return result


def _best(fn, rounds: int, min_time: float = 0.05) -> float:
    """The best mean time of ``fn`` over ``rounds`` rounds of at least ``min_time`` each."""
    best = float("inf")
    for _ in range(rounds):
        k, t0 = 0, time.perf_counter()
        while True:
            fn()
            k += 1
            t = time.perf_counter() - t0
            if t >= min_time:
                break
        best = min(best, t / k)
    return best


SPEED_CASES = (("swish_grad", "a2", "float32"), ("swish_grad", "a2", "float16"), ("gelu", "a2", "float32"),
               ("gelu", "arch35", "float16"), ("silu_grad", "a2", "float32"), ("softplus", "arch35", "float32"),
               ("sigmoid", "a2", "bfloat16"), ("silu_grad", "arch35", "float32"), ("elu_grad", "a2", "float32"))


def speed(grains, n: int, threads: int, rounds: int = 5, cases=SPEED_CASES):
    import numba
    import numpy as np

    import swishgrad_numba as sg
    from swishgrad_numba.benchmark.family import OP_BENCHES
    from swishgrad_numba.engine import runner

    numba.set_num_threads(threads)
    platforms = {"a2": sg.REFERENCE_PLATFORM, "arch35": sg.ASCEND950_PLATFORM}
    print(f"{'operator':<12}{'kernel':<8}{'dtype':<10}{'size':>9}"
          + "".join(f"{'engine/' + str(g):>13}" for g in grains))
    for op, arch, dtype in cases:
        bench = OP_BENCHES[op]
        for size in (n, 4096):
            rng = np.random.default_rng(1)
            x = rng.uniform(-8, 8, size).astype(np.float32).astype(sg.bfloat16 if dtype == "bfloat16" else dtype)
            g = x[::-1].copy()
            out = np.empty_like(x)

            def call():
                bench.emulator(g, x, out, bench.beta, platforms[arch])
            times = []
            for grain in grains:
                runner.DEFAULT_GRAIN = grain
                call()                                 # compile / warm this grain's launch
            for grain in grains:
                runner.DEFAULT_GRAIN = grain
                times.append(_best(call, rounds))
            unit = 1e3 if size == n else 1e6
            label = "ms" if size == n else "us"
            print(f"{op:<12}{arch:<8}{dtype:<10}{size:>9}"
                  + "".join(f"{t * unit:>11.2f}{label}" for t in times), flush=True)


def _all_cases() -> tuple:
    """Every (operator, kernel, dtype) of :data:`~swishgrad_numba.benchmark.family.OP_BENCHES` that is
    element-wise, both kernels where the operator has them, float32 and the 16-bit dtypes."""
    from swishgrad_numba.benchmark.family import OP_BENCHES
    from swishgrad_numba.ops import get_operator

    return tuple((op, arch, dtype) for op in OP_BENCHES if OP_BENCHES[op].elementwise for arch in ("a2", "arch35")
                 if arch in get_operator(op).kernels for dtype in ("float32", "float16", "bfloat16"))


#: The columns of ``middle``: how each path is set before its turn (hot tier on, hot threshold, whether a middle
#: launch of a warm stream runs hot). ``nowarm``: the engine without the warm rule (before it).
MIDDLE_PATHS = {"engine": (True, None, True), "nowarm": (True, None, False), "machine": (False, None, True),
                "hot": (True, 0, True)}


def middle(sizes, threads, cases, paths=("machine", "engine"), turns: int = 15, min_time: float = 0.01):
    """The engine's tiers at middle sizes: per case, size and thread count, each of ``paths``
    (:data:`MIDDLE_PATHS`) round-robin in this process, the least of ``turns`` turns' means (us); the ratio
    of each later path to the first. Rows are printed as they come; returns them."""
    import numba

    import swishgrad_numba as sg
    from swishgrad_numba.benchmark.family import OP_BENCHES
    from swishgrad_numba.benchmark.inputs import make_inputs
    from swishgrad_numba.benchmark.timing import TURN_PAUSE, time_interleaved
    from swishgrad_numba.engine import hot

    platforms = {"a2": sg.REFERENCE_PLATFORM, "arch35": sg.ASCEND950_PLATFORM}
    hot_min, warm_min = hot.HOT_MIN_ELEMENTS, hot.HOT_WARM_MIN_ELEMENTS
    load = os.getloadavg()
    print(f"load average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}; hot.HOT_MIN_ELEMENTS 2^{hot_min.bit_length() - 1}, "
          f"HOT_WARM_MIN_ELEMENTS 2^{warm_min.bit_length() - 1} (engine warmed first); min of {turns} "
          f"turns, us per call")
    print(f"{'operator':<16}{'kernel':<8}{'dtype':<10}{'size':>5}{'thr':>4}"
          + "".join(f"{p:>10}" for p in paths) + "".join(f"{p + '/' + paths[0]:>16}" for p in paths[1:]), flush=True)
    rows = []

    def setup(path, n_threads):
        hot_on, threshold, warm = MIDDLE_PATHS[path]

        def go():
            numba.set_num_threads(n_threads)
            hot.set_enabled(hot_on)
            hot.HOT_MIN_ELEMENTS = hot_min if threshold is None else threshold
            hot.HOT_WARM_MIN_ELEMENTS = warm_min if warm else hot_min
        return go

    previous = hot.enabled()
    try:
        for op, arch, dtype in cases:
            bench = OP_BENCHES[op]
            for log2 in sizes:
                g, x = make_inputs(1 << log2, sg.bfloat16 if dtype == "bfloat16" else dtype)
                out = np.empty_like(x)

                def call():
                    bench.emulator(g, x, out, bench.beta, platforms[arch])
                for n_threads in threads:
                    fns = {p: call for p in paths}
                    setups = {p: setup(p, n_threads) for p in paths}
                    if "engine" in paths and (1 << log2) >= warm_min:
                        setups["engine"]()     # warm: the stream's launches at this size then run hot (hot.large_enough)
                        for _ in range(-(-hot.HOT_WARM_ELEMENTS >> log2)):
                            call()
                    got = time_interleaved(fns, repeat=turns, min_time=min_time, pause=TURN_PAUSE, setups=setups)
                    us = [got[p]["min_seconds"] * 1e6 for p in paths]
                    rows.append((op, arch, dtype, log2, n_threads, us))
                    print(f"{op:<16}{arch:<8}{dtype:<10}{log2:>5}{n_threads:>4}" + "".join(f"{t:>10.1f}" for t in us)
                          + "".join(f"{t / us[0]:>16.3f}" for t in us[1:]), flush=True)
    finally:
        hot.set_enabled(previous)
        hot.HOT_MIN_ELEMENTS, hot.HOT_WARM_MIN_ELEMENTS = hot_min, warm_min
    load = os.getloadavg()
    slower = ", ".join(f"{sum(r[5][k] > r[5][0] for r in rows)} with {p}" for k, p in enumerate(paths) if k)
    print(f"{len(rows)} rows, slower than {paths[0]}: {slower}; load average at the end "
          f"{load[0]:.2f} {load[1]:.2f} {load[2]:.2f}")
    return rows


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="what", required=True)
    sub.add_parser("cold")
    f = sub.add_parser("first")
    f.add_argument("--tree", type=Path, default=ROOT, help="the package of another checkout (before/after)")
    sub.add_parser("broadcast")
    s = sub.add_parser("speed")
    s.add_argument("--grains", default="256,512,1024,2048,4096")
    s.add_argument("--n", type=int, default=1 << 22)
    s.add_argument("--threads", type=int, default=2)
    s.add_argument("--cases", default="", help="operator:kernel:dtype,... (default: all of SPEED_CASES)")
    m = sub.add_parser("middle")
    m.add_argument("--sizes", default="15,17,19,20", help="log2 element counts")
    m.add_argument("--threads", default="1,2")
    m.add_argument("--cases", default="all", help="all, or operator:kernel:dtype,... (kernel a2 or arch35)")
    m.add_argument("--paths", default="machine,engine", help=f"two or more of {', '.join(MIDDLE_PATHS)}; the ratios "
                   "are each later one's time over the first's")
    m.add_argument("--turns", type=int, default=15)
    args = parser.parse_args(argv)
    if args.what == "middle":
        paths = tuple(args.paths.split(","))
        if len(paths) < 2 or any(p not in MIDDLE_PATHS for p in paths):
            parser.error(f"--paths: two or more of {', '.join(MIDDLE_PATHS)}")
        cases = _all_cases() if args.cases == "all" else tuple(tuple(c.split(":")) for c in args.cases.split(","))
        middle([int(v) for v in args.sizes.split(",")], [int(v) for v in args.threads.split(",")], cases, paths,
               args.turns)
    elif args.what == "cold":
        r = cold()
        total = sum(row[3] for row in r["rows"])
        print(f"{len(r['rows'])} first calls {total:.1f} s (import {r['import']:.1f} s, "
              f"process {r['wall']:.1f} s wall, {r['cpu']:.1f} s CPU; load average {r['load']:.1f} at the end)")
        for op, arch, dtype, t in sorted(r["rows"], key=lambda row: -row[3])[:8]:
            print(f"  {op:<16}{arch:<8}{dtype:<10}{t:8.2f} s")
        row_ops = r.get("row_ops", [])
        print(f"then the row machine's operators: {len(row_ops)} first calls {sum(x[3] for x in row_ops):.1f} s")
        for op, arch, dtype, t in sorted(row_ops, key=lambda row: -row[3])[:4]:
            print(f"  {op:<16}{arch:<8}{dtype:<10}{t:8.2f} s")
    elif args.what == "broadcast":
        for label, t in broadcast_cold():
            print(f"  {label:<40}{t:8.2f} s CPU")
    elif args.what == "first":
        r = first(args.tree.resolve())
        for folder, dtype, t_read, t_call in r["read"]:
            print(f"read_kernel {folder:<14}{dtype:<10} read {t_read * 1e3:7.1f} ms, first call "
                  f"{t_call * 1e3:8.1f} ms")
        for name, arch, dtype, t in r["calls"]:
            print(f"{name:<16}{arch:<7}{dtype:<9} 4096 elements {t * 1e6:7.1f} us")
    else:
        cases = tuple(tuple(c.split(":")) for c in args.cases.split(",")) if args.cases else SPEED_CASES
        speed([int(g) for g in args.grains.split(",")], args.n, args.threads, cases=cases)


if __name__ == "__main__":
    main()
