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
# # Tiling explorer
#
# The host tiling (model section 3) splits the flat tensor in whole 32-byte blocks
# over `blockDim` cores: the first `tailBlockNum` cores are **big** (one block
# more than the **small** ones). Each core walks its range in tiles of
# `tileDataNum` elements (as many as fit `UB / 7` bytes for float32, `UB / 12` for
# 16-bit dtypes); the last tile of a core, the **tail tile**, holds the rest.
# Transfers are whole blocks, so when the tensor's bytes are not a multiple of 32
# the last core reads and writes a few elements of **padding** past the end.
#
# This notebook draws that decomposition for a few sizes, dtypes and platforms,
# prints the load-balance figures of `swishgrad_numba.tiling.tiling_balance`,
# and shows how the core count and the unified-buffer (UB) size change it.

# %%
# %matplotlib inline
import os

import numpy as np
import matplotlib.pyplot as plt

import swishgrad_numba as sg

# SWISHGRAD_NB_SMALL=1 selects tiny sizes (the test suite runs the notebooks that way).
SMALL = os.environ.get("SWISHGRAD_NB_SMALL", "") not in ("", "0")

from matplotlib.patches import Patch, Rectangle
from matplotlib.ticker import MaxNLocator
from swishgrad_numba.tiling import tiling_balance, validate_tiling


# %% [markdown]
# ## The decomposition of model section 4
#
# `core_layout` follows model section 4 from the struct's fields alone: core `i`
# starts at `bigCoreDataNum * i` (big) or `bigCoreDataNum * i - (big - small) * (i -
# tailBlockNum)` (small) and runs `tiles - 1` full tiles then its tail tile.
# `draw_tiling` puts one row per core on the flat element axis: big cores orange,
# small cores blue, alternating shades for the two ping-pong buffers, tail tiles
# hatched; the right panel zooms on the end of the tensor, with the 32-byte block
# grid and the padding in red.

# %%
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


# %% [markdown]
# ### One tile on one core
#
# The seed example: 6 float32 elements fit in one tile, so one core runs; its 8-element
# range is one 32-byte block, 2 elements of which are padding.

# %%
draw_tiling(6, "float32");

# %% [markdown]
# ### Many tiles per core: a small UB
#
# 100,003 float32 elements on a platform with 8 cores and a 16 KiB UB: 584-element
# tiles, 22 per core. The 12,501 blocks do not split evenly over 8 cores, so 5 cores
# carry one block more; the tensor ends 5 elements before a block boundary.

# %%
draw_tiling(100_003, "float32", sg.Platform(core_num=8, ub_size=16 * 1024));

# %% [markdown]
# ### The reference platform
#
# 2^20 + 5 float16 elements on the reference platform (48 cores, 192 KiB UB): three
# tiles of up to 8192 elements per core, and a bfloat16 tensor on a 20-core part
# with a 64 KiB UB (its 12 buffer units leave 2720-element tiles).

# %%
draw_tiling((1 << 20) + 5, "float16");
draw_tiling(50_000, "bfloat16", sg.Platform(core_num=20, ub_size=64 * 1024));

# %% [markdown]
# Each of these tilings is also *valid*: `validate_tiling` finds no error, only the
# expected warning that the last core runs into the block padding.

# %%
report = validate_tiling(sg.compute_tiling(100_003, "float32", platform=sg.Platform(core_num=8, ub_size=16384)),
                         100_003, "float32", sg.Platform(core_num=8, ub_size=16384))
print(report.format())

# %% [markdown]
# ## What changes with the core count and the UB size
#
# For tensor sizes from 1 element to 2^30, and for a few platforms, the three
# panels show the cores launched (`blockDim`), the most tiles any core runs, and
# the load imbalance (the largest core's elements over the mean). Solid lines are
# float32, dashed float16.

# %%
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

# %% [markdown]
# What the plots show:
#
# - **Cores launched** jump from 1 straight to all cores as soon as the tensor no
#   longer fits one tile (7016 float32 or 8192 float16 elements with a 192 KiB UB;
#   fewer with 64 KiB): the rule is `min(cores, blocks)` and a tile already holds
#   hundreds of blocks.
# - **Tiles per core** then grow linearly with the size; a smaller UB means smaller
#   tiles and proportionally more of them (the 64 KiB line is three times higher).
# - **Imbalance** is largest right after the jump, where each core holds only a
#   few dozen blocks and a big core's one extra block is a visible share; it tends
#   to 1 as the blocks per core grow. At the same size, fewer cores (or a larger
#   dtype, with fewer elements per block) balance better.
