"""Tests generated from the operators' descriptions (swishgrad_numba.ops.description, issue 40): for every
operator in the described form, its faces agree bit for bit (functional, aclnn, torch, Dask), its
statuses, and its dtype and rank rules, on every SoC the description lists; adding a description adds
its tests. The registry names every operator's faces (``.functional``, ``.aclnn``), described or not,
and ``swishgrad ops show`` prints a description.
"""
import numpy as np
import pytest

from aclnn_helpers import BF16, reference_platform  # noqa: F401
from reference import assert_bits_equal
import swishgrad_numba as sg
from swishgrad_numba import Platform, aclnn
from swishgrad_numba.aclnn import (ACL_BF16, ACL_BOOL, ACL_DOUBLE, ACL_FLOAT, ACL_FLOAT16, ACL_INT32,
                                   ACLNN_ERR_INNER_NULLPTR, ACLNN_ERR_PARAM_INVALID, ACLNN_ERR_PARAM_NULLPTR, ACLNN_SUCCESS,
                                   aclCreateScalar)
from swishgrad_numba.cli import main
from swishgrad_numba.ops import OPERATORS, get_operator
from swishgrad_numba.ops.description import DESCRIPTIONS
from swishgrad_numba.platform import BF16_SOC_VERSIONS
from described_rows_helpers import (acl_order as _acl_order, each as _each, out_of as _out_of,  # the rows kind
                                    outputs as _outputs, shapes as _shapes, zeros as _zeros)  # (issue 40)

ACL = {"float32": ACL_FLOAT, "float16": ACL_FLOAT16, "bfloat16": ACL_BF16, "float64": ACL_DOUBLE, "int32": ACL_INT32,
       "bool": ACL_BOOL}
NP = {"float32": np.dtype(np.float32), "float16": np.dtype(np.float16), "bfloat16": BF16,
      "float64": np.dtype(np.float64), "int32": np.dtype(np.int32), "bool": np.dtype(np.bool_)}
#: The SoCs the rules are checked on: an A2, a chip without bfloat16, the 950.
SOCS = ("ascend910b", "ascend310p", "ascend950")
NAMES = sorted(DESCRIPTIONS)


def _values(desc, sample: bool) -> dict:
    """The attributes: their defaults, or a sample value (every float attribute 0.375) the rules accept."""
    return {a.name: (0.375 if a.kind == "float" else a.choices[-1] if a.kind == "choice" else a.default)
            if sample else a.default for a in desc.attributes}


def _arrays(desc, dtype, shape=(4, 6), seed=0):
    rng = np.random.default_rng(seed)
    out = []
    for i in desc.inputs:
        v = rng.uniform(-5, 5, _shapes(desc, shape)[i.name])
        v.reshape(-1)[:3] = (0.0, -0.0, np.inf if dtype != "int32" else 7.0)
        out.append(v.astype(np.float32).astype(NP[dtype]) if dtype != "int32" else v.astype(np.int32))
    return out


def _tensor(a, data_type):
    return aclnn.aclCreateTensor(a.shape, data_type, None, 0, aclnn.ACL_FORMAT_ND, a.shape, a)


def _acl_args(desc, tensors, values, out):
    """Phase one's arguments in the description's aclnn order (``acl_arguments``: attributes may sit between
    the tensors)."""
    by = {a.acl: aclCreateScalar(values[a.name], ACL_FLOAT) if a.kind == "float" and desc.rows is None
          else _acl_choice(a, values[a.name]) for a in desc.attributes}   # the rows kind: a C double, an int64
    by.update({i.acl: t for i, t in zip(desc.inputs, tensors)})
    by.update(zip((acl for _, acl in _outputs(desc)), _each(out)))
    return tuple(by[n] for n in _acl_order(desc))


