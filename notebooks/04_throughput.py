# ---
# jupyter:
#   jupytext:
#     formats: ipynb,py:percent
#     text_representation:
#       extension: .py
#       format_name: percent
#       format_version: '1.3'
#       jupytext_version: 1.19.6
#   kernelspec:
#     display_name: Python 3
#     language: python
#     name: python3
# ---

# %% [markdown]
# # Throughput
#
# How fast is the emulator, against its peers and against what the memory
# allows? The figures come from `swishgrad_numba.benchmark.run_comparison`, the
# runner behind `swishgrad bench`:
#
# - **emulator**: `swish_backward` with a preallocated `out` (beta 1.1) and allocating;
# - **NumPy golden**: the operator's float32 NumPy recipe (single-threaded);
# - **torch**: `silu_backward` on CPU tensors (beta 1), allocating and writing into
#   a given output (`out=`, the fair form), when torch is installed;
# - **flat loop**: the emulator's arithmetic in one flat parallel loop without tiles,
#   i.e. what the tile structure costs;
# - **triad roofline**: a STREAM triad over the same bytes, the memory bandwidth of
#   this machine, expressed in the cell's elements per second.
#
# `bm.thread_scaling` adds launches of 1 and 3 emulated cores timed on 1 and 2
# threads: does a small launch keep every host thread busy?
#
# Set `SWISHGRAD_NB_BENCH_JSON` to the path of a `swishgrad bench --json FILE` result
# to plot that instead of measuring here (e.g. a full 2^10..2^27 run on a big
# machine). Otherwise this notebook measures 2^10..2^22 elements (tiny sizes with
# `SWISHGRAD_NB_SMALL=1`, where the figures are dominated by call overhead).

# %%
# %matplotlib inline
import os

import numpy as np
import matplotlib.pyplot as plt

import swishgrad_numba as sg

# SWISHGRAD_NB_SMALL=1 selects tiny sizes (the test suite runs the notebooks that way).
SMALL = os.environ.get("SWISHGRAD_NB_SMALL", "") not in ("", "0")

import json

import numba
from swishgrad_numba import benchmark as bm

path = os.environ.get("SWISHGRAD_NB_BENCH_JSON")
if path:
    with open(path) as fh:
        payload = json.load(fh)
    rows, machine = payload["results"], payload["machine"]
    scaling, cold, memory = (payload.get(k, []) for k in ("thread_scaling", "cold_start", "memory"))
    source = f"read from {path}"
else:
    sizes = [1 << 10, 1 << 12] if SMALL else [1 << k for k in range(10, 23, 2)]
    threads = sorted({1, numba.config.NUMBA_NUM_THREADS})
    timing = dict(repeat=1 if SMALL else 5, min_time=0.001 if SMALL else 0.02)
    rows = bm.run_comparison(sizes, threads=threads, **timing)
    scaling = bm.thread_scaling(size=1 << 16 if SMALL else bm.SCALING_SIZE, **timing)
    cold, memory = [], []  # fresh-process measurements: `swishgrad bench` makes them
    machine = bm.machine_info()
    source = "measured in this notebook"
dtypes = list(dict.fromkeys(r["dtype"] for r in rows if r["impl"] == "emulator"))
thread_counts = sorted({r["threads"] for r in rows})
print(f"{len(rows)} rows {source}: dtypes {dtypes}, threads {thread_counts}, "
      f"sizes 2^{min(r['log2_size'] for r in rows)}..2^{max(r['log2_size'] for r in rows)}")
print(f"machine: {machine['cpu']}, {machine['cpu_count']} CPUs, numba {machine['numba']}, torch {machine['torch']}")

# %% [markdown]
# The numbers, as `swishgrad bench` prints them (Me/s = million elements per second):

# %%
print(bm.format_table(rows))

# %% [markdown]
# ## Throughput against size
#
# One panel per dtype, at the largest thread count measured. Top: elements per
# second (log-log); the grey line is the triad roofline, the most a call that reads
# two arrays and writes one can do on this machine. Bottom: each implementation as
# a percentage of that roofline.

# %%
SERIES = [  # (impl, variant, beta, label, style)
    ("emulator", "out", bm.BETA_NUMPY, "emulator (out=)", dict(color="C0", marker="o")),
    ("emulator", "alloc", bm.BETA_NUMPY, "emulator (allocating)", dict(color="C0", marker="o", ls="--")),
    ("flat", "out", bm.BETA_NUMPY, "flat loop (no tiles)", dict(color="C3", marker=".", ls=":")),
    ("numpy", "alloc", bm.BETA_NUMPY, "NumPy golden", dict(color="C1", marker="s")),
    ("torch", "alloc", bm.BETA_TORCH, "torch silu_backward", dict(color="C2", marker="^")),
    ("torch", "out", bm.BETA_TORCH, "torch silu_backward (out=)", dict(color="C2", marker="^", ls="--")),
]


