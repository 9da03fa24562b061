"""Throughput comparison of the emulator with its peers (``swishgrad bench``).

For each dtype, size and thread count the runner times, in one process run,
with a warm-up call first and the median of several repeats, the repeats of
all implementations and thread counts of one (dtype, size) cell taking turns
(:func:`time_interleaved`) so that a shared machine's drift in speed hits
every one alike:

* ``emulator``: :func:`swishgrad_numba.swish_backward`, with a preallocated
  ``out`` and allocating its result, at beta 1.1 (paired with the NumPy
  golden) and at beta 1.0 (paired with PyTorch);
* ``numpy``: the operator's float32 NumPy golden in the ATK executor's
  grouping ``(g * sig) * f`` (:func:`swishgrad_numba.golden.numpy_golden`,
  alias of ``atk_golden``), beta 1.1. NumPy ufuncs are
  single-threaded, so it is timed once per (dtype, size) and its figure is
  reused for every thread count;
* ``torch``: ``torch.ops.aten.silu_backward`` on CPU tensors of the same
  dtype, beta 1.0 (the only beta it knows), allocating and with ``out``
  (the ``grad_input`` overload), ``torch.set_num_threads`` equal to Numba's;
  a row marked ``skipped`` when torch is not installed;
* ``flat``: the emulator's own per-element arithmetic
  (``kernel.compute_f32`` / ``kernel.compute_16``) in one flat ``prange``
  over fixed chunks, without tiles, local buffers or ping-pong: the
  difference to ``emulator``/``out`` is what the tile structure costs;
* ``triad``: a STREAM-style triad ``a[:] = b + s * c`` in float32 over the
  same number of bytes, the memory-bandwidth roofline of this machine (the
  faster of a ``prange`` and a one-thread loop: at small sizes waking the
  thread pool costs more than the copy). Its row carries the dtype and size
  of the cell it serves; ``elements_per_s`` counts that cell's elements.

Bytes moved by one SwishGrad call are ``3 * n * itemsize`` (two reads, one
write); the triad moves ``3 * n32 * 4`` for the same footprint. Ratios are
speedups: ``ratio_numpy = t_numpy / t``, ``ratio_torch = t_torch / t``.

:func:`cold_start` times a fresh interpreter importing the package and
making its first call with a warm on-disk Numba cache; :func:`targets`
turns a run into the issue's PASS/MISS summary. This is a report, not a
test: nothing here asserts on time.
"""
from __future__ import annotations

import gc
import json
import math
import os
import platform as _platform
import statistics
import subprocess
import sys
import time
from pathlib import Path

import numba
import numpy as np
from numba import njit, prange

from . import dtypes, kernel, runtime
from .api import swish_backward
from .dtypes import canonical_dtype
from .golden import numpy_golden

__all__ = [
    "BETA_NUMPY",
    "BETA_TORCH",
    "FLAT_CHUNK",
    "cold_start",
    "flat_loop",
    "format_table",
    "format_targets",
    "machine_info",
    "make_inputs",
    "parse_sizes",
    "parse_threads",
    "run_comparison",
    "targets",
    "time_call",
    "time_interleaved",
    "torch_available",
    "triad",
]

#: Seconds of sleep between turns of the round-robin timing, so that one
#: implementation's spinning worker threads (OpenMP's, Numba's) are idle
#: before the next is timed.
_TURN_PAUSE = 0.002

#: beta of the emulator-vs-NumPy comparison (the SPEC's seed example).
BETA_NUMPY = 1.1
#: beta of the PyTorch comparison: ``silu_backward`` is Swish with beta 1.
BETA_TORCH = 1.0
#: Elements per parallel iteration of the flat loop (about one float32 tile).
FLAT_CHUNK = kernel.flat.FLAT_CHUNK
#: Inputs are uniform in [INPUT_LOW, INPUT_HIGH).
INPUT_LOW, INPUT_HIGH = -5.0, 5.0
SEED = 20240605
#: Size and target thresholds of issue 5.
TARGET_SIZE = 1 << 24
SMALL_SIZE = 1 << 10
COLD_START_SIZE = 1 << 20
MAX_LOG2_SIZE = 30



