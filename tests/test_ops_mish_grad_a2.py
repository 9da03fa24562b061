"""The A2 MishGrad (swishgrad_numba.ops.mish.backward_a2): its host tiling worked out from
experimental/activation/mish_grad/op_host/mish_grad_tiling.cpp, its NaN guard and specials, many cores and
tiles, the saturation mode, the validator; bit for bit against
tests/reference_mish.py (whose guard packs the masks into bytes as the device does)."""
from __future__ import annotations

import dataclasses

import numpy as np
import pytest

import swishgrad_numba as sg
from reference import assert_bits_equal
from reference_activations import BF16
from reference_mish import ref_mish_backward_a2

A2 = sg.REFERENCE_PLATFORM
F32 = np.float32


def _host_by_hand(numel, itemsize, ub=196608, cores=48):
    """mish_grad_tiling.cpp without tanhx, in its own words (:67-133, :159-170)."""
    block = 256                                                  # BLOCK_SIZE_256
    tile_block_num = (ub // block) // (12 if itemsize == 4 else 22)
    tile_data_num = tile_block_num * block // itemsize
    aligned = -(-numel * itemsize // block) * block
    core_num = 1 if tile_data_num >= numel else min(cores, aligned // block)
    every = aligned // block // core_num
    tail_block_num = (aligned // block) % core_num

    def cls(blocks):
        data = blocks * block // itemsize
        tiles = blocks // tile_block_num
        final = tiles if blocks % tile_block_num == 0 else tiles + 1
        tail = data - tile_data_num * tiles
        return data, final, tail or tile_data_num

    (small, fs, st), (big, fb, bt) = cls(every), cls(every + 1)
    return core_num, [small, big, fb, fs, tile_data_num, st, bt, tail_block_num, 0]


@pytest.mark.parametrize("numel", [1, 127, 128, 4352, 4353, 100003, 1 << 21])
@pytest.mark.parametrize("dtype", ["float32", "float16", "bfloat16"])
def test_host_tiling_as_the_source_computes_it(numel, dtype):
    t = sg.compute_tiling(numel, dtype, platform=A2, op="mish_grad")
    itemsize = 4 if dtype == "float32" else 2
    block_dim, fields = _host_by_hand(numel, itemsize)
    assert (t.block_dim, t.data.tolist()) == (block_dim, tuple(fields))
    assert t.tiling_key == 0 and t.workspace_size == A2.lib_workspace_size and t.data.dtype.itemsize == 72
    # the host's 256-byte blocks: past a 32-byte padding the kernel moves whole 256-byte blocks (upstream's
    # own record; docs/model.md, "MishBackward")
    report = sg.validate_tiling(t, numel, dtype)
    beyond = -(-numel * itemsize // 256) * 256 > -(-numel * itemsize // 32) * 32
    assert {f.code for f in report.errors} == ({"OVERRUN_BEYOND_PADDING"} if beyond else set())


def test_the_validator_reads_the_key_and_have_tanhx():
    t = sg.compute_tiling(100096, "float16", platform=A2, op="mish_grad")
    bad = dataclasses.replace(t, tiling_key=1)
    assert {f.code for f in sg.validate_tiling(bad, 100096, "float16").errors} == {"TILING_KEY_MISMATCH"}
    data = t.data.copy()
    data["haveTanhx"] = 1
    report = sg.validate_tiling(dataclasses.replace(t, data=data), 100096, "float16")
    assert not report.ok and any("haveTanhx" in f.message for f in report.errors)


def test_specials_and_the_nan_guard():
    x = np.array([np.nan, -np.nan, np.inf, -np.inf, 0.0, -0.0, 1e-45, -1e-45, 1e-38, 89.0, -89.0, -104.0, 44.4,
                  -1.1924, 3.4e38, -3.4e38], F32)
    for g in (np.ones_like(x), np.zeros_like(x), np.full_like(x, -np.inf), np.full_like(x, np.nan)):
        got = sg.mish_backward(g, x, platform=A2)
        assert_bits_equal(got, ref_mish_backward_a2(g, x))
    got = sg.mish_backward(np.zeros_like(x), x, platform=A2)
    # the guard gives x where x is NaN (0 * NaN: NaN); without it both Selects would leave 0 there
    assert np.isnan(got[:2]).all()
    got = sg.mish_backward(np.ones_like(x), x, platform=A2)
    assert np.isnan(got[2:4]).all()                    # +inf: inf * 0 in the x > 0 form; -inf: -inf * 0
    assert got[4] == got[5] == F32(0.6)                # 3 / 5 from the x <= 0 form, for both zeros
    assert got[9] == 1.0 and -1e-36 < got[10] < 0.0


@pytest.mark.parametrize("dtype", [np.float32, np.float16, BF16], ids=["f32", "f16", "bf16"])
def test_many_cores_tiles_and_out(dtype):
    small = sg.Platform(soc_version="ascend910b", ub_size=16384, core_num=5)
    rng = np.random.default_rng(12)
    x = (rng.standard_normal(30011) * 8).astype(dtype)
    g = rng.uniform(-2, 2, x.size).astype(dtype)
    x[:3] = np.array([np.nan, np.inf, -np.inf], dtype)
    want = ref_mish_backward_a2(g, x)
    t = sg.compute_tiling(x.size, np.dtype(dtype).name, platform=small, op="mish_grad")
    assert t.block_dim == 5 and t.data["finalBigTileNum"] > 1
    out = np.zeros(2 * x.size, dtype)[::2]
    assert sg.mish_backward(g, x, out=out, platform=small) is out
    assert_bits_equal(out, want)


def test_saturation_mode():
    sat = sg.Platform(soc_version="ascend910b", overflow_mode="saturation")
    x = np.array([np.nan, np.inf, -np.inf, 1.0, -200.0], F32)
    got = sg.mish_backward(np.full_like(x, 3.3e38), x, platform=sat)
    assert np.all(np.isfinite(got))
    assert got[3] == np.finfo(F32).max                 # 1.049 * 3.3e38 overflows: the largest finite
