"""precision.operator_envelope: any operator's reachable outputs, from its program (issues 28 and 29).

The 950 Gelu's Axpy may round once or twice (docs/model.md "Axpy"): the envelope holds both. Checked
against the plain references of tests/reference_activations.py, and, with Exp and Div let err, against
a plain enumeration of the 950 Gelu written here one instruction at a time (tests/reference.py's
ulp_neighbourhood walks np.nextafter).
"""
import numpy as np
import pytest

from reference import DTYPES, SPECIALS, fma_f32_exact, ref_exp_f32, ulp_neighbourhood
from reference_activations import ARCH35_GELU_LINEAR, ARCH35_GELU_SCALE, ref_gelu, ref_gelu_backward
from swishgrad_numba.platform import ASCEND950_PLATFORM, REFERENCE_PLATFORM, Platform
from swishgrad_numba.precision import operator_envelope

_UINT = {4: np.uint32, 2: np.uint16}


def _keys(a):
    """Bit patterns as int64, every NaN one key (-1)."""
    a = np.asarray(a)
    k = a.view(_UINT[a.dtype.itemsize]).astype(np.int64)
    return np.where(np.isnan(a.astype(np.float32)), -1, k)


def _inputs(dtype, n, seed):
    if dtype != "float32":    # every 16-bit pattern
        return np.arange(65536, dtype=np.uint16).view(DTYPES[dtype])
    rng = np.random.default_rng(seed)
    x = np.concatenate([SPECIALS, rng.standard_normal(n) * 4, rng.uniform(-12, 12, n)])
    return x.astype(np.float32)


@pytest.mark.parametrize("dtype", list(DTYPES))
def test_gelu_950_envelope_holds_both_axpy_roundings_and_nothing_else(dtype):
    x = _inputs(dtype, 20000, 1)
    env = operator_envelope("gelu", x, exp_ulp=0, div_ulp=0, ln_ulp=0, platform=ASCEND950_PLATFORM)
    assert env.axpy_roundings == ("fused", "unfused") and env.freed == ("Exp", "Div")
    fused, unfused = ref_gelu(x, "arch35", "fused"), ref_gelu(x, "arch35", "unfused")
    assert env.contains(fused).all() and env.contains(unfused).all()
    differ = _keys(fused) != _keys(unfused)
    assert np.array_equal(env.count(), 1 + differ)
    if dtype == "float32":
        assert differ.any()        # the two roundings do differ (about 8% of float32 outputs)


def test_gelu_backward_950_envelope_holds_both_axpy_roundings():
    rng = np.random.default_rng(2)
    x = np.concatenate([SPECIALS, rng.standard_normal(5000) * 4]).astype(np.float32)
    dy = rng.standard_normal(x.size).astype(np.float32)
    env = operator_envelope("gelu_grad", dy, x, exp_ulp=0, div_ulp=0, ln_ulp=0, platform=ASCEND950_PLATFORM)
    fused = ref_gelu_backward(dy, x, "arch35", "fused")
    unfused = ref_gelu_backward(dy, x, "arch35", "unfused")
    assert env.contains(fused).all() and env.contains(unfused).all()
    assert np.array_equal(env.count(), 1 + (_keys(fused) != _keys(unfused)))


def _gelu_950_members(x, exp_ulp, div_ulp, ftz, dtype):
    """One element's reachable outputs, every instruction of gelu_dag.h one numpy float32 step."""
    out_dt = DTYPES[dtype]
    found = set()
    with np.errstate(all="ignore"):
        xf = np.float32(np.array(x, dtype=out_dt).astype(np.float32))
        sq = xf * xf                                                 # Mul
        cub = sq * xf                                                # Mul
        for model in ("fused", "unfused"):                           # Axpy(cub, x, k)
            a = fma_f32_exact(xf, ARCH35_GELU_LINEAR, cub) if model == "fused" else xf * ARCH35_GELU_LINEAR + cub
            t = np.float32(a) * ARCH35_GELU_SCALE                    # Muls
            e0 = ref_exp_f32(np.array([t], dtype=np.float32))[0]     # Exp
            for e in ulp_neighbourhood(e0, exp_ulp, ftz):
                d = e + np.float32(1.0)                              # Adds
                for q in ulp_neighbourhood(xf / d, div_ulp, ftz):    # Div
                    v = np.array([q], dtype=np.float32).astype(out_dt)
                    found.add(int(_keys(v)[0]))
    return found


