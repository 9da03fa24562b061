"""Per-call costs (issue 39): a warm 4,096-element call of every described operator, and a kernel read from source.

    python bench/call_costs.py calls [--dtype float32] [--reps 200] [--rounds 9]
        # every described operator's functional face and its aclnn pair (phase one; both phases and the
        # synchronize), on each kernel it has, 4,096 elements, warm: median and best of the rounds' means (us)
    python bench/call_costs.py first [--runs 8] [--other OTHER_TREE]
        # read_kernel(folder) and its first run in a fresh process (this NUMBA_CACHE_DIR, warmed first by
        # one process that runs each), for three fixture kernels: ms; --runs N: N fresh processes a case,
        # the median and least of the first run's wall time and of its thread's CPU time; --other: and
        # OTHER_TREE's, the trees taking turns
    python bench/call_costs.py compare OTHER_TREE [--turns 3] [--dtype float32] [--small]
        # both of the above for this tree and OTHER_TREE (a checkout of another commit), in child processes
        # taking turns (this, other, this, ...), so each row's figures come from the same minutes; the best
        # of the turns per row; --small: the A2 kernel's functional faces alone (best of 5 x 50 calls)
    python bench/call_costs.py beside [--op swiglu] [--kernel 950] [--wait 0.05]
        # a row operator's 4,096-element functional call (float32) in 10 ms rounds while another Python thread
        # waits in lock.acquire(timeout=--wait) and then for the GIL: each round's mean (us) and whether the
        # thread is still alive; a call that releases the GIL makes the rounds after the timeout slower for as
        # long as the thread keeps losing it (bench/RESULTS.md, nothread)

A report, not a test: the 2-core machine these figures come from is shared, so read a row against its
neighbour from the same run, never against another run's.
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
KERNELS = ROOT / "tests" / "fixtures" / "kernels"
N = 4096

#: (folder, dtype, the run's keyword arguments but its inputs) of the kernels read from source.
READ_CASES = (("a2_swish_back", "float32", {"sconf": 1.1}, ("dy", "x")),
              ("dag_swish_toy", "float16", {"beta": 0.6}, ("x",)),
              ("a2_scaled_abs", "bfloat16", {"scale": 1.3, "unusedAttr": 7.0}, ("x",)))


def _timed(fn, reps: int, rounds: int) -> tuple:
    """(median, best) of ``rounds`` means of ``reps`` calls, in us."""
    means = []
    for _ in range(rounds):
        t = time.perf_counter()
        for _ in range(reps):
            fn()
        means.append((time.perf_counter() - t) / reps * 1e6)
    return statistics.median(means), min(means)


def _acl_args(desc, tensors, out):
    from swishgrad_numba.aclnn import ACL_FLOAT, aclCreateScalar

    def attr(a):
        if a.kind == "float":
            return aclCreateScalar(a.default, ACL_FLOAT)
        if a.kind == "choice" and a.acl_codes is not None:
            return next((c for c, v in a.acl_codes.items() if v == a.default), 0)
        return a.default
    by = {a.acl: attr(a) for a in desc.attributes}
    by.update({i.acl: t for i, t in zip(desc.inputs, tensors)}, **{desc.out: out})
    return tuple(by[n] for n in desc.acl_arguments)


def call_rows(dtype: str = "float32", reps: int = 200, rounds: int = 9, kernels=("a2", "950"),
              functional_only: bool = False) -> list:
    """``[(operator, kernel, face, median_us, best_us), ...]``: faces ``functional``, ``aclnn phase one``,
    ``aclnn pair`` (phase one, phase two, synchronize); ``functional_only``: the first alone. A row operator
    (SwiGlu, SwiGluGrad, RmsNorm): its functional face alone (:func:`_row_call`)."""
    import numpy as np

    import swishgrad_numba as sg
    from swishgrad_numba import aclnn
    from swishgrad_numba.aclnn import ACLNN_SUCCESS, ACL_BF16, ACL_FLOAT, ACL_FLOAT16
    from swishgrad_numba.faces.functional import face
    from swishgrad_numba.ops import get_operator
    from swishgrad_numba.ops.description import DESCRIPTIONS

    np_dtype = sg.bfloat16 if dtype == "bfloat16" else np.dtype(dtype)
    code = {"float32": ACL_FLOAT, "float16": ACL_FLOAT16, "bfloat16": ACL_BF16}[dtype]
    rows = []
    for kernel, platform in (("a2", sg.REFERENCE_PLATFORM), ("950", sg.ASCEND950_PLATFORM)):
        if kernel not in kernels:
            continue
        aclnn.set_platform(platform)
        for name in sorted(DESCRIPTIONS):
            desc = DESCRIPTIONS[name]
            if platform.architecture not in get_operator(name).kernels:
                continue
            if desc.rows is not None:     # a row operator: its inputs in rows, as the target table has them
                rows += _row_call(name, dtype, platform, kernel, reps, rounds)
                continue
            rng = np.random.default_rng(0)
            ins = [rng.uniform(0.1, 0.9, N).astype(np.float32).astype(np_dtype) for _ in desc.inputs]
            out = np.empty(N, np_dtype)
            fn = face(name)
            try:
                fn(*ins, out=out, platform=platform)
            except (TypeError, ValueError):   # a dtype this kernel does not take
                continue
            rows.append((name, kernel, "functional", *_timed(lambda: fn(*ins, out=out, platform=platform), reps,
                                                             rounds)))
            if functional_only:
                continue
            get_ws, launch = (getattr(aclnn, n) for n in desc.aclnn)
            tensors = [aclnn.aclCreateTensor(a.shape, code, None, 0, aclnn.ACL_FORMAT_ND, a.shape, a) for a in ins]
            t_out = aclnn.aclCreateTensor(out.shape, code, None, 0, aclnn.ACL_FORMAT_ND, out.shape, out)
            args = _acl_args(desc, tensors, t_out)
            status, size, _ = get_ws(*args)
            if status != ACLNN_SUCCESS:
                continue
            workspace = np.zeros(size, np.uint8) if size else None

            def pair():
                _, ws, ex = get_ws(*args)
                if launch(workspace, ws, ex, None) != ACLNN_SUCCESS or aclnn.aclrtSynchronizeStream(None):
                    raise RuntimeError(f"{desc.aclnn[1]}: {aclnn.aclGetRecentErrMsg()}")
            pair()
            rows.append((name, kernel, "aclnn phase one", *_timed(lambda: get_ws(*args), reps, rounds)))
            rows.append((name, kernel, "aclnn pair", *_timed(pair, reps, rounds)))
    return rows


def _row_call(name: str, dtype: str, platform, kernel: str, reps: int, rounds: int) -> list:
    """A row operator's functional face on N elements shaped as :data:`OP_BENCHES`' hook shapes them (rows of
    4,096), the call the target table times (its aclnn pair is not timed here); [] for a dtype it does not take."""
    from swishgrad_numba.benchmark import make_inputs
    from swishgrad_numba.benchmark.op_benches import OP_BENCHES

    bench = OP_BENCHES[name]
    g, x, out = bench.arrays(*make_inputs(N, dtype))
    call = lambda: bench.emulator(g, x, out, bench.beta, platform)   # noqa: E731
    try:
        call()
    except (TypeError, ValueError):
        return []
    return [(name, kernel, "functional", *_timed(call, reps, rounds))]


def beside_waiter(name: str = "swiglu", kernel: str = "950", wait: float = 0.05, rounds: int = 16) -> list:
    """``[(ms since the thread started, mean us a call, the thread alive), ...]``: :func:`_row_call`'s call of
    ``name`` in rounds of 10 ms while a thread blocked in ``lock.acquire(True, wait)`` times out and wants the
    GIL back."""
    import threading

    import swishgrad_numba as sg
    from swishgrad_numba.benchmark import make_inputs
    from swishgrad_numba.benchmark.op_benches import OP_BENCHES

    platform = sg.REFERENCE_PLATFORM if kernel == "a2" else sg.ASCEND950_PLATFORM
    bench = OP_BENCHES[name]
    g, x, out = bench.arrays(*make_inputs(N, "float32"))
    for _ in range(100):
        bench.emulator(g, x, out, bench.beta, platform)
    lock = threading.Lock()
    lock.acquire()
    waiter = threading.Thread(target=lock.acquire, args=(True, wait), daemon=True)
    waiter.start()
    t0, got = time.perf_counter(), []
    for _ in range(rounds):
        t, calls = time.perf_counter(), 0
        while time.perf_counter() - t < 0.01:
            bench.emulator(g, x, out, bench.beta, platform)
            calls += 1
        got.append(((t - t0) * 1e3, (time.perf_counter() - t) / calls * 1e6, waiter.is_alive()))
    waiter.join()
    return got


_FIRST = r"""
import json, sys, time
t0 = time.perf_counter()
import numpy as np
import swishgrad_numba as sg
from swishgrad_numba.ops import read_kernel
t_import = time.perf_counter() - t0
folder, dtype, attrs, names = json.loads(sys.argv[1])
x = np.linspace(-3, 3, 4096).astype(np.float32).astype(sg.bfloat16 if dtype == "bfloat16" else dtype)
t = time.perf_counter()
op = read_kernel(sys.argv[2] + "/" + folder)
t_read = time.perf_counter() - t
t, cpu = time.perf_counter(), time.thread_time()
op.run(**{n: x for n in names}, **attrs)
t_run, cpu_run = time.perf_counter() - t, time.thread_time() - cpu
t = time.perf_counter()
op.run(**{n: x for n in names}, **attrs)
print(json.dumps([t_import, t_read, t_run, time.perf_counter() - t, cpu_run]))
"""


def first_rows(root: Path = ROOT, runs: int = 1, warm: bool = True) -> list:
    """``[(folder, dtype, import_s, read_s, first_run_s, second_run_s, first_run_cpu_s), ...]``, each in a fresh
    process of the tree at ``root`` (run once before, to warm the cache, where ``warm``), ``runs`` a case."""
    env = dict(os.environ, PYTHONPATH=str(root))
    rows = []
    for measured in ([False] if warm else []) + [True] * runs:
        for folder, dtype, attrs, names in READ_CASES:
            got = subprocess.run([sys.executable, "-c", _FIRST, json.dumps([folder, dtype, attrs, names]),
                                  str(KERNELS)], env=env, capture_output=True, text=True, check=True, cwd=root)
            if measured:
                rows.append((folder, dtype, *json.loads(got.stdout)))
    return rows


def first_runs(trees: dict, runs: int) -> None:
    """Each case's first run in ``runs`` fresh processes of each tree (``{label: root}``), the trees taking
    turns: the median and least wall time and thread CPU time (ms), and the load average at each turn."""
    for root in trees.values():
        first_rows(root, 0)
    got, loads = {}, []
    for _ in range(runs):
        for label, root in trees.items():
            loads.append(os.getloadavg()[0])
            for folder, dtype, _imp, _read, run, _again, cpu in first_rows(root, 1, warm=False):
                got.setdefault((folder, dtype, label), []).append((run * 1e3, cpu * 1e3))
    print(f"load average at each turn: {', '.join(f'{x:.1f}' for x in loads)}")
    for (folder, dtype, label), rows in got.items():
        wall, cpu = sorted(r[0] for r in rows), sorted(r[1] for r in rows)
        print(f"{folder:<15}{dtype:<10}{label:<7} first run: wall median {statistics.median(wall):6.1f} ms (least "
              f"{wall[0]:6.1f}), thread CPU median {statistics.median(cpu):6.1f} ms (least {cpu[0]:6.1f}); {len(rows)} "
              "processes")


def _child(root: Path, what: str, dtype: str, small: bool = False) -> list:
    rows = f"{dtype!r}, 50, 5, ('a2',), True" if small else f"{dtype!r}, 100, 5"
    code = (f"import json, sys; sys.path.insert(0, {str(ROOT / 'bench')!r}); import call_costs as c; "
            + (f"print(json.dumps(c.call_rows({rows})))" if what == "calls" else
               f"print(json.dumps(c.first_rows(__import__('pathlib').Path({str(root)!r}))))"))
    env = dict(os.environ, PYTHONPATH=str(root))
    got = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True, cwd=root)
    return json.loads(got.stdout.strip().splitlines()[-1])


def compare(other: Path, turns: int, dtype: str, small: bool = False) -> None:
    trees = {"this": ROOT, "other": Path(other).resolve()}
    best: dict = {}
    loads = []
    for _ in range(turns):
        for label, root in trees.items():
            loads.append(os.getloadavg()[0])
            for row in _child(root, "calls", dtype, small):
                key = (label, "calls", tuple(row[:3]))
                best[key] = min(best.get(key, float("inf")), row[4])
            for row in () if small else _child(root, "first", dtype):
                key = (label, "first", tuple(row[:2]))
                best[key] = min(best.get(key, (float("inf"),) * 4), tuple(row[2:]))
    print(f"load average at each turn: {', '.join(f'{x:.1f}' for x in loads)}")
    print(f"{'operator':<20}{'kernel':<6}{'face':<17}{'other us':>10}{'this us':>10}")
    for (label, what, key), v in sorted(best.items()):
        if label == "this" and what == "calls":
            print(f"{key[0]:<20}{key[1]:<6}{key[2]:<17}{best[('other', what, key)]:>10.1f}{v:>10.1f}")
    for (label, what, key), v in sorted(best.items()):
        if label == "this" and what == "first":
            o = best[("other", what, key)]
            print(f"read_kernel {key[0]:<14}{key[1]:<9} import s {o[0]:.2f} / {v[0]:.2f}, read ms {o[1] * 1e3:.1f} / "
                  f"{v[1] * 1e3:.1f}, first run ms {o[2] * 1e3:.1f} / {v[2] * 1e3:.1f}, second run ms "
                  f"{o[3] * 1e3:.2f} / {v[3] * 1e3:.2f} (other / this)")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="what", required=True)
    c = sub.add_parser("calls")
    c.add_argument("--dtype", default="float32", choices=("float32", "float16", "bfloat16"))
    c.add_argument("--reps", type=int, default=200)
    c.add_argument("--rounds", type=int, default=9)
    f = sub.add_parser("first")
    f.add_argument("--runs", type=int, default=0, help="fresh processes a case: medians and least (0: one, as before)")
    f.add_argument("--other", type=Path, default=None, help="with --runs: that tree's too, the trees taking turns")
    m = sub.add_parser("compare")
    m.add_argument("other")
    m.add_argument("--turns", type=int, default=3)
    m.add_argument("--dtype", default="float32", choices=("float32", "float16", "bfloat16"))
    m.add_argument("--small", action="store_true", help="the A2 kernel's functional faces alone, best of 5 x 50 "
                   "calls; no kernel read from source")
    b = sub.add_parser("beside")
    b.add_argument("--op", default="swiglu")
    b.add_argument("--kernel", default="950", choices=("a2", "950"))
    b.add_argument("--wait", type=float, default=0.05, help="the other thread's lock timeout (s)")
    args = parser.parse_args(argv)
    print(f"load average {os.getloadavg()[0]:.1f}")
    if args.what == "calls":
        for name, kernel, face, med, best in call_rows(args.dtype, args.reps, args.rounds):
            print(f"{name:<20}{kernel:<5}{face:<17}{args.dtype:<10} median {med:8.1f} us  best {best:8.1f} us")
    elif args.what == "beside":
        for at, us, alive in beside_waiter(args.op, args.kernel, args.wait):
            print(f"{at:6.1f} ms: {us:6.1f} us a call; the waiting thread {'alive' if alive else 'gone'}")
    elif args.what == "first" and args.runs:
        first_runs({"this": ROOT, **({"other": args.other.resolve()} if args.other else {})}, args.runs)
    elif args.what == "first":
        for folder, dtype, t_import, t_read, t_run, t_again, _cpu in first_rows():
            print(f"{folder:<15}{dtype:<10} import {t_import:.2f} s, read_kernel {t_read * 1e3:.1f} ms, first run "
                  f"{t_run * 1e3:.1f} ms, second run {t_again * 1e3:.2f} ms")
    else:
        compare(args.other, args.turns, args.dtype, args.small)


if __name__ == "__main__":
    main()
