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
# # The activations: each kernel's error against the exact function
#
# For every activation the package emulates (SiLU, Sigmoid, GELU, FastGELU,
# LeakyReLU, Softplus, ELU, GELU v2, Mish, Hardswish, ReLU, forward and backward;
# SwiGlu in its own section at the end), each kernel that runs it (Atlas A2, Ascend 950) and
# each dtype, this notebook measures the device's output, bit for bit as the
# emulator computes it, against the function evaluated in float64 and rounded
# once to the dtype:
#
# - **ulp histograms**: how far each output lies from the correctly rounded value;
# - **error over x** (every activation in float32, the first tier in float16
#   and bfloat16 too): where on the axis the error lives, with the inputs
#   where **the two kernels disagree** marked.
#
# The truths are the textbook functions (GELU is the tanh form the kernels
# approximate). Where a kernel departs from them on purpose or by an upstream
# quirk (the A2 GELU's cubic coefficient 0.0455399241, docs/model.md), the
# error plot shows it.

# %%
# %matplotlib inline
import math
import os

import numpy as np
import matplotlib.pyplot as plt

import swishgrad_numba as sg
from swishgrad_numba.ops import OPERATORS
from swishgrad_numba.precision import ulp_distance

# SWISHGRAD_NB_SMALL=1 selects tiny sizes (the test suite runs the notebooks that way).
SMALL = os.environ.get("SWISHGRAD_NB_SMALL", "") not in ("", "0")
N = 1 << 10 if SMALL else 1 << 16

# %% [markdown]
# ## The exact functions
#
# Each row: the public function, the registry's name of its operator, its
# float64 truth, and the inputs it is shown on (SigmoidBackward takes the
# forward's output y in (0, 1); the other backwards take x). A backward's
# grad_output is 0.7 throughout (not 1, so that the order of its products shows).

# %%
S2PI = np.sqrt(2.0 / np.pi)


def sig(x):
    # 1 / (1 + e^-x) from e^-|x|: no overflow, and no 1 + tanh cancelling to 0 in the far negative tail
    e = np.exp(-np.abs(x))
    return np.where(x >= 0, 1.0 / (1.0 + e), e / (1.0 + e))


# float64 erfc without SciPy: 1 + erf(t) as erfc(-t), which does not cancel in the negative tail
ERFC = np.vectorize(math.erfc, otypes=[np.float64])


# 0.5 (1 + tanh z) is sig(2z) and 1 - tanh^2 z is 4 sig(2z) sig(-2z): written so, the truth keeps its
# relative accuracy where 1 + tanh z would cancel (below x = -5.3 it would be wrong at float32 precision).
def gelu_tanh(x):
    return x * sig(2.0 * S2PI * (x + 0.044715 * x ** 3))


def gelu_tanh_grad(x):
    z2 = 2.0 * S2PI * (x + 0.044715 * x ** 3)
    return sig(z2) + 2.0 * x * sig(z2) * sig(-z2) * S2PI * (1.0 + 3 * 0.044715 * x * x)


