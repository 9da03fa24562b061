"""ops/gelu/kernel.py and ops/gelu_grad/kernel.py: structs, host tilings and keys against the hand-worked tilings of
tests/reference_activation_tiling.py, the A2 UB plans against the kernels' allocations, the programs'
shapes; run_tiling of a 950 record with each Axpy rounding. The other bits are tests/test_gelu_functions.py's."""
from __future__ import annotations

import numpy as np
import pytest

import swishgrad_numba as sg
from reference import assert_bits_equal
from reference_activation_tiling import a2_kernel_ub_bytes, a2_tiling, arch35_tiling
from reference_activations import ref_gelu, ref_gelu_backward
from swishgrad_numba.dtypes import dtype_info
from swishgrad_numba.ops import gelu as G
from swishgrad_numba.ops import gelu_grad as GG
from swishgrad_numba.ops import get_operator
from swishgrad_numba.spec.a2 import plan_bytes

P950_UNFUSED = sg.Platform(soc_version="ascend950", axpy_rounding="unfused")
SIZES = (1, 7, 1024, 1025, 2048, 4096, 100_003, 6_912 * 48 + 5, 3_000_000)
DTYPES = ("float32", "float16", "bfloat16")
P310B = sg.Platform(soc_version="ascend310b")


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("n", SIZES)
def test_a2_gelu_tiling_by_hand(n, dtype):
    info = dtype_info(dtype)
    fields, cores, key, _ = a2_tiling("gelu", n, info.itemsize)
    t = G.host_tiling(n, info, sg.REFERENCE_PLATFORM)
    assert (t.fields, t.block_dim, t.tiling_key) == (fields, cores, key)
    assert t.tobytes() == np.array([fields[f] for f in t.fields], dtype="<u8").tobytes()
    assert plan_bytes(int(t["tileDataNum"]), G.a2_buffer_plan(info.itemsize)) == \
        a2_kernel_ub_bytes("gelu", int(t["tileDataNum"]), info.itemsize) <= sg.REFERENCE_PLATFORM.ub_size


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("n", SIZES)
def test_950_gelu_tiling_by_hand(n, dtype):
    info = dtype_info(dtype)
    fields, block_dim, key = arch35_tiling("gelu", n, dtype)
    t = G.host_tiling(n, info, sg.ASCEND950_PLATFORM)
    assert t.fields == {k: fields[k] for k in ("dim0", "coreNum", "ubFormer")}
    assert (t.block_dim, t.tiling_key, t.workspace_size, len(t.tobytes())) == (block_dim, key, 16 << 20, 16)


@pytest.mark.parametrize("platform, version", [(sg.REFERENCE_PLATFORM, 0), (P310B, 1)])
@pytest.mark.parametrize("dtype", ["float32", "float16"])
@pytest.mark.parametrize("n", SIZES)
def test_a2_gelu_grad_tiling_by_hand(n, dtype, platform, version):
    info = dtype_info(dtype)
    fields, cores, key, _ = a2_tiling("gelu_backward", n, info.itemsize, version=version)
    t = GG.host_tiling((n,), (n,), info, platform)
    assert t.fields == {**fields, "versionNum": version}
    assert (t.block_dim, t.tiling_key, len(t.tobytes())) == (cores, key, 36)
    assert plan_bytes(int(t["tileDataNum"]), GG.a2_buffer_plan(info.itemsize, version)) == \
        a2_kernel_ub_bytes("gelu_backward", int(t["tileDataNum"]), info.itemsize, version=version)


def test_950_gelu_grad_tiling_is_the_broadcast_split_with_its_divisor():
    # one axis of n: elemNum = U * 8 / divisor aligned down to 256 bytes of the dtype
    for dtype, bits in (("float32", 192), ("float16", 288)):
        info = dtype_info(dtype)
        t = GG.host_tiling((100_000,), (100_000,), info, sg.ASCEND950_PLATFORM)
        align = 256 // info.itemsize
        assert int(t["elemNum"]) == 253_952 * 8 // bits // align * align
        assert int(t["blockFormer"]) * (t.block_dim - 1) + int(t["blockTail"]) == int(t["ubOuter"])


