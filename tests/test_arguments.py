"""The rules every operator shares (swishgrad_numba/arguments.py): the platform an operator runs on (block
size, overflow mode, bfloat16 SoC gate) and ``out``, the same for the four public functions, Dask and aclnn.

Results are compared bit for bit against the plain references in tests/.
"""
from __future__ import annotations

import dataclasses

import ml_dtypes
import numpy as np
import pytest

import swishgrad_numba as sg
from reference import assert_bits_equal, ref_swish_grad
from reference_family import ref_swish
from reference_silu_grad import ref_silu_grad
from swishgrad_numba import aclnn
from swishgrad_numba.ops import OPERATORS

BF16 = np.dtype(ml_dtypes.bfloat16)
F32 = np.dtype(np.float32)

# Each public function as (grad, x, out, platform) -> result; the forward ones ignore grad.
FUNCTIONS = {
    "swish": lambda g, x, out, p: sg.swish(x, 1.3, out=out, platform=p),
    "silu": lambda g, x, out, p: sg.silu(x, out=out, platform=p),
    "silu_backward": lambda g, x, out, p: sg.silu_backward(g, x, out=out, platform=p),
    "swish_backward": lambda g, x, out, p: sg.swish_backward(g, x, 1.3, out=out, platform=p),
}
REFERENCES = {
    "swish": lambda g, x: ref_swish(x, 1.3, "a2"),
    "silu": lambda g, x: ref_swish(x, 1.0, "a2"),
    "silu_backward": ref_silu_grad,
    "swish_backward": lambda g, x: ref_swish_grad(g, x, 1.3),
}
OP_NAMES = {"swish": "swish", "silu": "silu", "silu_backward": "silu_grad", "swish_backward": "swish_grad"}


def _inputs(n, dtype=F32):
    x = np.linspace(-6, 6, n).astype(dtype)
    g = np.linspace(2, -1, n).astype(dtype)
    return g, x


# ---------------------------------------------------------------- item: block sizes that hold no whole element

# A block of 2 or 1 bytes holds no whole float32: every A2 host tiling then loses elements.
ODD_BLOCKS = [sg.Platform(core_num=3, block_size=2), sg.Platform(core_num=2, ub_size=64, block_size=1)]


@pytest.mark.parametrize("name", FUNCTIONS)
@pytest.mark.parametrize("platform", ODD_BLOCKS, ids=["block2", "block1"])
def test_every_operator_refuses_a_block_that_holds_no_whole_element(name, platform):
    g, x = _inputs(3011)
    out = np.full(x.shape, np.nan, dtype=F32)
    with pytest.raises(ValueError, match=r"platform.block_size \(\d bytes\) must hold a whole number of float32"):
        FUNCTIONS[name](g, x, out, platform)
    with pytest.raises(ValueError, match="block_size"):
        sg.compute_tiling(3011, "float32", op=OP_NAMES[name], platform=platform)


@pytest.mark.parametrize("name", FUNCTIONS)
def test_a_block_of_whole_elements_computes_every_element(name):
    # float16 fits 2-byte blocks: accepted, and every element written right (out starts as NaN).
    g, x = _inputs(3011, np.float16)
    out = np.full(x.shape, np.nan, dtype=np.float16)
    FUNCTIONS[name](g, x, out, ODD_BLOCKS[0])
    assert_bits_equal(out, REFERENCES[name](g, x))


def _run_aclnn(op, x, g, out):
    """Phase one of an aclnn operator: its status."""
    t = lambda a: aclnn.aclCreateTensor(a.shape, aclnn.ACL_FLOAT, None, 0, aclnn.ACL_FORMAT_ND, a.shape, a)
    if op == "silu":
        return aclnn.aclnnSiluGetWorkspaceSize(t(x), t(out))[0]
    if op == "swish":
        return aclnn.aclnnSwishGetWorkspaceSize(t(x), aclnn.aclCreateScalar(1.3, aclnn.ACL_FLOAT), t(out))[0]
    if op == "silu_backward":
        return aclnn.aclnnSiluBackwardGetWorkspaceSize(t(g), t(x), t(out))[0]
    return aclnn.aclnnSwishBackwardGetWorkspaceSize(t(g), t(x), aclnn.aclCreateScalar(1.3, aclnn.ACL_FLOAT),
                                                    t(out))[0]


