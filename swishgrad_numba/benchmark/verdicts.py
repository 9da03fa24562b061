"""Issue 14's targets as PASS/MISS lines: a report of one run, not a test.

Every ratio pairs the emulator with a peer timed in the same run, in the same
round-robin cell (:mod:`.runner`): PyTorch's ``silu_backward`` writing into a
given output (``grad_input=``) against ``swish_backward(..., out=)`` at beta
1.0; the NumPy golden against the allocating emulator at beta 1.1; a launch at
2 threads against the same launch at 1 thread. A target whose size or peer
was not measured is listed as ``n/a``.

Kept from the earlier targets: the cold start (now within 1 s), the 1,024-
element call against the NumPy golden (now no slower, was 2x) and the tile
structure's cost against the flat loop (a diagnostic of the kernel's
structure). Dropped: ">= 1.5x torch" on allocating calls (replaced by the
``out=`` comparison, the fair form), ">= 5x NumPy golden" at 2^24 (PyTorch is
the peer that matters now) and "2 threads >= 1.7x 1 thread" on the reference
platform's 48-core launch (replaced by the small launches, where threads
used to sit idle).
"""
from __future__ import annotations

import math

from .fresh import COLD_START_SIZE, MEMORY_SIZE
from .inputs import BETA_NUMPY, BETA_TORCH
from .runner import SCALING_SIZE, find_row

__all__ = ["targets", "format_targets"]

#: Emulator (out=) at least ``need`` times as fast as torch (out=): {dtype: ((size, need), ...)}.
TORCH_TARGETS = {
    "float32": ((1 << 20, 0.7), (1 << 24, 1.0)),     # compute-bound: a correctly rounded Exp in binary64
    "float16": ((1 << 20, 1.5), (1 << 24, 1.5)),     # 16-bit: a table lookup, memory-bound
    "bfloat16": ((1 << 20, 1.5), (1 << 24, 1.5)),
}
#: The 16-bit dtypes reach at least this percentage of the triad roofline at :data:`ROOFLINE_SIZE`.
ROOFLINE_TARGETS = {"float16": 50.0, "bfloat16": 50.0}
ROOFLINE_SIZE = 1 << 24
#: (emulated cores, least speed-up of 2 threads over 1) at :data:`~.runner.SCALING_SIZE`.
SCALING_TARGETS = ((1, 1.7), (3, 1.8))
#: A call this small is no slower than the NumPy golden.
SMALL_SIZE = 1 << 10
COLD_START_LIMIT_S = 1.0
#: Memory one call (out= given) may add: a fixed part plus a part per Numba thread (each thread's bin
#: holds its own local buffers, well under 1 MiB for either kernel's unified buffer).
MEMORY_FIXED_BYTES = 4 << 20
MEMORY_PER_THREAD_BYTES = 1 << 20
#: The tile structure's cost over the flat loop, at :data:`TARGET_SIZE` (or the largest size measured).
TILE_COST_LIMIT = 0.10
TARGET_SIZE = 1 << 24


def _log2(n: int) -> str:
    return f"2^{int(math.log2(n))}"


def _line(target, value, text, ok, peer=None, kernel=None) -> dict:
    verdict = "n/a" if ok is None else ("PASS" if ok else "MISS")
    return {"target": target, "value": value, "text": text, "verdict": verdict, "peer": peer, "kernel": kernel}


def _rate(row) -> str:
    return f"{row['elements_per_s'] / 1e9:.2f} G elt/s"


def _kernel(row):
    return None if row is None or row.get("kernel") is None else f"{row['kernel']} ({row.get('soc')})"


def _torch_line(rows, name, size, threads, need):
    target = f"{name}: emulator (out=) >= {need:g}x torch silu_backward (out=), {_log2(size)}, {threads} thr"
    emu = find_row(rows, impl="emulator", variant="out", beta=BETA_TORCH, dtype=name, size=size, threads=threads)
    peer = find_row(rows, impl="torch", variant="out", dtype=name, size=size, threads=threads)
    if emu is None:
        return _line(target, None, f"{_log2(size)} not measured", None)
    if peer is None or peer.get("seconds") is None or emu.get("ratio_torch") is None:
        return _line(target, None, "skipped (torch not timed)", None, kernel=_kernel(emu))
    r = emu["ratio_torch"]
    return _line(target, r, f"{r:.2f}x: torch {_rate(peer)}, emulator {_rate(emu)}", r >= need,
                 peer="torch silu_backward (out=)", kernel=_kernel(emu))


