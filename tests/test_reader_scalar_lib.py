"""AscendC's integer helpers in scalar code (CeilDivision, DivCeil, AlignUp, std::min), a kernel's own
member that hides AscendC's function of its name, and a vector function launched with ``asc_vf_call``
(issue 43: ops-nn's relu6_d and elu_grad_v2 use them). The fixture vf_call_clamp is written for these
tests; its reference and the tiles each core walks are worked out here from the C, instruction by
instruction, not by the code under test."""
import types
from pathlib import Path

import numpy as np
import pytest

from reference import SPECIALS, assert_bits_equal, random_inputs
from reader_variants import refusal

from swishgrad_numba.ops import read_kernel
from swishgrad_numba.reader import KernelSourceError
from swishgrad_numba.reader.launch_plan import schedule
from swishgrad_numba.reader.scalar_lib import scalar_helper
from swishgrad_numba.reader.syntax import Call, Name
from swishgrad_numba.reader.values import CNum

KERNELS = Path(__file__).parent / "fixtures" / "kernels"
F32 = np.float32


def ref_scale_clamp(x, scale, upper):
    """Muls(vy, vx, scale); Maxs(vy, vy, 0); Mins(vy, vy, upper): float32, each rounded once; Max/Min keep
    a NaN of either operand and, on a tie, the first operand (the package's max_/min_)."""
    with np.errstate(all="ignore"):
        t = x * F32(scale)
        zero = F32(0.0)
        t = np.where(np.isnan(t) | (t >= zero), t, zero)
        u = F32(upper)
        return np.where(np.isnan(t) | (t <= u), t, u)


def clamp_tiles(n, cores=4, tile=1000):
    """The fixture's tiles per core: perCore = AlignUp(DivCeil(n, cores), 8); start = min(perCore * core, n)."""
    per = -(-(-(-n // cores)) // 8) * 8
    out = []
    for c in range(cores):
        start = min(per * c, n)
        length = min(per, n - start)
        t = min(tile, per)
        full, rest = divmod(length, t)
        out.append([(start + i * t, t) for i in range(full)] + ([(start + full * t, rest)] if rest else []))
    return out


@pytest.fixture(scope="module")
def clamp_op():
    return read_kernel(KERNELS / "vf_call_clamp")


def test_vf_call_clamp_bit_for_bit(clamp_op):
    x = np.concatenate([random_inputs(np.random.default_rng(3), 10_007, F32)[1], SPECIALS.astype(F32)])
    assert_bits_equal(clamp_op.run(x=x), ref_scale_clamp(x, 1.0, 6.0), "vf_call_clamp defaults")
    assert_bits_equal(clamp_op.run(x=x, scale=-0.75, upper=2.5), ref_scale_clamp(x, -0.75, 2.5), "vf_call_clamp")


@pytest.mark.parametrize("n", [10_007, 7, 4 * 1000, 3 * 1000 + 9])
def test_each_core_walks_the_tiles_the_helpers_give(clamp_op, n):
    from swishgrad_numba.dtypes import dtype_info

    record = np.zeros((), clamp_op.record_dtype)
    record["total"], record["tileLength"], record["scale"], record["upper"] = n, 1000, 1.0, 6.0
    got = schedule(clamp_op, types.SimpleNamespace(data=record[()], block_dim=4, tiling_key=0),
                   dtype_info("float32"))
    assert [[(t.offset, t.length) for t in core] for core in got] == clamp_tiles(n)


def _helper(name, *args):
    node = Call(Name(((name, None),)), tuple(Name(((f"a{i}", None),)) for i in range(len(args))), ("k.h", 9))
    return scalar_helper(node, name, list(args))


def test_helpers_follow_c_in_their_parameter_types():
    u32 = (1 << 32) - 1
    assert _helper("CeilDivision", CNum(7, "int"), CNum(2, "int")) == CNum(4, "int32_t")
    assert _helper("CeilDivision", CNum(7, "int"), CNum(0, "int")) == CNum(0, "int32_t")     # 0 by 0
    assert _helper("DivCeil", CNum(u32, "uint32_t"), CNum(2, "uint32_t")).value == 0        # a + b - 1 wraps
    assert _helper("AlignUp", CNum(13, "int64_t"), CNum(8, "int")) == CNum(16, "uint32_t")
    assert _helper("AlignUp", CNum((1 << 32) + 5, "int64_t"), CNum(4, "int")).value == 8    # to uint32: 5
    assert _helper("Ceil", CNum(9, "uint32_t"), CNum(3, "uint32_t")).value == 3
    assert _helper("min", CNum(3, "uint32_t"), CNum(2, "uint32_t")) == CNum(2, "uint32_t")
    assert _helper("max", CNum(-0.0, "float"), CNum(0.0, "float")).value == 0.0
    assert str(_helper("max", CNum(-0.0, "float"), CNum(0.0, "float")).value) == "-0.0"    # a < b false: a


@pytest.mark.parametrize("name, args, why", [
    ("CeilDivision", (CNum(2 ** 31 - 1, "int"), CNum(2, "int")), "overflows"),     # int32 overflow: undefined
    ("DivCeil", (CNum(5, "uint32_t"), CNum(0, "uint32_t")), "division by zero"),
    ("min", (CNum(3, "int"), CNum(2, "uint32_t")), "one type"),
    ("AlignUp", (CNum(3, "int"),), "takes two"),
])
def test_helpers_refuse_what_c_leaves_undefined(name, args, why):
    with pytest.raises(KernelSourceError, match=why) as e:
        _helper(name, *args)
    assert e.value.line == 9


def test_without_its_own_min_the_call_is_ascendc_s_vector_min(tmp_path):
    # the member Min(a, b) hides AscendC::Min; without it, Min(a, b) is the vector call, which takes tensors
    err, path = refusal(tmp_path, "vf_call_clamp",
                        "    __aicore__ inline uint32_t Min(uint32_t a, uint32_t b) { return a < b ? a : b; }\n", "")
    assert err.file == str(path) and "Min with 2 arguments" in str(err)


def test_vf_call_of_a_function_not_in_the_sources_is_refused(tmp_path):
    err, path = refusal(tmp_path, "vf_call_clamp", "asc_vf_call<ScaleClampVF<float>>", "asc_vf_call<LibraryVF<float>>")
    assert err.file == str(path) and "asc_vf_call of LibraryVF" in str(err)
    text = path.read_text().splitlines()
    assert "LibraryVF" in text[err.line - 1]


def test_a_strided_turn_in_the_vector_function_is_refused(tmp_path):
    err, path = refusal(tmp_path, "vf_call_clamp", "LoadAlign(vx, src + i * lanes)", "LoadAlign(vx, src + i * 32)")
    assert err.file == str(path) and "LoadAlign at" in str(err)
