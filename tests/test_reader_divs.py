"""``AscendC::Divs(dst, src, scalar, count)`` in a read kernel (issue 43): read as ``Duplicate`` of the scalar
into a temporary and the program form's ``Div``; the model is IEEE float32 division of each element by the
scalar, rounded once to nearest even (swishgrad_numba/reader/divs.py). The kernel is wild_helper_gate with
its ``LeakyRelu`` calls made ``Divs`` (in place on the 16-bit path, out of place on float32); the reference
divides with NumPy in float32."""
import numpy as np
import pytest

from activation_checks import every16
from reference import SPECIALS, assert_bits_equal, random_inputs
from reference_family import narrow
from reader_variants import fixture_edited, refusal

from swishgrad_numba.ops import read_kernel

F32 = np.float32
CPP = "op_kernel/helper_gate.cpp"
IN_PLACE, FROM_V = "LeakyRelu(w, w, slope_, n);", "LeakyRelu(w, v, slope_, n);"


def ref_divided_gate(x, s):
    """Divs(w, x, s) (float32 x / s, one rounding), Mins(w, w, FLT_MAX), Muls(y, w, 2.0f); a 16-bit x widened
    exactly first and the result narrowed with CAST_RINT."""
    with np.errstate(all="ignore"):
        w = np.minimum(x.astype(F32) / F32(s), np.finfo(F32).max) * F32(2.0)
    return w if x.dtype == F32 else narrow(w, x.dtype, ties_away=False)


@pytest.fixture(scope="module")
def divided(tmp_path_factory):
    folder = fixture_edited(tmp_path_factory.mktemp("divs"), "wild_helper_gate",
                            [(CPP, IN_PLACE, IN_PLACE.replace("LeakyRelu", "Divs")),
                             (CPP, FROM_V, FROM_V.replace("LeakyRelu", "Divs"))])
    return read_kernel(folder / "op_kernel")


@pytest.mark.parametrize("dtype", ["float32", "float16", "bfloat16"])
def test_divs_is_ieee_float32_division_by_the_scalar(divided, dtype):
    if dtype == "float32":
        x = np.concatenate([random_inputs(np.random.default_rng(11), 3_000, F32)[1], SPECIALS.astype(F32)])
    else:
        x = every16(dtype)
    n, cores = x.size, 4
    for s in (3.0, -0.1, 7e-39, 0.0, -np.inf):
        tiling = dict(longCores=n % cores, longLength=n // cores + 1, shortLength=n // cores, tile=256, slope=s)
        got = divided.run(self=x, tiling=tiling, block_dim=cores)
        assert_bits_equal(got, ref_divided_gate(x, s), f"Divs by {s} on {dtype}")


def test_divs_is_a_duplicate_and_a_div_at_its_line(divided):
    steps = divided.description.body("float32").steps
    assert [s.op for s in steps[:2]] == ["Duplicate", "Div"] and steps[0].at == steps[1].at
    assert steps[1].args[2] == steps[0].args[0] != steps[1].args[1]      # divided by the duplicated scalar


def test_level0_and_bfloat16_divs_are_refused_with_file_and_line(tmp_path):
    mul = "AscendC::Muls(yLocal, xLocal, this->scale, this->len);"
    level0 = "AscendC::Divs(yLocal, xLocal, this->scale, 64, 1, {1, 1, 8, 8});"
    err, path = refusal(tmp_path, "plain_muls", mul, level0)
    assert (err.file, err.line, err.construct) == (str(path), 36, "Divs with 6 arguments")
    # plain_muls divides in its input's type: asc-devkit's Divs takes half and float only
    err, path = refusal(tmp_path / "b", "plain_muls", mul, mul.replace("Muls", "Divs"))
    assert (err.file, err.line, err.construct) == (str(path), 36, "Divs on bfloat16 into bfloat16")
