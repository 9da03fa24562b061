"""aclnnSwishBackward (generated from ops/swish_grad/description.py, issue 40) on a sample of valid and invalid
argument sets: dtypes, storage formats, shapes, beta values, null and dangling pointers, empty tensors, views, and
platforms that cannot be tiled, on an Inf/NaN and a saturation stream.

Each case's statuses are data (model sections 5 and 6: 161001 a null pointer, 161002 a parameter error; a launch
that fails while running reports at the synchronize). A launch's whole gradInput storage is compared bit for bit
with the independent references of ``tests/reference.py`` (model sections 2 and 9; the A2's saturation mode)
over the inputs' views, or, for NC1HWC0 and FRACTAL_NZ, over their storages (the A2 kernel walks the storage,
padding included). Before the pair was generated, these cases ran against the hand-written pair
(``aclnn/op_api.py``) and the generated one side by side: same statuses, messages, tilings and bits.
"""
import numpy as np
import pytest

from aclnn_helpers import (  # noqa: F401  (fixtures)
    BF16, F16, F32, WORKSPACE, bits, random_values, reference_platform, tensor, tensor_over,
)
from reference import ref_saturated_swish_grad, ref_swish_grad, ref_swish_grad_950
from swishgrad_numba import Platform, aclnn, formats
from swishgrad_numba.aclnn import (ACL_BOOL, ACL_COMPLEX64, ACL_DOUBLE, ACL_FLOAT, ACL_FLOAT16,
                                   ACL_FORMAT_FRACTAL_NZ, ACL_FORMAT_NC1HWC0, ACL_FORMAT_NCHW, ACL_FORMAT_ND,
                                   ACL_INT32, ACL_INT64, ACL_SUCCESS, ACLNN_ERR_PARAM_INVALID as INVALID,
                                   ACLNN_ERR_PARAM_NULLPTR as NULLPTR, ACLNN_SUCCESS as OK)


def _arr(shape, dtype, seed, specials=True):
    return random_values(np.random.default_rng(seed), shape, dtype, specials)


def _nc(shape, dtype, seed, c0=None):
    a = _arr(shape, dtype, seed)
    s = formats.nd_to_nc1hwc0(a) if c0 is None else formats.nd_to_nc1hwc0(a, c0)
    return aclnn.aclCreateTensor(a.shape, ACL_FLOAT if dtype == F32 else ACL_FLOAT16, None, 0, ACL_FORMAT_NC1HWC0,
                                 s.shape, s)


def _nz(shape, dtype, seed):
    a = _arr(shape, dtype, seed)
    s = formats.nd_to_fractal_nz(a)
    return aclnn.aclCreateTensor(a.shape, ACL_FLOAT if dtype == F32 else ACL_FLOAT16, None, 0, ACL_FORMAT_FRACTAL_NZ,
                                 s.shape, s)


def _plain(shape=(3, 5), dtype=F32, seed=0, acl=None, fmt=ACL_FORMAT_ND, specials=True):
    return tensor(_arr(shape, dtype, seed, specials), acl, fmt)


def _finite(shape, dtype=F32, seed=0, fmt=ACL_FORMAT_ND):
    """Without NaN or infinities: the 950 reference (ref_swish_grad_950) does not model a NaN's sign."""
    return _plain(shape, dtype, seed, fmt=fmt, specials=False)


def _odd(shape, npdt, acl):
    return aclnn.aclCreateTensor(shape, acl, None, 0, ACL_FORMAT_ND, shape, np.zeros(shape, npdt))


def _strided(seed):
    base = _arr((6, 10), F32, seed)
    return tensor_over(base[1:4, 1:10:2], base)


def _bcast(seed, n=5):
    base = _arr((n,), F32, seed)
    return aclnn.aclCreateTensor((3, n), ACL_FLOAT, (0, 1), 0, ACL_FORMAT_ND, (n,), base)


def _ro():
    a = np.zeros((3, 5), np.float32)
    a.flags.writeable = False
    return tensor(a)


def _scalar(v, dt=ACL_FLOAT):
    return aclnn.aclCreateScalar(v, dt)


def _dead_scalar():
    s = _scalar(2.0)
    aclnn.aclDestroyScalar(s)
    return s


def _dead_tensor():
    t = _plain()
    aclnn.aclDestroyTensor(t)
    return t


A2, P950, P310P = Platform(), Platform(soc_version="ascend950"), Platform(soc_version="ascend310p")


def _shared_out():
    a = _arr((3, 5), F32, 1)
    return tensor(a), tensor(a)


