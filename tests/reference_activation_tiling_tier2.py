"""Plain readings of second-tier host tilings (docs/activation_tiling.md, second part), for the
tests only: integer arithmetic line by line, nothing from the package."""
from __future__ import annotations


def _ceil(a, b):
    return (a + b - 1) // b


def softplus_v2_tile_length(ub: int, itemsize: int) -> int:
    """950 SoftplusV2 (softplus_v2_tiling.cpp:73-149): the largest multiple of 64 whose buffers,
    two 256-byte-aligned bit masks and an 8 KiB Select reserve fit the UB."""
    reserve, per_elem = 8 * 1024, (24 if itemsize == 4 else 20)
    if ub <= reserve:
        return 64
    tile = (ub - reserve) * 8 // (per_elem * 8 + 2) // 64 * 64
    if tile == 0:
        return 64
    while per_elem * tile + 2 * softplus_v2_mask_bytes(tile) + reserve > ub and tile > 64:
        tile -= 64
    return tile


def softplus_v2_mask_bytes(tile: int) -> int:
    return _ceil(tile // 8, 256) * 256


def softplus_v2_split(n: int, itemsize: int, cores: int):
    """(blockFactor, block_dim): a core per 2 KiB, at most ``cores`` (:198-210, :225)."""
    used = max(1, min(_ceil(n * itemsize, 2048), cores))
    block_factor = _ceil(n, used)
    return block_factor, _ceil(n, block_factor)


def softplus_v2_kernel_ub_bytes(tile: int, itemsize: int) -> int:
    """What softplus_v2.h:126-149 asks InitBuffer for (each buffer rounded up to 32 bytes)."""
    r32 = lambda b: _ceil(b, 32) * 32
    queues = 2 * 2 * r32(tile * itemsize)
    floats = (2 if itemsize == 4 else 3) * r32(tile * 4)
    return queues + floats + 2 * r32(softplus_v2_mask_bytes(tile))


#: A2 GeluGradV2 UB divisors (gelu_grad_v2_tiling.cpp:30-41): (single, double) per (float32?, tanh?).
A2_GELU_GRAD_V2_DIVISORS = {(True, False): (5, 8), (True, True): (7, 10), (False, False): (11, 14), (False, True): (14, 18)}


def a2_gelu_grad_v2_tile(n: int, itemsize: int, tanh: bool, ub: int = 196608, cores: int = 48):
    """(tileDataNum, bufferOpen, block_dim) of the A2 host (:108-151, :207-211); 256-byte blocks.
    The single-buffer test of 16-bit tanh uses the 16-bit none divisor (quirk, :134-140)."""
    block = 256
    f32 = itemsize == 4
    single, double = A2_GELU_GRAD_V2_DIVISORS[(f32, tanh)]
    test_divisor = single if (f32 or not tanh) else A2_GELU_GRAD_V2_DIVISORS[(False, False)][0]
    aligned = _ceil(n * itemsize, block) * block
    buffer_open = 0 if aligned < cores * ((ub // block) * block // test_divisor) else 1
    divisor = single if buffer_open == 0 else double
    tile = (ub // block) // divisor * block // itemsize
    block_dim = 1 if tile >= n else min(cores, aligned // block)
    return tile, buffer_open, block_dim


def a2_gelu_grad_v2_kernel_ub_bytes(tile: int, itemsize: int, tanh: bool, buffer_open: int) -> int:
    """What gelu_grad_v2.h:90-99 / 316-330 ask InitBuffer for (each rounded up to 32 bytes)."""
    r32 = lambda b: _ceil(b, 32) * 32
    slots = 2 if buffer_open else 1
    total = 3 * slots * r32(tile * itemsize) + 2 * r32(tile * 4)
    if not tanh:
        return total + (0 if itemsize == 4 else 2 * r32(tile * 4))
    return total + r32(tile) + (1 if itemsize == 4 else 3) * r32(tile * 4)
