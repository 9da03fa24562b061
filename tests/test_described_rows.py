"""The "rows" kernel kind of the descriptions (issue 40: SwiGlu, SwiGluGrad, RmsNorm): the registry holds the row
operators apart from the element-wise walk's consumers, the generated faces share one message per rule, and the aclnn
pair refuses what the functional face refuses. (The faces' bits: tests/test_described.py and the SwiGlu tests.)"""
import numpy as np
import pytest

from aclnn_helpers import reference_platform, tensor  # noqa: F401
from reference import assert_bits_equal
import swishgrad_numba as sg
from swishgrad_numba import aclnn
from swishgrad_numba.aclnn import ACLNN_ERR_PARAM_INVALID, ACLNN_SUCCESS
from swishgrad_numba.ops import OPERATORS, get_operator
from swishgrad_numba.ops.registry import ROWS, every_operator

F32 = np.float32


def test_the_row_operators_are_registered_apart_and_found():
    for name, functional, pair in (("swiglu", "swiglu", "aclnnSwiGlu"), ("swiglu_grad", "swiglu_backward",
                                                                          "aclnnSwiGluGrad")):
        op = get_operator(name)
        assert name in ROWS and name not in OPERATORS and name in every_operator()
        assert op.kind == "rows" and op.functional == functional and op.aclnn[1] == pair
        assert getattr(sg, functional) is getattr(sg.ops.swi_glu, functional)
        assert {k.walk for k in op.kernels.values()} == {"rows"}
    with pytest.raises(ValueError, match="'swiglu' is a row operator.*--op swiglu"):
        sg.compute_tiling(64, "float32", op="swiglu")


def test_a_soc_without_a_modelled_kernel_is_refused_by_the_registry():
    op = get_operator("swiglu")
    assert op.kernel_refusal(sg.Platform(soc_version="ascend310p")).startswith(
        "the SwiGlu kernel of SoC 'ascend310p' is not modelled")
    assert op.kernel_refusal(sg.REFERENCE_PLATFORM) is None and op.kernel_refusal(sg.ASCEND950_PLATFORM) is None


def _phase_one(x, dim, out):
    status, _ws, _ex = aclnn.aclnnSwiGluGetWorkspaceSize(tensor(x), dim, tensor(out))
    return status, aclnn.aclGetRecentErrMsg()


@pytest.mark.parametrize("x, dim", [(np.ones((3, 5), F32), -1), (np.ones((3, 4), F32), 2),
                                    (np.ones((3, 4), F32), True), (np.ones((3, 4), F32), np.float64(1.0))])
def test_one_message_per_rule_in_both_faces(x, dim):
    """An odd axis, an axis out of range, a bool or a float for the int64 ``dim``: both faces refuse, with the
    same words."""
    with pytest.raises((TypeError, ValueError)) as e:
        sg.swiglu(x, dim)
    status, message = _phase_one(x, dim, np.zeros((3, 2), F32))
    assert status == ACLNN_ERR_PARAM_INVALID and str(e.value) in message, (str(e.value), message)


def test_an_integer_dim_of_numpy_works_in_both_faces():
    x = np.linspace(-3, 3, 24, dtype=F32).reshape(4, 6)
    want = sg.swiglu(x, 0)
    out = np.zeros_like(want)
    status, ws, ex = aclnn.aclnnSwiGluGetWorkspaceSize(tensor(x), np.int64(0), tensor(out))
    assert status == ACLNN_SUCCESS and ws == 16 * 1024 * 1024
    assert aclnn.aclnnSwiGlu(np.zeros(ws, np.uint8), ws, ex, None) == ACLNN_SUCCESS
    assert aclnn.aclrtSynchronizeStream(None) == aclnn.ACL_SUCCESS
    assert np.array_equal(out.view(np.uint32), sg.swiglu(x, np.int64(0)).view(np.uint32))


def test_the_dask_face_refuses_an_empty_grad_when_the_graph_is_built():
    da = pytest.importorskip("dask.array")
    from swishgrad_numba import dask as sgd

    with pytest.raises(ValueError, match=r"x \(0, 4\) is empty"):
        sgd.swiglu_backward(da.zeros((0, 2), dtype=F32), da.zeros((0, 4), dtype=F32))
    assert sgd.swiglu(da.zeros((0, 4), dtype=F32)).compute().shape == (0, 2)


