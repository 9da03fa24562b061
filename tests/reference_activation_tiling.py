"""Plain readings of the first-tier activations' host tilings (docs/activation_tiling.md),
for the tests only: integer arithmetic line by line, nothing from the package."""
from __future__ import annotations

BLOCK = 32


def _ceil(a, b):
    return (a + b - 1) // b


def a2_split(n, itemsize, cores, tile_block_num, tile_data_num):
    """The big/small core split every A2 host here shares (SwishGrad's, model section 3)."""
    aligned = _ceil(n * itemsize, BLOCK) * BLOCK
    every = aligned // BLOCK // cores
    tail_block_num = (aligned // BLOCK) % cores
    small = every * BLOCK // itemsize
    small_tiles = every // tile_block_num
    final_small = small_tiles + (1 if every % tile_block_num else 0)
    small_tail = small - tile_data_num * small_tiles or tile_data_num
    every += 1
    big = every * BLOCK // itemsize
    big_tiles = every // tile_block_num
    final_big = big_tiles + (1 if every % tile_block_num else 0)
    big_tail = big - tile_data_num * big_tiles or tile_data_num
    return dict(smallCoreDataNum=small, bigCoreDataNum=big, finalBigTileNum=final_big,
                finalSmallTileNum=final_small, tileDataNum=tile_data_num, smallTailDataNum=small_tail,
                bigTailDataNum=big_tail, tailBlockNum=tail_block_num)


def a2_tiling(op, n, itemsize, ub=196608, cores=48, version=0):
    """(fields, block_dim, tiling_key, buffer_num) of an A2 host; ``version`` is GeluGrad's versionNum."""
    if n == 0:
        return None
    aligned = _ceil(n * itemsize, BLOCK) * BLOCK
    buffer_num = 2
    if op == "sigmoid":                                    # arch22/sigmoid_tiling.cpp
        ub -= 1024
        cores = min(_ceil(n, 1024), cores)
        udn = 3 if itemsize == 4 else 4
        buffer_num = 1 if aligned * udn <= cores * ub and n < 1024 * cores else 2
        tile_block_num = (ub // buffer_num // BLOCK) // udn
        key = 0 if buffer_num == 2 else 1
    elif op in ("sigmoid_backward", "gelu_backward"):     # sigmoid_grad_tiling.cpp, gelu_grad_tiling.cpp
        if op == "sigmoid_backward":
            udn, key = (10 if itemsize == 4 else 16), 0
        else:
            udn, key = (8 + version if itemsize == 4 else 16), version
        tile_block_num = (ub // BLOCK) // udn
    elif op == "gelu":                                     # gelu_tiling.cpp
        udn, key = (12 if itemsize == 4 else 14), 0
        tile_block_num = (ub // BLOCK) // udn
        if tile_block_num > 16:
            tile_block_num = tile_block_num // 16 * 16
    else:
        raise ValueError(op)
    tile = tile_block_num * BLOCK // itemsize
    if op in ("sigmoid_backward", "gelu_backward"):
        cores = 1 if tile >= n else min(cores, aligned // BLOCK)
    elif op == "gelu":
        cores = 1 if n <= 1024 else min(cores, _ceil(n, 1024))
    return a2_split(n, itemsize, cores, tile_block_num, tile), cores, key, buffer_num


def _pad(nbytes):
    """TPipe::InitBuffer rounds each buffer up to 32 bytes."""
    return _ceil(nbytes, 32) * 32


def a2_kernel_ub_bytes(op, tile, itemsize, buffer_num=2, version=0):
    """The UB the A2 kernel's Init allocates for a tile of ``tile`` elements."""
    f32 = _pad(tile * 4)
    if op == "sigmoid":                                    # sigmoid.h:78-93
        return buffer_num * _pad(2 * tile * itemsize) + f32
    if op == "sigmoid_backward":                           # sigmoid_grad.h:82-89
        return 6 * _pad(tile * itemsize) + (1 if itemsize == 4 else 3) * f32
    if op == "gelu":                                       # gelu.h:84-90
        return 4 * _pad(tile * itemsize) + 4 * f32
    if op == "gelu_backward":                              # gelu_grad.h:59-79
        extra = 3 if itemsize != 4 else (2 if version else 0)
        return 6 * _pad(tile * itemsize) + (2 + extra) * f32
    raise ValueError(op)


def elewise_tiling(n, min_bits, buffer_bits, ub, cores, extra=0):
    """opbase ElewiseTiling (elewise_tiling.cpp:33-103): the full result, as EleBaseTilingData
    orders it, with scheMode 1."""
    core_num = min(cores, _ceil(n * min_bits, 32768))
    block_former = _ceil(_ceil(n, core_num), 512) * 512
    block_num = _ceil(n, block_former)
    block_tail = n - (block_num - 1) * block_former
    max_elem = (ub - extra) * 8 // buffer_bits
    align = 256 * 8 // min_bits
    ub_former = max_elem // align * align
    loops_former = _ceil(block_former, ub_former)
    loops_tail = _ceil(block_tail, ub_former)
    return dict(dim0=n, coreNum=core_num, ubFormer=ub_former, blockFormer=block_former, blockNum=block_num,
                ubLoopOfFormerBlock=loops_former, ubLoopOfTailBlock=loops_tail,
                ubTailOfFormerBlock=block_former - (loops_former - 1) * ub_former,
                ubTailOfTailBlock=block_tail - (loops_tail - 1) * ub_former, elemNum=ub_former, scheMode=1)


#: 950 bits per element (bufferDivisor) and smallest dtype bits, by operator and dtype class.
#: Sigmoid and SigmoidGrad write theirs out; the DAG ones are BufferNum * 32 (docs/activation_tiling.md).
ARCH35_DIVISORS = {
    "sigmoid": {"float32": (128, 32), "16": (64, 16)},
    "sigmoid_backward": {"float32": (192, 32), "16": (96, 16)},
    "gelu": {"float32": (4 * 32, 32), "16": (6 * 32, 16)},
    "fast_gelu": {"float32": (4 * 32, 32), "16": (6 * 32, 16)},
    "fast_gelu_backward": {"float32": (6 * 32, 32), "16": (9 * 32, 16)},
    "leaky_relu": {"float32": (4 * 32, 32), "16": (6 * 32, 16)},
}
DTYPE_TEMPLATE = {"float16": 1, "bfloat16": 2, "float32": 3}      # TPL_FP16, TPL_BF16, TPL_FP32 / opKey


def arch35_tiling(op, n, dtype, ub=253952, cores=64):
    """(fields, block_dim, tiling_key) of a 950 host for the element-wise operators."""
    bits, min_bits = ARCH35_DIVISORS[op]["float32" if dtype == "float32" else "16"]
    fields = elewise_tiling(n, min_bits, bits, ub, cores)
    t = DTYPE_TEMPLATE[dtype]
    if op in ("sigmoid", "sigmoid_backward"):
        key = t * 10 ** 14 + 100
    elif op == "gelu":
        key = 1 + 2 * t                        # GET_TPL_TILING_KEY(1, dType): schMode in bit 0
    else:
        key = fields["scheMode"] + 2 * t       # GET_TPL_TILING_KEY(scheMode, dType)
    return fields, fields["blockNum"], key


def int64_words(fields):
    """EleBaseTilingData as the ops-nn UT prints it: int64 words, coreNum and ubFormer sharing one."""
    f = fields
    return [f["dim0"], f["coreNum"] | (f["ubFormer"] << 32), f["blockFormer"], f["blockNum"],
            f["ubLoopOfFormerBlock"], f["ubLoopOfTailBlock"], f["ubTailOfFormerBlock"], f["ubTailOfTailBlock"],
            f["elemNum"], f["scheMode"]]
