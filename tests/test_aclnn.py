"""Tests of the package swishgrad_numba.aclnn as a whole: its flat C namespace, the enum values, the sample.

The C enum values are written here from CANN's headers (``acl_base.h``, ``aclnn/acl_meta.h``,
``acl_rt.h``), independently of the package. Results are compared bit for bit with ``swish_backward`` (tested on
its own elsewhere) and with the independent float32 reference of ``tests/reference.py``.
"""
import numpy as np
import pytest

from aclnn_helpers import bits, reference_platform, run_sample  # noqa: F401  (fixture)
from reference import assert_bits_equal, ref_swish_grad
from swishgrad_numba import aclnn, swish_backward
from swishgrad_numba.aclnn import ACL_FLOAT, ACL_FORMAT_ND, ACLNN_ERR_PARAM_INVALID, ACLNN_SUCCESS
from swishgrad_numba.dtypes import DTYPES

# Every public name, with its C value where it has one: the namespace C code translates into.
C_ENUMS = {
    "ACL_SUCCESS": 0, "ACL_ERROR_INVALID_PARAM": 100000, "ACL_ERROR_RT_PARAM_INVALID": 107000,
    "ACL_ERROR_RT_MEMORY_ALLOCATION": 207001, "ACL_ERROR_RT_INTERNAL_ERROR": 507000,
    "ACL_ERROR_RT_FEATURE_NOT_SUPPORT": 207000, "ACL_RT_OVERFLOW_MODE_SATURATION": 0, "ACL_RT_OVERFLOW_MODE_INFNAN": 1,
    "ACL_RT_OVERFLOW_MODE_UNDEF": 2,
    "ACLNN_SUCCESS": 0, "ACLNN_ERR_PARAM_NULLPTR": 161001, "ACLNN_ERR_PARAM_INVALID": 161002,
    "ACLNN_ERR_RUNTIME_ERROR": 361001, "ACLNN_ERR_INNER": 561000, "ACLNN_ERR_INNER_NULLPTR": 561103,
    "ACLNN_ERR_INNER_EXECUTOR_REUSED": 561901, "ACLNN_ERR_INNER_TENSOR_DESTROYED": 561902,  # emulator codes
    "ACL_DT_UNDEFINED": -1, "ACL_FLOAT": 0, "ACL_FLOAT16": 1, "ACL_INT8": 2, "ACL_INT32": 3, "ACL_UINT8": 4,
    "ACL_INT16": 6, "ACL_UINT16": 7, "ACL_UINT32": 8, "ACL_INT64": 9, "ACL_UINT64": 10, "ACL_DOUBLE": 11,
    "ACL_BOOL": 12, "ACL_COMPLEX64": 16, "ACL_COMPLEX128": 17, "ACL_BF16": 27,
    "ACL_FORMAT_UNDEFINED": -1, "ACL_FORMAT_NCHW": 0, "ACL_FORMAT_NHWC": 1, "ACL_FORMAT_ND": 2,
    "ACL_FORMAT_NC1HWC0": 3, "ACL_FORMAT_FRACTAL_NZ": 29,
    "ACL_MEM_MALLOC_HUGE_FIRST": 0, "ACL_MEM_MALLOC_HUGE_ONLY": 1, "ACL_MEM_MALLOC_NORMAL_ONLY": 2,
    "ACL_MEMCPY_HOST_TO_HOST": 0, "ACL_MEMCPY_HOST_TO_DEVICE": 1, "ACL_MEMCPY_DEVICE_TO_HOST": 2,
    "ACL_MEMCPY_DEVICE_TO_DEVICE": 3, "MAX_DIM": 8,
}
C_FUNCTIONS = """aclTensor aclScalar aclOpExecutor aclrtStream aclCreateTensor aclDestroyTensor aclCreateScalar
    aclDestroyScalar aclnnSwishBackwardGetWorkspaceSize aclnnSwishBackward aclInit aclFinalize aclrtSetDevice
    aclrtResetDevice aclrtCreateStream aclrtSynchronizeStream aclrtDestroyStream aclrtMalloc aclrtFree aclrtMemcpy
    aclGetRecentErrMsg set_platform get_platform aclnnSwishGetWorkspaceSize aclnnSwish aclnnSiluGetWorkspaceSize
    aclnnSilu aclnnSiluBackwardGetWorkspaceSize aclnnSiluBackward aclrtSetDeviceSatMode aclrtGetDeviceSatMode
    aclnnFastGeluGetWorkspaceSize aclnnFastGelu aclnnFastGeluBackwardGetWorkspaceSize aclnnFastGeluBackward""".split()
