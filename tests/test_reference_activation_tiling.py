"""The first-tier host tilings read in tests/reference_activation_tiling.py, checked against the
ops-nn unit tests' expectations (typed in below with their file and line) and against the kernels'
own UB plans: every tile the host picks must fit the buffers the kernel allocates for it."""
import pytest

import reference_activation_tiling as rt

SIZES = {"float32": 4, "float16": 2, "bfloat16": 2}


# ------------------------------------------------------------------ ops-nn UT cases (Ascend 950)


@pytest.mark.parametrize("dtype,key,words", [
    # activation/fast_gelu_grad/tests/ut/op_host/arch35/test_fast_gelu_grad_tiling.cpp:120-126, 199-205, 278-284
    ("float16", 3, "64 29137058136065 512 1 1 1 512 64 6784 1"),
    ("bfloat16", 5, "64 29137058136065 512 1 1 1 512 64 6784 1"),
    ("float32", 7, "64 43980465111041 512 1 1 1 512 64 10240 1"),
])
def test_fast_gelu_grad_ut_cases(dtype, key, words):
    """Shape (64,), UB_SIZE 245,760, 64 cores. The 16-bit case pins BufferNum 9 (a divisor in
    (284.4, 289.8] bits), the float32 one 6."""
    fields, block_dim, got_key = rt.arch35_tiling("fast_gelu_backward", 64, dtype, ub=245760, cores=64)
    assert got_key == key
    assert block_dim == 1
    assert " ".join(str(w) for w in rt.int64_words(fields)) == words


@pytest.mark.parametrize("dtype,key,block_dim", [
    # activation/fast_gelu/tests/ut/op_host/arch35/test_fast_gelu_tiling.cpp:113-116, 199-202, 286-289
    ("float16", 3, 4), ("bfloat16", 5, 4), ("float32", 7, 8),
])
def test_fast_gelu_ut_cases(dtype, key, block_dim):
    fields, got_dim, got_key = rt.arch35_tiling("fast_gelu", 1 * 64 * 2 * 64, dtype, ub=245760, cores=64)
    assert (got_key, got_dim) == (key, block_dim)


@pytest.mark.parametrize("op,dtype,n,key", [
    # activation/sigmoid/tests/ut/op_host/arch35/test_sigmoid_tiling.cpp:121, 204, 287
    ("sigmoid", "float16", 16 * 4 * 4 * 8, 100000000000100),
    ("sigmoid", "bfloat16", 12 * 13 * 9 * 10 * 12 * 6, 200000000000100),
    ("sigmoid", "float32", 16, 300000000000100),
    # activation/sigmoid_grad/tests/ut/op_host/arch35/test_sigmoid_grad_tiling.cpp:122, 204
    ("sigmoid_backward", "float16", 16 * 4 * 4 * 8, 100000000000100),
    ("sigmoid_backward", "bfloat16", 12 * 13 * 9 * 10 * 12 * 6, 200000000000100),
])
def test_sigmoid_pair_ut_keys(op, dtype, n, key):
    assert rt.arch35_tiling(op, n, dtype, ub=245760, cores=64)[2] == key


# ------------------------------------------------------------------ 950: the kernels' own buffers


@pytest.mark.parametrize("op,dtype,ub_former", [
    ("sigmoid", "float32", 15872), ("sigmoid", "float16", 31744),
    ("sigmoid_backward", "float32", 10560), ("sigmoid_backward", "bfloat16", 21120),
])
def test_950_class_kernels_fill_their_queues(op, dtype, ub_former):
    """Sigmoid: two queues of two slots; SigmoidGrad: three. ubFormer slots of the dtype must fit
    the UB (253,952 bytes), and one more 256-byte register's worth must not."""
    fields, _, _ = rt.arch35_tiling(op, 1 << 24, dtype)
    assert fields["ubFormer"] == fields["elemNum"] == ub_former
    slots = 4 if op == "sigmoid" else 6
    step = 256 // SIZES[dtype]
    assert slots * ub_former * SIZES[dtype] <= 253952 < slots * (ub_former + step) * SIZES[dtype]