def _acl_choice(a, value):
    """A choice attribute as its aclnn signature takes it: the string, or its integer code (``acl_codes``; 0 for
    the default where no code names it); any other attribute as is."""
    if a.kind != "choice" or a.acl_codes is None:
        return value
    return next((code for code, choice in a.acl_codes.items() if choice == value), 0)


def _torch_attribute(desc):
    """The float attribute the generated torch module takes first (positionally; any others keep their defaults
    here: Softplus's threshold); None for a module without one (ReLU)."""
    names = desc.torch_attributes or tuple(a.name for a in desc.float_attributes)
    return names[0] if names else None


def _second_input(desc, x, y):
    """What forward ``desc``'s backward takes beside the gradient: ``y``, the forward's result, where its second
    input has role ``"y"`` (SigmoidGrad's), else ``x``."""
    return y if get_operator(desc.backward).described_by.inputs[-1].role == "y" else x


def _aclnn(desc, arrays, values, out, codes=None):
    """Phase one's status; on success the launch run into ``out``."""
    codes = codes or [ACL[a.dtype.name] for a in arrays]
    get_ws, launch = (getattr(aclnn, n) for n in desc.aclnn)
    status, ws, ex = get_ws(*_acl_args(desc, [_tensor(a, c) for a, c in zip(arrays, codes)], values,
                                       tuple(_tensor(o, ACL[o.dtype.name]) for o in _each(out))))
    if status == ACLNN_SUCCESS:
        assert launch(np.zeros(ws, np.uint8) if ws else None, ws, ex, None) == ACLNN_SUCCESS
        assert aclnn.aclrtSynchronizeStream(None) == aclnn.ACL_SUCCESS
    return status


def _run_into(desc, arrays, values):
    """The aclnn launch's result (phase one must accept)."""
    out = np.zeros(np.broadcast_shapes(*(a.shape for a in arrays)), arrays[0].dtype) if desc.rows is None \
        else _zeros(desc, arrays, arrays[0].dtype)
    assert _aclnn(desc, arrays, values, out) == ACLNN_SUCCESS, aclnn.aclGetRecentErrMsg()
    return out


def test_the_registry_names_every_face():
    for name, op in OPERATORS.items():
        if op.aclnn:
            assert callable(getattr(sg, op.functional)), name
            assert all(callable(getattr(aclnn, n)) for n in op.aclnn), name
    for name in NAMES:
        op = get_operator(name)
        assert op.described_by is DESCRIPTIONS[name] and op.functional == DESCRIPTIONS[name].functional
        assert getattr(sg, op.functional).__name__ == op.functional


@pytest.mark.parametrize("name", NAMES)
def test_ops_show_prints_the_description(name, capsys):
    desc = DESCRIPTIONS[name]
    assert main(["ops", "show", name]) == 0
    text = capsys.readouterr().out
    assert f"swishgrad_numba.{desc.functional}(" in text and desc.aclnn[0] in text
    assert all(f"{a.name} ({a.acl})" in text for a in desc.attributes)


@pytest.mark.parametrize("name, dtype", [(n, d) for n in NAMES for d in ("float32", "float16", "bfloat16", "float64")
                                          if d in DESCRIPTIONS[n].accepted_dtypes])
