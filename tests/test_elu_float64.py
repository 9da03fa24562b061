"""float64 Elu: the AICPU kernel (activation/elu/op_kernel_aicpu/elu_aicpu.cpp) through sg.elu and aclnnElu,
bit for bit against a plain scalar transcription of EluDoCompute written here: its three attribute
branches, ``x >= 0``, and ``TransType<double>`` (the float printed with "%f", read back)."""
import math

import numpy as np
import pytest

import swishgrad_numba as sg
from aclnn_helpers import WORKSPACE, stream, tensor  # noqa: F401
from reference import assert_bits_equal
from swishgrad_numba import aclnn
from swishgrad_numba.aclnn import ACL_DOUBLE, ACL_FLOAT, ACLNN_SUCCESS

FLT_EPSILON = 2.0 ** -23


def _f32(v):
    return float(np.float32(v))


def _close_to_one(v):
    # std::fabs(v - 1.0F) < FLT_EPSILON, in float (the difference of two floats near 1 is exact)
    return abs(_f32(v) - 1.0) < FLT_EPSILON


def _trans(v):
    # atof(std::to_string(float)): six decimals
    return float(f"{_f32(v):f}")


def _exp(v):
    return math.inf if v > 709.8 else math.exp(v)   # C's exp overflows to inf past log(DBL_MAX)


def ref_aicpu_elu(x, alpha, scale, input_scale):
    out = []
    for v in x.reshape(-1).tolist():
        if all(_close_to_one(a) for a in (alpha, scale, input_scale)):
            out.append(v if v >= 0 else _exp(v) - 1.0)
        elif _close_to_one(scale) and _close_to_one(input_scale):
            out.append(v if v >= 0 else _trans(alpha) * (_exp(v) - 1.0))
        else:
            a, s, i = _trans(alpha), _trans(scale), _trans(input_scale)
            out.append(v * s if v >= 0 else a * s * (_exp(v * i) - 1.0))
    return np.array(out, np.float64).reshape(x.shape)


def _inputs():
    rng = np.random.default_rng(64)
    specials = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, -np.nan, 5e-324, -5e-324, -1e-300, -745.2, -709.0,
                         -40.0, -1e-8, 1e-8, 700.0, 1e308, -1e308])
    return np.concatenate([specials, rng.uniform(-30, 10, 3000), rng.standard_normal(1000) * 1e-3,
                           -np.exp(rng.uniform(-700, 6.6, 1000))])


ATTRS = [
    (1.0, 1.0, 1.0),                              # the TF defaults: exp(x) - 1
    (1.0 - 2.0 ** -24, 1.0, 1.0 - 2.0 ** -24),    # within FLT_EPSILON of 1: the same branch
    (1.1, 1.0, 1.0),                              # PyTorch's: alpha as "1.100000" -> 1.1, not 1.10000002
    (1.0 + 2.0 ** -23, 1.0, 1.0),                 # just outside: alpha 1.00000012 prints "1.000000"
    (0.5, 1.7, 0.3),                              # the general branch
    (1e-7, 2.0, 3.0),                             # alpha prints "0.000000": the negative side is 0 * ...
    (-2.5, 1.0507, 1.0),                          # negative alpha, SELU-like scale
    (1.0, 1.0, 1.0 + 2.0 ** -22),                 # inputScale just off 1: the general branch
    (2.0, 1e30, 0.5),                             # a large scale prints all its digits
    (1.5, np.inf, 1.0),                           # scale inf is no Threshold case: "inf" read back as inf
    (0.7, 1.3, -2.0),                             # negative inputScale: exp overflows to inf for x < -355
]


@pytest.mark.parametrize("attrs", ATTRS, ids=str)
def test_elu_float64_is_the_aicpu_kernel(attrs):
    x = _inputs()
    with np.errstate(all="ignore"):
        want = ref_aicpu_elu(x, *attrs)
        got = sg.elu(x, *attrs)
    assert got.dtype == np.float64
    assert_bits_equal(got, want, str(attrs))


def test_minus_zero_keeps_its_sign_and_nan_takes_the_exp_branch():
    got = sg.elu(np.array([-0.0, np.nan, -np.inf]), 0.5, 2.0, 1.0)
    assert np.signbit(got[0]) and got[0] == 0          # x >= 0 holds for -0: -0 * 2
    assert np.isnan(got[1])
    assert got[2] == -1.0                               # 0.5 * 2 * (exp(-inf) - 1)


def test_runs_on_any_platform_with_out_and_shape():
    x = _inputs()[:60].reshape(3, 4, 5)
    out = np.empty((3, 4, 5), np.float64)
    for platform in (sg.REFERENCE_PLATFORM, sg.ASCEND950_PLATFORM):
        assert sg.elu(x, 0.5, 1.7, 0.3, out=out, platform=platform) is out
        assert_bits_equal(out, ref_aicpu_elu(x, 0.5, 1.7, 0.3), platform.soc_version)


@pytest.mark.parametrize("attrs", [(np.inf, 2.0, 1.0), (1.0, 1.0, np.nan)], ids=str)
def test_non_finite_alpha_or_input_scale_takes_the_float32_threshold_path(attrs):
    # aclnn_elu.cpp: x cast to float32, Threshold(x, 0, -alpha) then Muls(scale) in float32, Cast to double
    x = _inputs()
    with np.errstate(all="ignore"):
        x32 = x.astype(np.float32)
        alpha, scale = np.float32(attrs[0]), np.float32(attrs[1])
        want = (np.where(x32 > 0, x32, -alpha) * scale).astype(np.float32).astype(np.float64)
    assert_bits_equal(sg.elu(x, *attrs), want, str(attrs))


def test_aclnn_elu_runs_float64(stream):  # noqa: F811
    x = _inputs()[:200].reshape(10, 20)
    out = np.zeros_like(x)
    status, ws, ex = aclnn.aclnnEluGetWorkspaceSize(tensor(x, ACL_DOUBLE), aclnn.aclCreateScalar(1.1, ACL_FLOAT),
                                                    aclnn.aclCreateScalar(1.0, ACL_FLOAT),
                                                    aclnn.aclCreateScalar(1.0, ACL_FLOAT), tensor(out, ACL_DOUBLE))
    assert status == ACLNN_SUCCESS and ws == 0
    assert aclnn.aclnnElu(WORKSPACE, ws, ex, stream) == ACLNN_SUCCESS
    assert aclnn.aclrtSynchronizeStream(stream) == aclnn.ACL_SUCCESS
    assert_bits_equal(out, ref_aicpu_elu(x, 1.1, 1.0, 1.0))


def test_elu_backward_refuses_float64_naming_the_rule():
    x = np.linspace(-2, 2, 5)
    with pytest.raises(TypeError, match="grad_output.dtype float64 .*aclnnEluBackward accepts float32"):
        sg.elu_backward(x, x)
