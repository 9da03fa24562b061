"""The second-tier tiling readings (tests/reference_activation_tiling_tier2.py): worked sizes from
docs/activation_tiling.md, and every plan fitting the UB it was made for."""
import pytest

import reference_activation_tiling_tier2 as rt


@pytest.mark.parametrize("ub,f32,b16", [(253952, 10112, 12096), (262144, 10432, 12480), (196608, 7744, 9280)])
def test_softplus_v2_tile_lengths(ub, f32, b16):
    assert rt.softplus_v2_tile_length(ub, 4) == f32
    assert rt.softplus_v2_tile_length(ub, 2) == b16


@pytest.mark.parametrize("ub", [8 * 1024 + 1, 20000, 65536, 196608, 253952, 262144])
@pytest.mark.parametrize("itemsize", [4, 2])
def test_softplus_v2_kernel_plan_fits(ub, itemsize):
    """The kernel's InitBuffer total plus the 8 KiB reserve fits the UB (above the 64 minimum)."""
    tile = rt.softplus_v2_tile_length(ub, itemsize)
    assert tile % 64 == 0
    assert rt.softplus_v2_kernel_ub_bytes(tile, itemsize) + 8 * 1024 <= ub or tile == 64


def test_softplus_v2_split():
    assert rt.softplus_v2_split(1, 4, 64) == (1, 1)
    assert rt.softplus_v2_split(512, 4, 64) == (512, 1)          # 2 KiB: one core
    assert rt.softplus_v2_split(513, 4, 64) == (257, 2)
    assert rt.softplus_v2_split(10 ** 6, 2, 64) == (15625, 64)


@pytest.mark.parametrize("tanh,itemsize,single,double", [
    (False, 4, 9792, 6144), (True, 4, 6976, 4864), (False, 2, 8832, 6912), (True, 2, 6912, 5376)])
def test_a2_gelu_grad_v2_tiles(tanh, itemsize, single, double):
    assert rt.a2_gelu_grad_v2_tile(1000, itemsize, tanh)[:2] == (single, 0)
    assert rt.a2_gelu_grad_v2_tile(10 ** 7, itemsize, tanh)[:2] == (double, 1)


def test_a2_gelu_grad_v2_16bit_tanh_buffer_test_uses_the_none_divisor():
    """Between the two thresholds, 16-bit tanh goes single-buffered (as 16-bit none would) though
    its single-buffer divisor 14 would have said double."""
    ub, cores = 196608, 48
    n = cores * (ub // 11) // 2 - 1024                     # below 48 * U/11 bytes, above 48 * U/14
    assert n * 2 > cores * (ub // 14)
    assert rt.a2_gelu_grad_v2_tile(n, 2, True)[1] == 0


@pytest.mark.parametrize("tanh", [False, True])
@pytest.mark.parametrize("itemsize", [4, 2])
@pytest.mark.parametrize("n", [100, 10 ** 5, 10 ** 7])
def test_a2_gelu_grad_v2_kernel_plan_fits(tanh, itemsize, n):
    tile, buffer_open, _ = rt.a2_gelu_grad_v2_tile(n, itemsize, tanh)
    assert rt.a2_gelu_grad_v2_kernel_ub_bytes(tile, itemsize, tanh, buffer_open) <= 196608