@pytest.mark.parametrize("sample", [False, True], ids=["defaults", "sample"])
def test_faces_agree(name, dtype, sample):
    """functional == aclnn == Dask (== torch for a forward with its module, forward and backward)."""
    desc = DESCRIPTIONS[name]
    platform = get_operator(name).default_platform
    aclnn.set_platform(platform)
    arrays, values = _arrays(desc, dtype, seed=len(name)), _values(desc, sample)
    got = getattr(sg, desc.functional)(*arrays, **values)
    assert _each(got)[0].dtype == NP[dtype] and _each(got)[0].shape == _out_of(desc, arrays)
    out = tuple(np.zeros_like(g) for g in _each(got)) if isinstance(got, tuple) else np.zeros_like(got)
    assert _aclnn(desc, arrays, values, out) == ACLNN_SUCCESS, aclnn.aclGetRecentErrMsg()
    for o, g in zip(_each(out), _each(got)):
        assert_bits_equal(o, g, "aclnn")
    da = pytest.importorskip("dask.array")
    from swishgrad_numba import dask as sgd

    # an input of fewer axes than x (RmsNorm's gamma: the row) stays in memory
    lazy = getattr(sgd, desc.functional)(*(da.from_array(a, chunks=(3, 4)) if a.ndim == arrays[0].ndim else a
                                           for a in arrays), **values)
    for lz, g in zip(_each(lazy), _each(got)):
        assert_bits_equal(lz.compute(scheduler="synchronous"), g, "dask")
    if desc.torch_module is None or dtype == "float64":
        return
    torch = pytest.importorskip("torch")
    from swishgrad_numba import torch as sgt

    attr = _torch_attribute(desc)
    kw = {} if attr is None else {attr: values[attr]}
    got = getattr(sg, desc.functional)(arrays[0], **kw)   # the module's other attributes: defaults
    t = (lambda a: torch.from_numpy(a.view(np.int16 if a.itemsize == 2 else np.int32)).view(
        {"float32": torch.float32, "float16": torch.float16, "bfloat16": torch.bfloat16}[dtype]))
    back = (lambda v: v.detach().view(torch.int16 if dtype != "float32" else torch.int32).numpy().view(NP[dtype]))
    x = t(arrays[0]).clone().requires_grad_()
    y = getattr(sgt, desc.torch_module)(*([] if attr is None else [values[attr]]))(x)
    assert_bits_equal(back(y), got, "torch forward")
    g = _arrays(desc, dtype, got.shape, seed=99)[0]   # the output's shape (a row operator's: not x's)
    y.backward(t(g))
    backward = get_operator(desc.backward).described_by
    # both passes run on the forward's platform (its default here)
    want = getattr(sg, backward.functional)(g, _second_input(desc, arrays[0], got), **kw, platform=platform)
    assert_bits_equal(back(x.grad), want, "torch backward")


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("soc", SOCS)
@pytest.mark.parametrize("dtype", ["float32", "float16", "bfloat16", "float64", "int32", "bool"])
def test_dtype_rules_per_soc(name, soc, dtype):
    """aclnn phase one refuses (161002) exactly the dtypes the description does not list for the SoC;
    the functional face on that platform accepts exactly what phase one accepts and the kernel runs."""
    desc = DESCRIPTIONS[name]
    platform = Platform(soc_version=soc)
    aclnn.set_platform(platform)
    arrays = _arrays(desc, dtype if dtype != "bool" else "float32")
    arrays = [a.astype(bool) for a in arrays] if dtype == "bool" else arrays
    out = np.zeros(_out_of(desc, arrays), NP[dtype] if dtype in ("float32", "float16", "bfloat16", "float64") else F32)
    if len(_outputs(desc)) > 1:
        out = _zeros(desc, arrays, out.dtype)
    if desc.out_same_dtype and dtype != "bool":   # aclnnRelu, aclnnThresholdBackward: out of the inputs' dtype
        out = np.zeros(arrays[0].shape, arrays[0].dtype)
    status = _aclnn(desc, arrays, _values(desc, False), out)
    listed = dtype in desc.dtypes_on(soc)
    # a kernel on the SoC: its architecture's (a row operator's modelled on some SoC families only: not the 310P)
    runs = listed and (dtype in desc.aicpu_dtypes or get_operator(name).kernel_refusal(platform) is None)
    assert status == (ACLNN_SUCCESS if runs else ACLNN_ERR_INNER_NULLPTR if listed else ACLNN_ERR_PARAM_INVALID), \
        aclnn.aclGetRecentErrMsg()
    try:
        getattr(sg, desc.functional)(*arrays, platform=platform)
        accepted = True
    except (TypeError, ValueError, NotImplementedError):   # NotImplementedError: a row operator's unmodelled SoC
        accepted = False
    assert accepted == runs