C_FUNCTIONS += """aclnnSigmoidGetWorkspaceSize aclnnSigmoid aclnnInplaceSigmoidGetWorkspaceSize aclnnInplaceSigmoid
    aclnnSigmoidBackwardGetWorkspaceSize aclnnSigmoidBackward""".split()     # issue 29
C_FUNCTIONS += """aclnnGeluGetWorkspaceSize aclnnGelu aclnnGeluBackwardGetWorkspaceSize aclnnGeluBackward""".split()
C_FUNCTIONS += """aclnnLeakyReluGetWorkspaceSize aclnnLeakyRelu aclnnInplaceLeakyReluGetWorkspaceSize aclnnInplaceLeakyRelu
    aclnnLeakyReluBackwardGetWorkspaceSize aclnnLeakyReluBackward""".split()     # issue 30
C_FUNCTIONS += """aclnnSoftplusGetWorkspaceSize aclnnSoftplus aclnnSoftplusBackwardGetWorkspaceSize
    aclnnSoftplusBackward""".split()     # issue 30
C_FUNCTIONS += """aclnnEluGetWorkspaceSize aclnnElu aclnnEluBackwardGetWorkspaceSize aclnnEluBackward""".split()
C_FUNCTIONS += """aclnnGeluV2GetWorkspaceSize aclnnGeluV2 aclnnGeluBackwardV2GetWorkspaceSize
    aclnnGeluBackwardV2""".split()     # issue 30
C_FUNCTIONS += ["aclnnRmsNormGetWorkspaceSize", "aclnnRmsNorm"]     # issue 42
C_ENUMS["ACLNN_ERR_INNER_TILING_ERROR"] = 561002     # issue 42 (aclnnRmsNorm's page)
C_FUNCTIONS += """aclnnHardswishGetWorkspaceSize aclnnHardswish aclnnInplaceHardswishGetWorkspaceSize
    aclnnInplaceHardswish aclnnHardswishBackwardGetWorkspaceSize aclnnHardswishBackward aclnnMishGetWorkspaceSize
    aclnnMish aclnnInplaceMishGetWorkspaceSize aclnnInplaceMish aclnnMishBackwardGetWorkspaceSize
    aclnnMishBackward""".split()     # issue 41
C_FUNCTIONS += ["aclnnSwiGluGetWorkspaceSize", "aclnnSwiGlu", "aclnnSwiGluGradGetWorkspaceSize",
                "aclnnSwiGluGrad"]     # issue 41
C_FUNCTIONS += """aclnnReluGetWorkspaceSize aclnnRelu aclnnInplaceReluGetWorkspaceSize aclnnInplaceRelu
    aclnnThresholdBackwardGetWorkspaceSize aclnnThresholdBackward""".split()     # issue 41


# --------------------------------------------------------------------------
# The namespace
# --------------------------------------------------------------------------


def test_the_flat_namespace_is_the_c_api():
    assert sorted(aclnn.__all__) == sorted([*C_ENUMS, *C_FUNCTIONS])
    namespace = {}
    exec("from swishgrad_numba.aclnn import *", namespace)
    assert set(namespace) - {"__builtins__"} == set(aclnn.__all__)
    for name, value in C_ENUMS.items():
        assert type(getattr(aclnn, name)) is int and getattr(aclnn, name) == value, name
    assert all(callable(getattr(aclnn, name)) for name in C_FUNCTIONS)


def test_private_helpers_stay_private():
    assert not [name for name in vars(aclnn) if name.startswith("_") and not name.startswith("__")]


