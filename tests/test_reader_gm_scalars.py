"""A scalar read from a GM input by ``GetValue`` as an instruction's scalar operand (issue 43, reader.gm_scalars).
The fixtures (gm_prelu_weight: PReLU with a one-element weight tensor; gm_affine_params: a scale and a shift
from a two-element parameter tensor) are written for these tests; the references are NumPy, instruction by
instruction: each arithmetic instruction rounded once to the dtype, comparisons and selections exact, the
scalar unit's float arithmetic one float32 operation."""
from pathlib import Path

import ml_dtypes
import numpy as np
import pytest

from reference import assert_bits_equal
from reader_variants import fixture_variant, refusal

from swishgrad_numba.ops import read_kernel

KERNELS = Path(__file__).parent / "fixtures" / "kernels"
_NUMPY = {"float32": np.float32, "float16": np.float16, "bfloat16": ml_dtypes.bfloat16}
_N = 4 * 4 * 2 * 128


def ref_prelu_weight(x, w, dtype):
    t = _NUMPY[dtype]
    with np.errstate(all="ignore"):
        # Muls(neg, x, w): one product rounded to T; two T values' product is exact in float32 (the inputs here
        # keep it in float32's normal range), so its rounding to T is the only one
        neg = (x.astype(np.float32) * np.float32(w[0])).astype(t)
        mask = x.astype(np.float32) >= 0                     # CompareScalar(mask, x, 0, GE): NaN is false
        return np.where(mask, x, neg).astype(t)              # Select(y, mask, x, neg)


def _x(dtype, seed=3):
    x = np.random.default_rng(seed).normal(0, 4, _N)
    x[:8] = [0.0, -0.0, np.inf, -np.inf, np.nan, 1e-30, -1e-30, -3.0]
    return x.astype(_NUMPY[dtype])


@pytest.fixture(scope="module")
def prelu():
    return read_kernel(KERNELS / "gm_prelu_weight")


@pytest.mark.parametrize("dtype", ["float32", "float16", "bfloat16"])
@pytest.mark.parametrize("weight", [0.25, -1.5, np.nan, -0.0, np.inf, 0.1])
def test_prelu_weight_from_gm_bit_for_bit(prelu, dtype, weight):
    x, w = _x(dtype), np.array([weight], dtype=_NUMPY[dtype])
    assert_bits_equal(prelu.run(x=x, weight=w), ref_prelu_weight(x, w, dtype), f"prelu {dtype} w={weight}")


def test_each_launch_reads_its_own_weight(prelu):
    x = _x("float32")
    for w in (np.array([0.5], np.float32), np.array([-2.0, 7.0], np.float32), np.array([[3.0]], np.float32)):
        assert_bits_equal(prelu.run(x=x, weight=w), ref_prelu_weight(x, w.reshape(-1), "float32"), str(w))


def test_the_weight_input_is_checked(prelu):
    x = _x("float32")
    with pytest.raises(TypeError, match="missing input 'weight'"):
        prelu.run(x=x)
    with pytest.raises(ValueError, match="weight.dtype must be float32"):
        prelu.run(x=x, weight=np.array([1.0], np.float16))
    with pytest.raises(ValueError, match="at least 1 element"):
        prelu.run(x=x, weight=np.zeros(0, np.float32))
    with pytest.raises(TypeError, match="numpy.ndarray"):
        prelu.run(x=x, weight=[1.0])


def test_the_gm_scalar_inputs_are_found_once_per_operator(prelu, monkeypatch):
    # the description never changes: what its GM scalars read is worked out once, not at every run
    from swishgrad_numba.reader import gm_scalars

    x, w, calls = _x("float32"), np.array([0.5], np.float32), []
    prelu.run(x=x, weight=w)
    plain = gm_scalars.inputs_of
    monkeypatch.setattr(gm_scalars, "inputs_of", lambda *a: calls.append(a) or plain(*a))
    for _ in range(3):
        assert_bits_equal(prelu.run(x=x, weight=w), ref_prelu_weight(x, w, "float32"), "run again")
    assert calls == []


def test_the_program_names_the_gm_scalar(prelu):
    body = prelu.description.body("float16")
    assert [str(s) for _, s in body.scalars] == ["weight[0]"]
    assert body.inputs == (("x", "xLocal"),)


def ref_affine_params(x, p):
    with np.errstate(all="ignore"):
        shift = np.float32(p[1]) - np.float32(1.0)            # on the scalar unit: one float32 subtraction
        return (x * np.float32(p[0])) + shift                   # Muls, then Adds: each rounded once