#: (operator, SoC) where the operator's aclnn list takes bfloat16 otherwise than the ASCEND910B..ASCEND910E gate
#: (``GetDtypeSupportListV2``: the A2, A3 and 950, not the 910E; issue 41): the functional face must follow the
#: list there too.
GATE_DIFFERS = [(n, soc) for n in NAMES for soc in BF16_SOC_VERSIONS
                if "bfloat16" in DESCRIPTIONS[n].accepted_dtypes and "bfloat16" not in DESCRIPTIONS[n].dtypes_on(soc)]


@pytest.mark.parametrize("name, soc", GATE_DIFFERS)
def test_dtype_rules_where_the_list_is_not_the_bfloat16_gate(name, soc):
    test_dtype_rules_per_soc(name, soc, "bfloat16")


F32 = np.dtype(np.float32)
PAIRED = [n for n in NAMES if len(DESCRIPTIONS[n].inputs) == 2]
#: Input pairs of differing dtypes: a promotion's, an integer or bool second input (an input's extra dtypes).
MIXED = [("bfloat16", "float64"), ("float16", "bfloat16"), ("float16", "int32"), ("float32", "bool")]


@pytest.mark.parametrize("name", PAIRED)
@pytest.mark.parametrize("soc", SOCS)
@pytest.mark.parametrize("first, second", MIXED)
def test_mixed_dtypes_per_soc(name, soc, first, second):
    """Two inputs of differing dtypes on each SoC: the functional face accepts exactly what aclnn's phase one
    accepts and the launch runs (the output of PyTorch's promoted floating dtype), and where both do, their
    bits are equal; bfloat16 with another dtype on a SoC without bfloat16 is refused by both."""
    from swishgrad_numba.dtypes import promoted_float_dtype

    desc = DESCRIPTIONS[name]
    platform = Platform(soc_version=soc)
    aclnn.set_platform(platform)
    a, b = _arrays(desc, "float32", seed=7)
    a = a.astype(NP[first])
    b = b.astype(NP[second]) if second != "int32" else np.nan_to_num(b, posinf=7.0).astype(np.int32)
    result = promoted_float_dtype(a.dtype, b.dtype)
    out = np.zeros(_out_of(desc, [a, b]), result) if len(_outputs(desc)) == 1 else _zeros(desc, [a, b], result)
    ok = _aclnn(desc, [a, b], _values(desc, False), out) == ACLNN_SUCCESS
    try:
        got = getattr(sg, desc.functional)(a, b, platform=platform)
    except (TypeError, ValueError):
        got = None
    assert (got is not None) == ok, aclnn.aclGetRecentErrMsg()
    if ok:
        assert _each(got)[0].dtype == result
        for g, o in zip(_each(got), _each(out)):
            assert_bits_equal(g, o, "functional and aclnn")


