"""Generated tests of the description fields Sigmoid's pair brought (issue 40), for every described operator that
sets them: ``acl_refusals`` (dtypes in the op_api's lists whose run is not modelled: both faces refuse them, aclnn
naming why), ``out_dtypes`` (a complex output: the real result Cast to it; a complex promoted dtype refused for a
real output), the in-place pair (the functional face with ``out=x``), the aclnn launch on a stream in the
saturation overflow mode (the functional face on a saturation platform), and ``torch_functions`` (the public torch
names, bit for bit the functional faces)."""
import numpy as np
import pytest

from aclnn_helpers import reference_platform  # noqa: F401
from reference import assert_bits_equal
import swishgrad_numba as sg
from swishgrad_numba import Platform, aclnn
from swishgrad_numba.aclnn import ACL_COMPLEX64, ACL_FLOAT, ACLNN_ERR_PARAM_INVALID, ACLNN_SUCCESS
from swishgrad_numba.aclnn.enums import ACL_DTYPES
from swishgrad_numba.ops import get_operator
from swishgrad_numba.ops.description import DESCRIPTIONS

F32 = np.dtype(np.float32)
CODE = {dtype.name: code for code, (_name, dtype) in ACL_DTYPES.items()}
SPECIALS = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 3e38, -3e38, 1e-40, -100.0, 89.0, 0.5, -2.0], F32)
#: float16 values whose results overflow: the saturation mode's own bits.
SATURATING = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 65504.0, -65504.0, 6e-8, -100.0, 11.0, 0.5, -2.0,
                       60000.0, -30000.0], np.float16)


def _tensor(a, code=None):
    return aclnn.aclCreateTensor(a.shape, CODE[a.dtype.name] if code is None else code, None, 0,
                                 aclnn.ACL_FORMAT_ND, a.shape, a)


def _names(field):
    return [n for n in sorted(DESCRIPTIONS) if getattr(DESCRIPTIONS[n], field)]


def _arrays(desc, dtype=F32):
    return [np.roll(SPECIALS, i).astype(dtype) for i in range(len(desc.inputs))]


def _phase_one(desc, tensors, out):
    """Phase one of an operator without attributes: ``(status, workspace, executor)``."""
    return getattr(aclnn, desc.aclnn[0])(*tensors, out)


def _launch(where, ws, executor, stream=None):
    assert getattr(aclnn, where)(np.zeros(ws, np.uint8) if ws else None, ws, executor, stream) == ACLNN_SUCCESS
    assert aclnn.aclrtSynchronizeStream(stream) == aclnn.ACL_SUCCESS, aclnn.aclGetRecentErrMsg()


@pytest.mark.parametrize("name", _names("acl_refusals"))
def test_acl_refusals_are_refused_by_both_faces_naming_why(name):
    desc = DESCRIPTIONS[name]
    for dtype, why in desc.acl_refusals.items():
        arrays = [np.nan_to_num(a, nan=1.0, posinf=2.0, neginf=-2.0).clip(-100, 100).astype(dtype)
                  for a in _arrays(desc)]
        out = np.zeros(arrays[0].shape, np.float64 if dtype == "float64" else F32)
        status = _phase_one(desc, [_tensor(a) for a in arrays], _tensor(out))[0]
        assert status == ACLNN_ERR_PARAM_INVALID, dtype
        assert why in aclnn.aclGetRecentErrMsg(), dtype
        with pytest.raises((TypeError, ValueError)):
            getattr(sg, desc.functional)(*arrays)


@pytest.mark.parametrize("name", _names("out_dtypes"))
def test_a_real_result_is_cast_to_a_complex_output(name):
    desc = DESCRIPTIONS[name]
    arrays = _arrays(desc)
    want = getattr(sg, desc.functional)(*arrays)
    out = np.zeros(want.shape, np.complex64)
    status, ws, ex = _phase_one(desc, [_tensor(a) for a in arrays], _tensor(out, ACL_COMPLEX64))
    assert status == ACLNN_SUCCESS, aclnn.aclGetRecentErrMsg()
    _launch(desc.aclnn[1], ws, ex)
    assert_bits_equal(out.real.copy(), want, "real part")
    assert not out.imag.any()


@pytest.mark.parametrize("name", [n for n in _names("out_dtypes") if DESCRIPTIONS[n].promotion == "promote"])
def test_a_complex_promoted_dtype_is_refused_for_a_real_output(name):
    desc = DESCRIPTIONS[name]
    arrays = [a.astype(np.complex64) if i == 0 else a for i, a in enumerate(_arrays(desc))]
    tensors = [_tensor(a, ACL_COMPLEX64 if i == 0 else None) for i, a in enumerate(arrays)]
    status = _phase_one(desc, tensors, _tensor(np.zeros(arrays[0].shape, F32), ACL_FLOAT))[0]
    assert status == ACLNN_ERR_PARAM_INVALID and "cannot be Cast" in aclnn.aclGetRecentErrMsg()
    got = getattr(sg, desc.functional)(*arrays)   # the functional face: the promoted dtype, complex64
    assert got.dtype == np.complex64


