"""Typed views of a raw uint8_t buffer at byte offsets (issue 43, reader/byte_views.py): a kernel that hand-manages
its ping and pong halves in one TBuf, a flag flipped after each tile picking the half, DataCopy into a
ReinterpretCast view of the half. The fixture pp_raw_halves is written for these tests (y = |x| * 0.5 + 1 in
float32); the reference is plain NumPy, run on the kernel's own schedule with several tiles a core (ping, pong,
ping) and a tail tile."""
import ml_dtypes
import numpy as np
import pytest

from reference import SPECIALS, assert_bits_equal, random_inputs
from reader_variants import KERNELS, fixture_variant

from swishgrad_numba.ops import read_kernel
from swishgrad_numba.reader import KernelSourceError

NUMPY = {"float32": np.float32, "float16": np.float16, "bfloat16": ml_dtypes.bfloat16}
TILE = 2048


def ref_pp_raw(x):
    """Cast to float32 (exact), |x|, * 0.5, + 1 in float32, rounded once to x's dtype (nearest, ties to even)."""
    f = x.astype(np.float32)
    with np.errstate(all="ignore"):
        return (np.abs(f) * np.float32(0.5) + np.float32(1.0)).astype(x.dtype)


def _x(n, dtype, seed=43):
    rng = np.random.default_rng(seed)
    x = np.concatenate([random_inputs(rng, n - SPECIALS.size, np.float32)[1], SPECIALS.astype(np.float32)])
    with np.errstate(all="ignore"):
        return rng.permutation(x).astype(NUMPY[dtype])


def _run(op, x, cores):
    return op.run(x=x, tiling={"totalLen": x.size, "coreNum": cores}, block_dim=cores)


@pytest.fixture(scope="module")
def pp_op():
    return read_kernel(KERNELS / "pp_raw_halves")


@pytest.mark.parametrize("dtype", ["float32", "float16", "bfloat16"])
@pytest.mark.parametrize("cores, n", [(2, TILE * 5 + 77), (1, TILE * 4), (3, 300)])
def test_ping_and_pong_halves_bit_for_bit(pp_op, dtype, cores, n):
    x = _x(n, dtype)
    assert_bits_equal(_run(pp_op, x, cores), ref_pp_raw(x), f"pp_raw_halves {dtype} cores={cores} n={n}")


_FLOAT_PART = "bytes[HALF_BYTES + TILE * 4].ReinterpretCast<float>() :\n                        bytes[TILE * 4].ReinterpretCast<float>()"


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_an_offset_into_a_view_counts_its_own_elements(tmp_path, dtype):
    # the float part as the half's float view TILE floats on: the same bytes as the fixture's
    folder, _ = fixture_variant(tmp_path, "pp_raw_halves", _FLOAT_PART, "bytes[HALF_BYTES].ReinterpretCast<float>()"
                                "[TILE] : bytes[0].ReinterpretCast<float>()[TILE]")
    x = _x(TILE * 3 + 5, dtype)
    assert_bits_equal(_run(read_kernel(folder), x, 1), ref_pp_raw(x), f"view[TILE] {dtype}")


def test_each_view_is_a_tensor_of_its_own_type(pp_op):
    body = [str(i) for i in pp_op.program("float16").body]
    assert body[0] == "Cast(rawBuf_at_TILE_4_as_float32, rawBuf_as_float16, CAST_NONE);", body
    assert dict(pp_op.description.body("float16", "").tensors)["rawBuf_as_float16"] == "float16"


def test_a_pong_half_whose_parts_overlap_is_refused_on_the_tile_that_uses_it(tmp_path):
    # the pong half's float part starts TILE bytes in: over the pong T part's last half (a 16-bit T)
    folder, _ = fixture_variant(tmp_path, "pp_raw_halves", "bytes[HALF_BYTES + TILE * 4]",
                                "bytes[HALF_BYTES + TILE]")
    op = read_kernel(folder)
    x = _x(TILE, "float16")
    assert_bits_equal(_run(op, x, 1), ref_pp_raw(x), "one tile: the ping half only")
    with pytest.raises(KernelSourceError, match=r"pp_raw_halves\.cpp:\d+: .*part from byte 18432: it overlaps "
                                                r"the part from byte 16384"):
        _run(op, _x(TILE * 2, "float16"), 1)


@pytest.mark.parametrize("old, new, dtype, match", [
    # the float part from the T part's own byte, widened in place: the program form's two tensors would not
    # share bytes, so the overlap is refused rather than guessed
    ("bytes[HALF_BYTES + TILE * 4].ReinterpretCast<float>() :\n                        bytes[TILE * 4]",
     "bytes[HALF_BYTES].ReinterpretCast<float>() : bytes[0]", "bfloat16", "overlaps the part from byte 0"),
    ("bytes[TILE * 4].ReinterpretCast<float>()", "bytes[TILE * 4 + 2].ReinterpretCast<float>()", "float16",
     "a float32 view from byte 8194: not a whole number of float32"),
    (_FLOAT_PART, "bytes[HALF_BYTES].ReinterpretCast<float>()[TILE / 16] : bytes[0].ReinterpretCast<float>()[TILE / 16]",
     "float16", "part from byte 512: it overlaps the part from byte 0"),
], ids=["in-place-widening", "split-element", "view-offset-overlap"])
def test_views_the_program_cannot_hold_apart_are_refused_at_the_launch(tmp_path, old, new, dtype, match):
    folder, _ = fixture_variant(tmp_path, "pp_raw_halves", old, new)
    op = read_kernel(folder)
    with pytest.raises(KernelSourceError, match=match):
        _run(op, _x(300, dtype), 1)


def test_a_view_written_before_the_tiles_is_refused(tmp_path):
    folder, _ = fixture_variant(tmp_path, "pp_raw_halves", "bytes = rawBuf.Get<uint8_t>();",
                                "bytes = rawBuf.Get<uint8_t>();\n        xF = bytes[TILE * 4].ReinterpretCast<float>();"
                                "\n        Duplicate(xF, 1.0f, totalLen);")
    with pytest.raises(KernelSourceError, match=r"Duplicate into .* before the tiles: a typed view of a raw byte "
                                                "buffer is read per tile"):
        read_kernel(folder)


def test_one_gm_input_loaded_into_two_tensors_is_two_inputs(tmp_path):
    # the input copied again into the float part (as a row's second half would be): each copy is a program
    # input of its own (reader.split_loads), here both at the tile's elements
    folder, _ = fixture_variant(tmp_path, "pp_raw_halves", "xF = xT.template ReinterpretCast<float>();",
                                "xF = bytes[TILE * 4].ReinterpretCast<float>();\n            DataCopyPad(xF, xGm[at], "
                                "DataCopyExtParams{1, static_cast<uint32_t>(len * 4), 0, 0, 0}, "
                                "DataCopyPadExtParams<float>{false, 0, 0, 0});\n            Add(xF, xF, xT, len);")
    body = read_kernel(folder).description.body("float32", "")
    assert [g for g, _ in body.inputs] == ["x", "x"] and len({t for _, t in body.inputs}) == 2