@pytest.mark.parametrize("name", NAMES)
def test_statuses_and_rank_rule(name):
    desc = DESCRIPTIONS[name]
    aclnn.set_platform(get_operator(name).default_platform)
    values = _values(desc, False)
    arrays = _arrays(desc, "float32")
    ok = [_tensor(a, ACL_FLOAT) for a in arrays]
    out = tuple(_tensor(o, ACL[o.dtype.name]) for o in _each(_zeros(desc, arrays, F32)))
    out = out[0] if len(out) == 1 else out
    get_ws = getattr(aclnn, desc.aclnn[0])
    assert get_ws(*_acl_args(desc, ok, values, out))[0] == ACLNN_SUCCESS
    # the tensors, the output(s) and each aclScalar (a row operator's float attribute is a C double: not a pointer)
    nullable = [i.acl for i in desc.inputs] + [acl for _, acl in _outputs(desc)] + [
        a.acl for a in desc.float_attributes if desc.rows is None]
    optional = {a.acl for a in desc.float_attributes if a.optional}
    for name in nullable:                                   # each tensor, the output, each scalar: null
        args = list(_acl_args(desc, ok, values, out))
        args[_acl_order(desc).index(name)] = None
        # an optional scalar's null pointer is its default (aclnnSwish's betaOptional)
        assert get_ws(*args)[0] == (ACLNN_SUCCESS if name in optional else ACLNN_ERR_PARAM_NULLPTR), name
    # the rank rule: max_dims passes, one more is refused by both faces, naming the input; no limit: 9 pass
    too_many = ACLNN_ERR_PARAM_INVALID if desc.rows is None else desc.rows.status   # aclnnRmsNorm's 561002
    limits = ((desc.max_dims, ACLNN_SUCCESS), (desc.max_dims + 1, too_many)) \
        if desc.max_dims is not None else ((9, ACLNN_SUCCESS),)
    for rank, status in limits:
        # a row operator's axis input: its last axis 2 long (SwiGlu splits it into halves)
        shapes = _shapes(desc, (1,) * rank if desc.rows is None else (1,) * (rank - 1) + (2,))
        big = [np.ones(shapes[i.name], F32) for i in desc.inputs]
        assert _aclnn(desc, big, values, _zeros(desc, big, F32)) == status
        if status != ACLNN_SUCCESS:
            with pytest.raises(ValueError, match=f"{desc.inputs[0].name} has at most {desc.max_dims} dimensions"):
                getattr(sg, desc.functional)(*big)
        else:
            for g, o in zip(_each(getattr(sg, desc.functional)(*big)), _each(_run_into(desc, big, values))):
                assert_bits_equal(g, o, "rank")
    # a bad attribute: a string for a float (the functional face), not a bool for a bool (both faces), a value
    # outside a choice's set (both faces; None is aclnn's null pointer)
    for a in desc.attributes:
        bad = {**values, a.name: "1" if a.kind in ("float", "int") else 1}
        with pytest.raises(ValueError if a.kind == "choice" else TypeError, match=a.name):
            getattr(sg, desc.functional)(*arrays, **bad)
        if a.kind == "bool":
            assert get_ws(*_acl_args(desc, ok, bad, out))[0] == ACLNN_ERR_PARAM_INVALID
        if a.kind == "choice":
            args = list(_acl_args(desc, ok, values, out))
            for wrong, status in (("erf", ACLNN_ERR_PARAM_INVALID), (None, ACLNN_ERR_PARAM_NULLPTR)):
                args[desc.acl_arguments.index(a.acl)] = wrong
                assert get_ws(*args)[0] == status, (a.name, wrong)
                with pytest.raises(ValueError, match=a.name):
                    getattr(sg, desc.functional)(*arrays, **{**values, a.name: wrong})


#: (a row operator's torch faces are tested by their own tests: SwiGLU's jvp is not its backward's)
TORCHED = [n for n in NAMES if DESCRIPTIONS[n].torch_module and DESCRIPTIONS[n].rows is None]