@pytest.mark.parametrize("params", [(0.3, 2.5), (-1e20, 1e-40), (np.nan, 1.0), (1.0, np.inf), (3.0, 1.0 + 2 ** -23)])
def test_affine_params_from_gm_bit_for_bit(params):
    op = read_kernel(KERNELS / "gm_affine_params")
    x, p = _x("float32", seed=5), np.array(params, np.float32)
    got = op.run(x=x, params=p, tiling={"totalLength": x.size, "tileNum": 4}, block_dim=4)
    assert_bits_equal(got, ref_affine_params(x, p), str(params))


@pytest.mark.parametrize("old, new, words", [
    ("weightGm.GetValue(0)", "weightGm.GetValue(GetBlockIdx())", "not a constant"),          # per core
    ("weightGm.GetValue(0)", "weightGm.GetValue(weightGm.GetValue(1))", "not a constant"),  # data-dependent
    ("this->weightVal = weightGm.GetValue(0);", "this->weightVal = weightGm.GetValue(0) * (T)2;",
     "16-bit arithmetic is not modelled"),
    ("this->weightVal = weightGm.GetValue(0);", "this->weightVal = (T)(int32_t)weightGm.GetValue(0);",
     "to int32_t"),
])
def test_what_is_not_modelled_is_refused_at_its_line(tmp_path, old, new, words):
    err, path = refusal(tmp_path, "gm_prelu_weight", old, new)
    line = next(i for i, text in enumerate(path.read_text().splitlines(), 1) if new in text)
    assert err.line == line and words in str(err), str(err)


@pytest.mark.parametrize("dtype, form, index", [("float16", "*((__gm__ T*)weight)", 0),
                                                ("float32", "*((__gm__ T*)weight + 1)", 1)])
def test_a_dereferenced_gm_address_is_the_same_read(tmp_path, dtype, form, index):
    folder, _ = fixture_variant(tmp_path, "gm_prelu_weight", "this->weightVal = weightGm.GetValue(0);",
                                f"this->weightVal = {form};")
    op = read_kernel(folder)
    x, w = _x(dtype), np.array([-0.75, 3.0], dtype=_NUMPY[dtype])
    with pytest.raises(ValueError, match=f"at least {index + 1} element"):
        op.run(x=x, weight=w[:index])
    assert_bits_equal(op.run(x=x, weight=w), ref_prelu_weight(x, w[index:], dtype), f"{form} {dtype}")


@pytest.mark.parametrize("new, words", [
    ("this->weightVal = *((__gm__ T*)weight + GetBlockIdx());", "not a constant"),
    ("this->weightVal = *((__gm__ T*)(weight + 4));", "moved before its cast"),
])
def test_a_dereference_it_does_not_follow_is_refused(tmp_path, new, words):
    err, path = refusal(tmp_path, "gm_prelu_weight", "this->weightVal = weightGm.GetValue(0);", new)
    line = next(i for i, text in enumerate(path.read_text().splitlines(), 1) if new in text)
    assert err.line == line and words in str(err), str(err)


def test_a_gm_tensor_bound_at_an_offset_is_refused(tmp_path):
    # weightGm at a core's part: GetValue(0) would read a different element on each core
    old = "weightGm.SetGlobalBuffer((__gm__ T*)weight, 1);"
    new = "weightGm.SetGlobalBuffer((__gm__ T*)weight + GetBlockIdx(), 1);"
    err, path = refusal(tmp_path, "gm_prelu_weight", old, new)
    assert err.construct == "weightGm.GetValue" and "at an offset" in str(err), str(err)
    assert "GetValue(0)" in path.read_text().splitlines()[err.line - 1]



@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_a_cast_of_the_value_to_its_own_type_is_the_value(tmp_path, dtype):
    # (T)GetValue(0) is the value itself, not a float converted to T: ToFloat of it widens exactly (heaviside's
    # `T v = GetValue(0); ... ToFloat(v)`; merging .scalar_puns took the cast for a float's conversion to 16 bits
    # and refused ToFloat of it).
    folder, _ = fixture_variant(tmp_path, "gm_prelu_weight", "this->weightVal = weightGm.GetValue(0);",
                                "this->weightVal = static_cast<T>(weightGm.GetValue(0));")
    op = read_kernel(folder)
    x, w = _x(dtype), np.array([-0.75], dtype=_NUMPY[dtype])
    assert_bits_equal(op.run(x=x, weight=w), ref_prelu_weight(x, w, dtype), f"cast weight {dtype}")
    src = next((folder / "op_kernel").glob("*.cpp"))
    src.write_text(src.read_text().replace("Muls(neg, xLocal, this->weightVal, this->tileLength);",
                                           "float wf = ToFloat(this->weightVal);\n        "
                                           "Muls(neg, xLocal, this->weightVal, this->tileLength);"))
    assert_bits_equal(read_kernel(folder).run(x=x, weight=w), ref_prelu_weight(x, w, dtype), f"ToFloat {dtype}")
