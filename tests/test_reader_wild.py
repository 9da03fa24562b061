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


def test_a_reinterpret_cast_between_other_types_is_refused(tmp_path):
    # half <-> int16_t is read as a bit view (issue 43, test_reader_bitviews.py); float <-> int16_t is not
    folder, _ = fixture_variant(tmp_path, "half_native", "Sub(zLocal, zLocal, yLocal",
                                "Sub(zLocal, zLocal, yLocal.ReinterpretCast<int16_t>()")
    host = folder / "op_host" / "half_native.cpp"      # float32 listed: a dtype op_host lists none of is left out
    host.write_text(host.read_text().replace("{ge::DT_FLOAT16, ge::DT_BF16}",
                                             "{ge::DT_FLOAT, ge::DT_FLOAT16, ge::DT_BF16}"))
    with pytest.raises(KernelSourceError, match="ReinterpretCast: a float32 tensor as int16_t"):
        read_kernel(folder)


def _one_buffer_for_both(tmp_path, offset="this->tileLength"):
    """half_native with x and y copied into one queue buffer, y the part from ``offset`` (``xLocal[n]``)."""
    folder, path = fixture_variant(tmp_path, "half_native", "pipe.InitBuffer(inQueueX, BUFFER_NUM, this->tileLength",
                                   "pipe.InitBuffer(inQueueX, BUFFER_NUM, 2 * this->tileLength")
    text = path.read_text()
    for old, new in [("LocalTensor<T> yLocal = inQueueY.AllocTensor<T>();", f"LocalTensor<T> yLocal = xLocal[{offset}];"),
                     ("LocalTensor<T> yLocal = inQueueY.DeQue<T>();", f"LocalTensor<T> yLocal = xLocal[{offset}];"),
                     ("inQueueY.EnQue(yLocal);", ""), ("inQueueY.FreeTensor(yLocal);", "")]:
        assert old in text
        text = text.replace(old, new)
    path.write_text(text)
    return folder, path


@pytest.mark.parametrize("dtype", ["float16"])
def test_a_local_tensor_at_an_offset_is_the_buffers_part(tmp_path, dtype):
    from test_reader_sixteen_bit import _inputs, ref_half_native

    folder, _ = _one_buffer_for_both(tmp_path)
    op = read_kernel(folder)
    assert str(op.program(dtype)) == str(read_kernel(KERNELS / "half_native").program(dtype))
    x, y = _inputs(dtype)
    assert_bits_equal(op.run(x=x, y=y), ref_half_native(x, y, dtype), f"one buffer {dtype}")


def test_overlapping_parts_of_a_buffer_are_refused_at_their_line(tmp_path):
    from test_reader_sixteen_bit import _inputs

    folder, path = _one_buffer_for_both(tmp_path, "this->tileLength / 2")
    x, y = _inputs("float16")
    with pytest.raises(KernelSourceError, match="overlaps") as e:
        read_kernel(folder).run(x=x, y=y)
    assert "xLocal[this->tileLength / 2]" in path.read_text().splitlines()[e.value.line - 1]


def test_a_narrowing_cast_none_is_cast_rint(tmp_path):
    # the RoundMode page: CAST_NONE is CAST_RINT where the conversion loses precision
    folder, _ = fixture_variant(tmp_path, "dtype_flags", "Cast(yLocal, xf, RoundMode::CAST_RINT",
                                "Cast(yLocal, xf, RoundMode::CAST_NONE")
    plain = read_kernel(KERNELS / "dtype_flags")
    for dtype in ("float16", "bfloat16"):
        assert str(read_kernel(folder).program(dtype)) == str(plain.program(dtype))