def _roofline_line(rows, name, size, threads, need):
    target = f"{name}: emulator (out=) >= {need:g}% of the triad roofline, {_log2(size)}, {threads} thr"
    emu = find_row(rows, impl="emulator", variant="out", beta=BETA_NUMPY, dtype=name, size=size, threads=threads)
    tri = find_row(rows, impl="triad", dtype=name, size=size, threads=threads)
    if emu is None or tri is None:
        return _line(target, None, f"{_log2(size)} not measured", None)
    pct = emu["roofline_pct"]
    return _line(target, pct, f"{pct:.0f}%: {emu['gb_per_s']:.2f} GB/s of the triad's {tri['gb_per_s']:.2f} GB/s",
                 pct >= need, peer="triad", kernel=_kernel(emu))


def _scaling_line(scaling, name, cores, need):
    target = f"{name}: a {cores}-core launch on 2 threads >= {need:g}x on 1 thread, {_log2(SCALING_SIZE)}"
    one = find_row(scaling, dtype=name, cores=cores, size=SCALING_SIZE, threads=1)
    two = find_row(scaling, dtype=name, cores=cores, size=SCALING_SIZE, threads=2)
    if one is None or two is None:
        return _line(target, None, "not measured (needs 2 threads)" if one else "not measured", None)
    s = two["speedup"]
    return _line(target, s, f"{s:.2f}x: {1e3 * one['seconds']:.2f} ms on 1 thread, {1e3 * two['seconds']:.2f} ms on 2",
                 s >= need, peer="the same launch on 1 thread", kernel=_kernel(two))


def _small_line(rows, name, threads):
    target = f"{name}: a {SMALL_SIZE:,}-element call no slower than the NumPy golden, {threads} thr"
    emu = find_row(rows, impl="emulator", variant="alloc", beta=BETA_NUMPY, dtype=name, size=SMALL_SIZE,
                threads=threads)
    golden = find_row(rows, impl="numpy", dtype=name, size=SMALL_SIZE, threads=threads)
    if emu is None or golden is None:
        return _line(target, None, f"{_log2(SMALL_SIZE)} not measured", None)
    r = emu["ratio_numpy"]
    return _line(target, r, f"{r:.2f}x: NumPy golden {1e6 * golden['seconds']:.1f} us, emulator "
                            f"{1e6 * emu['seconds']:.1f} us (both allocating)", r >= 1.0,
                 peer="NumPy golden", kernel=_kernel(emu))


def _tile_cost_line(rows, name, threads):
    sizes = sorted({r["size"] for r in rows if r["dtype"] == name and r["impl"] == "emulator"})
    big = TARGET_SIZE if TARGET_SIZE in sizes else sizes[-1]
    target = f"{name}: tile structure <= {100 * TILE_COST_LIMIT:g}% slower than flat loop ({_log2(big)}, {threads} thr)"
    emu = find_row(rows, impl="emulator", variant="out", beta=BETA_NUMPY, dtype=name, size=big, threads=threads)
    flat = find_row(rows, impl="flat", dtype=name, size=big, threads=threads)
    if emu is None or flat is None:
        return _line(target, None, "not measured", None)
    cost = emu["seconds"] / flat["seconds"] - 1.0
    note = "" if flat.get("matches_emulator", True) else " [flat loop bits DIFFER from emulator]"
    return _line(target, cost, f"{100 * cost:+.1f}%{note}", cost <= TILE_COST_LIMIT, peer="flat loop",
                 kernel=_kernel(emu))


def _of_dtype(results, name, default_size):
    """The fresh-process result for dtype ``name`` (or None) and the size its target is stated at."""
    found = next((r for r in results if r["dtype"] == name), None)
    return found, default_size if found is None else found["size"]