CASES = {   # name -> (platform, lambda: (gradOutput, self, betaOptional, gradInput))
    "f32": (A2, lambda: (_plain(seed=1), _plain(seed=2), None, _plain(seed=3))),
    "f16-beta": (A2, lambda: (_plain(dtype=F16, seed=1), _plain(dtype=F16, seed=2), _scalar(1.7), _plain(dtype=F16))),
    "bf16-int-beta": (A2, lambda: (_plain(dtype=BF16, seed=1), _plain(dtype=BF16, seed=2), _scalar(3, ACL_INT64),
                                  _plain(dtype=BF16))),
    "bool-beta": (A2, lambda: (_plain(seed=1), _plain(seed=2), _scalar(True, ACL_BOOL), _plain())),
    "f16-scalar-beta": (A2, lambda: (_plain(seed=1), _plain(seed=2), _scalar(0.3, ACL_FLOAT16), _plain())),
    "double-beta": (A2, lambda: (_plain(seed=1), _plain(seed=2), _scalar(1e300, ACL_DOUBLE), _plain())),
    "complex-beta": (A2, lambda: (_plain(seed=1), _plain(seed=2), _scalar(1j, ACL_COMPLEX64), _plain())),
    "dead-beta": (A2, lambda: (_plain(seed=1), _plain(seed=2), _dead_scalar(), _plain())),
    "bad-beta": (A2, lambda: (_plain(seed=1), _plain(seed=2), 2.0, _plain())),
    "null-go": (A2, lambda: (None, _plain(seed=2), None, _plain())),
    "null-x": (A2, lambda: (_plain(seed=1), None, _scalar(1j, ACL_COMPLEX64), _plain())),
    "null-gi": (A2, lambda: (_odd((3, 5), np.int32, ACL_INT32), _plain(seed=2), None, None)),
    "dead-x": (A2, lambda: (_plain(seed=1), _dead_tensor(), None, _plain())),
    "array-x": (A2, lambda: (_plain(seed=1), np.zeros((3, 5), np.float32), None, _plain())),
    "f64": (A2, lambda: (_odd((3, 5), np.float64, ACL_DOUBLE), _plain(seed=2), None, _plain())),
    "int32-x": (A2, lambda: (_plain(seed=1), _odd((3, 5), np.int32, ACL_INT32), _scalar(1j, ACL_COMPLEX64),
                             _plain())),
    "mixed": (A2, lambda: (_plain(seed=1), _plain(dtype=F16, seed=2), None, _plain())),
    "out-f16": (A2, lambda: (_plain(seed=1), _plain(seed=2), None, _plain(dtype=F16))),
    "out-int": (A2, lambda: (_plain(seed=1), _plain(seed=2), None, _odd((3, 5), np.int32, ACL_INT32))),
    "bf16-310p": (P310P, lambda: (_plain(dtype=BF16, seed=1), _plain(dtype=BF16, seed=2), None,
                                  _plain(shape=(5,), dtype=BF16))),
    "f16-310p": (P310P, lambda: (_plain(dtype=F16, seed=1), _plain(dtype=F16, seed=2), None, _plain(dtype=F16))),
    "shape": (A2, lambda: (_plain(seed=1), _plain((5, 3), seed=2), None, _plain())),
    "shape-out": (A2, lambda: (_plain(seed=1), _plain(seed=2), None, _plain((15,)))),
    "9-dims": (A2, lambda: (_plain((1,) * 9, seed=1), _plain((1,) * 9, seed=2), None, _plain((1,) * 9))),
    "9-dims+shape": (A2, lambda: (_plain(seed=1), _plain((2,), seed=2), None, _plain((1,) * 9))),
    "empty": (A2, lambda: (_plain((0, 3), seed=1), _plain((0, 3), seed=2), None, _plain((0, 3)))),
    "empty-shape": (A2, lambda: (_plain((0, 3), seed=1), _plain((3, 0), seed=2), None, _plain((0, 3)))),
    "empty-int": (A2, lambda: (_odd((0,), np.int32, ACL_INT32), _plain((0,), seed=2), None, _plain((0,)))),
    "empty-950-nz": (P950, lambda: (_nz((0, 16), F32, 1), _nz((0, 16), F32, 2), None, _nz((0, 16), F32, 3))),
    "nchw": (A2, lambda: (_plain((1, 2, 3, 4), seed=1, fmt=ACL_FORMAT_NCHW),
                          _plain((1, 2, 3, 4), seed=2, fmt=ACL_FORMAT_NCHW),
                          _scalar(-0.5), _plain((1, 2, 3, 4), fmt=ACL_FORMAT_NCHW))),
    "nchw-950": (P950, lambda: (_finite((1, 2, 3, 4), seed=1, fmt=ACL_FORMAT_NCHW), _finite((1, 2, 3, 4), seed=2),
                                None, _plain((1, 2, 3, 4)))),
    "nc1hwc0": (A2, lambda: (_nc((1, 3, 2, 2), F32, 1), _nc((1, 3, 2, 2), F32, 2), _scalar(2.0),
                             _nc((1, 3, 2, 2), F32, 3))),
    "nc1hwc0-f16": (A2, lambda: (_nc((2, 20, 3, 3), F16, 1), _nc((2, 20, 3, 3), F16, 2), None,
                                 _nc((2, 20, 3, 3), F16, 3))),
    "nz": (A2, lambda: (_nz((5, 18), F32, 1), _nz((5, 18), F32, 2), None, _nz((5, 18), F32, 3))),
    "nz-950": (P950, lambda: (_nz((5, 18), F32, 1), _nz((5, 18), F32, 2), None, _nz((5, 18), F32, 3))),
    "nc1hwc0-950": (P950, lambda: (_nc((1, 3, 2, 2), F32, 1), _nc((1, 3, 2, 2), F32, 2), None,
                                   _nc((1, 3, 2, 2), F32, 3))),
    "mixed-formats": (A2, lambda: (_nc((1, 3, 2, 2), F32, 1), _plain((1, 3, 2, 2), seed=2), None,
                                   _nc((1, 3, 2, 2), F32, 3))),
    "nc-nz": (A2, lambda: (_nc((1, 3, 2, 2), F32, 1), _nc((1, 3, 2, 2), F32, 2), None, _nz((1, 3, 2, 2), F32, 3))),
    "c0-differs": (A2, lambda: (_nc((1, 3, 2, 2), F32, 1), _nc((1, 3, 2, 2), F32, 2), None,
                                _nc((1, 3, 2, 2), F32, 3, c0=4))),
    "strided": (A2, lambda: (_strided(1), _strided(2), _scalar(0.75), _strided(3))),
    "broadcast-in": (A2, lambda: (_bcast(1), _bcast(2), None, _plain())),
    "broadcast-out": (A2, lambda: (_plain(seed=1), _plain(seed=2), None, _bcast(3))),
    "read-only": (A2, lambda: (_plain(seed=1), _plain(seed=2), None, _ro())),
    "out-is-input": (A2, lambda: (lambda s: (s[0], _plain(seed=2), None, s[1]))(_shared_out())),
    "large": (A2, lambda: (_plain((70, 130), seed=1), _plain((70, 130), seed=2), _scalar(-1.25),
                           _plain((70, 130)))),
    "large-950": (P950, lambda: (_finite((70, 130), BF16, seed=1), _finite((70, 130), BF16, seed=2),
                                 _scalar(1.5), _plain((70, 130), dtype=BF16))),
    "ub10": (Platform(ub_size=10), lambda: (_plain(seed=1), _plain(seed=2), None, _plain())),
    "block3": (Platform(block_size=3), lambda: (_plain(seed=1), _plain(seed=2), None, _plain())),
    "950-ub1000": (Platform(soc_version="ascend950", ub_size=1000),
                   lambda: (_plain(seed=1), _plain(seed=2), None, _plain())),
    "block3-empty": (Platform(block_size=3), lambda: (_plain((0,), seed=1), _plain((0,), seed=2), None,
                                                       _plain((0,)))),
}



