"""The 950's register kernels (issue 43, the MicroAPI area). AscendC's ``GetVecLen()``, the vector register's
length in bytes, a ``constexpr`` 256 on the 950 (asc-devkit ``kernel_operator_sys_var_intf.h``): the fixture
``wild_helper_gate`` with its lane count taken from ``GetVecLen()`` instead of ops-nn's
``platform::GetVRegSize()`` (the reference is ``test_reader_helpers``'s). A ``__VEC_SCOPE__`` in class-style
code (:mod:`swishgrad_numba.reader.vec_scope`): the fixture ``vec_scope_ratio``, written for these tests, with
``CreateMask``, ``UpdateMask``, unpacking loads, packing stores and casts with a ``CastTrait``; the reference
is written here, and what stays refused is refused at its line."""
import numpy as np
import pytest

from activation_checks import every16
from reader_variants import KERNELS, fixture_variant, refusal
from reference import SPECIALS, random_inputs
from reference_family import narrow
from test_reader_helpers import CPP, _record, ref_gate

from swishgrad_numba.ops import read_kernel

F32 = np.float32
LANES = "static constexpr uint32_t LANES = platform::GetVRegSize() / sizeof(float);"


def test_get_vec_len_is_256_bytes(tmp_path):
    # 256 bytes: LANES = 64 floats, so a tile of 96 elements returns before any tile (nothing stored, zeros),
    # one of 192 computes; a length of 0 (the A2's) or any other would fail one of the two
    folder, _ = fixture_variant(tmp_path, "wild_helper_gate", LANES,
                                "static constexpr uint32_t LANES = AscendC::GetVecLen() / sizeof(float);", file=CPP)
    gate = read_kernel(folder / "op_kernel")
    x = np.linspace(-3, 3, 1000).astype(F32)
    assert not np.any(gate.run(self=x, tiling=_record(x.size, tile=96), block_dim=4))
    got = gate.run(self=x, tiling=_record(x.size, tile=192), block_dim=4)
    assert got.view(np.uint32).tolist() == ref_gate(x, 0.25).view(np.uint32).tolist()
    got = gate.run(self=x, tiling=_record(x.size, tile=128), block_dim=4)
    assert got.view(np.uint32).tolist() == ref_gate(x, 0.25).view(np.uint32).tolist()


def test_get_vec_len_with_an_argument_is_refused(tmp_path):
    e, path = refusal(tmp_path, "wild_helper_gate", LANES,
                      "static constexpr uint32_t LANES = AscendC::GetVecLen(4) / sizeof(float);", file=CPP)
    assert "unknown call AscendC::GetVecLen" in e.construct, e
    line = next(i for i, t in enumerate(path.read_text().splitlines(), 1) if "GetVecLen(4)" in t)
    assert e.line == line, e


# ---------------------------------------------------------------- a __VEC_SCOPE__ in class-style code

RATIO = "vec_scope_ratio"
RATIO_CPP = "op_kernel/vec_scope_ratio.cpp"


def ref_ratio(x):
    """(x + 1) / (x * x + 2) in float32, one rounding a step; 16-bit x widened exactly and narrowed with
    CAST_RINT (ties to even)."""
    with np.errstate(all="ignore"):
        w = x.astype(F32)
        y = (w + F32(1.0)) / (w * w + F32(2.0))
    return y if x.dtype == F32 else narrow(y, x.dtype, ties_away=False)


@pytest.fixture(scope="module")
def ratio():
    return read_kernel(KERNELS / RATIO / "op_kernel")


@pytest.mark.parametrize("dtype", ["float32", "float16", "bfloat16"])
def test_vec_scope_reads_and_runs_bit_for_bit(ratio, dtype):
    # CreateMask's all lanes for the constant, UpdateMask's turn for the rest: the tile of 1,000 ends in a
    # partial vector length (1,000 = 15 * 64 + 40), the last core's tile in another
    if dtype == "float32":
        x = np.concatenate([random_inputs(np.random.default_rng(43), 6_000, F32)[1], SPECIALS.astype(F32)])
    else:
        x = every16(dtype)
    cores = 4
    x = x[: x.size // cores * cores]
    got = ratio.run(x=x, tiling=dict(perCore=x.size // cores, tile=1_000), block_dim=cores)
    want = ref_ratio(x)
    assert got.view(f"u{x.itemsize}").tolist() == want.view(f"u{x.itemsize}").tolist(), dtype


def _ratio_refused(tmp_path, old, new, construct, line_of=None):
    e, path = refusal(tmp_path, RATIO, old, new, file=RATIO_CPP)
    assert construct in e.construct, e
    line = next(i for i, t in enumerate(path.read_text().splitlines(), 1) if (line_of or new) in t)
    assert path.name == "vec_scope_ratio.cpp" and e.line == line, e
    return e


def test_create_mask_of_another_pattern_is_refused(tmp_path):
    _ratio_refused(tmp_path, "CreateMask<float>()", "CreateMask<float, AscendC::MicroAPI::MaskPattern::VL16>()",
                   "MicroAPI::CreateMask with")


def test_a_store_of_all_lanes_is_refused(tmp_path):
    # every lane of the last turn's register would be stored, past the tile
    # (float32, the first dtype read: its store)
    _ratio_refused(tmp_path, "m = AscendC::MicroAPI::UpdateMask<float>(left);",
                   "m = AscendC::MicroAPI::CreateMask<float>();", "MicroAPI::StoreAlign predicated by all lanes",
                   line_of="StoreDist::DIST_NORM_B32>(")


def test_a_widening_cast_of_a_packed_register_is_refused(tmp_path):
    # DIST_NORM packs two halves a 32-bit lane: RegLayout::ZERO would widen every other element. Its load is
    # refused first: a packed 16-bit register holds 128 elements, and the turn steps by UpdateMask<float>'s 64
    e, _ = refusal(tmp_path, RATIO, "LoadDist::DIST_UNPACK_B16", "LoadDist::DIST_NORM", file=RATIO_CPP)
    assert "MicroAPI::LoadAlign at" in e.construct and "128 lanes" in e.detail, e


def test_a_saturating_narrowing_cast_is_refused(tmp_path):
    e, _ = refusal(tmp_path, RATIO, "SatMode::NO_SAT", "SatMode::SAT", file=RATIO_CPP)
    assert "MicroAPI::Cast from float32" in e.construct and "SAT" in e.construct, e


def test_a_turn_that_does_not_step_by_its_lanes_is_refused(tmp_path):
    # the loop is read once, at its first turn: a stride of half the lanes would read lanes twice
    _ratio_refused(tmp_path, "(xf, src + k * VL)", "(xf, src + k * (VL / 2))", "MicroAPI::LoadAlign at",
                   line_of="(xf, src + k * (VL / 2))")


def test_a_load_at_an_offset_outside_the_loop_is_refused(tmp_path):
    _ratio_refused(tmp_path, "            for (uint16_t k = 0; k < turns; k++) {",
                   "            AscendC::MicroAPI::LoadAlign<float, AscendC::MicroAPI::LoadDist::DIST_NORM>(xf, src + 8);\n"
                   "            for (uint16_t k = 0; k < turns; k++) {", "at an offset outside the loop",
                   line_of="(xf, src + 8)")
