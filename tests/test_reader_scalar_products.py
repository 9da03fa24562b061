"""Products of attributes on the scalar unit (issue 43; ops-nn's A2 EluGradV2 computes
``alpha * scale * inputScale``): C multiplies left to right, each float product rounded to float32 once; a
product with a ``double`` constant is a double, which a further product would round twice, so that is
refused. The kernel is plain_muls with its scalar made such a product; the reference multiplies with
NumPy in float32, in C's order."""
import numpy as np
import pytest

from reference import SPECIALS, assert_bits_equal, random_inputs
from reader_variants import fixture_variant, refusal

from swishgrad_numba.ops import read_kernel

F32 = np.float32
MULS = "AscendC::Muls(yLocal, xLocal, this->scale, this->len);"


@pytest.mark.parametrize("scale", [0.1, -3.3e-20, 1.7e19, 3.0e38])
def test_a_product_of_three_is_rounded_after_each_multiplication(tmp_path, scale):
    new = MULS.replace("this->scale,", "this->scale * this->scale * 1.5f,")
    folder, _ = fixture_variant(tmp_path, "plain_muls", MULS, new)
    x = np.concatenate([random_inputs(np.random.default_rng(5), 400, F32)[1], SPECIALS.astype(F32)])
    s = F32(scale)
    with np.errstate(all="ignore"):
        want = x * ((s * s) * F32(1.5))
    assert_bits_equal(read_kernel(folder).run(x=x, scale=scale), want, f"scale {scale}")


def test_a_double_product_multiplied_again_is_refused(tmp_path):
    new = MULS.replace("this->scale,", "this->scale * 1.5 * this->scale,")
    err, path = refusal(tmp_path, "plain_muls", MULS, new)
    assert (err.file, err.line) == (str(path), 36) and "double product" in err.detail, err
