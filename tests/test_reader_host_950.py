"""Issue 43, the host side of the 950's kernels: the tiling struct declared in ``op_host/arch35/``; the entry
declared with ops-nn's ``KERNEL_API``; a unit-test entry under ``#ifdef DTYPE_X`` beside the device's template
entry; ``REGISTER_NONE_TILING``; a class-style kernel of a 950-only op read, tiled and run as the 950's.
Fixtures written for these tests (tests/fixtures/kernels/host950_abs_scale, ut_split_entry), each run bit for
bit against a plain NumPy reference here; each refusal a KernelSourceError with file and line."""
import shutil
from pathlib import Path

import numpy as np
import pytest

from reference import assert_bits_equal

from swishgrad_numba.ops import read_kernel
from swishgrad_numba.platform import ARCH_950, ASCEND950_PLATFORM, REFERENCE_PLATFORM
from swishgrad_numba.reader import KernelSourceError

KERNELS = Path(__file__).parent / "fixtures" / "kernels"
ABS = KERNELS / "host950_abs_scale"
SPLIT = KERNELS / "ut_split_entry"
F32 = np.float32


def _x(n, seed):
    x = (np.random.default_rng(seed).standard_normal(n) * 100).astype(F32)
    x[:4] = [np.inf, -np.inf, 0.0, -0.0]
    return x


def _mul_add(x):
    """x * x + x in float32, each operation rounded once (Mul, then Add)."""
    with np.errstate(all="ignore"):
        return x * x + x


def _edited(tmp_path, src, file, old, new):
    dst = tmp_path / src.name
    shutil.copytree(src, dst)
    path = dst / file
    text = path.read_text()
    assert old in text
    path.write_text(text.replace(old, new))
    return dst


@pytest.fixture(scope="module")
def abs_op():
    return read_kernel(ABS)


def test_the_struct_is_read_from_op_host_arch35_and_the_kernel_api_entry_found(abs_op):
    assert abs_op.description.tiling.name == "AbsScaleTilingData"
    assert abs_op.record_dtype.names == ("tileDataNum", "tileNum", "tailDataNum", "scale")
    assert abs_op.description.name == "abs_scale" and abs_op.description.entry.endswith("abs_scale.cpp")


def test_a_class_style_kernel_of_a_950_only_op_is_the_950s(abs_op):
    assert abs_op.style == "a2" and abs_op.architecture == ARCH_950
    assert abs_op.default_platform.architecture == ARCH_950
    tiling = abs_op.tiling(1 << 22, "float32")        # split with the 950's 64 cores (the A2 has 48)
    assert tiling.architecture == ARCH_950 and tiling.block_dim == ASCEND950_PLATFORM.core_num == 64
    assert read_kernel(ABS, platform=ASCEND950_PLATFORM).architecture == ARCH_950
    with pytest.raises(ValueError, match=r"ascend910b.*runs the a2 kernel.*arch35 kernel"):
        read_kernel(ABS, platform=REFERENCE_PLATFORM)
    with pytest.raises(ValueError, match=r"ascend910b.*arch35 kernel"):
        abs_op.run(x=_x(64, 1), scale=1.0, platform=REFERENCE_PLATFORM)


def test_abs_scale_runs_bit_for_bit_on_the_950(abs_op):
    x = _x(5000, 3)
    assert_bits_equal(abs_op.run(x=x, scale=0.375), np.abs(x) * F32(0.375), "abs_scale float32 on the 950")


def test_the_device_template_entry_is_read_where_the_unit_test_build_is_refused():
    op = read_kernel(SPLIT)
    assert op.description.tiling.name == "MulAddTilingData" and op.architecture == ARCH_950
    x = _x(4096, 5)
    assert_bits_equal(op.run(x=x), _mul_add(x), "mul_add float32")


def test_register_none_tiling_declares_nothing(tmp_path):
    folder = _edited(tmp_path, SPLIT, "mul_add_apt.cpp", "REGISTER_TILING_DEFAULT(MulAddTilingData);",
                     "REGISTER_NONE_TILING;")
    assert read_kernel(folder).description.tiling.name == "MulAddTilingData"


@pytest.mark.parametrize("src, file, old, new, match", [
    # an op configured for the A2 too: its one entry is the A2's, op_host/arch35 is not read
    (ABS, "op_host/abs_scale_def.cpp", 'AddConfig("ascend950", regbase);',
     'AddConfig("ascend950", regbase);\n        this->AICore().AddConfig("ascend910b");',
     r"abs_scale\.h:\d+: cannot read member tiling->tileDataNum: .*nor declared in op_host"),
    # both builds refused (no struct registered on either): the dtype-flag build's refusal stands
    (SPLIT, "mul_add_apt.cpp", "REGISTER_TILING_DEFAULT(MulAddTilingData);\n"
     "    GET_TILING_DATA_WITH_STRUCT(MulAddTilingData, tilingData, tiling);",
     "REGISTER_NONE_TILING;\n    GET_TILING_DATA(tilingData, tiling);",
     r"mul_add\.h:\d+: cannot read member td->perLoop: no tiling struct was found"),
])
def test_refusals_name_file_and_line(tmp_path, src, file, old, new, match):
    with pytest.raises(KernelSourceError, match=match):
        read_kernel(_edited(tmp_path, src, file, old, new))


def test_the_template_entry_runs_on_a_given_record_with_its_own_scalar_code():
    op = read_kernel(SPLIT)
    x = _x(4096, 7)
    got = op.run(x=x, tiling={"perCore": 1024, "perLoop": 256}, block_dim=4)
    assert_bits_equal(got, _mul_add(x), "mul_add float32 on its own record")
