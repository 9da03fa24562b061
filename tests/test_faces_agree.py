"""Every operator with both a functional and an aclnn face: the functional API accepts exactly what the
aclnn two-phase API accepts, and where both accept, their outputs are bit-equal, dtype included (issue 40).

The operators come from the registry (``ops.OPERATORS``); :data:`FACES` says how each one's two faces
are called, and a registered operator missing from it fails :func:`test_every_operator_has_its_faces`.
The aclnn face is asked for an output of the dtype PyTorch's promotion gives the inputs (the floating
result type; float32 for integer or bool inputs): the functional face must return that dtype where it
accepts. Disagreements not fixed yet are listed in :data:`KNOWN` (strict xfail: a fix must remove them).
"""
import ml_dtypes
import numpy as np
import pytest

from aclnn_helpers import reference_platform  # noqa: F401
from reference import assert_bits_equal
import swishgrad_numba as sg
from swishgrad_numba import aclnn
from swishgrad_numba.aclnn import (ACL_BF16, ACL_BOOL, ACL_DOUBLE, ACL_FLOAT, ACL_FLOAT16, ACL_INT8, ACL_INT32,
                                   ACL_INT64, ACL_UINT8, ACLNN_SUCCESS, aclCreateScalar)
from swishgrad_numba.ops import OPERATORS

BF16 = np.dtype(ml_dtypes.bfloat16)
ACL = {np.dtype(np.float16): ACL_FLOAT16, BF16: ACL_BF16, np.dtype(np.float32): ACL_FLOAT,
       np.dtype(np.float64): ACL_DOUBLE, np.dtype(np.int8): ACL_INT8, np.dtype(np.int32): ACL_INT32,
       np.dtype(np.int64): ACL_INT64, np.dtype(np.uint8): ACL_UINT8, np.dtype(np.bool_): ACL_BOOL}
DTYPES = list(ACL)
FLOATS = DTYPES[:4]


def _f(v):
    return aclCreateScalar(v, ACL_FLOAT)


def _t(a):
    return aclnn.aclCreateTensor(a.shape, ACL[a.dtype], None, 0, aclnn.ACL_FORMAT_ND, a.shape, a)


#: name -> (functional(*inputs), aclnn(*tensors, out) -> argument tuple for ...GetWorkspaceSize)
FACES = {
    "swish": (lambda x: sg.swish(x, 1.5), lambda x, o: (x, _f(1.5), o)),
    "silu": (sg.silu, lambda x, o: (x, o)),
    "swish_grad": (lambda g, x: sg.swish_backward(g, x, 1.5), lambda g, x, o: (g, x, _f(1.5), o)),
    "silu_grad": (sg.silu_backward, lambda g, x, o: (g, x, o)),
    "fast_gelu": (sg.fast_gelu, lambda x, o: (x, o)),
    "fast_gelu_grad": (sg.fast_gelu_backward, lambda g, x, o: (g, x, o)),
    "sigmoid": (sg.sigmoid, lambda x, o: (x, o)),
    "sigmoid_grad": (sg.sigmoid_backward, lambda g, y, o: (g, y, o)),
    "gelu": (sg.gelu, lambda x, o: (x, o)),
    "gelu_grad": (sg.gelu_backward, lambda g, x, o: (g, x, o)),
    "leaky_relu": (lambda x: sg.leaky_relu(x, 0.25), lambda x, o: (x, _f(0.25), o)),
    "leaky_relu_grad": (lambda g, x: sg.leaky_relu_backward(g, x, 0.25),
                        lambda g, x, o: (g, x, _f(0.25), False, o)),
    "softplus": (lambda x: sg.softplus(x, 0.75, 6.0), lambda x, o: (x, _f(0.75), _f(6.0), o)),
    "softplus_grad": (lambda g, x: sg.softplus_backward(g, x, 0.75, 6.0),
                      lambda g, x, o: (g, x, _f(0.75), _f(6.0), o)),
    "elu": (lambda x: sg.elu(x, 1.25), lambda x, o: (x, _f(1.25), _f(1.0), _f(1.0), o)),
    "elu_grad": (lambda g, x: sg.elu_backward(g, x, 1.25),
                 lambda g, x, o: (g, _f(1.25), _f(1.0), _f(1.0), False, x, o)),
    "gelu_v2": (lambda x: sg.gelu_v2(x, "tanh"), lambda x, o: (x, 1, o)),
    "gelu_grad_v2": (lambda g, x: sg.gelu_backward_v2(g, x, "tanh"), lambda g, x, o: (g, x, "tanh", o)),
}
# issue 41
FACES.update({"hardswish": (sg.hardswish, lambda x, o: (x, o)),
              "hardswish_grad": (sg.hardswish_backward, lambda g, x, o: (g, x, o)),
              "mish": (sg.mish, lambda x, o: (x, o)),
              "mish_grad": (sg.mish_backward, lambda g, x, o: (g, x, o))})