# ------------------------------------------------------------------ Atlas A2


@pytest.mark.parametrize("op", ["sigmoid", "sigmoid_backward", "gelu", "gelu_backward"])
@pytest.mark.parametrize("dtype", SIZES)
@pytest.mark.parametrize("n", [1, 100, 1024, 2048, 4097, 100_000, 1 << 22])
def test_a2_tile_fits_the_kernel(op, dtype, n):
    """The host's tile never overflows the buffers the kernel's Init allocates (UB 196,608)."""
    b = SIZES[dtype]
    fields, cores, key, buffer_num = rt.a2_tiling(op, n, b)
    used = rt.a2_kernel_ub_bytes(op, fields["tileDataNum"], b, buffer_num)
    assert used <= 196608
    assert 1 <= cores <= 48
    # the ranges cover the aligned tensor exactly
    big, small, tail = fields["bigCoreDataNum"], fields["smallCoreDataNum"], fields["tailBlockNum"]
    covered = big * tail + small * (cores - tail)
    assert covered == -(-n * b // 32) * 32 // b


@pytest.mark.parametrize("op,dtype,tile,exact", [
    ("sigmoid_backward", "float32", 4912, False), ("sigmoid_backward", "float16", 6144, False),
    ("gelu", "float32", 4096, False), ("gelu", "float16", 6912, False),
    ("gelu_backward", "float32", 6144, True), ("gelu_backward", "bfloat16", 6144, True),
])
def test_a2_tiles_at_the_reference_platform(op, dtype, tile, exact):
    fields, _, _, _ = rt.a2_tiling(op, 1 << 22, SIZES[dtype])
    assert fields["tileDataNum"] == tile
    used = rt.a2_kernel_ub_bytes(op, tile, SIZES[dtype])
    assert (used == 196608) == exact


def test_a2_gelu_grad_310b_float32_plan_overflows():
    """versionNum 1 (ascend310b), float32: the host budgets 8 + 1 = 9 float32 units per element
    (gelu_grad_tiling.cpp:74-77), the kernel allocates 10 (dy, x, z queues of two slots, tmpBuffer,
    funBuffer, then tmp1 and tmpBuffer a second time, gelu_grad.h:59-63, 76-77): 40 bytes per
    element against 36, so the plan exceeds any UB by a ninth. An upstream defect, recorded here."""
    for ub in (196608, 262144):
        fields, _, key, _ = rt.a2_tiling("gelu_backward", 1 << 22, 4, ub=ub, version=1)
        tile = fields["tileDataNum"]
        assert key == 1 and tile == ub // 32 // 9 * 8
        assert rt.a2_kernel_ub_bytes("gelu_backward", tile, 4, version=1) == 40 * tile > ub
    # versionNum 0 (the 910B) on the same float32 plan fits exactly
    assert rt.a2_kernel_ub_bytes("gelu_backward", 196608 // 32 // 8 * 8, 4, version=0) == 196608


@pytest.mark.parametrize("n,buffers", [(1000, 1), (1024, 2), (2047, 1), (2048, 2), (2049, 1),
                                       (48 * 1024 - 1, 1), (48 * 1024, 2), (10 ** 6, 2)])
def test_a2_sigmoid_buffer_count(n, buffers):
    """Single-buffered only while n < 1024 * coreNum with coreNum = ceil(n / 1024): a multiple of
    1024 is double-buffered (arch22/sigmoid_tiling.cpp:99-106, 166-169)."""
    fields, cores, key, buffer_num = rt.a2_tiling("sigmoid", n, 4)
    assert buffer_num == buffers
    assert key == (0 if buffers == 2 else 1)
    assert fields["tileDataNum"] == (8144 if buffers == 2 else 16296)