def series(impl, dtype, threads, variant=None, beta=None):
    pts = sorted((r["size"], r) for r in rows
                 if r["impl"] == impl and r["dtype"] == dtype and r["threads"] == threads
                 and (variant is None or r["variant"] == variant) and (beta is None or r["beta"] == beta)
                 and r["seconds"] is not None)
    return [p[0] for p in pts], [p[1] for p in pts]


tmax = thread_counts[-1]
fig, axes = plt.subplots(2, len(dtypes), figsize=(5 * len(dtypes), 7.5), squeeze=False, sharex=True)
for col, dtype in enumerate(dtypes):
    top, bottom = axes[0, col], axes[1, col]
    for impl, variant, beta, label, style in SERIES:
        n, rs = series(impl, dtype, tmax, variant, beta)
        if n:
            top.plot(n, [r["elements_per_s"] for r in rs], label=label, **style)
            bottom.plot(n, [r["roofline_pct"] for r in rs], label=label, **style)
    n, rs = series("triad", dtype, tmax)
    top.plot(n, [r["elements_per_s"] for r in rs], color="grey", lw=3, alpha=0.6, label="triad roofline")
    bottom.axhline(100, color="grey", lw=3, alpha=0.6)
    top.set_yscale("log")
    top.set_title(f"{dtype}, {tmax} thread(s)")
    top.set_ylabel("elements / s")
    bottom.set_ylabel("% of the triad roofline")
    bottom.set_xlabel("elements")
    for ax in (top, bottom):
        ax.set_xscale("log", base=2)
        ax.grid(True, which="both", alpha=0.3)
axes[0, 0].legend(fontsize=8)
plt.tight_layout()
plt.show()

# %% [markdown]
# ## Thread scaling
#
# Speed-up of each implementation with `k` threads over itself with one thread,
# against size (dashed: the ideal `k`). NumPy is single-threaded and left out.
# Small calls do not scale: waking the thread pool costs more than the work (the
# emulator runs launches under 2^15 elements on the calling thread).
#
# On a shared machine (a CI runner, a container with a CPU quota) a
# multi-threaded call can wait several milliseconds for a CPU: when every
# implementation shows the same time per call at some size, that is the
# scheduler, not the code. Measure on a quiet machine before concluding.

# %%
from matplotlib.ticker import FormatStrFormatter

if len(thread_counts) < 2:
    print(f"the data has one thread count ({thread_counts[0]}): no scaling to plot")
else:
    fig, axes = plt.subplots(1, len(dtypes), figsize=(5 * len(dtypes), 4), squeeze=False)
    styles = ["-", "--", "-.", ":"]
    for ax, dtype in zip(axes[0], dtypes):
        for k_i, k in enumerate(thread_counts[1:]):
            for impl, variant, beta, label, style in SERIES + [("triad", None, None, "triad", dict(color="grey"))]:
                if impl == "numpy" or variant == "alloc":  # NumPy: 1 thread; the out= forms stand for the rest
                    continue
                n1, r1 = series(impl, dtype, thread_counts[0], variant, beta)
                nk, rk = series(impl, dtype, k, variant, beta)
                common = sorted(set(n1) & set(nk))
                if not common:
                    continue
                t1 = {n: r["seconds"] for n, r in zip(n1, r1)}
                tk = {n: r["seconds"] for n, r in zip(nk, rk)}
                ax.plot(common, [t1[n] / tk[n] for n in common], color=style["color"], marker=".",
                        ls=styles[k_i % len(styles)], label=f"{label}, {k} threads")
            ax.axhline(k / thread_counts[0], color="black", ls="--", lw=0.8)
        ax.axhline(1, color="black", lw=0.5)
        ax.set_xscale("log", base=2)
        ax.set_yscale("log", base=2)
        ax.yaxis.set_major_formatter(FormatStrFormatter("%g"))
        ax.set_xlabel("elements")
        ax.set_ylabel(f"speed-up over {thread_counts[0]} thread(s)")
        ax.set_title(f"{dtype}: thread scaling")
        ax.grid(True, which="both", alpha=0.3)
    axes[0, 0].legend(fontsize=7)
    plt.tight_layout()
    plt.show()

# %% [markdown]
# ## Small launches on more threads
#
# A launch of few emulated cores (`Platform(core_num=k)`) timed on 1 thread and
# more, round-robin: the speed-up is the same launch's time on 1 thread over its
# time on `k` threads.

# %%
print(bm.format_scaling(scaling))

# %% [markdown]
# ## Targets
#
# The targets, as `swishgrad bench` reports them (a report, not a test;
# meaningful only at the target sizes on a quiet machine). A target whose size or
# measurement is missing from the data is listed as `n/a`.

# %%
print(bm.format_targets(bm.targets(rows, cold, scaling, memory)))
