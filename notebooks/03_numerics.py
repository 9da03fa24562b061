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
# # Numerics: how close is the kernel to the exact function?
#
# The emulator reproduces the kernel's float32 recipe, so its error *is* the
# kernel's error. This notebook measures it for each dtype against three
# yardsticks:
#
# - **float64**: the formula evaluated in float64 from the inputs as the kernel sees them;
# - **the NumPy golden**: the operator's own test reference (float32 NumPy,
#   `swishgrad_numba.golden.numpy_golden`);
# - **PyTorch** `silu_backward` (beta = 1 only; skipped when torch is not installed);
#
# with ULP and relative-error histograms and the verdicts of the operator's
# precision standard (`swishgrad_numba.precision.compare`, model section 7), then
# looks at *where* the error is largest and why. `docs/accuracy.md` has the
# full-range survey.

# %%
# %matplotlib inline
import os

import numpy as np
import matplotlib.pyplot as plt

import swishgrad_numba as sg

# SWISHGRAD_NB_SMALL=1 selects tiny sizes (the test suite runs the notebooks that way).
SMALL = os.environ.get("SWISHGRAD_NB_SMALL", "") not in ("", "0")

from swishgrad_numba import precision
from swishgrad_numba.golden import numpy_golden

try:
    import torch
except ImportError:
    torch = None
    print("PyTorch is not installed: the torch comparison is skipped")

# %% [markdown]
# ## Inputs
#
# Seeded `gradOutput` and `x` uniform in [-5, 5] (the operator's test range),
# beta = 1 so that PyTorch can join. `to_torch`/`from_torch` move bfloat16 bits
# between NumPy and torch unchanged.

# %%
# The formula in float64 from the values the kernel sees (inputs in their dtype,
# beta as float32): the package's one float64 truth.
from swishgrad_numba.golden import float64_truth

N = 1 << 12 if SMALL else 1 << 20
BETA = 1.0
rng = np.random.default_rng(20240607)
g_src = rng.uniform(-5, 5, N).astype(np.float32)
x_src = rng.uniform(-5, 5, N).astype(np.float32)


def to_torch(a):
    if a.dtype == sg.bfloat16:
        return torch.from_numpy(a.view(np.int16)).view(torch.bfloat16)
    return torch.from_numpy(a)


def from_torch(t, dtype):
    if t.dtype == torch.bfloat16:
        return t.view(torch.int16).numpy().view(dtype)
    return t.numpy()


results = {}  # dtype -> {"emulator": ..., "float64": ..., "NumPy golden": ..., "torch": ...}
for name, dt in sg.SUPPORTED_DTYPES.items():
    g, x = g_src.astype(dt), x_src.astype(dt)
    r = {"g": g, "x": x, "emulator": sg.swish_backward(g, x, BETA), "float64": float64_truth(g, x, BETA),
         "NumPy golden": numpy_golden(g, x, BETA)}
    if torch is not None:
        r["torch"] = from_torch(torch.ops.aten.silu_backward(to_torch(g), to_torch(x)), dt)
    results[name] = r
references = [k for k in ("float64", "NumPy golden", "torch") if k in results["float32"]]
print(f"{N} elements per dtype; references: {', '.join(references)}")

# %% [markdown]
# ## Verdicts
#
# `compare(output, golden)` gives the model section 7 verdict (MERE < T and MARE <
# 10 T with T = 2^-13, 2^-10, 2^-7 for float32, float16, bfloat16). Against the
# float64 golden, "bit-identical" means "correctly rounded". The last rows measure
# the NumPy golden and torch themselves against float64, for scale.

# %%
reports = {}
rows = []
for name, r in results.items():
    for ref in references:
        rep = precision.compare(r["emulator"], r[ref], inputs={"grad": r["g"], "x": r["x"]})
        reports[name, ref] = rep
        rows.append((name, f"emulator vs {ref}", rep))
    for other in references[1:]:
        rows.append((name, f"{other} vs float64", precision.compare(r[other], r["float64"])))

print(f"{'dtype':9}{'comparison':26}{'MERE':>10}{'MARE':>10}{'max ULP':>9}{'identical':>11}  verdict")
for name, what, rep in rows:
    same = 100.0 * (1 - rep.mismatch_count / rep.numel)
    print(f"{name:9}{what:26}{rep.mere:>10.2e}{rep.mare:>10.2e}{rep.max_ulp:>9}{same:>10.2f}%  "
          f"{'PASS' if rep.passed else 'FAIL'}")

