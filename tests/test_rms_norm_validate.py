"""swishgrad_numba.ops.rms_norm.validate (issue 42): every mode's schedule covers y and rstd exactly once;
a broken schedule is found."""
import numpy as np
import pytest

from swishgrad_numba.ops.rms_norm import kernel_a2
from swishgrad_numba.ops.rms_norm.validate import validate
from swishgrad_numba.platform import ASCEND950_PLATFORM, Platform


@pytest.mark.parametrize("shape, platform, mode", [
    ((100, 300), Platform(), "merge_n"), ((50, 3000), Platform(), "normal"), ((3, 20000), Platform(), "split_d"),
    ((130, 300), ASCEND950_PLATFORM, "full_load"), ((2, 20000), ASCEND950_PLATFORM, "split")])
def test_every_mode_is_valid(shape, platform, mode):
    v = validate(shape, shape[-1:], np.float16, platform=platform)
    assert v.ok and v.mode == mode, v.findings
    assert v.block_dim == -(-shape[0] // v.rows_per_core)


def test_a_schedule_that_skips_a_row_is_found(monkeypatch):
    real = kernel_a2.schedule

    def skipping(t, segments):
        tiles, core_ptr = real(t, segments)
        return tiles[:-1], np.minimum(core_ptr, len(tiles) - 1)

    monkeypatch.setattr("swishgrad_numba.ops.rms_norm.validate.schedule", skipping)
    v = validate((10, 300), (300,))
    assert not v.ok and any("exactly once" in f for f in v.findings)