FACES.update({"relu": (sg.relu, lambda x, o: (x, o)),
              "threshold_backward": (lambda g, x: sg.threshold_backward(g, x, 0.5), lambda g, x, o: (g, x, _f(0.5), o))})

#: (operator, case id) pairs where the faces still disagree: strict xfail, each one a bug to fix.
KNOWN: set = set()


def _values(rng, shape, dtype):
    if dtype == np.bool_:
        return rng.integers(0, 2, shape).astype(bool)
    if np.dtype(dtype).kind in "iu":
        return rng.integers(-4 if np.dtype(dtype).kind == "i" else 0, 5, shape).astype(dtype)
    return rng.uniform(-6, 6, shape).astype(np.float32).astype(dtype)


def result_dtype(*dtypes):
    """PyTorch's promotion of ``dtypes``' floats: the one they share, else float64 where one is, else
    float32 (float32 where none is a float)."""
    floats = [d for d in dtypes if d.kind == "f" or d == BF16]
    if not floats:
        return np.dtype(np.float32)
    out = floats[0]
    for d in floats[1:]:
        if d != out:
            out = np.dtype(np.float64) if np.float64 in (d, out) else np.dtype(np.float32)
    return out


def _cases(inputs):
    if inputs == 1:
        for d in DTYPES:
            yield f"{d.name}", (d,), ((3, 5),)
        for shape in ((), (0, 4)):
            yield f"float32-{shape}", (np.dtype(np.float32),), (shape,)
        return
    f32 = np.dtype(np.float32)
    # every pair of floats; each integer and bool dtype against float32 on either side (sampled: the rest
    # of the 81 pairs adds nothing the op_apis tell apart)
    pairs = [(a, b) for a in FLOATS for b in FLOATS]
    pairs += [p for d in DTYPES[4:] for p in ((f32, d), (d, f32))]
    for a, b in pairs:
        yield f"{a.name}-{b.name}", (a, b), ((3, 5), (3, 5))
    for shapes in (((), ()), ((0, 4), (0, 4)), ((3, 1), (1, 5)), ((3, 5), (5,)), ((2, 3), (3, 2))):
        yield f"float32-{shapes}", (f32, f32), shapes
    yield "bfloat16-float64-bcast", (BF16, np.dtype(np.float64)), ((3, 1), (1, 5))


def _aclnn(name, arrays, out):
    op = OPERATORS[name]
    get_ws, launch = (getattr(aclnn, n) for n in op.aclnn)
    args = FACES[name][1](*(_t(a) for a in arrays), _t(out))
    status, ws, ex = get_ws(*args)
    if status != ACLNN_SUCCESS:
        return False
    assert launch(np.zeros(ws, np.uint8) if ws else None, ws, ex, None) == ACLNN_SUCCESS, aclnn.aclGetRecentErrMsg()
    assert aclnn.aclrtSynchronizeStream(None) == aclnn.ACL_SUCCESS
    return True


PARAMS = [pytest.param(name, case, dtypes, shapes, id=f"{name}-{case}",
                       marks=[pytest.mark.xfail(strict=True)] if (name, case) in KNOWN else [])
          for name in sorted(FACES) for case, dtypes, shapes in _cases(OPERATORS[name].inputs)]


def test_every_operator_has_its_faces():
    assert sorted(n for n, op in OPERATORS.items() if op.aclnn) == sorted(FACES)


@pytest.mark.parametrize("name,case,dtypes,shapes", PARAMS)
def test_faces_agree(name, case, dtypes, shapes):
    op = OPERATORS[name]
    aclnn.set_platform(op.default_platform)
    rng = np.random.default_rng(len(case))
    arrays = [_values(rng, s, d) for s, d in zip(shapes, dtypes)]
    try:
        got = FACES[name][0](*arrays)
    except (TypeError, ValueError) as exc:
        got, refusal = None, exc
    if len({*shapes}) > 1:
        try:
            np.broadcast_shapes(*shapes)
        except ValueError:
            assert got is None, "the functional face accepted shapes that do not broadcast"
            return
    out = np.zeros(np.broadcast_shapes(*shapes), result_dtype(*dtypes))
    if op.described_by is not None and op.described_by.out_same_dtype and len({*dtypes}) == 1:
        out = np.zeros(out.shape, dtypes[0])   # aclnnRelu, aclnnThresholdBackward: out of the inputs' dtype
    accepted = _aclnn(name, arrays, out)
    if got is None:
        assert not accepted, f"the aclnn face accepts, the functional refuses: {refusal}"
        return
    assert accepted, f"the functional face accepts, the aclnn refuses: {aclnn.aclGetRecentErrMsg()}"
    assert got.dtype == out.dtype and got.shape == out.shape
    assert_bits_equal(got, out)