ROWS = {
    # name: (public function, operator, truth(t) in float64, what t is, its range)
    "silu": ("silu", "silu", lambda x: x * sig(x), "x", (-12.0, 12.0)),
    "silu_backward": ("silu_backward", "silu_grad", lambda x: sig(x) * (1.0 + x * (1.0 - sig(x))), "x", (-12, 12)),
    "sigmoid": ("sigmoid", "sigmoid", sig, "x", (-12.0, 12.0)),
    "sigmoid_backward": ("sigmoid_backward", "sigmoid_grad", lambda y: y * (1.0 - y), "y", (0.0, 1.0)),
    "gelu": ("gelu", "gelu", gelu_tanh, "x", (-8.0, 8.0)),
    "gelu_backward": ("gelu_backward", "gelu_grad", gelu_tanh_grad, "x", (-8.0, 8.0)),
    "fast_gelu": ("fast_gelu", "fast_gelu", lambda x: x * sig(1.702 * x), "x", (-8.0, 8.0)),
    "fast_gelu_backward": ("fast_gelu_backward", "fast_gelu_grad",
                           lambda x: sig(1.702 * x) * (1.0 + 1.702 * x * (1.0 - sig(1.702 * x))), "x", (-8, 8)),
    "leaky_relu": ("leaky_relu", "leaky_relu", lambda x: np.where(x > 0, x, 0.01 * x), "x", (-8.0, 8.0)),
    "leaky_relu_backward": ("leaky_relu_backward", "leaky_relu_grad", lambda x: np.where(x > 0, 1.0, 0.01), "x",
                            (-8.0, 8.0)),
    "softplus": ("softplus", "softplus", lambda x: np.where(x > 20, x, np.log1p(np.exp(np.minimum(x, 20)))), "x",
                 (-12.0, 12.0)),
    "softplus_backward": ("softplus_backward", "softplus_grad", lambda x: np.where(x > 20, 1.0, sig(x)), "x",
                          (-12.0, 12.0)),
    "elu": ("elu", "elu", lambda x: np.where(x > 0, x, np.expm1(np.minimum(x, 0))), "x", (-8.0, 8.0)),
    "elu_backward": ("elu_backward", "elu_grad", lambda x: np.where(x > 0, 1.0, np.exp(np.minimum(x, 0))), "x",
                     (-8.0, 8.0)),
    "gelu_v2": ("gelu_v2", "gelu_v2", lambda x: 0.5 * x * ERFC(-x / np.sqrt(2.0)), "x", (-8.0, 8.0)),
    "gelu_backward_v2": ("gelu_backward_v2", "gelu_grad_v2", lambda x: 0.5 * ERFC(-x / np.sqrt(2.0))
                         + x * np.exp(-0.5 * x * x) / np.sqrt(2.0 * np.pi), "x", (-8.0, 8.0)),
    # the third tier (issue 41): Mish = x tanh(softplus x); Hardswish = x clamp(x + 3, 0, 6) / 6, torch's
    # gradient (0 below -3, 1 above 3: the kernels' own bounds at exactly +-3 differ, docs/model.md)
    "mish": ("mish", "mish", lambda x: x * np.tanh(np.logaddexp(0.0, x)), "x", (-12.0, 12.0)),
    "mish_backward": ("mish_backward", "mish_grad", lambda x: np.tanh(np.logaddexp(0.0, x))
                      + x * (1.0 - np.tanh(np.logaddexp(0.0, x)) ** 2) * sig(x), "x", (-12.0, 12.0)),
    "hardswish": ("hardswish", "hardswish", lambda x: x * np.clip(x + 3.0, 0.0, 6.0) / 6.0, "x", (-6.0, 6.0)),
    "hardswish_backward": ("hardswish_backward", "hardswish_grad",
                           lambda x: np.where(x < -3, 0.0, np.where(x > 3, 1.0, x / 3.0 + 0.5)), "x", (-6.0, 6.0)),
    # Relu = max(x, 0); its backward is threshold_backward at threshold 0 (ReluGrad): grad where x > 0, else 0.
    # The A2's bfloat16 ReluGrad gives 0 * grad everywhere (an upstream bug, reproduced: docs/model.md)
    "relu": ("relu", "relu", lambda x: np.where(x > 0, x, 0.0), "x", (-8.0, 8.0)),
    "threshold_backward": ("threshold_backward", "threshold_backward", lambda x: np.where(x > 0, 1.0, 0.0), "x",
                           (-8.0, 8.0)),
}
# the rows whose operator this version of the package registers
ROWS = {k: v for k, v in ROWS.items() if v[1] in OPERATORS and hasattr(sg, v[0])}
KERNELS = {"a2": sg.REFERENCE_PLATFORM, "arch35": sg.ASCEND950_PLATFORM}
DTYPES = ("float32", "float16", "bfloat16")
print("activations shown:", ", ".join(ROWS))

# %% [markdown]
# ## The device's outputs and their ulp errors
#
# `device(name, kernel, dtype)` runs the emulated kernel on N inputs evenly
# spread over the row's range; the truth is evaluated in float64 from the
# inputs as the kernel sees them (already in the dtype) and rounded once.

# %%
NUMPY = {"float32": np.float32, "float16": np.float16, "bfloat16": sg.bfloat16}
GRAD = 0.7   # a backward's grad_output


def inputs(name, dtype):
    lo, hi = ROWS[name][4]
    return np.linspace(lo, hi, N).astype(np.float32).astype(NUMPY[dtype])