def test_rms_norm_is_a_row_operator_with_two_outputs_and_a_double_epsilon():
    """RmsNorm (its row the last gamma.ndim axes of x): registered as a row operator; aclnnRmsNorm takes epsilon as a
    C double (a string is refused, 161002) and keeps its page's rstdOut rule (x's rank, each axis x's or 1, a value
    per row: (1, 3) for x (3, 3)); the functional face returns (y, rstd)."""
    op = get_operator("rms_norm")
    assert "rms_norm" in ROWS and "rms_norm" not in OPERATORS and op.kind == "rows"
    x, g = np.linspace(-2, 2, 9, dtype=F32).reshape(3, 3), np.ones(3, F32)
    y, rstd = sg.rms_norm(x, g)
    assert y.shape == (3, 3) and rstd.shape == (3, 1) and rstd.dtype == F32
    status, _, _ = aclnn.aclnnRmsNormGetWorkspaceSize(tensor(x), tensor(g), "1e-6", tensor(np.zeros_like(x)),
                                                      tensor(np.zeros((3, 1), F32)))
    assert status == ACLNN_ERR_PARAM_INVALID and "epsilon must be a double" in aclnn.aclGetRecentErrMsg()
    flat = np.zeros((1, 3), F32)
    status, ws, ex = aclnn.aclnnRmsNormGetWorkspaceSize(tensor(x), tensor(g), 1e-6, tensor(np.zeros_like(x)),
                                                        tensor(flat))
    assert status == ACLNN_SUCCESS, aclnn.aclGetRecentErrMsg()
    assert aclnn.aclnnRmsNorm(np.zeros(ws, np.uint8), ws, ex, None) == ACLNN_SUCCESS
    assert aclnn.aclrtSynchronizeStream(None) == aclnn.ACL_SUCCESS
    assert np.array_equal(flat.reshape(-1).view(np.uint32), rstd.reshape(-1).view(np.uint32))


def test_a_call_of_a_form_seen_before_goes_straight_to_its_launch(monkeypatch):
    """The row face keeps what its checks and the host gave per call form (faces.rows.ROW_PLANS): the same form
    again is not checked again, any other form (an attribute's value, a dtype, a shape, strides, the platform) is;
    every call gives the reference's bits, and ``out`` is checked at every call."""
    from reference_rms_norm import rms_norm_a2
    from reference_swiglu import swiglu_ref
    from swishgrad_numba.faces import rows as face_rows

    seen = []
    real = face_rows.checked
    monkeypatch.setattr(face_rows, "checked", lambda desc, values: seen.append(desc.name) or real(desc, values))
    rng = np.random.default_rng(3)
    x = rng.standard_normal((4, 64)).astype(np.float32)
    gamma = rng.standard_normal(64).astype(np.float32)
    sg.rms_norm(x, gamma, 1e-6)
    for _ in range(3):
        y, rstd = sg.rms_norm(x, gamma, 1e-6)
        assert_bits_equal(y, rms_norm_a2(x, gamma, 1e-6)[0])
    assert seen.count("rms_norm") <= 1               # one plan (none where an earlier test planned this form)
    for args, kw in [((x, gamma, 1e-3), {}), ((x.astype(np.float16), gamma.astype(np.float16), 1e-6), {}),
                     ((x[:2], gamma, 1e-6), {}), ((np.asfortranarray(x), gamma, 1e-6), {}),
                     ((x, gamma, 1e-6), {"platform": sg.ASCEND950_PLATFORM}),
                     ((x, gamma, 1e-6), {"order": "sequential"})]:
        before = len(seen)
        sg.rms_norm(*args, **kw)
        got = sg.rms_norm(*args, **kw)
        assert len(seen) <= before + 1
        if "platform" not in kw and "order" not in kw:
            assert_bits_equal(got[0], rms_norm_a2(*args)[0])
    plans = len(face_rows.ROW_PLANS)
    sg.rms_norm(x, gamma, 2e-6)
    assert len(face_rows.ROW_PLANS) == min(plans + 1, face_rows.ROW_PLANS.size)
    with pytest.raises(ValueError, match="out must have shape"):
        sg.rms_norm(x, gamma, 1e-6, out=(np.empty((4, 63), np.float32), np.empty((4, 1), np.float32)))
    with pytest.raises(ValueError, match="epsilon"):
        sg.rms_norm(x, gamma, -1.0)
    with pytest.raises(ValueError, match="epsilon"):
        sg.rms_norm(x, gamma, -1.0)                   # a refused form is never kept
    x2 = rng.standard_normal((3, 8)).astype(np.float32)
    for _ in range(2):
        assert_bits_equal(sg.swiglu(x2), swiglu_ref(x2))
