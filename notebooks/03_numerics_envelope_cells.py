# ---
# jupyter:
#   jupytext:
#     formats: py:percent
#     text_representation:
#       extension: .py
#       format_name: percent
# ---

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
import matplotlib

matplotlib.use("Agg")
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
