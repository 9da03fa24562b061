"""A read kernel's counts checked against its InitBuffer sizes (issue 43): a copy or vector call over more
elements than its buffer holds would overrun UB on the device, so it is refused (at read time where both are
constants, at launch where the tiling gives them), naming the buffer, its bytes, the instruction and the
count at its file and line. The fixture ub_overrun is written for these tests: its float32 work buffer is
sized by sizeof(T), which holds a float tile only where T is float."""
from pathlib import Path

import numpy as np
import pytest

from reference import SPECIALS, assert_bits_equal, random_inputs
from reference_family import narrow
from reader_variants import fixture_variant

from swishgrad_numba.ops import read_kernel
from swishgrad_numba.reader import KernelSourceError

KERNELS = Path(__file__).parent / "fixtures" / "kernels"
SOURCE = KERNELS / "ub_overrun" / "ub_overrun.cpp"
F32 = np.float32
TILING = {"blockLength": 512, "tileLength": 128, "scale": -0.375}


def ref_ub_overrun(x, scale):
    """Muls(w, x, scale); Adds(y, w, 1.0f) in float32; a 16-bit x widened exactly, the result narrowed to
    nearest even (Cast CAST_RINT)."""
    with np.errstate(all="ignore"):
        y = x.astype(F32) * F32(scale) + F32(1.0)
    return y if x.dtype == F32 else narrow(y, x.dtype, ties_away=False)


def _line(text, path=SOURCE):
    return next(i for i, s in enumerate(Path(path).read_text().splitlines(), 1) if text in s)


def _inputs(dtype, n=2 * 512):
    x = np.concatenate([random_inputs(np.random.default_rng(43), n - SPECIALS.size, F32)[1], SPECIALS.astype(F32)])
    with np.errstate(over="ignore"):
        return x.astype(dtype)


def test_a_buffer_that_fits_runs_bit_for_bit():
    x = _inputs(F32)
    got = read_kernel(KERNELS / "ub_overrun").run(x=x, tiling=TILING, block_dim=2)
    assert_bits_equal(got, ref_ub_overrun(x, TILING["scale"]), "ub_overrun float32")


def test_an_overrun_at_launch_names_buffer_bytes_instruction_count_and_line():
    op = read_kernel(KERNELS / "ub_overrun")
    with pytest.raises(KernelSourceError) as e:
        op.run(x=_inputs(np.float16), tiling=TILING, block_dim=2)
    err = e.value
    assert (Path(err.file).name, err.line) == ("ub_overrun.cpp", _line("Cast(work, xLocal"))
    for part in ("Cast over 128 elements of workBuf", "512 bytes of float32", "buffer workBuf holds 256 bytes",
                 f"InitBuffer at {err.file}:{_line('InitBuffer(workBuf')}"):
        assert part in str(err)
    with pytest.raises(KernelSourceError, match="Cast over 64 elements of workBuf"):    # whatever the tile
        op.run(x=_inputs(np.float16), tiling={**TILING, "tileLength": 64}, block_dim=2)


def test_the_fixed_buffer_runs_bit_for_bit(tmp_path):
    folder, _ = fixture_variant(tmp_path, "ub_overrun", "InitBuffer(workBuf, this->tileLength * sizeof(T))",
                                "InitBuffer(workBuf, this->tileLength * sizeof(float))")
    for dtype in (np.float16, np.float32):
        x = _inputs(dtype)
        got = read_kernel(folder).run(x=x, tiling=TILING, block_dim=2)
        assert_bits_equal(got, ref_ub_overrun(x, TILING["scale"]), f"fixed ub_overrun {np.dtype(dtype)}")


def test_a_copy_past_a_buffer_of_part_of_a_tile_is_refused_at_launch(tmp_path):
    """The input queue's buffers hold 100 bytes (rounded up to 128, four blocks), the copy 128 elements."""
    folder, path = fixture_variant(tmp_path, "ub_overrun", "InitBuffer(inQ, BUFFER_NUM, this->tileLength * sizeof(T))",
                                   "InitBuffer(inQ, BUFFER_NUM, 100)")
    op = read_kernel(folder)
    with pytest.raises(KernelSourceError, match=r"DataCopy over 128 elements of inQ: 512 bytes of float32, but "
                                                r"buffer inQ holds 100 bytes") as e:
        op.run(x=_inputs(F32), tiling=TILING, block_dim=2)
    assert e.value.line == _line("DataCopy(xLocal", path)
    small = {**TILING, "tileLength": 32}          # 128 bytes: within the block the 100 are rounded up to
    x = _inputs(F32)
    assert_bits_equal(op.run(x=x, tiling=small, block_dim=2), ref_ub_overrun(x, small["scale"]), "32-element tiles")


def test_constant_sizes_are_checked_when_the_kernel_is_read(tmp_path):
    folder, path = fixture_variant(tmp_path, "ub_overrun", "DataCopy(xLocal, xGm[i * this->tileLength], this->tileLength)",
                                   "DataCopy(xLocal, xGm[i * this->tileLength], 256)")
    text = path.read_text().replace("InitBuffer(inQ, BUFFER_NUM, this->tileLength * sizeof(T))",
                                    "InitBuffer(inQ, BUFFER_NUM, 512)")
    path.write_text(text)
    with pytest.raises(KernelSourceError, match=r"DataCopy over 256 elements of inQ: 1024 bytes of float32, but "
                                                r"buffer inQ holds 512 bytes") as e:
        read_kernel(folder)
    assert e.value.line == _line("DataCopy(xLocal", path)