def _cold_line(name, cold):
    c, size = _of_dtype(cold, name, COLD_START_SIZE)
    target = f"{name}: cold start (import + first {_log2(size)} call, warm cache) within {COLD_START_LIMIT_S:g} s"
    if c is None:
        return _line(target, None, "not measured", None)
    return _line(target, c["total_s"], f"{c['total_s']:.2f} s (process {c['process_s']:.2f} s)",
                 c["total_s"] <= COLD_START_LIMIT_S)


def memory_allowance(threads: int) -> int:
    """Bytes one call with ``out=`` may add at its peak: :data:`MEMORY_FIXED_BYTES` + per thread."""
    return MEMORY_FIXED_BYTES + threads * MEMORY_PER_THREAD_BYTES


def _memory_line(name, memory):
    m, size = _of_dtype(memory, name, MEMORY_SIZE)
    target = f"{name}: memory of one {_log2(size)} call <= output + small per-thread buffers"
    if m is None:
        return _line(target, None, "not measured", None)
    allowed = memory_allowance(m["threads"])
    mib = 1 << 20
    text = (f"+{m['growth_bytes'] / mib:.2f} MiB beyond the {m['output_bytes'] / mib:.1f} MiB output given as "
            f"out= (allowed +{allowed / mib:.0f} MiB at {m['threads']} thr)")
    return _line(target, m["growth_bytes"], text, m["growth_bytes"] <= allowed, kernel=_kernel(m))


def targets(rows, cold=(), scaling=(), memory=()) -> list[dict]:
    """The issue's targets as PASS/MISS lines (a report, not a test).

    Parameters
    ----------
    rows : list of dict
        :func:`~.runner.run_comparison`'s rows; the figures are taken at the
        most threads measured.
    cold : sequence of dict
        :func:`~.fresh.cold_start` results.
    scaling : sequence of dict
        :func:`~.runner.thread_scaling`'s rows.
    memory : sequence of dict
        :func:`~.fresh.memory_growth` results.

    Returns
    -------
    list of dict
        ``target``, ``value`` (the figure), ``text``, ``verdict`` (PASS,
        MISS or n/a), ``peer`` (what a ratio is against) and ``kernel``.
    """
    emulated = [r for r in rows if r["impl"] == "emulator"]
    names = list(dict.fromkeys([r["dtype"] for r in emulated] + [r["dtype"] for r in scaling]
                               + [c["dtype"] for c in cold] + [m["dtype"] for m in memory]))
    out = []
    for name in names:
        mine = [r for r in emulated if r["dtype"] == name]
        if mine:
            tmax = max(r["threads"] for r in mine)
            out += [_torch_line(rows, name, size, tmax, need) for size, need in TORCH_TARGETS.get(name, ())]
            if name in ROOFLINE_TARGETS:
                out.append(_roofline_line(rows, name, ROOFLINE_SIZE, tmax, ROOFLINE_TARGETS[name]))
        out += [_scaling_line(scaling, name, cores, need) for cores, need in SCALING_TARGETS]
        if mine:
            out += [_small_line(rows, name, tmax), _tile_cost_line(rows, name, tmax)]
        out += [_cold_line(name, cold), _memory_line(name, memory)]
    return out


def format_targets(lines) -> str:
    """The target lines as text, with what each ratio is against."""
    if not lines:
        return "targets: nothing measured"
    width = max(len(t["target"]) for t in lines)
    text = [f"{t['verdict']:4}  {t['target']:<{width}}  {t['text']}" for t in lines]
    kernels = sorted({t["kernel"] for t in lines if t.get("kernel")})
    text += ["", "Each ratio is the peer's median time per call over the emulator's, both timed in this run, "
                 "round-robin in one cell:",
             "torch silu_backward.grad_input(out=) vs swish_backward(out=) at beta 1.0; NumPy golden vs the "
             "allocating emulator at beta 1.1;",
             "% roofline = emulator GB/s over a float32 triad's GB/s on the same bytes and threads; thread "
             "speed-ups compare one launch with itself."]
    if kernels:
        text.append(f"Emulator kernel: {', '.join(kernels)}.")
    return "\n".join(text)
