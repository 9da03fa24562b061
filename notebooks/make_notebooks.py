"""Write the four notebooks of this folder from the cell texts below.

Run ``python notebooks/make_notebooks.py`` after editing a cell here; never
edit the ``.ipynb`` files by hand. The notebooks are written without outputs
(``execution_count`` null, ``outputs`` empty) and with stable cell ids, so
regenerating an unchanged notebook gives the same bytes and a diff shows only
what changed. ``tests/test_notebooks.py`` checks that the committed files
equal what this script writes, and executes them.

Every notebook reads ``SWISHGRAD_NB_SMALL``: set to anything but ``0`` or
empty, it selects tiny sizes (the tests use it). ``04_throughput`` also reads
``SWISHGRAD_NB_BENCH_JSON``: the path of a ``swishgrad bench --json`` file to
plot instead of measuring.
"""
from __future__ import annotations

import sys
import textwrap
from pathlib import Path

import nbformat
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

HERE = Path(__file__).resolve().parent

SETUP = """\
%matplotlib inline
import os

import numpy as np
import matplotlib.pyplot as plt

import swishgrad_numba as sg

# SWISHGRAD_NB_SMALL=1 selects tiny sizes (the test suite runs the notebooks that way).
SMALL = os.environ.get("SWISHGRAD_NB_SMALL", "") not in ("", "0")
"""

EXACT = """\
# The formula in float64 from the values the kernel sees (inputs in their dtype,
# beta as float32): the package's one float64 truth.
from swishgrad_numba.golden import float64_truth
"""

# --------------------------------------------------------------------------
# 01 quick start
# --------------------------------------------------------------------------