# --------------------------------------------------------------------------
# inputs, argument parsing
# --------------------------------------------------------------------------

def make_inputs(n: int, dtype, seed: int = SEED):
    """Seeded ``(grad_output, x)``, each uniform in [-5, 5) and of ``dtype``."""
    dt = canonical_dtype(dtype)
    rng = np.random.default_rng(seed)
    scale = np.float32(INPUT_HIGH - INPUT_LOW)
    low = np.float32(INPUT_LOW)
    g = (rng.random(n, dtype=np.float32) * scale + low).astype(dt)
    x = (rng.random(n, dtype=np.float32) * scale + low).astype(dt)
    return g, x


def parse_sizes(spec: str) -> list[int]:
    """Element counts from ``"10:26"`` (log2 range, inclusive), ``"10:26:2"`` or ``"10,16,20"``."""
    if not isinstance(spec, str) or not spec.strip():
        raise ValueError("sizes must be log2 exponents like '10:26', '10:26:2' or '10,16,20'")
    try:
        if ":" in spec:
            parts = [int(p) for p in spec.split(":")]
            if len(parts) not in (2, 3):
                raise ValueError
            step = parts[2] if len(parts) == 3 else 1
            if step < 1 or parts[1] < parts[0]:
                raise ValueError
            exps = list(range(parts[0], parts[1] + 1, step))
        else:
            exps = [int(p) for p in spec.split(",")]
    except ValueError:
        raise ValueError(
            f"sizes must be log2 exponents like '10:26', '10:26:2' or '10,16,20' "
            f"(start <= stop, step >= 1); got {spec!r}") from None
    for e in exps:
        if not 0 <= e <= MAX_LOG2_SIZE:
            raise ValueError(f"sizes: every exponent must be in 0..{MAX_LOG2_SIZE}, got {e}")
    return sorted({1 << e for e in exps})


def parse_threads(spec) -> list[int]:
    """Thread counts from ``"1,2"`` or a sequence; each in 1..NUMBA_NUM_THREADS."""
    try:
        counts = [int(t) for t in (spec.split(",") if isinstance(spec, str) else spec)]
    except (TypeError, ValueError):
        raise ValueError(f"threads must be positive integers like '1,2'; got {spec!r}") from None
    limit = numba.config.NUMBA_NUM_THREADS
    if not counts:
        raise ValueError("threads must name at least one thread count")
    for t in counts:
        if not 1 <= t <= limit:
            raise ValueError(
                f"threads: each count must be in 1..{limit} (NUMBA_NUM_THREADS on this machine), got {t}")
    return sorted(set(counts))


# --------------------------------------------------------------------------
# timing
# --------------------------------------------------------------------------

def _calibrate(fn, min_time: float) -> int:
    """Calls per repeat so that one repeat of ``fn()`` lasts ``min_time``."""
    number = 1
    while True:
        t0 = time.perf_counter()
        for _ in range(number):
            fn()
        elapsed = time.perf_counter() - t0
        if elapsed >= min_time or number >= 1 << 20:
            return number
        number = min(1 << 20, max(2 * number, int(number * min_time / max(elapsed, 1e-9) * 1.2)))


