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
# # RmsNorm: where the device's y and rstd differ from float64, per mode
#
# RmsNorm sums each row's squares in float32, in an order its tiling mode decides: on the Atlas A2 merge_n
# (rows of at most 2000 padded elements), normal, or split_d (long rows); on the Ascend 950 full_load or
# split. This notebook runs rows across those modes, as the emulator computes them bit for bit, and measures
# y and rstd against float64: rstd in ulps of float32, y in ulps of its dtype. It then shows how many outputs
# change when the order inside a 64-lane repeat is sequential instead of the model's tree
# (docs/model.md, "RmsNorm").

# %%
# %matplotlib inline
import os

import ml_dtypes
import numpy as np
import matplotlib.pyplot as plt

from swishgrad_numba import ASCEND950_PLATFORM, Platform
from swishgrad_numba.ops.rms_norm import rms_norm
from swishgrad_numba.ops.rms_norm.host_a2 import a2_tiling
from swishgrad_numba.ops.rms_norm.kernel_950 import arch35_tiling
from swishgrad_numba.precision import ulp_distance

# SWISHGRAD_NB_SMALL=1 selects tiny sizes (the test suite runs the notebooks that way).
SMALL = os.environ.get("SWISHGRAD_NB_SMALL", "") not in ("", "0")
ROWS = 4 if SMALL else 64
COLUMNS = (100, 3000, 20000) if SMALL else (64, 100, 1000, 2000, 3000, 8192, 12289, 20000)
DTYPES = {"float32": np.dtype(np.float32), "float16": np.dtype(np.float16),
          "bfloat16": np.dtype(ml_dtypes.bfloat16)}
PLATFORMS = {"A2": Platform(), "950": ASCEND950_PLATFORM}

# %% [markdown]
# ## The error per mode
#
# Inputs: x ~ N(0, 1) times 10^U(-2, 2) per row, gamma ~ N(1, 0.1), epsilon 1e-6. The float64 rstd is
# `1 / sqrt(mean(x^2) + eps)` of the inputs as the kernel sees them; y's float64 is `x * rstd64 * gamma`.

# %%
rng = np.random.default_rng(42)
rows = []
for pname, platform in PLATFORMS.items():
    for dname, dtype in DTYPES.items():
        for n in COLUMNS:
            x = (rng.standard_normal((ROWS, n)) * 10.0 ** rng.uniform(-2, 2, (ROWS, 1))).astype(dtype)
            gamma = rng.normal(1.0, 0.1, n).astype(dtype)
            tiling = a2_tiling if platform.architecture == "a2" else arch35_tiling
            mode = tiling(ROWS, n, dtype, dtype, 1e-6, platform).mode
            y, rstd = rms_norm(x, gamma, platform=platform)
            y_seq, rstd_seq = rms_norm(x, gamma, platform=platform, order="sequential")
            x64, g64 = x.astype(np.float64), gamma.astype(np.float64)
            r64 = 1.0 / np.sqrt(np.mean(x64 * x64, axis=1, keepdims=True) + float(np.float32(1e-6)))
            y64 = x64 * r64 * g64
            rows.append({
                "platform": pname, "dtype": dname, "columns": n, "mode": mode,
                "rstd ulp": int(ulp_distance(rstd, r64.astype(np.float32)).max()),
                "y ulp": int(ulp_distance(y, y64.astype(np.float32).astype(dtype)).max()),
                "order changes": float(np.mean(rstd.view(np.uint32) != rstd_seq.view(np.uint32))),
            })

print(f"{'platform':8s} {'dtype':8s} {'columns':>7s} {'mode':10s} {'rstd ulp':>8s} {'y ulp':>5s} "
      f"{'rstd changed by the order':>26s}")
for r in rows:
    print(f"{r['platform']:8s} {r['dtype']:8s} {r['columns']:7d} {r['mode']:10s} {r['rstd ulp']:8d} "
          f"{r['y ulp']:5d} {r['order changes']:26.0%}")

# %% [markdown]
# ## rstd's error against float64, by mode
#
# Each bar: the largest distance, in float32 ulps, between the device's rstd and float64's rounded once.

# %%
fig, ax = plt.subplots(figsize=(9, 3.5))
labels = [f"{r['platform']} {r['mode']}\n{r['dtype']} {r['columns']}" for r in rows]
ax.bar(range(len(rows)), [r["rstd ulp"] for r in rows], color=["C0" if r["platform"] == "A2" else "C1"
                                                                for r in rows])
ax.set_xticks(range(len(rows)))
ax.set_xticklabels(labels, rotation=90, fontsize=6)
ax.set_ylabel("max rstd error (float32 ulp)")
ax.set_title("RmsNorm rstd against float64 (A2 blue, 950 orange)")
fig.tight_layout()
plt.show()