QUICK_START = [
    ("md", """\
# Quick start: the Ascend SwishGrad kernel on a CPU

`swishgrad_numba` emulates the NPU operator SwishGrad bit for bit:

    s'(x)     = sigmoid(beta*x) * (1 + beta*x * (1 - sigmoid(beta*x)))
    gradInput = gradOutput * s'(x)

This notebook runs the operator's seed example three ways: through the Python
entry point `swish_backward`, through the two-phase `aclnn` API exactly as a C
program calls it, and against a float64 evaluation of the formula. On the way
it shows the 72-byte tiling struct the host hands to the kernel."""),
    ("code", SETUP),
    ("md", """\
## 1. `swish_backward`: the seed example

The seed example (docs/model.md section 1): float32, `beta = 1.1`, `gradOutput` six ones, `self` = 1..6.
The result is the device's bits (every vector instruction of the kernel, in its
order, with float32 rounding)."""),
    ("code", """\
grad = np.ones(6, dtype=np.float32)
x = np.arange(1, 7, dtype=np.float32)
beta = 1.1

out32 = sg.swish_backward(grad, x, beta=beta)
spec_values = np.array([0.95636696, 1.0978101, 1.0776381, 1.0405896, 1.0182244, 1.0075958], dtype=np.float32)
print(out32)
print("equal to the model's seed values:", np.array_equal(out32, spec_values))
"""),
    ("md", """\
The same call works for float16 and bfloat16 (`sg.bfloat16` is `ml_dtypes.bfloat16`):
the kernel widens the inputs to float32 exactly, runs the same float32
instructions and rounds the result back to nearest even. Any shape and strides
are accepted; here a transposed view gives the same values element by element."""),
    ("code", """\
outputs = {}
for name, dt in sg.SUPPORTED_DTYPES.items():
    outputs[name] = sg.swish_backward(grad.astype(dt), x.astype(dt), beta=beta)
    print(f"{name:>8}: {outputs[name]}")

xt = x.reshape(2, 3).T  # a non-contiguous (3, 2) view
print("transposed view:", sg.swish_backward(np.ones_like(xt), xt, beta=beta).ravel(), "(element order of the view)")
"""),
    ("md", """\
## 2. The two-phase aclnn API, as C code calls it

`swishgrad_numba.aclnn` keeps the C names and argument order; out-pointers become
return values and `nullptr` is `None` (see `docs/aclnn.md`). Phase one
(`aclnnSwishBackwardGetWorkspaceSize`) checks the arguments, computes the tiling and
says how much workspace to allocate; phase two (`aclnnSwishBackward`) queues the
launch on a stream. Results are defined after `aclrtSynchronizeStream`."""),
    ("code", """\
from swishgrad_numba import aclnn as acl
from swishgrad_numba.aclnn import ACL_SUCCESS


def CHECK_RET(ret, what):
    # the C sample's CHECK_RET: stop at the first failure, with the reason
    if ret != ACL_SUCCESS:
        raise RuntimeError(f"{what} failed. ERROR: {ret}: {acl.aclGetRecentErrMsg()}")


def create_acl_tensor(host, shape, data_type):
    # aclrtMalloc + aclrtMemcpy (host -> device) + aclCreateTensor, contiguous ND
    ret, device = acl.aclrtMalloc(host.nbytes, acl.ACL_MEM_MALLOC_HUGE_FIRST)
    CHECK_RET(ret, "aclrtMalloc")
    CHECK_RET(acl.aclrtMemcpy(device, host.nbytes, host, host.nbytes, acl.ACL_MEMCPY_HOST_TO_DEVICE), "aclrtMemcpy")
    strides = [int(np.prod(shape[i + 1:])) for i in range(len(shape))]
    return device, acl.aclCreateTensor(shape, data_type, strides, 0, acl.ACL_FORMAT_ND, shape, device)


CHECK_RET(acl.aclInit(None), "aclInit")
CHECK_RET(acl.aclrtSetDevice(0), "aclrtSetDevice")
ret, stream = acl.aclrtCreateStream()
CHECK_RET(ret, "aclrtCreateStream")

shape = [2, 3]
grad_output_dev, grad_output = create_acl_tensor(grad, shape, acl.ACL_FLOAT)
self_dev, self_ = create_acl_tensor(x, shape, acl.ACL_FLOAT)
grad_input_dev, grad_input = create_acl_tensor(np.zeros(6, dtype=np.float32), shape, acl.ACL_FLOAT)
beta_optional = acl.aclCreateScalar(np.float32(beta), acl.ACL_FLOAT)

# phase one: checks, host tiling, workspace size
ret, workspace_size, executor = acl.aclnnSwishBackwardGetWorkspaceSize(grad_output, self_, beta_optional, grad_input)
CHECK_RET(ret, "aclnnSwishBackwardGetWorkspaceSize")
workspace = None
if workspace_size > 0:
    ret, workspace = acl.aclrtMalloc(workspace_size, acl.ACL_MEM_MALLOC_HUGE_FIRST)
    CHECK_RET(ret, "aclrtMalloc")
# phase two: queue the launch, then wait for the stream
CHECK_RET(acl.aclnnSwishBackward(workspace, workspace_size, executor, stream), "aclnnSwishBackward")
CHECK_RET(acl.aclrtSynchronizeStream(stream), "aclrtSynchronizeStream")

result = np.zeros(6, dtype=np.float32)
CHECK_RET(acl.aclrtMemcpy(result, result.nbytes, grad_input_dev, result.nbytes, acl.ACL_MEMCPY_DEVICE_TO_HOST),
          "aclrtMemcpy")
print("workspace size :", workspace_size, "bytes")
print("aclnn result   :", result)
print("same bits as swish_backward:", np.array_equal(result.view(np.uint32), out32.view(np.uint32)))
"""),
    ("md", """\
A failed check is a status code plus a message, never an exception; here a null
`self`:"""),
    ("code", """\
ret, _, _ = acl.aclnnSwishBackwardGetWorkspaceSize(grad_output, None, beta_optional, grad_input)
print(ret, "=", "ACLNN_ERR_PARAM_NULLPTR" if ret == acl.ACLNN_ERR_PARAM_NULLPTR else "?", "|", acl.aclGetRecentErrMsg())

# release, as the C sample does
for tensor in (grad_output, self_, grad_input):
    acl.aclDestroyTensor(tensor)
acl.aclDestroyScalar(beta_optional)
for buffer in (grad_output_dev, self_dev, grad_input_dev, workspace):
    if buffer is not None:
        acl.aclrtFree(buffer)
acl.aclrtDestroyStream(stream)
acl.aclrtResetDevice(0)
acl.aclFinalize();
"""),
    ("md", """\
## 3. The tiling struct

Phase one computed the host tiling (model section 3) the device launch would get:
eight `uint64` fields and the float32 `sconf` (beta), 72 bytes with the C layout
(4 bytes of tail padding), plus the block dimension (cores launched) and the tiling
key. Six float32 elements fit in one tile on one core; the 32-byte DataCopy
granule makes the core move 8 elements (`smallCoreDataNum`)."""),
    ("code", """\
def show_tiling(tiling):
    record = tiling.data
    print(f"{'field':>18}  {'C type':8} {'offset':>6}  value")
    for name in sg.TILING_FIELDS:
        dtype, offset = sg.TILING_DTYPE.fields[name][:2]
        ctype = "uint64_t" if dtype.kind == "u" else "float"
        print(f"{name:>18}  {ctype:8} {offset:>6}  {record[name]}")
    print(f"blockDim = {tiling.block_dim}, tilingKey = {tiling.tiling_key}, workspace = {tiling.workspace_size} bytes")
    raw = tiling.tobytes()
    print(f"{len(raw)} bytes, little-endian:", raw.hex(" ", 8))


show_tiling(executor.tiling)
"""),
    ("md", """\
A tensor of 2^20 float16 elements on the reference platform (48 cores, 192 KiB
unified buffer): 48 cores, 16 of them "big" (one 32-byte block more), 3 tiles of
up to 8192 elements each. The second notebook draws such tilings."""),
    ("code", """\
show_tiling(sg.compute_tiling(1 << 20, "float16", scale=beta))
"""),
    ("md", """\
## 4. Outputs against float64

The exact value of the formula, evaluated in float64 from the inputs the kernel
sees (beta rounded to float32), shows how much each dtype loses. The relative
error is `|out - exact| / |exact|`; the dashed lines are the operator's MERE
thresholds (model section 7: 2^-13, 2^-10, 2^-7). `precision.compare` gives the ULP
distance to the correctly rounded value and the verdict: float32 is within 2 ULP
(a few 1e-7); float16 and bfloat16 are correctly rounded here (0 ULP), their error
is only the rounding to 11 or 8 significant bits."""),
    ("code", EXACT + """
from swishgrad_numba.precision import THRESHOLDS, compare

exact = float64_truth(grad, x, beta)
fig, ax = plt.subplots(figsize=(9, 4))
width = 0.27
for k, (name, out) in enumerate(outputs.items()):
    rel = np.abs(out.astype(np.float64) - exact) / np.abs(exact)
    exact_mask = rel == 0
    shown = np.where(exact_mask, 1e-10, rel)  # log scale: exact results drawn at the floor
    ax.bar(np.arange(6) + (k - 1) * width, shown, width, color=f"C{k}", label=name)
    ax.axhline(THRESHOLDS[name], color=f"C{k}", ls="--", lw=1)
    report = compare(out, exact)
    print(f"{name:>8}: max ULP {report.max_ulp}, MARE {report.mare:.2e}, verdict {'PASS' if report.passed else 'FAIL'}")
ax.set_yscale("log")
ax.set_ylim(1e-10, 1)
ax.set_xticks(np.arange(6), [f"x = {v:g}" for v in x])
ax.set_ylabel("relative error vs float64 (exact drawn at 1e-10)")
ax.set_title("Seed example, beta = 1.1: relative error of each dtype (dashed: the MERE threshold)")
ax.legend(title="dtype")
plt.show()
"""),
]