def time_interleaved(fns: dict, repeat: int = 5, min_time: float = 0.02, pause: float = 0.0,
                     setups: dict | None = None) -> dict:
    """Median seconds per call of each ``fns[key]()``, timed round-robin.

    Each function gets one warm-up call and a calibrated ``number`` of calls
    per repeat (so that a repeat lasts at least ``min_time``); then the
    repeats take turns: one repeat of every function, ``repeat`` times. On a
    shared machine whose speed drifts, every function sees the same drift,
    so ratios of their medians stay fair. ``pause`` seconds of sleep between
    turns let the previous function's worker threads go idle;
    ``setups[key]()``, when given, runs untimed before each turn of ``key``
    (and before its warm-up), for example to set a thread count.
    """
    if repeat < 1:
        raise ValueError(f"repeat must be >= 1, got {repeat}")
    setups = setups or {}
    numbers = {}
    for key, fn in fns.items():
        if key in setups:
            setups[key]()
        fn()
        numbers[key] = _calibrate(fn, min_time)
    samples = {key: [] for key in fns}
    for _ in range(repeat):
        for key, fn in fns.items():
            if key in setups:
                setups[key]()
            if pause:
                time.sleep(pause)
            number = numbers[key]
            t0 = time.perf_counter()
            for _ in range(number):
                fn()
            samples[key].append((time.perf_counter() - t0) / number)
    return {key: {"seconds": statistics.median(samples[key]), "min_seconds": min(samples[key]),
                  "number": numbers[key], "repeat": repeat} for key in fns}


def time_call(fn, repeat: int = 5, min_time: float = 0.02) -> dict:
    """Median seconds per call of ``fn()``: :func:`time_interleaved` of one function."""
    return time_interleaved({"fn": fn}, repeat, min_time)["fn"]


# --------------------------------------------------------------------------
# the flat loop and the triad
# --------------------------------------------------------------------------

def flat_loop(grad, x, out, beta, chunk: int = FLAT_CHUNK, platform=None):
    """The emulator's arithmetic in one flat chunked loop, into ``out``.

    ``grad``, ``x``, ``out``: 1-D C-contiguous arrays of one supported dtype
    and one size; the inputs are not modified. Gives the same bits as
    :func:`swish_backward` on ``platform``'s kernel (the arithmetic is
    element-wise); only the tile structure is missing.
    """
    info = dtypes.dtype_info(out.dtype, argname="out.dtype")
    for name, arr in (("grad", grad), ("x", x), ("out", out)):
        if not isinstance(arr, np.ndarray) or arr.ndim != 1 or not arr.flags.c_contiguous or arr.dtype != info.numpy:
            raise ValueError(f"{name} must be a 1-D C-contiguous {info.name} array")
        if arr.size != out.size:
            raise ValueError("grad, x and out must have the same size")
    if not isinstance(chunk, int) or chunk < 1:
        raise ValueError(f"chunk must be a positive int, got {chunk!r}")
    beta32 = dtypes.to_float32(beta, argname="beta")
    arch = kernel.ARCH_950 if platform is not None and platform.architecture == "arch35" else kernel.ARCH_A2
    kernel.run_flat(grad, x, out, beta32, info, arch, chunk)
    return out


@njit(parallel=True, cache=True, error_model="numpy")
def _triad_kernel(a, b, c, s):
    for i in prange(a.shape[0]):
        a[i] = b[i] + s * c[i]


@njit(cache=True, error_model="numpy")
def _triad_kernel_serial(a, b, c, s):
    for i in range(a.shape[0]):
        a[i] = b[i] + s * c[i]


def triad(a, b, c, s=3.0, parallel: bool = True):
    """STREAM triad ``a[:] = b + s * c`` on float32 1-D arrays (Numba, ``prange`` if ``parallel``)."""
    for name, arr in (("a", a), ("b", b), ("c", c)):
        if not isinstance(arr, np.ndarray) or arr.dtype != np.float32 or arr.ndim != 1:
            raise ValueError(f"{name} must be a 1-D float32 array")
    if not a.size == b.size == c.size:
        raise ValueError("a, b and c must have the same size")
    (_triad_kernel if parallel else _triad_kernel_serial)(a, b, c, np.float32(s))
    return a


# --------------------------------------------------------------------------
# torch
# --------------------------------------------------------------------------

def torch_available() -> bool:
    try:
        import torch  # noqa: F401
    except ImportError:
        return False
    return True


def _to_torch(arr):
    import torch

    if arr.dtype == dtypes.bfloat16:
        return torch.from_numpy(arr.view(np.uint16)).view(torch.bfloat16)
    return torch.from_numpy(arr)


