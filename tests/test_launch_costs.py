"""What a warm call keeps between calls (issue 39, per-call cost): the launch plan made once per arguments,
read-only and the same as one planned afresh; a launch below SERIAL_BELOW never starts Numba's thread pool;
aclnn phase one's dtype list per SoC equal to the description's."""
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import swishgrad_numba as sg
from swishgrad_numba import kernel
from swishgrad_numba.aclnn import described
from swishgrad_numba.aclnn.enums import dtype_name
from swishgrad_numba.kernel import plan as kplan
from swishgrad_numba.ops.description import DESCRIPTIONS
from swishgrad_numba.spec import a2 as spec_a2

ROOT = Path(__file__).resolve().parents[1]


def _fields(numel, tile=512):
    return spec_a2.TilingFields(smallCoreDataNum=numel, bigCoreDataNum=numel, finalBigTileNum=-(-numel // tile),
                                finalSmallTileNum=-(-numel // tile), tileDataNum=tile,
                                smallTailDataNum=numel - (-(-numel // tile) - 1) * tile,
                                bigTailDataNum=numel - (-(-numel // tile) - 1) * tile, tailBlockNum=0)


@pytest.mark.parametrize("numel, threads", [(4096, None), (1 << 16, 2), (1 << 16, 3)])
def test_a_plan_is_kept_read_only_and_equals_a_fresh_one(numel, threads):
    fields = _fields(numel // 4)
    got = kernel.plan_launch(fields, 4, kernel.ARCH_A2, numel, threads)
    assert kernel.plan_launch(fields, 4, kernel.ARCH_A2, numel, threads) is got
    assert not got.pieces.flags.writeable and not got.bins.flags.writeable
    fresh = kplan.plan(kplan.core_runs(kplan.classes_of(fields, 4, kernel.ARCH_A2), numel),
                       numel, 1 if numel < kernel.SERIAL_BELOW else threads)
    assert got.pieces.tobytes() == fresh.pieces.tobytes() and got.bins.tolist() == fresh.bins.tolist()
    assert (got.capacity, got.elements) == (fresh.capacity, fresh.elements)


def test_plans_of_other_arguments_are_other_plans():
    fields = _fields(1024)
    a = kernel.plan_launch(fields, 4, kernel.ARCH_A2, 4096)
    assert kernel.plan_launch(fields, 3, kernel.ARCH_A2, 4096) is not a
    assert kernel.plan_launch(fields, 4, kernel.ARCH_A2, 4000) is not a
    assert kernel.plan_launch(_fields(1024, 256), 4, kernel.ARCH_A2, 4096) is not a


def test_a_small_launch_does_not_start_the_thread_pool():
    """Asking Numba for its thread count starts its thread pool; a launch of fewer than SERIAL_BELOW
    elements runs on one bin and never asks (a first call paid the pool's start for nothing)."""
    code = ("import numpy as np, swishgrad_numba as sg\n"
            "from numba.np.ufunc import parallel\n"
            "x = np.linspace(-3, 3, 4096).astype(np.float32)\n"
            "sg.silu_backward(x, x)\n"
            "print(parallel._is_initialized)\n")
    got = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, check=True)
    assert got.stdout.strip().splitlines()[-1] == "False"


@pytest.mark.parametrize("soc", ["ascend910b", "ascend310p", "ascend950"])
def test_phase_ones_dtype_list_per_soc_is_the_descriptions(soc):
    for name, desc in DESCRIPTIONS.items():
        codes = described._allowed_codes(desc, soc)
        assert described._allowed_codes(desc, soc) is codes
        assert [dtype_name(c) for c in codes] == [dtype_name(described._CODE[n]) for n in desc.dtypes_on(soc)], name


def test_one_tile_list_given_for_every_core_estimates_as_copies_of_it():
    """devicetime.estimate_custom checks a sequence given for several cores once: the estimate is the one of
    distinct copies, and a bad core is still named by its index."""
    from swishgrad_numba import devicetime as dt

    tiles = [512] * 9 + [100]
    args = dict(dtype="float16", inputs=2, outputs=1, instructions=["Add"])
    shared = dt.estimate_custom(**args, core_tiles=[tiles] * 4)
    copies = dt.estimate_custom(**args, core_tiles=[list(tiles) for _ in range(4)])
    assert shared.duration_us == copies.duration_us and shared.n_cores == copies.n_cores == 4
    bad = [0, 5]
    with pytest.raises(ValueError, match=r"core_tiles\[1\]: tile lengths must be >= 1"):
        dt.estimate_custom(**args, core_tiles=[tiles, bad, bad])
    rows = np.array([[512, 512], [512, 7]])   # rows of a 2-D array: a new object each, each checked
    assert dt.estimate_custom(**args, core_tiles=rows).duration_us == \
        dt.estimate_custom(**args, core_tiles=[[512, 512], [512, 7]]).duration_us


@pytest.mark.parametrize("name", ["swish", "gelu", "relu", "leaky_relu"])
def test_walk_fields_kept_on_the_tiling_are_the_records(name):
    """An operator's walk fields, kept on its (cached, read-only) host tiling, equal the fields read afresh from
    a copy of the record; the tiling still compares, hashes and pickles by its fields."""
    import copy
    import dataclasses
    import pickle

    from swishgrad_numba.dtypes import dtype_info
    from swishgrad_numba.ops import get_operator
    from swishgrad_numba.ops.call import host_tiling

    op = get_operator(name)
    module = {"swish": "swish.host", "gelu": "gelu.kernel", "relu": "relu.kernel",
              "leaky_relu": "leaky_relu.kernel"}[name]
    walk_fields = __import__(f"swishgrad_numba.ops.{module}", fromlist=["walk_fields"]).walk_fields
    for platform in (sg.REFERENCE_PLATFORM, sg.ASCEND950_PLATFORM):
        if platform.architecture not in op.kernels:
            continue
        attr = 0.5 if op.described_by.kernel_attributes else None
        tiling = host_tiling(name, 100_000, dtype_info(np.float32), attr, platform)
        kept = walk_fields(tiling)
        assert walk_fields(tiling) is kept
        fresh = dataclasses.replace(tiling, data=copy.deepcopy(tiling.data))
        assert walk_fields.__wrapped__(fresh) == kept and fresh == tiling
        again = pickle.loads(pickle.dumps(tiling))
        assert again == tiling and walk_fields(again) == kept