# --------------------------------------------------------------------------
# 02 tiling explorer
# --------------------------------------------------------------------------

TILING = [
    ("md", """\
# Tiling explorer

The host tiling (model section 3) splits the flat tensor in whole 32-byte blocks
over `blockDim` cores: the first `tailBlockNum` cores are **big** (one block
more than the **small** ones). Each core walks its range in tiles of
`tileDataNum` elements (as many as fit `UB / 7` bytes for float32, `UB / 12` for
16-bit dtypes); the last tile of a core, the **tail tile**, holds the rest.
Transfers are whole blocks, so when the tensor's bytes are not a multiple of 32
the last core reads and writes a few elements of **padding** past the end.

This notebook draws that decomposition for a few sizes, dtypes and platforms,
prints the load-balance figures of `swishgrad_numba.tiling.tiling_balance`,
and shows how the core count and the unified-buffer (UB) size change it."""),
    ("code", SETUP + """
from matplotlib.patches import Patch, Rectangle
from matplotlib.ticker import MaxNLocator
from swishgrad_numba.tiling import tiling_balance, validate_tiling
"""),
    ("md", """\
## The decomposition of model section 4

`core_layout` follows model section 4 from the struct's fields alone: core `i`
starts at `bigCoreDataNum * i` (big) or `bigCoreDataNum * i - (big - small) * (i -
tailBlockNum)` (small) and runs `tiles - 1` full tiles then its tail tile.
`draw_tiling` puts one row per core on the flat element axis: big cores orange,
small cores blue, alternating shades for the two ping-pong buffers, tail tiles
hatched; the right panel zooms on the end of the tensor, with the 32-byte block
grid and the padding in red."""),
    ("code", '''\
def core_layout(tiling):
    """Per launched core: (is_big, [(start, length, is_tail_tile), ...]) in elements."""
    f = tiling.as_dict()
    big, small, tbn, tile = f["bigCoreDataNum"], f["smallCoreDataNum"], f["tailBlockNum"], f["tileDataNum"]
    cores = []
    for i in range(tiling.block_dim):
        if i < tbn:
            start, tiles, tail = big * i, f["finalBigTileNum"], f["bigTailDataNum"]
        else:
            start = big * i - (big - small) * (i - tbn)
            tiles, tail = f["finalSmallTileNum"], f["smallTailDataNum"]
        spans = [(start + k * tile, tile, False) for k in range(tiles - 1)]
        spans.append((start + (tiles - 1) * tile, tail, True))
        cores.append((i < tbn, spans))
    return cores


def draw_tiling(numel, dtype, platform=sg.REFERENCE_PLATFORM):
    tiling = sg.compute_tiling(numel, dtype, platform=platform)
    itemsize = np.dtype(sg.SUPPORTED_DTYPES[dtype]).itemsize
    per_block = platform.block_size // itemsize
    padded = -(-numel // per_block) * per_block
    cores = core_layout(tiling)
    fig, (ax, zoom) = plt.subplots(1, 2, figsize=(13, min(6.5, 2.0 + 0.16 * len(cores))), width_ratios=[3, 1], sharey=True)
    for i, (is_big, spans) in enumerate(cores):
        for k, (start, length, is_tail) in enumerate(spans):
            for a in (ax, zoom):
                a.add_patch(Rectangle((start, i - 0.4), length, 0.8, facecolor="tab:orange" if is_big else "tab:blue",
                                      alpha=0.9 if k % 2 == 0 else 0.55, hatch="///" if is_tail else None,
                                      edgecolor="white", lw=0.5))
    for a in (ax, zoom):
        a.axvline(numel, color="black", lw=1)
        a.axvspan(numel, padded, color="red", alpha=0.35)
    last_start = cores[-1][1][-1][0]
    lo = max(0, min(last_start, padded - 4 * per_block), padded - 24 * per_block)
    hi = padded + per_block
    for edge in range(lo - lo % per_block, hi + 1, per_block):
        zoom.axvline(edge, color="grey", lw=0.5, ls=":")
    ax.set_xlim(0, padded * 1.01)
    zoom.set_xlim(lo, hi)
    zoom.xaxis.set_major_locator(MaxNLocator(3, integer=True))
    zoom.ticklabel_format(axis="x", style="plain", useOffset=False)
    ax.set_ylim(len(cores) - 0.5, -0.5)
    ax.yaxis.set_major_locator(MaxNLocator(integer=True, min_n_ticks=1))
    ax.set_xlabel("flat element index")
    zoom.set_xlabel("element index (zoom on the tensor end)")
    ax.set_ylabel("core")
    f = tiling.as_dict()
    ax.set_title(f"n = {numel:,} {dtype}, {platform.core_num} cores, UB {platform.ub_size // 1024} KiB: "
                 f"blockDim {tiling.block_dim}, tileDataNum {f['tileDataNum']}, "
                 f"{f['tailBlockNum']} big cores", fontsize=10)
    zoom.set_title(f"padding: {padded - numel} element(s) past the end", fontsize=10)
    ax.legend(handles=[Patch(color="tab:orange", label="big core tile"), Patch(color="tab:blue", label="small core tile"),
                       Patch(facecolor="white", edgecolor="black", hatch="///", label="tail tile"),
                       Patch(color="red", alpha=0.35, label="block padding")],
              loc="upper right", fontsize=8, framealpha=0.9)
    plt.show()
    balance = tiling_balance(tiling, numel, dtype, platform)
    print(balance.format())
    return tiling, balance
'''),
    ("md", """\
### One tile on one core

The seed example: 6 float32 elements fit in one tile, so one core runs; its 8-element
range is one 32-byte block, 2 elements of which are padding."""),
    ("code", """\
draw_tiling(6, "float32");
"""),
    ("md", """\
### Many tiles per core: a small UB

100,003 float32 elements on a platform with 8 cores and a 16 KiB UB: 584-element
tiles, 22 per core. The 12,501 blocks do not split evenly over 8 cores, so 5 cores
carry one block more; the tensor ends 5 elements before a block boundary."""),
    ("code", """\
draw_tiling(100_003, "float32", sg.Platform(core_num=8, ub_size=16 * 1024));
"""),
    ("md", """\
### The reference platform

2^20 + 5 float16 elements on the reference platform (48 cores, 192 KiB UB): three
tiles of up to 8192 elements per core, and a bfloat16 tensor on a 20-core part
with a 64 KiB UB (its 12 buffer units leave 2720-element tiles)."""),
    ("code", """\
draw_tiling((1 << 20) + 5, "float16");
draw_tiling(50_000, "bfloat16", sg.Platform(core_num=20, ub_size=64 * 1024));
"""),
    ("md", """\
Each of these tilings is also *valid*: `validate_tiling` finds no error, only the
expected warning that the last core runs into the block padding."""),
    ("code", """\
report = validate_tiling(sg.compute_tiling(100_003, "float32", platform=sg.Platform(core_num=8, ub_size=16384)),
                         100_003, "float32", sg.Platform(core_num=8, ub_size=16384))
print(report.format())
"""),
    ("md", """\
## What changes with the core count and the UB size

For tensor sizes from 1 element to 2^30, and for a few platforms, the three
panels show the cores launched (`blockDim`), the most tiles any core runs, and
the load imbalance (the largest core's elements over the mean). Solid lines are
float32, dashed float16."""),
    ("code", """\
platforms = {
    "48 cores, 192 KiB (reference)": sg.REFERENCE_PLATFORM,
    "24 cores, 192 KiB": sg.Platform(core_num=24),
    "8 cores, 192 KiB": sg.Platform(core_num=8),
    "48 cores, 64 KiB": sg.Platform(ub_size=64 * 1024),
}
exponents = np.arange(0, 31, 2 if SMALL else 0.25)
sizes = np.unique(np.round(2.0 ** exponents).astype(np.int64))

fig, axes = plt.subplots(1, 3, figsize=(15, 4.2))
for c, (label, platform) in enumerate(platforms.items()):
    for dtype, style in (("float32", "-"), ("float16", "--")):
        block_dim, tiles, imbalance = [], [], []
        for n in sizes:
            b = tiling_balance(sg.compute_tiling(int(n), dtype, platform=platform), int(n), dtype, platform)
            block_dim.append(b.block_dim)
            tiles.append(b.max_tiles)
            imbalance.append(b.imbalance)
        kw = dict(color=f"C{c}", ls=style, label=f"{label}, {dtype}")
        axes[0].plot(sizes, block_dim, **kw)
        axes[1].plot(sizes, tiles, **kw)
        axes[2].plot(sizes, imbalance, **kw)
for ax, ylabel, title in zip(axes, ["blockDim (cores launched)", "tiles on the busiest core", "max / mean elements per core"],
                             ["cores launched", "tiles per core", "load imbalance"]):
    ax.set_xscale("log", base=2)
    ax.set_xlabel("tensor elements")
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    ax.grid(True, which="both", alpha=0.3)
    ax.set_xlim(1, sizes[-1])
axes[1].set_yscale("log")
axes[2].legend(fontsize=7, loc="upper right")
plt.tight_layout()
plt.show()
"""),
    ("md", """\
What the plots show:

- **Cores launched** jump from 1 straight to all cores as soon as the tensor no
  longer fits one tile (7016 float32 or 8192 float16 elements with a 192 KiB UB;
  fewer with 64 KiB): the rule is `min(cores, blocks)` and a tile already holds
  hundreds of blocks.
- **Tiles per core** then grow linearly with the size; a smaller UB means smaller
  tiles and proportionally more of them (the 64 KiB line is three times higher).
- **Imbalance** is largest right after the jump, where each core holds only a
  few dozen blocks and a big core's one extra block is a visible share; it tends
  to 1 as the blocks per core grow. At the same size, fewer cores (or a larger
  dtype, with fewer elements per block) balance better."""),
]