#: case -> (phase one's status, beta as float32 for a launch); every case not listed launches with beta 1.0.
EXPECTED = {
    "f32": OK, "f16-beta": (OK, 1.7), "bf16-int-beta": (OK, 3.0), "bool-beta": (OK, 1.0),
    "f16-scalar-beta": (OK, float(np.float16(0.3))), "double-beta": (OK, np.inf), "complex-beta": INVALID,
    "dead-beta": NULLPTR, "bad-beta": NULLPTR, "null-go": NULLPTR, "null-x": NULLPTR, "null-gi": NULLPTR,
    "dead-x": NULLPTR, "array-x": NULLPTR, "f64": INVALID, "int32-x": INVALID, "mixed": INVALID,
    "out-f16": INVALID, "out-int": INVALID, "bf16-310p": INVALID, "f16-310p": OK, "shape": INVALID,
    "shape-out": INVALID, "9-dims": INVALID, "9-dims+shape": INVALID, "empty": OK, "empty-shape": INVALID,
    "empty-int": INVALID, "empty-950-nz": OK, "nchw": (OK, -0.5), "nchw-950": OK, "nc1hwc0": (OK, 2.0),
    "nc1hwc0-f16": OK, "nz": OK, "nz-950": INVALID, "nc1hwc0-950": INVALID, "mixed-formats": INVALID,
    "nc-nz": INVALID, "c0-differs": INVALID, "strided": (OK, 0.75), "broadcast-in": OK, "broadcast-out": OK,
    "read-only": INVALID, "out-is-input": OK, "large": (OK, -1.25), "large-950": (OK, 1.5), "ub10": INVALID,
    "block3": INVALID, "950-ub1000": INVALID, "block3-empty": OK,
}