@pytest.mark.parametrize("dtype", list(DTYPES))
@pytest.mark.parametrize("exp_ulp, div_ulp, ftz", [(1, 1, True), (2, 0, False), (0, 3, False)])
def test_gelu_950_envelope_with_exp_and_div_error_against_a_plain_enumeration(dtype, exp_ulp, div_ulp, ftz):
    rng = np.random.default_rng([3, exp_ulp, div_ulp])
    x = np.concatenate([SPECIALS, [-88.0, -9.5, -9.4, 5e-39, 30.0, -3.1], rng.standard_normal(60) * 5])
    with np.errstate(over="ignore"):
        x = x.astype(np.float32).astype(DTYPES[dtype])
    env = operator_envelope("gelu", x, exp_ulp=exp_ulp, div_ulp=div_ulp, flush_subnormals=ftz,
                            platform=ASCEND950_PLATFORM)
    counts = env.count()
    for i, xi in enumerate(x):
        members = _gelu_950_members(xi, exp_ulp, div_ulp, ftz, dtype)
        assert counts[i] == len(members), (i, xi)
        candidates = np.array(sorted(m for m in members if m >= 0), dtype=np.int64)
        if candidates.size:
            pats = candidates.astype(_UINT[x.dtype.itemsize]).view(x.dtype)
            one = operator_envelope("gelu", np.full(pats.size, xi), exp_ulp=exp_ulp, div_ulp=div_ulp,
                                    flush_subnormals=ftz, platform=ASCEND950_PLATFORM)
            assert one.contains(pats).all()
        assert bool(env.nan_reachable[i]) == (-1 in members)


def test_swish_grad_envelope_is_the_operator_envelope_of_its_program():
    rng = np.random.default_rng(4)
    g, x = rng.standard_normal(300).astype(np.float16), (rng.standard_normal(300) * 9).astype(np.float16)
    from swishgrad_numba.precision import envelope
    a = envelope(g, x, 1.5, exp_ulp=1, div_ulp=2, platform=ASCEND950_PLATFORM)
    b = operator_envelope("swish_grad", g, x, beta=1.5, exp_ulp=1, div_ulp=2, platform=ASCEND950_PLATFORM)
    assert a.freed == b.freed == ("Exp", "Div")
    assert np.array_equal(_keys(a.lo), _keys(b.lo)) and np.array_equal(_keys(a.hi), _keys(b.hi))


def test_bad_arguments_name_the_argument_and_the_rule():
    x = np.ones(4, np.float32)
    with pytest.raises(ValueError, match="op must be one of"):
        operator_envelope("nope", x)
    with pytest.raises(TypeError, match="takes 2 input tensor"):
        operator_envelope("gelu_grad", x, platform=ASCEND950_PLATFORM)
    with pytest.raises(ValueError, match="share one dtype and shape"):
        operator_envelope("gelu_grad", x, x[:2], platform=ASCEND950_PLATFORM)
    with pytest.raises(TypeError, match=r"attributes \['beta'\]; missing \['beta'\]"):
        operator_envelope("swish_grad", x, x)
    with pytest.raises(TypeError, match=r"unknown \['alpha'\]"):
        operator_envelope("gelu", x, alpha=1.0)
    with pytest.raises(ValueError, match=r"exp_ulp must be in \[0, 64\]"):
        operator_envelope("gelu", x, exp_ulp=65)
    with pytest.raises(TypeError, match="ln_ulp must be an integer"):
        operator_envelope("gelu", x, ln_ulp=1.0)
    with pytest.raises(ValueError, match="Inf/NaN overflow mode only"):
        operator_envelope("swish_grad", x, x, beta=1.0, platform=Platform(overflow_mode="saturation"))
    with pytest.raises(ValueError, match="cannot run fast_gelu"):
        operator_envelope("fast_gelu", x, platform=REFERENCE_PLATFORM)