@pytest.mark.parametrize("info", DTYPES.values(), ids=lambda info: info.name)
def test_kernel_data_types_come_from_the_dtype_table(info):
    """Each row's aclDataType value and name is the C enum's, a tensor of it holds the row's NumPy dtype, and
    phase one accepts it (the reference A2 accepts all three)."""
    assert getattr(aclnn, info.acl_name) == info.acl_data_type
    a = np.zeros((2, 3), info.numpy)
    t = aclnn.aclCreateTensor(a.shape, info.acl_data_type, None, 0, ACL_FORMAT_ND, a.shape, a)
    assert t.dtype == info.numpy and info.acl_name in repr(t)
    assert aclnn.aclnnSwishBackwardGetWorkspaceSize(t, t, None, t)[0] == ACLNN_SUCCESS


def test_an_unsupported_data_type_names_the_table_s_three():
    a = np.zeros(3, np.float64)
    t = aclnn.aclCreateTensor(a.shape, aclnn.ACL_DOUBLE, None, 0, ACL_FORMAT_ND, a.shape, a)
    assert aclnn.aclnnSwishBackwardGetWorkspaceSize(t, t, None, t)[0] == ACLNN_ERR_PARAM_INVALID
    message = aclnn.aclGetRecentErrMsg()
    listed = message.split("must be one of ", 1)[1].split(", ")
    assert sorted(listed) == sorted(info.acl_name for info in DTYPES.values())


# --------------------------------------------------------------------------
# The seed sample
# --------------------------------------------------------------------------


def test_translated_c_sample_prints_the_seed_values():
    rc, got = run_sample()
    assert rc == 0 and got.size == 6
    g, x = np.ones(6, np.float32), np.arange(1, 7, dtype=np.float32)
    np.testing.assert_array_equal(bits(got), bits(swish_backward(g, x, np.float32(1.1))))
    assert_bits_equal(got, ref_swish_grad(g, x, np.float32(1.1)))
    spec = np.array([0.95636696, 1.0978101, 1.0776381, 1.0405896, 1.0182244, 1.0075958], dtype=np.float32)
    np.testing.assert_array_equal(bits(got), bits(spec))
    # the same six values as `swishgrad demo` prints for float32
    from swishgrad_numba.cli.demo import run_demo

    lines = []
    run_demo(out=lines.append)
    demo = [line.split(":", 1)[1].split() for line in lines if line.startswith("[float32] gradInput")]
    assert len(demo) == 1
    np.testing.assert_array_equal(bits(np.array(demo[0], dtype=np.float32)), bits(got))


# --------------------------------------------------------------------------
# Every entry point answers garbage with a status
# --------------------------------------------------------------------------


def test_garbage_arguments_return_errors_and_never_raise():
    odd = [None, [], [1], "x", 1.5, -1, object(), {"a": 1}, np.zeros(3), True]
    for v in odd:
        assert aclnn.aclCreateTensor(v, ACL_FLOAT, None, 0, ACL_FORMAT_ND, None, np.zeros(3, np.float32)) is None \
            or v in ([], [1])
        assert aclnn.aclCreateTensor((3,), v, None, 0, ACL_FORMAT_ND, None, np.zeros(3, np.float32)) is None
        assert aclnn.aclCreateTensor((3,), ACL_FLOAT, None, 0, v, None, np.zeros(3, np.float32)) is None
        assert aclnn.aclCreateScalar(1.0, v) is None
        assert aclnn.aclnnSwishBackwardGetWorkspaceSize(v, v, None, v)[0] != ACLNN_SUCCESS
        assert aclnn.aclnnSwishBackward(v, v, v, v) != ACLNN_SUCCESS
        assert aclnn.aclrtSynchronizeStream(v) == aclnn.ACL_SUCCESS if v is None else \
            aclnn.aclrtSynchronizeStream(v) == aclnn.ACL_ERROR_RT_PARAM_INVALID
        assert aclnn.aclrtMemcpy(v, 4, v, 4, v) == aclnn.ACL_ERROR_INVALID_PARAM
        assert aclnn.aclrtMalloc(v)[0] == aclnn.ACL_ERROR_INVALID_PARAM
    assert aclnn.aclGetRecentErrMsg()