# --------------------------------------------------------------------------
# the comparison
# --------------------------------------------------------------------------

def _row(impl, variant, dtype, n, threads, beta, timing, itemsize, bytes_moved=None, skipped=None):
    row = {"impl": impl, "variant": variant, "dtype": dtype, "size": n, "log2_size": int(math.log2(n)),
           "threads": threads, "beta": beta, "seconds": None, "min_seconds": None, "number": None,
           "repeat": None, "elements_per_s": None, "gb_per_s": None, "ratio_torch": None,
           "ratio_numpy": None, "roofline_pct": None, "skipped": skipped}
    if timing is not None:
        row.update(timing)
        moved = 3 * n * itemsize if bytes_moved is None else bytes_moved
        row["elements_per_s"] = n / timing["seconds"]
        row["gb_per_s"] = moved / timing["seconds"] / 1e9
    return row


def run_comparison(sizes, dtypes_=("float32", "float16", "bfloat16"), threads=None, repeat: int = 5,
                   min_time: float = 0.02, use_torch: bool = True, progress=None) -> list[dict]:
    """Time every implementation for every (dtype, size, thread count).

    Parameters
    ----------
    sizes : sequence of int
        Element counts (>= 1).
    dtypes_ : sequence
        Dtype names or dtypes.
    threads : sequence of int, optional
        Numba (and torch) thread counts; all of Numba's threads by default.
    repeat : int
        Repeats per figure; the median is reported.
    min_time : float
        Minimum seconds per repeat; small calls are looped to reach it.
    use_torch : bool
        Time PyTorch when it is installed.
    progress : callable, optional
        ``progress(done, total, label)`` after each step.

    Returns
    -------
    list of dict
        One row per (impl, variant, dtype, size, threads); see the module
        docstring for the fields.
    """
    sizes = [int(n) for n in sizes]
    if not sizes or min(sizes) < 1:
        raise ValueError("sizes must be a non-empty list of element counts >= 1")
    dts = [canonical_dtype(d, argname="dtypes") for d in dtypes_]
    if not dts:
        raise ValueError("dtypes must name at least one dtype")
    thread_counts = parse_threads(threads if threads is not None else [numba.config.NUMBA_NUM_THREADS])
    if not isinstance(repeat, int) or repeat < 1:
        raise ValueError(f"repeat must be an int >= 1, got {repeat!r}")
    have_torch = use_torch and torch_available()
    if have_torch:
        import torch
    skip_reason = None if have_torch else ("torch not installed" if use_torch else "disabled")

    steps_per_cell = 2  # inputs, then the timing of every implementation and thread count
    total = len(dts) * len(sizes) * steps_per_cell
    done = 0

    def tick(label):
        nonlocal done
        done += 1
        if progress is not None:
            progress(done, total, label)

    def use_threads(k):
        numba.set_num_threads(k)
        if have_torch and torch.get_num_threads() != k:
            torch.set_num_threads(k)

    rows: list[dict] = []
    saved_numba = numba.get_num_threads()
    saved_torch = torch.get_num_threads() if have_torch else None
    try:
        for dt in dts:
            name, isz = dt.name, dt.itemsize
            for n in sizes:
                cell = f"{name} 2^{math.log2(n):g}"
                g, x = make_inputs(n, dt)
                out = np.empty_like(x)
                n32 = max(1, n * isz // 4)
                ta = np.empty(n32, dtype=np.float32)
                tb = np.ones(n32, dtype=np.float32)
                tc = np.full(n32, 2.0, dtype=np.float32)
                if have_torch:
                    tg, tx, tout = _to_torch(g), _to_torch(x), torch.empty(n, dtype=_to_torch(x).dtype)
                tick(f"{cell} inputs")
                # Every implementation at every thread count of this cell is timed
                # round-robin (see time_interleaved), so drift on a shared machine
                # hits all alike and every ratio below compares like with like.
                fns = {("numpy",): lambda: numpy_golden(g, x, BETA_NUMPY)}
                for k in thread_counts:
                    # The roofline is the faster of a threaded and a one-thread triad: at
                    # small sizes waking the thread pool costs more than the copy.
                    fns[k, "triad", "serial"] = lambda: triad(ta, tb, tc, parallel=False)
                    if k > 1:
                        fns[k, "triad", "parallel"] = lambda: triad(ta, tb, tc)
                    for beta in (BETA_NUMPY, BETA_TORCH):
                        fns[k, "emulator", "out", beta] = lambda beta=beta: swish_backward(g, x, beta, out=out)
                        fns[k, "emulator", "alloc", beta] = lambda beta=beta: swish_backward(g, x, beta)
                    fns[k, "flat", "out"] = lambda: flat_loop(g, x, out, BETA_NUMPY)
                    if have_torch:
                        fns[k, "torch", "alloc"] = lambda: torch.ops.aten.silu_backward(tg, tx)
                        fns[k, "torch", "out"] = lambda: torch.ops.aten.silu_backward.grad_input(
                            tg, tx, grad_input=tout)
                # Every timing but NumPy's (single-threaded) runs at its key's thread count.
                setups = {key: (lambda k=key[0]: use_threads(k)) for key in fns if key[0] != "numpy"}
                timed = time_interleaved(fns, repeat, min_time, pause=_TURN_PAUSE, setups=setups)
                t_np = timed["numpy",]
                numpy_row = _row("numpy", "alloc", name, n, 1, BETA_NUMPY, t_np, isz)
                # The flat loop must give the emulator's bits, or its time means nothing.
                flat_matches = bool(np.array_equal(
                    flat_loop(g, x, np.empty_like(x), BETA_NUMPY).view(np.uint8),
                    swish_backward(g, x, BETA_NUMPY).view(np.uint8)))
                for k in thread_counts:
                    cell_rows = []
                    tri = {variant: timed[k, "triad", variant] for variant in ("serial", "parallel")
                           if (k, "triad", variant) in timed}
                    best = min(tri, key=lambda v: tri[v]["seconds"])
                    triad_row = _row("triad", best, name, n, k, None, tri[best], isz, bytes_moved=3 * n32 * 4)
                    triad_row["float32_elements"] = n32
                    triad_row["serial_seconds"] = tri["serial"]["seconds"]
                    triad_row["parallel_seconds"] = tri["parallel"]["seconds"] if k > 1 else None
                    cell_rows.append(triad_row)
                    emu = {(variant, beta): _row("emulator", variant, name, n, k, beta,
                                                 timed[k, "emulator", variant, beta], isz)
                           for variant in ("out", "alloc") for beta in (BETA_NUMPY, BETA_TORCH)}
                    flat_row = _row("flat", "out", name, n, k, BETA_NUMPY, timed[k, "flat", "out"], isz)
                    flat_row["matches_emulator"] = flat_matches
                    torch_rows = {}
                    for variant in ("alloc", "out"):
                        if have_torch:
                            torch_rows[variant] = _row("torch", variant, name, n, k, BETA_TORCH,
                                                       timed[k, "torch", variant], isz)
                        else:
                            torch_rows[variant] = _row("torch", variant, name, n, k, BETA_TORCH, None, isz,
                                                       skipped=skip_reason)
                    np_row = dict(numpy_row, threads=k)
                    for (variant, beta), row in emu.items():
                        if beta == BETA_NUMPY:
                            row["ratio_numpy"] = t_np["seconds"] / row["seconds"]
                        elif torch_rows[variant]["seconds"] is not None:
                            row["ratio_torch"] = torch_rows[variant]["seconds"] / row["seconds"]
                    flat_row["ratio_numpy"] = t_np["seconds"] / flat_row["seconds"]
                    if torch_rows["alloc"]["seconds"] is not None:
                        np_row["ratio_torch"] = torch_rows["alloc"]["seconds"] / np_row["seconds"]
                    cell_rows += [*emu.values(), flat_row, np_row, *torch_rows.values()]
                    for row in cell_rows:
                        if row["gb_per_s"] is not None:
                            row["roofline_pct"] = 100.0 * row["gb_per_s"] / triad_row["gb_per_s"]
                    rows += cell_rows
                tick(f"{cell} timed")
                del g, x, out, ta, tb, tc
                if have_torch:
                    del tg, tx, tout
                gc.collect()
    finally:
        numba.set_num_threads(saved_numba)
        if have_torch:
            torch.set_num_threads(saved_torch)
    return rows


# --------------------------------------------------------------------------
# cold start
# --------------------------------------------------------------------------

_COLD_SCRIPT = r"""
import json, sys, time
t0 = time.perf_counter()
import numpy as np
import swishgrad_numba
from swishgrad_numba.dtypes import canonical_dtype
t_import = time.perf_counter()
dt = canonical_dtype(sys.argv[1])
n = int(sys.argv[2])
g = np.linspace(-5, 5, n, dtype=np.float32).astype(dt)
x = g[::-1].copy()
t_inputs = time.perf_counter()
out = swishgrad_numba.swish_backward(g, x, 1.1)
t_call = time.perf_counter()
assert out.dtype == dt and out.shape == (n,)
print(json.dumps({"import_s": t_import - t0, "first_call_s": t_call - t_inputs,
                  "total_s": (t_import - t0) + (t_call - t_inputs)}))
"""


def cold_start(dtype="float32", size: int = COLD_START_SIZE, runs: int = 2, timeout: float = 300.0) -> dict:
    """Import plus first ``size``-element call in fresh interpreters.

    Runs ``runs`` fresh processes one after the other (the first warms the
    on-disk cache if it is cold) and reports the last: ``total_s`` is the
    import of numpy and the package plus the first call (input creation
    excluded); ``process_s`` is the whole process as the parent saw it,
    interpreter start-up included.
    """
    dt = canonical_dtype(dtype)
    if not isinstance(runs, int) or runs < 1:
        raise ValueError(f"runs must be an int >= 1, got {runs!r}")
    if not isinstance(size, int) or size < 1:
        raise ValueError(f"size must be an int >= 1, got {size!r}")
    env = dict(os.environ)
    root = str(Path(__file__).resolve().parent.parent)
    env["PYTHONPATH"] = root + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    results = []
    for _ in range(runs):
        t0 = time.perf_counter()
        proc = subprocess.run([sys.executable, "-c", _COLD_SCRIPT, dt.name, str(size)], env=env,
                              capture_output=True, text=True, timeout=timeout)
        elapsed = time.perf_counter() - t0
        if proc.returncode != 0:
            raise RuntimeError(f"cold-start subprocess failed ({proc.returncode}):\n{proc.stderr[-2000:]}")
        res = json.loads(proc.stdout.strip().splitlines()[-1])
        res["process_s"] = elapsed
        results.append(res)
    return {"dtype": dt.name, "size": size, "runs": results, **results[-1]}


# --------------------------------------------------------------------------
# machine, targets, table
# --------------------------------------------------------------------------

def machine_info() -> dict:
    """CPU model, core count, library versions and the git commit measured."""
    model = _platform.processor() or _platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    info = {"cpu": model, "cpu_count": os.cpu_count(), "numba_threads": numba.config.NUMBA_NUM_THREADS,
            "python": _platform.python_version(), "numpy": np.__version__, "numba": numba.__version__,
            "torch": None, "platform": _platform.platform(), "commit": None,
            "threading_layer": runtime.threading_layer()}
    if torch_available():
        import torch

        info["torch"] = torch.__version__
    try:
        root = Path(__file__).resolve().parent.parent
        proc = subprocess.run(["git", "-C", str(root), "rev-parse", "HEAD"], capture_output=True, text=True,
                              timeout=10)
        if proc.returncode == 0:
            info["commit"] = proc.stdout.strip()
            dirty = subprocess.run(["git", "-C", str(root), "status", "--porcelain", "--untracked-files=no",
                                    "--", "swishgrad_numba"],
                                   capture_output=True, text=True, timeout=10)
            info["package_dirty"] = bool(dirty.stdout.strip())
    except (OSError, subprocess.SubprocessError):
        pass
    return info


def _find(rows, **key):
    for row in rows:
        if all(row.get(k) == v for k, v in key.items()):
            return row
    return None


def _cell(rows, **key):
    """The rows of one (dtype, size, threads) cell the ratios are built from:
    emulator out=/alloc at the NumPy beta, alloc/out= at the torch beta, flat loop."""
    return (
        _find(rows, impl="emulator", variant="out", beta=BETA_NUMPY, **key),
        _find(rows, impl="emulator", variant="alloc", beta=BETA_NUMPY, **key),
        _find(rows, impl="emulator", variant="alloc", beta=BETA_TORCH, **key),
        _find(rows, impl="emulator", variant="out", beta=BETA_TORCH, **key),
        _find(rows, impl="flat", **key),
    )


def _tile_cost(emulator_out, flat):
    """How much slower the tiled emulator is than the flat loop (0.1 = 10 %)."""
    return emulator_out["seconds"] / flat["seconds"] - 1.0


def _verdict(ok):
    return "n/a" if ok is None else ("PASS" if ok else "MISS")


def targets(rows, cold=()) -> list[dict]:
    """The issue's targets as PASS/MISS lines (a report, not a test).

    Figures at 2^24 elements (or the largest size measured, said in the
    line) with the most threads measured; ratios pair like with like:
    allocating calls at beta 1.0 for PyTorch, at beta 1.1 for NumPy.
    """
    out = []
    if rows:
        dts = list(dict.fromkeys(r["dtype"] for r in rows if r["impl"] == "emulator"))
        sizes = sorted({r["size"] for r in rows})
        big = TARGET_SIZE if TARGET_SIZE in sizes else sizes[-1]
        tmax = max(r["threads"] for r in rows)
        tmin = min(r["threads"] for r in rows)
        at = f"2^{int(math.log2(big))}, {tmax} thr"
        for name in dts:
            e_o, e_n, e_t, e_to, flat = _cell(rows, dtype=name, size=big, threads=tmax)
            r = e_t and e_t["ratio_torch"]
            ro = e_to and e_to["ratio_torch"]
            extra = f" (with out=: {ro:.2f}x)" if ro is not None else ""
            out.append({"target": f"{name}: >= 1.5x torch silu_backward ({at})", "value": r,
                        "text": "skipped (no torch)" if r is None else f"{r:.2f}x{extra}",
                        "verdict": _verdict(None if r is None else r >= 1.5)})
            r = e_n and e_n["ratio_numpy"]
            out.append({"target": f"{name}: >= 5x NumPy golden ({at})", "value": r,
                        "text": f"{r:.2f}x", "verdict": _verdict(r >= 5.0)})
            if flat and e_o:
                cost = _tile_cost(e_o, flat)
                note = "" if flat.get("matches_emulator", True) else " [flat loop bits DIFFER from emulator]"
                out.append({"target": f"{name}: tile structure <= 10% slower than flat loop ({at})",
                            "value": cost, "text": f"{100 * cost:+.1f}%{note}", "verdict": _verdict(cost <= 0.10)})
            if tmin == 1 and 2 in {r["threads"] for r in rows}:
                one = _find(rows, impl="emulator", variant="out", beta=BETA_NUMPY, dtype=name, size=big, threads=1)
                two = _find(rows, impl="emulator", variant="out", beta=BETA_NUMPY, dtype=name, size=big, threads=2)
                s = one["seconds"] / two["seconds"]
                out.append({"target": f"{name}: 2 threads >= 1.7x 1 thread (2^{int(math.log2(big))})",
                            "value": s, "text": f"{s:.2f}x", "verdict": _verdict(s >= 1.7)})
            small = _find(rows, impl="emulator", variant="alloc", beta=BETA_NUMPY, dtype=name, size=SMALL_SIZE,
                          threads=tmax)
            if small is not None:
                r = 1.0 / small["ratio_numpy"]
                out.append({"target": f"{name}: at 1,024 elements <= 2x NumPy golden's time",
                            "value": r, "text": f"{r:.2f}x NumPy's time", "verdict": _verdict(r <= 2.0)})
    for c in cold:
        out.append({"target": f"{c['dtype']}: cold start (import + first 2^{int(math.log2(c['size']))} call) < 2 s",
                    "value": c["total_s"],
                    "text": f"{c['total_s']:.2f} s (process {c['process_s']:.2f} s)",
                    "verdict": _verdict(c["total_s"] < 2.0)})
    return out


def format_targets(lines) -> str:
    if not lines:
        return "targets: nothing measured"
    width = max(len(t["target"]) for t in lines)
    return "\n".join(f"{t['verdict']:4}  {t['target']:<{width}}  {t['text']}" for t in lines)


def _fmt(v, spec, none="-"):
    return none if v is None else format(v, spec)


def format_table(rows) -> str:
    """One line per (dtype, size, threads): the emulator and its ratios to each peer."""
    header = (f"{'dtype':<9}{'size':>6}{'thr':>4} |{'emu Me/s':>10}{'GB/s':>7}{'%roof':>6} |"
              f"{'alloc Me/s':>11}{'xnumpy':>8}{'xtorch':>8}{'xtorch out':>11} |"
              f"{'flat Me/s':>10}{'tile cost':>10} |{'numpy Me/s':>11}{'torch Me/s':>11}{'triad GB/s':>11}")
    lines = [header, "-" * len(header)]
    cells = list(dict.fromkeys((r["dtype"], r["size"], r["threads"]) for r in rows if r["impl"] == "emulator"))
    for name, n, k in cells:
        key = dict(dtype=name, size=n, threads=k)
        e_o, e_a, e_t, e_to, flat = _cell(rows, **key)
        npr = _find(rows, impl="numpy", **key)
        tr = _find(rows, impl="torch", variant="alloc", **key)
        triad_row = _find(rows, impl="triad", dtype=name, size=n, threads=k)
        cost = _tile_cost(e_o, flat)
        flag = "" if flat.get("matches_emulator", True) else "!"
        torch_txt = "skipped" if tr["skipped"] else _fmt(tr["elements_per_s"] / 1e6, ".1f")
        lines.append(
            f"{name:<9}{'2^' + str(int(math.log2(n))):>6}{k:>4} |{e_o['elements_per_s'] / 1e6:>10.1f}"
            f"{e_o['gb_per_s']:>7.2f}{e_o['roofline_pct']:>6.0f} |{e_a['elements_per_s'] / 1e6:>11.1f}"
            f"{e_a['ratio_numpy']:>8.2f}{_fmt(e_t['ratio_torch'], '.2f', 'skip'):>8}"
            f"{_fmt(e_to['ratio_torch'], '.2f', 'skip'):>11} |{flat['elements_per_s'] / 1e6:>10.1f}"
            f"{100 * cost:>+9.1f}%{flag} |{npr['elements_per_s'] / 1e6:>11.1f}{torch_txt:>11}"
            f"{triad_row['gb_per_s']:>11.2f}")
    lines.append("")
    lines.append("emu = swish_backward(out=...), beta 1.1; alloc = without out; xnumpy = NumPy golden time / "
                 "emulator time (both allocating, beta 1.1);")
    lines.append("xtorch = torch silu_backward time / emulator time at beta 1.0 (allocating; 'out' pairs the "
                 "out= forms); tile cost = emu / flat loop - 1;")
    lines.append("%roof = emu GB/s (3 * n * itemsize bytes) / float32 triad GB/s over the same bytes and threads; "
                 "NumPy is single-threaded.")
    return "\n".join(lines)
