"""What the ops-nn census and kernels from the wild stop on (issue 43), each in a fixture written for these
tests: hand synchronisation with named events (sync_events). References are plain NumPy."""
from pathlib import Path

import numpy as np
import pytest

from reference import assert_bits_equal
from reader_variants import fixture_variant

from swishgrad_numba.ops import read_kernel
from swishgrad_numba.reader import KernelSourceError

KERNELS = Path(__file__).parent / "fixtures" / "kernels"


def test_named_events_are_synchronisation_only():
    op = read_kernel(KERNELS / "sync_events")
    x = np.random.default_rng(3).normal(0, 4, 4 * 2048).astype(np.float32)
    x[:4] = [1e-30, 0.0, 3.0, 2.9999998]
    want = np.minimum(np.maximum(x, np.float32(0)) * np.float32(2), np.float32(6))
    assert_bits_equal(op.run(x=x), want, "sync_events")


def test_an_event_id_past_the_named_ones_is_unknown(tmp_path):
    folder, path = fixture_variant(tmp_path, "sync_events", "eventId = EVENT_ID0;", "eventId = EVENT_ID9;")
    with pytest.raises(KernelSourceError, match="EVENT_ID9"):
        read_kernel(folder)


def test_relative_includes_resolve_inside_the_operator_folder(tmp_path):
    new = '#include "../inc/platform.h"\n#include "../inc/scales.h"\n#include "kernel_operator.h"'
    folder, path = fixture_variant(tmp_path, "sync_events", '#include "kernel_operator.h"', new)
    text = path.read_text().replace("Muls(yLocal, yLocal, 2.0f,", "Muls(yLocal, yLocal, SHARED_GAIN,")
    path.write_text(text)
    (folder / "inc").mkdir()
    (folder / "inc" / "scales.h").write_text("constexpr float SHARED_GAIN = 2.0f;\n")
    (tmp_path / "inc").mkdir()          # beside the operator folder: never read
    (tmp_path / "inc" / "platform.h").write_text("#error outside\n")
    op = read_kernel(folder)            # ../inc/platform.h: inside the operator folder and absent, a library header
    assert "Muls(yLocal, yLocal, 2.0f)" in str(op.program("float32"))
    with pytest.raises(KernelSourceError, match="outside the kernel folder"):
        read_kernel(folder / "op_kernel")          # the op_kernel folder alone bounds its includes
    path.write_text(text.replace('"../inc/platform.h"', '"../../inc/platform.h"'))
    with pytest.raises(KernelSourceError, match="outside the kernel folder") as e:
        read_kernel(folder)
    assert "#error" not in str(e.value)


@pytest.mark.parametrize("dtype", ["float32", "float16", "bfloat16"])
def test_the_build_dtype_flags_are_set_per_dtype(dtype):
    import ml_dtypes

    t = {"float32": np.float32, "float16": np.float16, "bfloat16": ml_dtypes.bfloat16}[dtype]
    op = read_kernel(KERNELS / "dtype_flags")
    assert op.description.builds[dtype]["ORIG_DTYPE_X"] == {"float32": "DT_FLOAT", "float16": "DT_FLOAT16",
                                                            "bfloat16": "DT_BF16"}[dtype]
    x = np.random.default_rng(5).normal(0, 30, 2 * 2048).astype(t)
    want = (x.astype(np.float32) * np.float32(1.5) + np.float32(0.25)).astype(t)    # float32, rounded once
    assert_bits_equal(op.run(x=x), want, f"dtype_flags {dtype}")


@pytest.mark.parametrize("old, new", [
    ("static_cast<T>(-2.5f)", "(T)-2.5f"),                                     # a C cast of a signed literal
    ("Add(zLocal, xLocal, yLocal", "using namespace AscendC;\n        Add(zLocal, xLocal, yLocal"),
    ("Sub(zLocal, zLocal, yLocal", "Sub(zLocal, zLocal, yLocal.template ReinterpretCast<T>()"),   # to itself
])
def test_constructs_of_the_wild_read_as_the_plain_kernel(tmp_path, old, new):
    folder, _ = fixture_variant(tmp_path, "half_native", old, new)
    plain = read_kernel(KERNELS / "half_native")
    for dtype in ("float16", "bfloat16"):
        assert str(read_kernel(folder).program(dtype)) == str(plain.program(dtype))


def test_a_reinterpret_cast_to_another_type_is_refused(tmp_path):
    folder, _ = fixture_variant(tmp_path, "half_native", "Sub(zLocal, zLocal, yLocal",
                                "Sub(zLocal, zLocal, yLocal.ReinterpretCast<int16_t>()")
    with pytest.raises(KernelSourceError, match="ReinterpretCast.*another type"):
        read_kernel(folder)