@pytest.mark.parametrize("name", FUNCTIONS)
def test_aclnn_refuses_a_block_that_holds_no_whole_element(name):
    g, x = _inputs(3011)
    previous = aclnn.set_platform(ODD_BLOCKS[0])
    try:
        assert _run_aclnn(name, x, g, np.zeros_like(x)) == aclnn.ACLNN_ERR_PARAM_INVALID
        assert "platform.block_size (2 bytes) must hold a whole number" in aclnn.aclGetRecentErrMsg()
    finally:
        aclnn.set_platform(previous)

# ---------------------------------------------------------------- item: the saturation overflow mode


SATURATION = sg.Platform(overflow_mode="saturation")


@pytest.mark.parametrize("name", FUNCTIONS)
def test_an_operator_without_saturation_refuses_it_and_names_overflow_mode(name, monkeypatch):
    # Every registered operator emulates the mode now; the rule stays for one that does not, and its
    # registry flag is the one place that says so.
    op = OP_NAMES[name]
    monkeypatch.setitem(OPERATORS, op, dataclasses.replace(OPERATORS[op], saturation=False))
    g, x = _inputs(64)
    with pytest.raises(ValueError, match="overflow_mode 'saturation'"):
        FUNCTIONS[name](g, x, None, SATURATION)
    with pytest.raises(ValueError, match="overflow_mode"):
        FUNCTIONS[name](g[:0], x[:0], None, SATURATION)  # an empty tensor too: the rule is the platform's


@pytest.mark.parametrize("name", FUNCTIONS)
def test_every_operator_computes_in_the_saturation_mode(name):
    # Issue 27.4: swish, silu and silu_backward ignored the mode. Far below zero Exp(-x) overflows:
    # the Inf/NaN mode gives zeros there, the saturation mode a largest-finite Exp and so tiny
    # non-zero results (bit for bit against the programs' interpreter: tests/test_program_operators.py).
    # every operator with an A2 kernel (the 950 has no saturation mode; FastGelu runs on the 950 only)
    assert [name for name, op in OPERATORS.items() if "a2" in op.kernels and not op.saturation] == []
    x = np.linspace(-120, -95, 64).astype(F32)
    g = np.ones_like(x)
    infnan, saturated = FUNCTIONS[name](g, x, None, None), FUNCTIONS[name](g, x, None, SATURATION)
    assert np.all(np.isfinite(saturated))
    assert np.all(infnan == 0) and np.all(saturated != 0)

# ---------------------------------------------------------------- item: out=np.matrix


@pytest.mark.filterwarnings("ignore:the matrix subclass:PendingDeprecationWarning")
@pytest.mark.parametrize("name", FUNCTIONS)
def test_a_matrix_out_is_a_type_error_naming_out(name):
    g, x = _inputs(12)
    g, x = g.reshape(3, 4), x.reshape(3, 4)
    with pytest.raises(TypeError, match="out must be a plain numpy.ndarray, not a numpy.matrix"):
        FUNCTIONS[name](g, x, np.matrix(np.zeros((3, 4), dtype=F32)), None)

# ---------------------------------------------------------------- item: bfloat16, one rule for every operator


@pytest.mark.parametrize("name", FUNCTIONS)
@pytest.mark.parametrize("soc", ["ascend910", "ascend310p", "kirinx90"])
def test_bfloat16_is_refused_on_a_soc_without_it_by_every_operator(name, soc):
    g, x = _inputs(16, BF16)
    with pytest.raises(ValueError, match="bfloat16 is only supported on ASCEND910B..ASCEND910E"):
        FUNCTIONS[name](g, x, None, sg.Platform(soc_version=soc))
    with pytest.raises(ValueError, match="bfloat16"):
        FUNCTIONS[name](g[:0], x[:0], None, sg.Platform(soc_version=soc))
    # float16 is computed there.
    g16, x16 = _inputs(16, np.float16)
    assert_bits_equal(FUNCTIONS[name](g16, x16, None, sg.Platform(soc_version=soc)), REFERENCES[name](g16, x16))


