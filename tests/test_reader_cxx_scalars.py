"""C++ constructs and scalar operands of the kernels people write (issue 43): ``std::conditional`` on a non-type
template argument of the entry (a tiling-key template list), read as one variant per choice; lambdas handed to
a tile-loop helper and kept in locals, with their captures (fixture lambda_tiles); a TBuf carved into parts by
``GetWithOffset`` (buf_offsets); an element-by-element GetValue/SetValue loop that keeps one tensor's element by
a comparison (select_loop). The fixtures are
written for these tests; their runs are compared bit for bit with references written here instruction by
instruction."""
from pathlib import Path

import numpy as np
import pytest

from activation_checks import every16
from reference import SPECIALS, assert_bits_equal, random_inputs
from reference_family import narrow
from reader_variants import fixture_variant, refusal

from swishgrad_numba.ops import read_kernel
from swishgrad_numba.reader import KernelSourceError

KERNELS = Path(__file__).parent / "fixtures" / "kernels"
F32 = np.float32


@pytest.fixture(scope="module")
def widen():
    return read_kernel(KERNELS / "tpl_widen_flag")


def test_conditional_on_a_template_argument_forks_the_paths(widen):
    def ops(dtype, variant=""):
        return [s.op for s in widen.description.body(dtype, variant).steps]
    # float and half: the WIDEN == 1 path declares bfloat16 tensors in GM, so only WIDEN == 0 reads them
    assert widen.variants("float32") == ("",) and ops("float32") == ["Muls", "Adds"]
    assert ops("float16") == ["Muls", "Adds"]
    assert set(widen.variants("bfloat16")) == {"WIDEN == 1", "!(WIDEN == 1)"}
    assert ops("bfloat16", "WIDEN == 1") == ["Cast", "Muls", "Adds", "Cast"]     # CalcT float, GmT bfloat16


def test_conditional_on_a_template_argument_bit_for_bit(widen):
    x = np.concatenate([random_inputs(np.random.default_rng(7), 3_000, F32)[1], SPECIALS.astype(F32)])
    with np.errstate(all="ignore"):
        assert_bits_equal(widen.run(x=x), (x * F32(3.0)) + F32(0.25), "tpl_widen_flag float32")
        b = every16("bfloat16")
        acc = (b.astype(F32) * F32(3.0)) + F32(0.25)          # widened exactly, each step rounded to float32
    assert_bits_equal(widen.run(x=b, variant="WIDEN == 1"), narrow(acc, b.dtype, ties_away=False),
                      "tpl_widen_flag bfloat16")


def test_conditional_on_a_run_time_value_is_refused(tmp_path):
    e, path = refusal(tmp_path, "tpl_widen_flag", "LocalTensor<GmT> xLocal = inQ.DeQue<GmT>();",
                      "LocalTensor<GmT> xLocal = inQ.DeQue<GmT>();\n"
                      "        std::conditional_t<(tileLength > 64), float, D_T> v = 0;")
    assert e.line == path.read_text().splitlines().index("        std::conditional_t<(tileLength > 64), "
                                                         "float, D_T> v = 0;") + 1
    assert "conditional_t" in str(e) and "not a compile-time condition" in str(e), str(e)


@pytest.fixture(scope="module")
def lambdas():
    return read_kernel(KERNELS / "lambda_tiles")


def test_lambdas_run_where_they_are_called_with_their_captures(lambdas):
    steps = lambdas.description.body("float32").steps
    assert [s.op for s in steps] == ["Muls", "Adds", "Adds", "Adds"]          # addHalf() twice, by reference
    assert [s.args[2].value for s in steps] == [2.0, 0.5, 0.5, -3.0]         # shift copied before it became 100


def test_lambdas_bit_for_bit(lambdas):
    x = np.concatenate([random_inputs(np.random.default_rng(11), 3_000, F32)[1], SPECIALS.astype(F32)])
    with np.errstate(all="ignore"):
        ref = (((x * F32(2.0)) + F32(0.5)) + F32(0.5)) + F32(-3.0)            # each instruction rounded to float32
    assert_bits_equal(lambdas.run(x=x), ref, "lambda_tiles")


@pytest.mark.parametrize("old, new, words", [
    ("[this, shift](uint32_t n)", "[this, &shift](uint32_t n)", "a lambda capturing '&'"),
    ("[this, shift](uint32_t n)", "[this, k = shift](uint32_t n)", "a lambda capturing 'k'"),
    ("addHalf();\n        addHalf();", "addHalf(1.0f);\n        addHalf();", "a call of a lambda"),
])
def test_lambdas_outside_the_subset_are_refused_at_their_line(tmp_path, old, new, words):
    e, path = refusal(tmp_path, "lambda_tiles", old, new)
    assert words in str(e) and Path(e.file).name == "lambda_tiles.cpp", str(e)
    assert e.line == next(i for i, line in enumerate(path.read_text().splitlines(), 1) if new.split("\n")[0] in line)