# %% [markdown]
# ## Histograms
#
# Left: ULP distance of the emulator's output from each reference (the reference
# rounded once to the dtype), in the buckets of `PrecisionReport.ulp_histogram`.
# Right: relative error `|out - ref| / max(|ref|, tiny)`; exact agreements cannot be
# drawn on a log axis, their share is in the legend. Against float64 the relative
# error includes the output's own rounding to its dtype, so it is never 0; the
# dotted lines are the thresholds T and 10 T it is judged by.

# %%
colors = {"float64": "C0", "NumPy golden": "C1", "torch": "C2"}
fig, axes = plt.subplots(len(results), 2, figsize=(13, 3.2 * len(results)))
for row, (name, r) in zip(axes, results.items()):
    ax_ulp, ax_rel = row
    buckets = list(dict.fromkeys(b for ref in references for b in reports[name, ref].ulp_histogram))
    buckets.sort(key=lambda b: int(b.split("-")[0]))
    width = 0.8 / len(references)
    bins = np.logspace(-12, 1, 66)
    tiny = precision.tiny_for(r["emulator"].dtype)
    for k, ref in enumerate(references):
        hist = reports[name, ref].ulp_histogram
        ax_ulp.bar(np.arange(len(buckets)) + (k - (len(references) - 1) / 2) * width,
                   [hist.get(b, 0) for b in buckets], width, color=colors[ref], label=f"vs {ref}")
        gold = r[ref].astype(np.float64)
        with np.errstate(invalid="ignore"):
            rel = np.abs(r["emulator"].astype(np.float64) - gold) / np.maximum(np.abs(gold), tiny)
        rel = rel[np.isfinite(rel)]
        ax_rel.hist(rel[rel > 0], bins=bins, histtype="step", lw=1.5, color=colors[ref],
                    label=f"vs {ref} ({100 * np.mean(rel == 0):.2f}% exact)")
    threshold = precision.threshold_for(name)
    for t in (threshold, 10 * threshold):
        ax_rel.axvline(t, color="grey", ls=":")
    ax_ulp.set_xticks(np.arange(len(buckets)), buckets, rotation=30)
    ax_ulp.set_yscale("log")
    ax_ulp.set_ylim(bottom=0.5)
    ax_ulp.set_xlabel("ULP distance")
    ax_ulp.set_ylabel("elements")
    ax_ulp.set_title(f"{name}: ULP distance of the emulator")
    ax_ulp.legend(fontsize=8)
    ax_rel.set_xscale("log")
    ax_rel.set_yscale("log")
    ax_rel.set_xlabel("relative error")
    ax_rel.set_ylabel("elements")
    ax_rel.set_title(f"{name}: relative error of the emulator (dotted: T, 10 T)")
    ax_rel.legend(fontsize=8)
plt.tight_layout()
plt.show()

# %% [markdown]
# What to read: the 16-bit outputs are the correctly rounded value or its
# neighbour (0 or 1 ULP against float64), and agree with the NumPy golden and
# torch on all but a few elements in 10,000, never more than 1 ULP apart: the
# float32 intermediate has 13 (float16) or 16 (bfloat16) spare bits. float32 has
# none to spare: most results are within a few ULP, but a thin tail reaches
# thousands of ULP, which is what fails MARE on large samples (the verdicts above,
# with the full 2^20 sample; the tiny test sample usually passes). The next
# section shows where that tail comes from.
#
# ## Where the error is largest, and why
#
# With `z = beta*x`, `s'(z) = sigmoid(z) * (1 + z*(1 - sigmoid(z)))`. Three regions
# stand out:
#
# - **the zero of s'** near `z = -1.2785`: `1 + z*(1 - sigmoid(z))` cancels, the exact
#   value tends to 0 while float32 keeps an absolute error of about 1e-8, so the
#   *relative* error is unbounded there;
# - **sigmoid underflow**: for `z < -87.34` the float32 `sigmoid(z) = 1/(1 + e^-z)`
#   is subnormal and loses bits; below `z = -88.72`, `e^-z` overflows, sigmoid is 0
#   and the kernel returns 0 where the exact value (about `z*e^z`) is still a
#   normal float32: relative error 1;
# - **saturation** for large positive `z`: `sigmoid(z)` rounds to 1 and `1 -
#   sigmoid` to 0, which is harmless (the dropped term `z*e^-z` is below half an ULP).
#
# Away from these, float32's error grows slowly with `|z|`: the first instruction
# rounds `beta*x` to float32, and `exp` turns that absolute error into a relative
# error of about `|z| * 2^-24` (invisible at beta = 1, where the product is exact).
# Results below float32's smallest normal are measured against it (`tiny`), which
# is why the error ramps up to 1 between z = -100 and -89.
#
# The scan below (beta = 1.5, gradOutput = 1) draws the exact `s'` and the
# emulator's relative error against `z`.