@pytest.mark.parametrize("name", FUNCTIONS)
def test_bfloat16_is_computed_on_the_reference_soc(name):
    g, x = _inputs(16, BF16)
    assert_bits_equal(FUNCTIONS[name](g, x, None, None), REFERENCES[name](g, x))


# ---------------------------------------------------------------- item: a platform that passed, kept


def test_a_platform_that_passed_is_kept_per_operator_platform_and_dtype(monkeypatch):
    """check_platform_for keeps the platforms it passed: another platform (equal but for its block size or
    overflow mode), another dtype, or the operator registered anew is checked again, never served a pass."""
    from swishgrad_numba.arguments import check_platform_for
    from swishgrad_numba.dtypes import BFLOAT16, FLOAT32

    plain = sg.Platform()
    assert check_platform_for(plain, "swish_grad", FLOAT32) is plain
    assert check_platform_for(sg.Platform(), "swish_grad", FLOAT32) is not plain   # the caller's own object
    with pytest.raises(ValueError, match="block"):
        check_platform_for(dataclasses.replace(plain, block_size=2), "swish_grad", FLOAT32)
    old_soc = sg.Platform(soc_version="Ascend910")
    assert check_platform_for(old_soc, "swish_grad", FLOAT32) is old_soc
    with pytest.raises(ValueError, match="bfloat16"):
        check_platform_for(old_soc, "swish_grad", BFLOAT16)
    assert check_platform_for(SATURATION, "swish_grad", FLOAT32) is SATURATION
    monkeypatch.setitem(OPERATORS, "swish_grad", dataclasses.replace(OPERATORS["swish_grad"], saturation=False))
    with pytest.raises(ValueError, match="overflow_mode 'saturation'"):
        check_platform_for(SATURATION, "swish_grad", FLOAT32)
    assert check_platform_for(plain, "swish_grad", FLOAT32) is plain


# --------------------------------------------------------------------------
# may_share: the aliasing test of the calls' fast paths
# --------------------------------------------------------------------------


def _alias_pairs():
    owner = np.arange(64, dtype=np.float32)
    other = np.arange(64, dtype=np.float32)
    buf = bytearray(256)
    first, second = np.frombuffer(buf, np.float32), np.frombuffer(buf, np.float32)[8:]
    return {
        "same array": (owner, owner),
        "two owners": (owner, other),
        "view and its owner": (owner[3:9], owner),
        "views of two owners": (owner[::2], other[1::3]),
        "a view of a view and the owner": (owner[2:40][::3], owner[30:]),
        "disjoint halves of one owner": (owner[:32], owner[32:]),
        "interleaved views of one owner": (owner[::2], owner[1::2]),
        "reshaped view and a slice": (owner.reshape(8, 8)[:, 1], owner[40:48]),
        "two arrays over one bytes buffer": (first, second),
        "a buffer's array and an owner": (first, owner),
        "a numba result and an owner": (sg.swish_backward(np.ones(16, np.float32), np.ones(16, np.float32)), owner),
    }


@pytest.mark.parametrize("case", list(_alias_pairs()))
def test_may_share_answers_as_numpy_may_share_memory(case):
    from swishgrad_numba.arguments import may_share

    a, b = _alias_pairs()[case]
    assert may_share(a, b) == bool(np.may_share_memory(a, b)) == may_share(b, a)
    if np.shares_memory(a, b):
        assert may_share(a, b)


def test_may_share_tells_two_numpy_owned_buffers_apart_without_numpys_test(monkeypatch):
    """The test that releases the GIL is left for arrays whose owners are unknown or the same."""
    from swishgrad_numba import arguments

    def refused(*args):
        raise AssertionError("may_share_memory called")
    owner, other = np.zeros(32, np.float16), np.zeros((4, 8), np.float16)
    monkeypatch.setattr(np, "may_share_memory", refused)    # (the numpy module arguments calls)
    assert not arguments.may_share(owner, other)
    assert not arguments.may_share(owner[1::2], other.T)
    with pytest.raises(AssertionError, match="may_share_memory called"):
        arguments.may_share(owner[:4], owner[8:])
