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
# # 05 Device time: how long would the NPU take?
#
# `swishgrad_numba.devicetime` models one launch on the device: per core and tile, CopyIn on MTE2, the
# kernel's instructions on VECTOR, CopyOut on MTE3 and bookkeeping on SCALAR, through double-buffered
# queues, with per-core rates and one GM bandwidth shared by the transfers as they start and end
# (`docs/devicetime.md`).
#
# **An estimate is a model, not a measurement.** Its defaults are calibrated on public copy-only launches and
# checked on held-out ones (`docs/devicetime.md`, "Checked against"); calibrate it on your own `msprof op`
# profiles with `devicetime.fit`.
#
# `SWISHGRAD_NB_SMALL` (set to anything but `0` or empty) selects fewer sizes.

# %%
# %matplotlib inline
import os

import matplotlib.pyplot as plt
import numpy as np

from swishgrad_numba import Platform
from swishgrad_numba import devicetime as dt

SMALL = os.environ.get("SWISHGRAD_NB_SMALL", "0") not in ("", "0")
params = dt.default_params()
print(params)

# %% [markdown]
# ## The timeline of one launch
#
# A float16 tensor of 200,000 elements on an A2 limited to 8 cores, so that the chart stays readable. Each
# core has four lanes; the grey band is the launch's head overhead. `est.write_trace("launch.json")` writes
# the same timeline for Perfetto UI.

# %%
platform = Platform(core_num=8)
est = dt.estimate(None, 200_000, "float16", platform=platform)
print(f"{est.duration_us:.2f} us, bound by {est.bottleneck}")
fig, ax = plt.subplots(figsize=(11, 6))
est.plot(ax=ax)
plt.show()

# %%
for row in est.pipe_utilization()[:2]:
    print({k: round(v, 3) for k, v in row.items()})

# %% [markdown]
# ## Predicted time against tensor size: the host tiling and the best one
#
# For each size, `best_tiling` tries the template's tilings (tile sizes and core counts), checks each with
# `validate_tiling`, and keeps the fastest under the model.

# %%
exponents = range(10, 25, 7) if SMALL else range(10, 27, 2)
sizes = [1 << e for e in exponents]
host_us, best_us, bound = [], [], []
for n in sizes:
    best, host, tried = dt.best_tiling(n, "float32", params=params)
    host_us.append(host.duration_us)
    best_us.append(best.duration_us)
    bound.append(host.bottleneck)
    print(f"2^{n.bit_length() - 1:<3} host {host.duration_us:10.2f} us ({host.bottleneck}), "
          f"best {best.duration_us:10.2f} us: {best.label}")

# %% [markdown]
# ## Where the launch turns from latency-bound to bandwidth-bound
#
# Small tensors cost the head overhead and the first tile's fill; large ones cost their bytes over the
# aggregate bandwidth (`3 * n * 4` bytes for float32). The dashed line is `head + bytes / aggregate`, with the
# head of a launch on every core.

# %%
nbytes = np.array(sizes, dtype=float) * 3 * 4
head = params.head_us + params.head_per_block_us * Platform().core_num
roofline = head + nbytes / (params.aggregate_gbps * 1e3)
fig, ax = plt.subplots(figsize=(8, 5))
ax.loglog(sizes, host_us, "o-", label="host tiling")
ax.loglog(sizes, best_us, "s--", label="best tiling under the model")
ax.loglog(sizes, roofline, "k:", label="head + bytes / aggregate bandwidth")
ax.axhline(head, color="0.6", lw=1, label="head overhead (all cores)")
turn = next((n for n, b in zip(sizes, bound) if b == "aggregate bandwidth"), None)
if turn is not None:
    ax.axvline(turn, color="tab:red", lw=1, label=f"bandwidth-bound from {turn:,} elements")
ax.set_xlabel("elements (float32)")
ax.set_ylabel("predicted launch time (us)")
ax.legend()
plt.show()
print("bandwidth-bound from", turn, "elements" if turn else "(not reached)")