def _view(t):
    """The NumPy view an aclTensor describes (element strides and offset over its storage), made here."""
    flat = t.storage.reshape(-1)
    item = flat.itemsize
    return np.lib.stride_tricks.as_strided(flat[t.offset:], shape=tuple(t.view_shape),
                                           strides=tuple(s * item for s in t.strides))


def _expected(go, x, gi, beta32, platform, overflow_mode):
    """gradInput's whole storage after the launch, from the references."""
    private = gi.format in (ACL_FORMAT_NC1HWC0, ACL_FORMAT_FRACTAL_NZ)
    g, xs = (go.storage.reshape(-1), x.storage.reshape(-1)) if private else (_view(go).copy(), _view(x).copy())
    if overflow_mode == "saturation":
        result = ref_saturated_swish_grad(g, xs, beta32, gi.storage.dtype.name).reshape(g.shape)
    elif platform.architecture == "arch35":
        result = ref_swish_grad_950(g, xs, beta32)
    else:
        result = ref_swish_grad(g, xs, beta32)
    storage = gi.storage.copy()
    if private:
        storage.reshape(-1)[...] = result.reshape(-1)
    else:
        view = np.lib.stride_tricks.as_strided(storage.reshape(-1)[gi.offset:], shape=tuple(gi.view_shape),
                                               strides=tuple(s * storage.itemsize for s in gi.strides))
        view[...] = result
    return storage


@pytest.fixture(scope="module", params=["infnan", "saturation"])
def streams(request):
    # Set up before the function-scoped reference_platform, so under whatever platform the last test left;
    # the saturation mode is the A2's (the 950 refuses it).
    previous = aclnn.set_platform(Platform())
    if request.param == "saturation":
        assert aclnn.aclrtSetDeviceSatMode(aclnn.ACL_RT_OVERFLOW_MODE_SATURATION) == ACL_SUCCESS
    status, s = aclnn.aclrtCreateStream()
    assert aclnn.aclrtSetDeviceSatMode(aclnn.ACL_RT_OVERFLOW_MODE_INFNAN) == ACL_SUCCESS
    aclnn.set_platform(previous)
    yield s
    assert aclnn.aclrtDestroyStream(s) == ACL_SUCCESS


@pytest.mark.parametrize("case", list(CASES))
def test_statuses_and_bits(case, streams):
    platform, make = CASES[case]
    expected = EXPECTED[case]
    status, beta32 = expected if isinstance(expected, tuple) else (expected, 1.0)
    aclnn.set_platform(platform)
    go, x, beta, gi = make()
    got, ws, executor = aclnn.aclnnSwishBackwardGetWorkspaceSize(go, x, beta, gi)
    assert got == status, aclnn.aclGetRecentErrMsg()
    if status != OK:
        assert (ws, executor) == (0, None) and aclnn.aclGetRecentErrMsg()
        return
    empty = min(t.numel for t in (go, x, gi)) == 0
    assert (ws == 0) == empty and (executor.tiling is None) == empty
    before = gi.storage.copy()
    want = before if empty else _expected(go, x, gi, np.float32(beta32), platform, streams.overflow_mode)
    assert aclnn.aclnnSwishBackward(WORKSPACE if ws else None, ws, executor, streams) == OK
    sync = aclnn.aclrtSynchronizeStream(streams)
    if streams.overflow_mode == "saturation" and platform.architecture == "arch35" and not empty:
        # the 950 kernel has no saturation mode: the launch fails while running, gradInput untouched
        assert sync == aclnn.ACL_ERROR_RT_INTERNAL_ERROR
        assert "not supported by the Ascend 950 kernel" in aclnn.aclGetRecentErrMsg()
        want = before
    else:
        assert sync == ACL_SUCCESS
    np.testing.assert_array_equal(bits(gi.storage), bits(want))