# Dynamo reads .grad of the intermediate tensors it resumes with (a torch warning, not ours).
@pytest.mark.filterwarnings("ignore:The .grad attribute of a Tensor that is not a leaf:UserWarning")
# torch's forward-mode AD loads its jvp decompositions through torch.jit.script on first use, which warns.
@pytest.mark.filterwarnings("ignore:`torch.jit.script` is deprecated:DeprecationWarning")
@pytest.mark.parametrize("name", TORCHED)
def test_torch_module_under_func_and_compile(name):
    """The generated module under torch.func (vmap, jvp, grad) and torch.compile (the kernels run eagerly):
    the faces' bits, forward and backward."""
    torch = pytest.importorskip("torch")
    from swishgrad_numba import torch as sgt

    desc = DESCRIPTIONS[name]
    attr = _torch_attribute(desc)
    fn, back_fn = getattr(sg, desc.functional), getattr(sg, get_operator(desc.backward).described_by.functional)
    m = getattr(sgt, desc.torch_module)(*([] if attr is None else [-0.375]))
    kw = {} if attr is None else {attr: -0.375}
    on = get_operator(name).default_platform              # the module's passes both run there
    # the backward at x, given x's forward result where it reads that (SigmoidGrad's y)
    back = (lambda g, x, **k: back_fn(g, _second_input(desc, x, fn(x, **k)), **k, platform=on))
    xb = torch.from_numpy(_arrays(desc, "float32", (3, 10), seed=5)[0])
    want = fn(xb.numpy(), **kw)
    assert_bits_equal(torch.func.vmap(m)(xb).numpy(), want, "vmap")
    tangent = torch.from_numpy(_arrays(desc, "float32", (10,), seed=6)[0])
    _, jvp_out = torch.func.jvp(m, (xb[0],), (tangent,))
    assert_bits_equal(jvp_out.numpy(), back(tangent.numpy(), xb[0].numpy(), **kw), "jvp")
    per_sample = torch.func.vmap(torch.func.grad(lambda t: m(t).sum()))(xb)
    assert_bits_equal(per_sample.numpy(), back(np.ones((3, 10), np.float32), xb.numpy(), **kw), "grad")
    torch._dynamo.reset()
    compiled = torch.compile(lambda t: m(t * 2.0) * 0.5, backend="eager")
    xr = xb.clone().requires_grad_()
    y = compiled(xr)
    assert_bits_equal(y.detach().numpy(), fn(xb.numpy() * np.float32(2.0), **kw) * np.float32(0.5), "compile")
    y.sum().backward()
    expected = back(np.full((3, 10), 0.5, np.float32), xb.numpy() * np.float32(2.0), **kw) * np.float32(2.0)
    assert_bits_equal(xr.grad.numpy(), expected, "compile, backward")


@pytest.mark.parametrize("name", NAMES)
def test_host_tiling_takes_the_attribute_defaults(name):
    """``compute_tiling(op=)`` with no attributes: a record field named as a float attribute's aclnn name
    holds its default, rounded once to float32 (the registry's host tiling, as the CLI takes it)."""
    desc = DESCRIPTIONS[name]
    if not desc.float_attributes:
        pytest.skip(f"{name} has no float attribute")
    if desc.rows is not None:
        pytest.skip(f"{name} is a row operator: its host tiling takes the shape and the axis, not compute_tiling's")
    t = sg.compute_tiling(4096, "float16", op=name, platform=get_operator(name).default_platform)
    record = t.data   # an OpTiling's or SwishGrad's Tiling's record
    named = [a for a in desc.float_attributes if (a.record or a.acl) in record.dtype.names]
    assert named, "no record field carries an attribute"
    for a in named:
        field = a.record or a.acl
        assert np.float32(record[field]).view(np.uint32) == np.float32(a.default).view(np.uint32), field


def test_acl_order_rules_the_signature_and_the_null_checks():
    """aclnnEluBackward's attributes sit between its tensors (``acl_order``): the generated signature
    follows it, and of two null pointers the first in that order is named; describe() refuses an order
    that does not name every argument once."""
    import inspect

    from swishgrad_numba.ops.description import Description, Input, describe

    desc = DESCRIPTIONS["elu_grad"]
    get_ws = getattr(aclnn, desc.aclnn[0])
    assert list(inspect.signature(get_ws).parameters) == ["gradOutput", "alpha", "scale", "inputScale", "isResult",
                                                          "selfOrResult", "gradInput"]
    aclnn.set_platform(get_operator("elu_grad").default_platform)
    x = np.ones((2, 3), F32)
    args = list(_acl_args(desc, [_tensor(x, ACL_FLOAT)] * 2, _values(desc, False), _tensor(x.copy(), ACL_FLOAT)))
    args[desc.acl_arguments.index("alpha")] = None
    args[desc.acl_arguments.index("selfOrResult")] = None
    assert get_ws(*args)[0] == ACLNN_ERR_PARAM_NULLPTR
    message = aclnn.aclGetRecentErrMsg()
    assert "alpha" in message and "selfOrResult" not in message
    with pytest.raises(ValueError, match="acl_order must name every input and attribute once"):
        describe(Description("bad_order", "", "Bad", functional="bad", aclnn=("a", "b"),
                             inputs=(Input("x", "self"),), acl_order=("self", "self"), dtypes={"*": ("float32",)}))
    assert "bad_order" not in DESCRIPTIONS


