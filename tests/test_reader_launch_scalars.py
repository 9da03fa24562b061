"""Scalars computed from attributes on the scalar unit, per launch (issue 43; ops-nn's EluGradV2 computes
``(inputScale_ == 0.0F) ? 0.0F : (factorNeg_ / inputScale_)``, SituGlu ``1.0f / beta_``): C's float
arithmetic, each operation rounded to float32 once; comparisons as IEEE 754 orders floats; the ternary
decided per launch. The kernel is plain_muls with its scalar made such an expression; the reference
computes the scalar with NumPy float32 scalars in C's order and multiplies."""
import numpy as np
import pytest

from reference import SPECIALS, assert_bits_equal, random_inputs
from reader_variants import fixture_variant, refusal

from swishgrad_numba.ops import read_kernel

F32 = np.float32
MULS = "AscendC::Muls(yLocal, xLocal, this->scale, this->len);"
NAN = float("nan")


def _run(tmp_path, expr, scale):
    folder, _ = fixture_variant(tmp_path, "plain_muls", MULS, MULS.replace("this->scale,", expr + ","))
    x = np.concatenate([random_inputs(np.random.default_rng(7), 300, F32)[1], SPECIALS.astype(F32)])
    return x, read_kernel(folder).run(x=x, scale=scale)


def _ternary(s):
    return F32(0.0) if s == F32(0.0) else F32(1.5) / s


@pytest.mark.parametrize("scale", [0.0, -0.0, 3.0, -7.1e-39, NAN, 1e-30])
def test_a_ternary_on_an_attribute_is_decided_per_launch(tmp_path, scale):
    x, got = _run(tmp_path, "(this->scale == 0.0f) ? 0.0f : (1.5f / this->scale)", scale)
    with np.errstate(all="ignore"):
        want = x * _ternary(F32(scale))
    assert_bits_equal(got, want, f"scale {scale}")


@pytest.mark.parametrize("scale", [0.7, -0.7, 0.0, -0.0, NAN])
def test_a_comparison_picks_either_side_and_nan_compares_false(tmp_path, scale):
    x, got = _run(tmp_path, "this->scale > 0.0f ? this->scale + 0.25f : 2.0f - this->scale * this->scale", scale)
    s = F32(scale)
    with np.errstate(all="ignore"):
        want = x * (s + F32(0.25) if s > F32(0.0) else F32(2.0) - s * s)
    assert_bits_equal(got, want, f"scale {scale}")


@pytest.mark.parametrize("scale", [0.1, 3.0e38, -1.0e-20])
def test_each_operation_is_rounded_to_float32_once(tmp_path, scale):
    # (s + 1) - 1 and s / 3 * 3 differ from s where float32 rounds between them; a product of the result
    x, got = _run(tmp_path, "((this->scale + 1.0f) - 1) * (this->scale / 3.0f * 3.0f) - -this->scale", scale)
    s = F32(scale)
    with np.errstate(all="ignore"):
        want = x * (((s + F32(1)) - F32(1)) * (s / F32(3) * F32(3)) - (-s))
    assert_bits_equal(got, want, f"scale {scale}")


def test_arithmetic_with_a_double_constant_is_refused(tmp_path):
    new = MULS.replace("this->scale,", "this->scale + 0.1,")
    err, path = refusal(tmp_path, "plain_muls", MULS, new)
    assert (err.file, err.line) == (str(path), 36) and "double" in err.detail, err


@pytest.mark.parametrize("scale", [0.5, 0.0, -3.0, NAN])
def test_a_branch_on_an_attribute_is_a_variant_per_way(tmp_path, scale):
    # issue 43 (.launch_branch): each way a variant, the record's value choosing the way (NaN > 0 is false)
    new = "if (this->scale > 0.0f) {\n" + MULS + "\n        } else {\n" + MULS.replace("this->scale,", "2.0f,") \
        + "\n        }"
    folder, _ = fixture_variant(tmp_path, "plain_muls", MULS, new)
    op = read_kernel(folder)
    assert op.variants("float32") == ("this->scale > 0.0f", "!(this->scale > 0.0f)")
    x = np.concatenate([random_inputs(np.random.default_rng(7), 64 - SPECIALS.size, F32)[1], SPECIALS.astype(F32)])
    with np.errstate(all="ignore"):
        want = x * (F32(scale) if F32(scale) > F32(0.0) else F32(2.0))
    got = op.run(x=x, tiling={"tileLength": 64, "scale": scale}, block_dim=1)
    assert_bits_equal(got, want, f"scale {scale}")


def test_a_guard_on_an_attribute_is_refused(tmp_path):
    new = "if (this->scale == 0.0f) {\n            return;\n        }\n        " + MULS
    err, path = refusal(tmp_path, "plain_muls", MULS, new)
    assert (err.file, err.line) == (str(path), 36) and "attribute values" in err.construct, err


def test_a_launch_scalar_needs_the_attributes_it_reads(tmp_path):
    folder, _ = fixture_variant(tmp_path, "plain_muls", MULS, MULS.replace("this->scale,", "1.0f / this->scale,"))
    with pytest.raises(TypeError, match="missing attribute 'scale'"):
        read_kernel(folder).run(x=np.ones(8, F32))