def device(name, kernel, dtype):
    fn_name, _op, _truth, _kind, _range = ROWS[name]
    t = inputs(name, dtype)
    fn = getattr(sg, fn_name)
    if "_backward" in fn_name:
        return fn(np.full_like(t, GRAD), t, platform=KERNELS[kernel])
    return fn(t, platform=KERNELS[kernel])


def ulp_errors(name, kernel, dtype):
    t = inputs(name, dtype)
    grad = float(np.array(GRAD).astype(NUMPY[dtype])) if "_backward" in ROWS[name][0] else 1.0
    with np.errstate(over="ignore", invalid="ignore"):
        truth = (grad * ROWS[name][2](t.astype(np.float64))).astype(NUMPY[dtype])
    return ulp_distance(device(name, kernel, dtype), truth)


results = {}
for name, (_fn, op, _truth, _kind, _rng) in ROWS.items():
    for kernel in KERNELS:
        if kernel not in OPERATORS[op].kernels:
            continue
        for dtype in DTYPES:
            results[name, kernel, dtype] = ulp_errors(name, kernel, dtype)

print(f"{'activation':20s} {'kernel':7s} {'dtype':9s} {'exact':>7s} {'<=1 ulp':>8s} {'max ulp':>8s}")
for (name, kernel, dtype), d in results.items():
    ok = d[d >= 0]
    print(f"{name:20s} {kernel:7s} {dtype:9s} {np.mean(ok == 0):7.1%} {np.mean(ok <= 1):8.1%} {ok.max():8d}")

# %% [markdown]
# ## Where the two kernels differ
#
# Both kernels compute the same function with different instruction
# sequences (or constants); the inputs where their outputs differ, bit for
# bit, per activation and dtype:

# %%
differ = {}
for name, (_fn, op, _truth, _kind, _rng) in ROWS.items():
    if len(OPERATORS[op].kernels) < 2:
        print(f"{name:20s} one kernel only ({', '.join(OPERATORS[op].kernels)})")
        continue
    for dtype in DTYPES:
        a = device(name, "a2", dtype)
        b = device(name, "arch35", dtype)
        bits = {2: np.uint16, 4: np.uint32}[a.dtype.itemsize]
        differ[name, dtype] = a.view(bits) != b.view(bits)
        print(f"{name:20s} {dtype:9s} the kernels differ on {int(differ[name, dtype].sum())} of {N} inputs")

# %% [markdown]
# ## Ulp histograms
#
# One panel per activation: the share of outputs at each ulp distance from the
# correctly rounded value (distances of 4 and more pooled), per kernel and dtype.

# %%
names = list(ROWS)
cols = 2
fig, axes = plt.subplots((len(names) + cols - 1) // cols, cols, figsize=(12, 2.8 * ((len(names) + 1) // cols)),
                         squeeze=False)
for ax, name in zip(axes.flat, names):
    keys = [k for k in results if k[0] == name]
    width = 0.8 / len(keys)
    for i, key in enumerate(keys):
        d = results[key]
        d = np.minimum(d[d >= 0], 4)
        share = np.bincount(d, minlength=5) / d.size
        ax.bar(np.arange(5) + i * width, share, width, label=f"{key[1]} {key[2]}")
    ax.set_xticks(np.arange(5) + 0.4 - width / 2, ["0", "1", "2", "3", "4+"])
    ax.set_title(name)
    ax.set_ylabel("share of outputs")
    ax.legend(fontsize=6, ncol=2)
for ax in axes.flat[len(names):]:
    ax.set_visible(False)
fig.tight_layout()
plt.show()

# %% [markdown]
# ## Error over the input, per dtype
#
# The ulp error of each kernel's output along the axis; red ticks mark the
# inputs where the two kernels' outputs differ. Every activation in float32;
# the first tier (Sigmoid, GELU, FastGELU and their backwards) in float16 and
# bfloat16 too, where the narrowing to the dtype dominates. At most `PLOTTED`
# of the N inputs are drawn (evenly spaced), which keeps the figures quick.

# %%
PLOTTED = 4096
TIER1 = [n for n in ("sigmoid", "sigmoid_backward", "gelu", "gelu_backward", "fast_gelu", "fast_gelu_backward")
         if n in ROWS]