# --------------------------------------------------------------------------
# 03 numerics
# --------------------------------------------------------------------------

NUMERICS = [
    ("md", """\
# Numerics: how close is the kernel to the exact function?

The emulator reproduces the kernel's float32 recipe, so its error *is* the
kernel's error. This notebook measures it for each dtype against three
yardsticks:

- **float64**: the formula evaluated in float64 from the inputs as the kernel sees them;
- **the NumPy golden**: the operator's own test reference (float32 NumPy,
  `swishgrad_numba.golden.numpy_golden`);
- **PyTorch** `silu_backward` (beta = 1 only; skipped when torch is not installed);

with ULP and relative-error histograms and the verdicts of the operator's
precision standard (`swishgrad_numba.precision.compare`, model section 7), then
looks at *where* the error is largest and why. `docs/accuracy.md` has the
full-range survey."""),
    ("code", SETUP + """
from swishgrad_numba import precision
from swishgrad_numba.golden import numpy_golden

try:
    import torch
except ImportError:
    torch = None
    print("PyTorch is not installed: the torch comparison is skipped")
"""),
    ("md", """\
## Inputs

Seeded `gradOutput` and `x` uniform in [-5, 5] (the operator's test range),
beta = 1 so that PyTorch can join. `to_torch`/`from_torch` move bfloat16 bits
between NumPy and torch unchanged."""),
    ("code", EXACT + '''
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
'''),
    ("md", """\
## Verdicts

`compare(output, golden)` gives the model section 7 verdict (MERE < T and MARE <
10 T with T = 2^-13, 2^-10, 2^-7 for float32, float16, bfloat16). Against the
float64 golden, "bit-identical" means "correctly rounded". The last rows measure
the NumPy golden and torch themselves against float64, for scale."""),
    ("code", """\
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
"""),
    ("md", """\
## Histograms

Left: ULP distance of the emulator's output from each reference (the reference
rounded once to the dtype), in the buckets of `PrecisionReport.ulp_histogram`.
Right: relative error `|out - ref| / max(|ref|, tiny)`; exact agreements cannot be
drawn on a log axis, their share is in the legend. Against float64 the relative
error includes the output's own rounding to its dtype, so it is never 0; the
dotted lines are the thresholds T and 10 T it is judged by."""),
    ("code", """\
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
"""),
    ("md", """\
What to read: the 16-bit outputs are the correctly rounded value or its
neighbour (0 or 1 ULP against float64), and agree with the NumPy golden and
torch on all but a few elements in 10,000, never more than 1 ULP apart: the
float32 intermediate has 13 (float16) or 16 (bfloat16) spare bits. float32 has
none to spare: most results are within a few ULP, but a thin tail reaches
thousands of ULP, which is what fails MARE on large samples (the verdicts above,
with the full 2^20 sample; the tiny test sample usually passes). The next
section shows where that tail comes from.

## Where the error is largest, and why

With `z = beta*x`, `s'(z) = sigmoid(z) * (1 + z*(1 - sigmoid(z)))`. Three regions
stand out:

- **the zero of s'** near `z = -1.2785`: `1 + z*(1 - sigmoid(z))` cancels, the exact
  value tends to 0 while float32 keeps an absolute error of about 1e-8, so the
  *relative* error is unbounded there;
- **sigmoid underflow**: for `z < -87.34` the float32 `sigmoid(z) = 1/(1 + e^-z)`
  is subnormal and loses bits; below `z = -88.72`, `e^-z` overflows, sigmoid is 0
  and the kernel returns 0 where the exact value (about `z*e^z`) is still a
  normal float32: relative error 1;
- **saturation** for large positive `z`: `sigmoid(z)` rounds to 1 and `1 -
  sigmoid` to 0, which is harmless (the dropped term `z*e^-z` is below half an ULP).

Away from these, float32's error grows slowly with `|z|`: the first instruction
rounds `beta*x` to float32, and `exp` turns that absolute error into a relative
error of about `|z| * 2^-24` (invisible at beta = 1, where the product is exact).
Results below float32's smallest normal are measured against it (`tiny`), which
is why the error ramps up to 1 between z = -100 and -89.

The scan below (beta = 1.5, gradOutput = 1) draws the exact `s'` and the
emulator's relative error against `z`."""),
    ("code", """\
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
"""),
    ("md", """\
The worst float32 elements of the first sample, as `compare` lists them with
their inputs (beta = 1 there): they sit next to the zero of s', `x = z0 / beta`."""),
    ("code", """\
print(reports["float32", "float64"].format(worst=5))
"""),
    ("md", """\
## Two kernels: where the Atlas A2 and the Ascend 950 differ

The Ascend 950's kernel computes `(1 - s) * beta*x * s + s` with one fused
multiply-add (`MulDstAdd`, one rounding) where the A2 rounds `1 + beta*x*(1 - s)`
and its product with `s` separately (docs/model.md sections 2 and 9). Below:
the float32 ULP distance between the two kernels' outputs (gradOutput = 1) as a
function of `z = beta * x`, and, where the sigmoid underflows, the sign of the
zero each kernel returns (A2 -0, 950 +0)."""),
    ("code", """\
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
"""),
]