@pytest.mark.parametrize("name", _names("aclnn_inplace"))
def test_the_inplace_pair_is_the_functional_face_into_x(name):
    desc = DESCRIPTIONS[name]
    aclnn.set_platform(get_operator(name).default_platform)
    (x,) = _arrays(desc)[:1]
    want = getattr(sg, desc.functional)(x)
    ref = x.copy()
    scalars = [aclnn.aclCreateScalar(a.default, ACL_FLOAT) if a.kind == "float" else a.default
               for a in desc.attributes]   # the attributes' defaults
    status, ws, ex = getattr(aclnn, desc.aclnn_inplace[0])(_tensor(ref), *scalars)
    assert status == ACLNN_SUCCESS, aclnn.aclGetRecentErrMsg()
    _launch(desc.aclnn_inplace[1], ws, ex)
    assert_bits_equal(ref, want, "in place")


SATURATED = [n for n in sorted(DESCRIPTIONS) if DESCRIPTIONS[n].saturation and not DESCRIPTIONS[n].attributes
             and get_operator(n).kernel_refusal(Platform()) is None]


@pytest.mark.parametrize("name", SATURATED)
def test_a_saturation_stream_runs_the_kernel_in_that_mode(name):
    """A stream made while the device is in the saturation overflow mode: the launch is the functional face
    on a saturation platform (the A2 kernel in that mode), not the Inf/NaN mode's."""
    desc = DESCRIPTIONS[name]
    arrays = [np.roll(SATURATING, i) for i in range(len(desc.inputs))]
    want = getattr(sg, desc.functional)(*arrays, platform=Platform(overflow_mode="saturation"))
    assert aclnn.aclrtSetDeviceSatMode(aclnn.ACL_RT_OVERFLOW_MODE_SATURATION) == aclnn.ACL_SUCCESS
    try:
        _, stream = aclnn.aclrtCreateStream()
    finally:
        assert aclnn.aclrtSetDeviceSatMode(aclnn.ACL_RT_OVERFLOW_MODE_INFNAN) == aclnn.ACL_SUCCESS
    out = np.zeros_like(want)
    status, ws, ex = _phase_one(desc, [_tensor(a) for a in arrays], _tensor(out))
    assert status == ACLNN_SUCCESS, aclnn.aclGetRecentErrMsg()
    _launch(desc.aclnn[1], ws, ex, stream)
    aclnn.aclrtDestroyStream(stream)
    assert_bits_equal(out, want, "saturation")


def test_the_saturation_check_is_not_vacuous_for_sigmoid():
    x = SATURATING
    assert "sigmoid" in SATURATED and "sigmoid_grad" in SATURATED
    assert not np.array_equal(sg.sigmoid(x).view(np.uint16),
                              sg.sigmoid(x, platform=Platform(overflow_mode="saturation")).view(np.uint16))


@pytest.mark.parametrize("name", _names("torch_functions"))
def test_the_torch_functions_are_the_functional_faces(name):
    torch = pytest.importorskip("torch")
    from swishgrad_numba import torch as sgt

    desc = DESCRIPTIONS[name]
    # two names (the functions) or four (the autograd Functions too: Sigmoid's)
    f, f_back, fn_cls, back_cls = (*(getattr(sgt, n) for n in desc.torch_functions), None, None)[:4]
    assert fn_cls is None or (issubclass(fn_cls, torch.autograd.Function)
                              and issubclass(back_cls, torch.autograd.Function))
    assert (f.__name__, f_back.__name__) == desc.torch_functions[:2]
    backward = get_operator(desc.backward).described_by
    x = torch.from_numpy(_arrays(desc)[0])
    y = f(x)
    want = getattr(sg, desc.functional)(x.numpy())
    assert_bits_equal(y.numpy(), want, "forward")
    if fn_cls is not None:
        assert_bits_equal(fn_cls.apply(x, None).numpy(), want, "Function")
    g = torch.from_numpy(np.roll(SPECIALS, 3))
    second = y if backward.inputs[-1].role == "y" else x
    want = getattr(sg, backward.functional)(g.numpy(), second.numpy())
    assert_bits_equal(f_back(g, **{backward.inputs[-1].name: second}).numpy(), want, "backward")
    if back_cls is not None:
        assert_bits_equal(back_cls.apply(g, second, None).numpy(), want, "BackwardFunction")


# (not the row operators: their hosts count 32-byte blocks of their own, whatever the platform's block_size)
@pytest.mark.parametrize("name", [n for n in sorted(DESCRIPTIONS)
                                  if get_operator(n).kernel_refusal(Platform()) is None and DESCRIPTIONS[n].rows is None])
def test_an_a2_block_size_the_dtype_does_not_divide_is_refused_by_both_faces(name):
    """The A2 hosts count in blocks of ``platform.block_size`` bytes: 30 holds no whole float32 element. The
    functional face refuses it (check_platform_for), and so does phase one (161002, naming the rule)."""
    desc = DESCRIPTIONS[name]
    odd = Platform(block_size=30)
    aclnn.set_platform(odd)
    arrays = _arrays(desc)
    with pytest.raises(ValueError, match="block_size"):
        getattr(sg, desc.functional)(*arrays, platform=odd)
    values = {a.acl: aclnn.aclCreateScalar(a.default, ACL_FLOAT) if a.kind == "float" else a.default
              for a in desc.attributes}
    by = {**values, **{i.acl: _tensor(a) for i, a in zip(desc.inputs, arrays)},
          desc.out: _tensor(np.zeros(arrays[0].shape, F32))}
    status = getattr(aclnn, desc.aclnn[0])(*(by[n] for n in desc.acl_arguments))[0]
    assert status == ACLNN_ERR_PARAM_INVALID and "block_size" in aclnn.aclGetRecentErrMsg()