def error_over_x(dtype, shown):
    step = max(1, N // PLOTTED)
    fig, axes = plt.subplots((len(shown) + cols - 1) // cols, cols,
                             figsize=(12, 2.8 * ((len(shown) + 1) // cols)), squeeze=False)
    for ax, name in zip(axes.flat, shown):
        t = inputs(name, dtype).astype(np.float64)[::step]
        for kernel in KERNELS:
            if (name, kernel, dtype) in results:
                ax.plot(t, results[name, kernel, dtype][::step], ".", ms=1.5, label=kernel)
        if (name, dtype) in differ and differ[name, dtype].any():
            where = differ[name, dtype][::step]
            ax.plot(t[where], np.full(int(where.sum()), -0.5), "|", color="red", ms=4, label="kernels differ")
        ax.set_title(f"{name} ({dtype})")
        ax.set_xlabel(ROWS[name][3])
        ax.set_ylabel("ulp from exact")
        ax.legend(fontsize=7)
    for ax in axes.flat[len(shown):]:
        ax.set_visible(False)
    fig.tight_layout()
    plt.show()


error_over_x("float32", names)

# %%
for dtype in ("float16", "bfloat16"):
    error_over_x(dtype, TIER1)

# %% [markdown]
# ## SwiGlu: silu(a) * b of x's two halves
#
# SwiGlu splits x along `dim` into halves a and b (a row walk of its own, not
# the element-wise one). Here x is N rows of two: a spread over (-8, 8), b =
# 0.7, so out = 0.7 silu(a); its gradient grad_x (grad_output 0.7) holds
# 0.7 b silu'(a) in the a half and 0.7 silu(a) in the b half. Both SoCs run
# the same arithmetic (their outputs are compared bit for bit); SwiGluGrad is
# shown on both.

# %%
def swiglu_errors(dtype, platform):
    a = np.linspace(-8.0, 8.0, N).astype(np.float32).astype(NUMPY[dtype])
    b = np.full_like(a, 0.7)
    x = np.stack([a, b], axis=1)
    a64, b64 = a.astype(np.float64), b.astype(np.float64)
    g = np.full((N, 1), GRAD, np.float32).astype(NUMPY[dtype])
    g64 = g.astype(np.float64)[:, 0]
    out = {"swiglu": (sg.swiglu(x, platform=platform)[:, 0], a64 * sig(a64) * b64)}
    gx = sg.swiglu_backward(g, x, platform=platform)
    d1 = sig(a64) * (1.0 + a64 * sig(-a64))
    out["swiglu_backward (a half)"] = (gx[:, 0], g64 * b64 * d1)
    out["swiglu_backward (b half)"] = (gx[:, 1], g64 * a64 * sig(a64))
    with np.errstate(over="ignore", invalid="ignore"):
        return a64, {k: (v, ulp_distance(v, t.astype(NUMPY[dtype]))) for k, (v, t) in out.items()}


swiglu_results = {}
for kernel in KERNELS:
    for dtype in DTYPES:
        swiglu_results[kernel, dtype] = swiglu_errors(dtype, KERNELS[kernel])
print(f"{'output':26s} {'kernel':7s} {'dtype':9s} {'exact':>7s} {'<=1 ulp':>8s} {'max ulp':>8s}")
for (kernel, dtype), (_a, rows) in swiglu_results.items():
    for name, (_v, d) in rows.items():
        ok = d[d >= 0]
        print(f"{name:26s} {kernel:7s} {dtype:9s} {np.mean(ok == 0):7.1%} {np.mean(ok <= 1):8.1%} {ok.max():8d}")
for dtype in DTYPES:
    va, vb = swiglu_results["a2", dtype][1]["swiglu"][0], swiglu_results["arch35", dtype][1]["swiglu"][0]
    bits = {2: np.uint16, 4: np.uint32}[va.dtype.itemsize]
    print(f"swiglu {dtype:9s} the A2 and 950 kernels differ on {int((va.view(bits) != vb.view(bits)).sum())} of {N}")

# %%
fig, axes = plt.subplots(1, len(DTYPES), figsize=(12, 3), squeeze=False)
for ax, dtype in zip(axes.flat, DTYPES):
    a64, rows = swiglu_results["a2", dtype]
    step = max(1, N // PLOTTED)
    for name, (_v, d) in rows.items():
        ax.plot(a64[::step], d[::step], ".", ms=1.5, label=name)
    ax.set_title(f"SwiGlu, A2 ({dtype})")
    ax.set_xlabel("a")
    ax.set_ylabel("ulp from exact")
    ax.legend(fontsize=6)
fig.tight_layout()
plt.show()