@pytest.fixture(scope="module")
def offsets():
    return read_kernel(KERNELS / "buf_offsets")


def ref_buf_offsets(x):
    """Muls 2.0f and Adds 1.0f (each rounded to float32), CompareScalar GT 0 (NaN false), Select."""
    with np.errstate(all="ignore"):
        return np.where(x > F32(0.0), x * F32(2.0), x + F32(1.0))


def test_get_with_offset_parts_are_tensors_of_their_own(offsets):
    body = offsets.description.body("float32")
    assert [s.op for s in body.steps] == ["Muls", "Adds", "CompareScalar", "Select"]
    assert dict(body.tensors)["mask"] == "uint8" and body.steps[3].args[1:4] == ("twice", "plusOne", "mask")


@pytest.mark.parametrize("tiling", [None, {"tileLength": 256, "tileNum": 2}])
def test_get_with_offset_bit_for_bit(offsets, tiling):
    x = np.concatenate([random_inputs(np.random.default_rng(5), 3_000, F32)[1], SPECIALS.astype(F32)])
    kw = {} if tiling is None else {"tiling": tiling, "block_dim": 6}      # its own record: the parts checked
    x = x[:256 * 2 * 6] if tiling else x
    assert_bits_equal(offsets.run(x=x, **kw), ref_buf_offsets(x), "buf_offsets")


def test_get_with_offset_refusals(tmp_path):
    old = "work.GetWithOffset<float>(tileLength, partBytes)"
    e, path = refusal(tmp_path, "buf_offsets", old, "work.GetWithOffset<float>(tileLength, 6)")
    assert "not a whole number of float32 elements" in str(e), str(e)
    assert e.line == path.read_text().splitlines().index(
        "        LocalTensor<float> plusOne = work.GetWithOffset<float>(tileLength, 6);") + 1
    folder, _ = fixture_variant(tmp_path / "overlap", "buf_offsets", old, "work.GetWithOffset<float>(tileLength, 64)")
    op = read_kernel(folder)                       # a part that overlaps the first: known only on a record
    with pytest.raises(KernelSourceError) as err:
        op.run(x=np.ones(256 * 2, F32), tiling={"tileLength": 256, "tileNum": 2}, block_dim=1)
    assert "overlaps the part from byte 0" in str(err.value) and err.value.line == 45, str(err.value)


@pytest.fixture(scope="module")
def select_loop_op():
    return read_kernel(KERNELS / "select_loop")


def ref_select_loop(g, x, c=F32(0.25), nan=True):
    """Element by element: g where x > c (or x is a NaN), else +0.0 (the scalar unit's float comparison)."""
    keep = (x > c) | (np.isnan(x) if nan else False)
    return np.where(keep, g, F32(0.0))


def test_a_select_loop_reads_as_compares_and_selects(select_loop_op):
    body = select_loop_op.description.body("float32")
    assert [s.op for s in body.steps] == ["CompareScalar", "Selects", "Compare", "Select"]
    assert body.steps[0].args[2].value == 0.25 and body.steps[0].args[3] == "GT"


def test_a_select_loop_bit_for_bit(select_loop_op):
    rng = np.random.default_rng(3)
    x = np.concatenate([random_inputs(rng, 3_000, F32)[1], SPECIALS.astype(F32), np.full(8, 0.25, F32)])
    g = rng.standard_normal(x.size).astype(F32)
    g[:4] = [np.nan, -0.0, np.inf, -np.inf]
    assert_bits_equal(select_loop_op.run(g=g, x=x), ref_select_loop(g, x), "select_loop")


def test_a_select_loop_without_the_nan_test(tmp_path):
    folder, _ = fixture_variant(tmp_path, "select_loop", "pass = v > 0.25f || v != v;", "pass = v <= -1.5f;")
    op = read_kernel(folder)
    assert [s.op for s in op.description.body("float32").steps] == ["CompareScalar", "Selects"]
    x = np.concatenate([np.linspace(-3, 3, 1001).astype(F32), SPECIALS.astype(F32)])
    g = np.arange(x.size, dtype=F32) + F32(1)
    assert_bits_equal(op.run(g=g, x=x), np.where(x <= F32(-1.5), g, F32(0.0)), "select_loop <=")


@pytest.mark.parametrize("old, new", [
    ("pass = v > 0.25f || v != v;", "pass = v > 0.25f || v != 1.0f;"),          # not a NaN test
    ("pass ? gLocal.GetValue(k) : static_cast<T>(0)", "pass ? gLocal.GetValue(k) * 2 : static_cast<T>(0)"),
    ("dyLocal.SetValue(k, pass", "dyLocal.SetValue(k + 1, pass"),                # not at the counter
])
def test_other_loops_over_set_value_stay_refused(tmp_path, old, new):
    e, path = refusal(tmp_path, "select_loop", old, new)
    assert "a loop over SetValue" in str(e) and Path(e.file).name == "select_loop.cpp", str(e)