# --------------------------------------------------------------------------
# 04 throughput
# --------------------------------------------------------------------------

THROUGHPUT = [
    ("md", """\
# Throughput

How fast is the emulator, against its peers and against what the memory
allows? The figures come from `swishgrad_numba.benchmark.run_comparison`, the
runner behind `swishgrad bench`:

- **emulator**: `swish_backward` with a preallocated `out` (beta 1.1) and allocating;
- **NumPy golden**: the operator's float32 NumPy recipe (single-threaded);
- **torch**: `silu_backward` on CPU tensors (beta 1), allocating and writing into
  a given output (`out=`, the fair form), when torch is installed;
- **flat loop**: the emulator's arithmetic in one flat parallel loop without tiles,
  i.e. what the tile structure costs;
- **triad roofline**: a STREAM triad over the same bytes, the memory bandwidth of
  this machine, expressed in the cell's elements per second.

`bm.thread_scaling` adds launches of 1 and 3 emulated cores timed on 1 and 2
threads: does a small launch keep every host thread busy?

Set `SWISHGRAD_NB_BENCH_JSON` to the path of a `swishgrad bench --json FILE` result
to plot that instead of measuring here (e.g. a full 2^10..2^27 run on a big
machine). Otherwise this notebook measures 2^10..2^22 elements (tiny sizes with
`SWISHGRAD_NB_SMALL=1`, where the figures are dominated by call overhead)."""),
    ("code", SETUP + """
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
"""),
    ("md", """\
The numbers, as `swishgrad bench` prints them (Me/s = million elements per second):"""),
    ("code", """\
print(bm.format_table(rows))
"""),
    ("md", """\
## Throughput against size

One panel per dtype, at the largest thread count measured. Top: elements per
second (log-log); the grey line is the triad roofline, the most a call that reads
two arrays and writes one can do on this machine. Bottom: each implementation as
a percentage of that roofline."""),
    ("code", """\
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
"""),
    ("md", """\
## Thread scaling

Speed-up of each implementation with `k` threads over itself with one thread,
against size (dashed: the ideal `k`). NumPy is single-threaded and left out.
Small calls do not scale: waking the thread pool costs more than the work (the
emulator runs launches under 2^15 elements on the calling thread).

On a shared machine (a CI runner, a container with a CPU quota) a
multi-threaded call can wait several milliseconds for a CPU: when every
implementation shows the same time per call at some size, that is the
scheduler, not the code. Measure on a quiet machine before concluding."""),
    ("code", """\
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
"""),
    ("md", """\
## Small launches on more threads

A launch of few emulated cores (`Platform(core_num=k)`) timed on 1 thread and
more, round-robin: the speed-up is the same launch's time on 1 thread over its
time on `k` threads."""),
    ("code", """\
print(bm.format_scaling(scaling))
"""),
    ("md", """\
## Targets

The issue's targets, as `swishgrad bench` reports them (a report, not a test;
meaningful only at the target sizes on a quiet machine). A target whose size or
measurement is missing from the data is listed as `n/a`."""),
    ("code", """\
print(bm.format_targets(bm.targets(rows, cold, scaling, memory)))
"""),
]