#: (not the row operators: their hosts count 32-byte blocks of their own, whatever the platform's block_size)
A2_KERNELED = [n for n in NAMES if "a2" in DESCRIPTIONS[n].kernels and DESCRIPTIONS[n].rows is None]


@pytest.mark.parametrize("name", A2_KERNELED)
def test_a_block_that_holds_no_whole_element_is_refused_by_both_faces(name):
    """An A2 platform whose block (3 bytes) holds no whole float32 element: phase one refuses it (161002,
    naming platform.block_size) and so does the functional face, as the hand-written faces always did."""
    desc = DESCRIPTIONS[name]
    platform = Platform(block_size=3)
    aclnn.set_platform(platform)
    arrays = _arrays(desc, "float32")
    assert _aclnn(desc, arrays, _values(desc, False), np.zeros_like(arrays[0])) == ACLNN_ERR_PARAM_INVALID
    assert "platform.block_size" in aclnn.aclGetRecentErrMsg()
    with pytest.raises(ValueError, match="block_size"):
        getattr(sg, desc.functional)(*arrays, platform=platform)


AXPY = [n for n in NAMES if DESCRIPTIONS[n].axpy]
#: Operators whose Axpy cannot show its rounding: Mish's (and MishGrad's, on Mish's Compute) is
#: ``Axpy(p, q, 2.0)``, and q * 2 is exact, so the fused and unfused roundings give the same bits.
ROUNDING_UNSEEN = {"mish", "mish_grad"}


@pytest.mark.parametrize("name", AXPY)
@pytest.mark.parametrize("rounding", ["fused", "unfused"])
def test_axpy_rounding_reaches_every_launch(name, rounding):
    """An operator whose kernels have an Axpy (``axpy``): the functional face and the aclnn launch both run the
    platform's Axpy rounding, on inputs of one shape and (where it broadcasts) on the broadcast walk; the other
    rounding gives other bits on these inputs, so a face that dropped it would be seen."""
    desc = DESCRIPTIONS[name]
    fn = getattr(sg, desc.functional)
    platform = Platform(soc_version="ascend950", axpy_rounding=rounding)
    other = Platform(soc_version="ascend950", axpy_rounding="unfused" if rounding == "fused" else "fused")
    aclnn.set_platform(platform)
    layouts = [[(6, 7, 50)] * len(desc.inputs)]
    if desc.broadcast and len(desc.inputs) == 2:
        layouts.append([(6, 1, 50), (1, 7, 50)])
    rng = np.random.default_rng(11)
    values = _values(desc, True)   # a choice's last value (GeluV2's tanh: its Axpy)
    for shapes in layouts:
        arrays = [rng.uniform(-5, 5, s).astype(np.float32) for s in shapes]
        got = fn(*arrays, **values, platform=platform)
        out = np.zeros(got.shape, np.float32)
        assert _aclnn(desc, arrays, values, out) == ACLNN_SUCCESS, aclnn.aclGetRecentErrMsg()
        assert_bits_equal(out, got, f"aclnn, {shapes}")
        if name not in ROUNDING_UNSEEN:
            assert (fn(*arrays, **values, platform=other).view(np.uint32) != got.view(np.uint32)).any(), shapes
