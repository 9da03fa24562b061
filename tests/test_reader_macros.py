"""Function-like macros, reinterpret_cast of a GM address, SetL2CacheHint and REGISTER_TILING_FOR_TILINGKEY
(issue 43), in a fork-style fixture written for these tests (fork_macros), bit for bit against a
reference written here instruction by instruction, on the template's walk and on the kernel's own
schedule (tiling=); what is not read refused at its line."""
from pathlib import Path

import numpy as np
import pytest

from activation_checks import every16
from reference import SPECIALS, assert_bits_equal, random_inputs
from reference_family import narrow
from reader_variants import fixture_variant

from swishgrad_numba.ops import read_kernel
from swishgrad_numba.reader import KernelSourceError, read_source

KERNELS = Path(__file__).parent / "fixtures" / "kernels"
F32 = np.float32


def ref_fork_macros(x, shift):
    """Adds shift (after an exact widening for 16-bit), Abs, Muls 0.25f; float32: Adds 0.0f; 16-bit:
    Cast CAST_RINT."""
    with np.errstate(all="ignore"):
        w = x.astype(F32) + F32(shift)
        w = np.abs(w)
        w = w * F32(0.25)
        if x.dtype == F32:
            return w + F32(0.0)
    return narrow(w, x.dtype, ties_away=False)


@pytest.fixture(scope="module")
def fork():
    return read_kernel(KERNELS / "fork_macros")


@pytest.mark.parametrize("dtype", ["float32", "float16", "bfloat16"])
def test_fork_macros_bit_for_bit(fork, dtype):
    x = np.concatenate([random_inputs(np.random.default_rng(3), 4_066, F32)[1], SPECIALS.astype(F32)]) \
        if dtype == "float32" else every16(dtype)
    assert_bits_equal(fork.run(x=x, shift=-0.75), ref_fork_macros(x, -0.75), f"fork_macros {dtype}")
    n = x.size              # the kernel's own tiling: 4 cores of 4 tiles, through its reinterpret_cast addresses
    own = {"blockLength": n // 4, "tileNum": 4, "tileLength": n // 16, "shift": 1.5}
    assert_bits_equal(fork.run(x=x, tiling=own, block_dim=4), ref_fork_macros(x, 1.5), f"fork_macros {dtype} own")


def _variant(tmp_path, old, new):
    return fixture_variant(tmp_path, "fork_macros", old, new)


@pytest.mark.parametrize("old, new, line, words", [
    ("QUARTER_OF(1.0f)", "QUARTER_OF(1.0f, 2.0f)", 53, "macro QUARTER_OF: called with 2 arguments, defined with 1"),
    ("QUARTER_OF(1.0f)", "reinterpret_cast<float>(this->tileLength)", 53, "reinterpret_cast"),
    ("REGISTER_TILING_FOR_TILINGKEY(\"TILING_KEY_VAR == 1\", ForkMacrosTilingData);",
     "REGISTER_TILING_FOR_TILINGKEY(\"TILING_KEY_VAR == 1\", OtherTiling);", 76,
     "GET_TILING_DATA under REGISTER_TILING_FOR_TILINGKEY of OtherTiling"),
])
def test_what_is_not_read_is_refused_at_its_line(tmp_path, old, new, line, words):
    folder, path = _variant(tmp_path, old, new)
    with pytest.raises(KernelSourceError) as e:
        read_source(folder)
    assert e.value.file == str(path) and e.value.line == line and words in str(e.value), str(e.value)


def test_a_macro_is_not_expanded_inside_itself(tmp_path):
    nested = "#define TWICE(v) (QUARTER_OF(v) * 8.0f)\n#define SELF(v) (SELF + (v))\n"
    folder, path = _variant(tmp_path, "constexpr int32_t BUFFER_NUM = 2;", nested + "constexpr int32_t BUFFER_NUM = 2;")
    text = path.read_text()
    path.write_text(text.replace("QUARTER_OF(1.0f)", "TWICE(1.0f)"))
    (step,) = [s for s in read_source(folder).body("float32").steps if s.op == "Muls"]
    assert step.args[2].value == 2.0                           # ((1.0f) * 0.25f) * 8.0f
    path.write_text(text.replace("QUARTER_OF(1.0f)", "SELF(1.0f)"))
    with pytest.raises(KernelSourceError, match="name SELF") as e:      # SELF inside SELF stays a name
        read_source(folder)
    assert e.value.line == 55