NOTEBOOKS = {
    "01_quick_start.ipynb": QUICK_START,
    "02_tiling_explorer.ipynb": TILING,
    "03_numerics.ipynb": NUMERICS,
    "04_throughput.ipynb": THROUGHPUT,
}


def build(cells, stem: str) -> nbformat.NotebookNode:
    """A notebook of ``cells`` (``("md" | "code", text)``) with stable ids and no outputs."""
    nb = new_notebook()
    nb.metadata = {
        "kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"},
        "language_info": {"name": "python"},
    }
    for i, (kind, text) in enumerate(cells):
        source = textwrap.dedent(text).strip("\n")
        cell = new_markdown_cell(source) if kind == "md" else new_code_cell(source)
        cell.id = f"{stem.split('_')[0]}-{i:02d}"
        nb.cells.append(cell)
    nbformat.validate(nb)
    return nb


def render(name: str) -> str:
    """The text of notebook ``name`` as this script writes it."""
    return nbformat.writes(build(NOTEBOOKS[name], Path(name).stem)) + "\n"


def main(out_dir: Path = HERE) -> int:
    for name in NOTEBOOKS:
        (Path(out_dir) / name).write_text(render(name), encoding="utf-8")
        print(f"wrote {Path(out_dir) / name}")
    return 0


if __name__ == "__main__":
    sys.exit(main(Path(sys.argv[1]) if len(sys.argv) > 1 else HERE))