def test_programs_print_as_upstream_writes_them():
    assert get_operator("gelu").program("float32").instructions() == \
        ("Mul", "Mul", "Muls", "Add", "Muls", "Exp", "Adds", "Div")
    p950 = str(get_operator("gelu").program("float16", sg.ASCEND950_PLATFORM))
    assert "Axpy(e, xf, (float)(1 / 0.044715));" in p950 and "Cast(out, y, CAST_RINT);" in p950
    grad = str(get_operator("gelu_grad").program("float32", sg.ASCEND950_PLATFORM))
    assert "Compare(keep, e, e, EQ);" in grad and "Select(e, e, zero, keep);" in grad
    assert GG.programs("a2", "float32", GG.VARIANT_310B).name == "GeluGradV1"
    assert get_operator("gelu_grad").program("float16", P310B).name == "GeluGradV1"   # chosen by the SoC
    assert get_operator("gelu_grad").program("float16").name == "GeluGrad"
    with pytest.raises(ValueError, match="no GeluGrad variant"):
        GG.programs("arch35", "float32", GG.VARIANT_310B)


@pytest.mark.parametrize("op", ["gelu", "gelu_grad"])
@pytest.mark.parametrize("platform", [sg.REFERENCE_PLATFORM, sg.ASCEND950_PLATFORM], ids=["a2", "950"])
def test_host_tilings_validate(op, platform):
    for dtype in DTYPES:
        for numel in (1, 31, 4096, 100_003, 1 << 22):
            t = sg.compute_tiling(numel, dtype, platform=platform, op=op)
            report = sg.validate_tiling(t, numel, dtype, platform)
            assert report.ok and report.codes() <= {"OVERRUN_PADDING"}, report.format()


def test_validator_finds_a_950_gelu_grad_record_at_fault():
    t = sg.compute_tiling(100_000, "float16", platform=sg.ASCEND950_PLATFORM, op="gelu_grad")
    data = t.data.copy()
    data["ubTail"] = 1
    bad = sg.validate_tiling(type(t)(t.op, t.architecture, data, t.block_dim, 7, t.workspace_size), 100_000,
                             "float16", sg.ASCEND950_PLATFORM)
    assert {"TILE_COUNT_MISMATCH", "TILING_KEY_MISMATCH"} <= set(bad.codes("error"))


def test_a2_gelu_grad_310b_float32_plan_overflows_as_upstream_allocates_it():
    # docs/activation_tiling.md: versionNum 1 float32 allocates 10 float32 units where the host budgets 9
    report = sg.validate_tiling(sg.compute_tiling(100_000, "float32", platform=P310B, op="gelu_grad"), 100_000,
                                "float32", P310B)
    assert "UB_OVERFLOW" in report.codes("error")


# where the two roundings give different bits: float32 samples; of the 16-bit inputs only three float16 x
# for Gelu (every 16-bit GeluGrad product is exact in float32, the models agree there)
@pytest.mark.parametrize("op, dtype", [("gelu", "float32"), ("gelu_grad", "float32"), ("gelu", "float16")])
def test_run_tiling_follows_the_platforms_axpy_rounding(op, dtype):
    # the registry path (run_tiling of an OpTiling) rounds each Axpy as its platform says
    rng = np.random.default_rng(29)
    if dtype == "float32":
        x = rng.uniform(-10, 10, 6_000).astype(np.float32)
    else:
        x = np.arange(1 << 16, dtype=np.uint16).view(np.float16)
    n = x.size
    dy = rng.uniform(-3, 3, n).astype(dtype)
    args = (None,) if op == "gelu" else (dy,)
    refs = {m: ref_gelu(x, "arch35", m) if op == "gelu" else ref_gelu_backward(dy, x, "arch35", m)
            for m in ("fused", "unfused")}
    bits = np.uint32 if dtype == "float32" else np.uint16
    assert (refs["fused"].view(bits) != refs["unfused"].view(bits)).any()
    for platform, model in ((P950_UNFUSED, "unfused"), (sg.ASCEND950_PLATFORM, "fused"), (None, "fused")):
        t = sg.compute_tiling(n, dtype, platform=platform or sg.ASCEND950_PLATFORM, op=op)
        got = sg.run_tiling(*args, x, np.empty_like(x), t, platform=platform)
        assert_bits_equal(got, refs[model], f"{op} {dtype} {model}")