# %%
BETA2 = 1.5
n_scan = 1 << 11 if SMALL else 1 << 17


def s_prime(z):
    s = 1.0 / (1.0 + np.exp(-z))
    return s * (1.0 + z * (1.0 - s))


# the zero of s' by bisection in float64
lo, hi = -2.0, -1.0
for _ in range(80):
    mid = 0.5 * (lo + hi)
    lo, hi = (lo, mid) if s_prime(mid) > 0 else (mid, hi)  # s' < 0 left of the zero, > 0 right of it
z0 = 0.5 * (lo + hi)
z_subnormal = -126 * np.log(2.0)                      # e^-z = 2^126: sigmoid leaves the normal range
z_overflow = -np.log(np.float64(np.finfo(np.float32).max))  # e^-z overflows float32
print(f"zero of s': z0 = {z0:.6f}; sigmoid subnormal below {z_subnormal:.2f}; exp overflows below {z_overflow:.2f}")

z_wide = np.linspace(-100, 20, n_scan)
z_near = np.linspace(z0 - 0.25, z0 + 0.25, n_scan)
scan = {}
for name in ("float32", "bfloat16"):
    dt = sg.SUPPORTED_DTYPES[name]
    for label, z in (("wide", z_wide), ("near", z_near)):
        x = (z / BETA2).astype(dt)
        ones = np.ones_like(x)
        out = sg.swish_backward(ones, x, BETA2).astype(np.float64)
        exact = float64_truth(ones, x, BETA2)
        zx = np.float64(np.float32(BETA2)) * x.astype(np.float64)
        rel = np.abs(out - exact) / np.maximum(np.abs(exact), precision.tiny_for(dt))
        scan[name, label] = (zx, rel)

fig, axes = plt.subplots(1, 3, figsize=(15, 4.2))
zz = np.linspace(-100, 20, 4001)
with np.errstate(over="ignore"):
    axes[0].plot(zz, s_prime(zz), color="black")
axes[0].axhline(0, color="grey", lw=0.5)
axes[0].set_xlim(-8, 8)
axes[0].set_title("exact s'(z) (float64)")
axes[0].set_xlabel("z = beta * x")
axes[0].set_ylabel("s'(z)")
for k, name in enumerate(("float32", "bfloat16")):
    for ax, label in ((axes[1], "wide"), (axes[2], "near")):
        zx, rel = scan[name, label]
        ax.scatter(zx, np.maximum(rel, 1e-12), s=2, color=f"C{k}", label=name, alpha=0.6)
for ax in axes:
    ax.axvline(z0, color="red", ls="--", lw=1, label=f"zero of s' ({z0:.4f})")
for ax in axes[1:]:
    ax.set_yscale("log")
    ax.set_ylim(1e-12, 10)
    ax.set_xlabel("z = beta * x")
    ax.set_ylabel("relative error vs float64 (0 drawn at 1e-12)")
axes[1].axvline(z_subnormal, color="purple", ls=":", label="sigmoid subnormal")
axes[1].axvline(z_overflow, color="brown", ls=":", label="exp(-z) overflows")
axes[1].set_title(f"emulator error, beta = {BETA2}, gradOutput = 1")
axes[2].set_title("zoom on the zero of s'")
axes[1].legend(fontsize=8, markerscale=4, loc="lower left")
axes[2].legend(fontsize=8, markerscale=4)
plt.tight_layout()
plt.show()

# %% [markdown]
# The worst float32 elements of the first sample, as `compare` lists them with
# their inputs (beta = 1 there): they sit next to the zero of s', `x = z0 / beta`.

# %%
print(reports["float32", "float64"].format(worst=5))

# %% [markdown]
# ## Two kernels: where the Atlas A2 and the Ascend 950 differ
#
# The Ascend 950's kernel computes `(1 - s) * beta*x * s + s` with one fused
# multiply-add (`MulDstAdd`, one rounding) where the A2 rounds `1 + beta*x*(1 - s)`
# and its product with `s` separately (docs/model.md sections 2 and 9). Below:
# the float32 ULP distance between the two kernels' outputs (gradOutput = 1) as a
# function of `z = beta * x`, and, where the sigmoid underflows, the sign of the
# zero each kernel returns (A2 -0, 950 +0).

# %%
from swishgrad_numba.precision import ulp_distance

n_two = 1 << 12 if SMALL else 1 << 18
z_two = np.concatenate([np.linspace(-8, 8, n_two), np.linspace(-100, -80, n_two // 4)])
x_two = (z_two / BETA2).astype(np.float32)
ones_two = np.ones_like(x_two)
a2 = sg.swish_backward(ones_two, x_two, BETA2)
a950 = sg.swish_backward(ones_two, x_two, BETA2, platform=sg.ASCEND950_PLATFORM)
ulps = ulp_distance(a2, a950)
zero_sign = (a2 == 0) & (a950 == 0) & (np.signbit(a2) != np.signbit(a950))
print(f"{np.count_nonzero(ulps)} of {x_two.size} float32 outputs differ by 1..{ulps.max()} ULP; "
      f"{np.count_nonzero(zero_sign)} differ only in the sign of zero (A2 -0, 950 +0)")

fig, axes = plt.subplots(1, 2, figsize=(13, 3.8))
zb = np.float64(np.float32(BETA2)) * x_two.astype(np.float64)
keep = np.abs(zb) <= 8
axes[0].scatter(zb[keep], ulps[keep], s=2, alpha=0.5)
axes[0].set_xlabel("z = beta * x")
axes[0].set_ylabel("ULP distance A2 vs 950")
axes[0].set_title(f"float32, beta = {BETA2}, gradOutput = 1")
far = ~keep
axes[1].scatter(zb[far], np.where(np.signbit(a2[far]), -1, 1), s=4, label="A2", alpha=0.6)
axes[1].scatter(zb[far], np.where(np.signbit(a950[far]), -1, 1) * 0.9, s=4, label="Ascend 950", alpha=0.6)
axes[1].set_yticks([-1, 1], ["negative (incl. -0)", "positive (incl. +0)"])
axes[1].set_xlabel("z = beta * x")
axes[1].set_title("sign of the output where the sigmoid underflows")
axes[1].legend(fontsize=8, markerscale=3)
plt.tight_layout()
plt.show()


# %% [markdown]
# ## What a device may differ by: the error envelope
#
# The emulator computes `Exp` and `Div` correctly rounded; a device's vector
# units approximate them (the Ascend 950's documentation: up to 1 ulp, with
# subnormal results flushed). `swishgrad_numba.precision.envelope` follows
# the kernel's instruction sequence with those two instructions set free
# (each result anywhere within its ulp budget, Div working on the already
# perturbed Exp result) and enumerates, per element, every output the device
# can then produce (docs/model.md section 10). `swishgrad compare --envelope`
# uses it to tell documented hardware error from a real bug.
#
# How wide is it? Below, for seeded random inputs: how many distinct outputs
# each element can reach, per dtype, with 1 ulp on both instructions.

# %%
import matplotlib.pyplot as plt
import ml_dtypes
import numpy as np

import swishgrad_numba as sg
from swishgrad_numba.precision import envelope

DTYPES = {"float32": np.float32, "float16": np.float16, "bfloat16": ml_dtypes.bfloat16}
N = 50_000
rng = np.random.default_rng(2024)
g64 = rng.uniform(-4, 4, N)
x64 = rng.uniform(-8, 8, N)

widths = {}
for name, dt in DTYPES.items():
    g, x = g64.astype(dt), x64.astype(dt)
    env = envelope(g, x, 1.0, exp_ulp=1, div_ulp=1)
    assert env.contains(sg.swish_backward(g, x, 1.0)).all()   # the emulator is always one of them
    widths[name] = np.bincount(env.count().ravel())
    share = 1 - widths[name][1] / N
    print(f"{name:9s}: reachable outputs per element {dict(enumerate(widths[name].tolist()))}; "
          f"{share:.1%} of the elements can come out differently")

# %%
fig, ax = plt.subplots(figsize=(7, 3.2))
for k, (name, counts) in enumerate(widths.items()):
    sizes = np.arange(counts.size)
    ax.bar(sizes[1:] + (k - 1) * 0.27, counts[1:] / N, width=0.27, label=name)
ax.set_xlabel("distinct reachable outputs per element (Exp and Div within 1 ulp)")
ax.set_ylabel("share of elements")
ax.set_yscale("log")
ax.legend()
fig.tight_layout()

# %% [markdown]
# A float32 result carries every bit of the float32 steps, so a 1-ulp
# change of `Exp` alone often reaches the output. A float16 or bfloat16 output
# keeps only 11 or 8 significant bits: the narrowing `Cast` absorbs the
# change unless the float32 result sits right next to a rounding boundary of
# the 16-bit dtype.

# %%
for name, dt in DTYPES.items():
    g, x = g64.astype(dt), x64.astype(dt)
    moved = envelope(g, x, 1.0, exp_ulp=1, div_ulp=0).count() > 1
    print(f"{name:9s}: a 1-ulp Exp error can change {moved.mean():.3%} of the outputs")
