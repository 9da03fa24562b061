"""precision.envelope: the outputs a device with Exp and Div errors can reach (model section 10).

Checked bit for bit against tests/reference.py's ref_envelope_members, which
enumerates each element's reachable set step by step in numpy float32 with
np.nextafter, on specials, subnormals and the regions where Exp overflows
or underflows, for both kernels, every dtype, several budgets and betas.
"""
import numpy as np
import pytest

from reference import DTYPES, SPECIALS, bits, random_inputs, ref_envelope_members
from swishgrad_numba import swish_backward
from swishgrad_numba.platform import ASCEND950_PLATFORM, REFERENCE_PLATFORM, Platform
from swishgrad_numba.precision import ENVELOPE_PRESETS, MAX_ENVELOPE_ULP, Envelope, envelope

PLATFORMS = {"a2": REFERENCE_PLATFORM, "arch35": ASCEND950_PLATFORM}
_UINT = {4: np.uint32, 2: np.uint16}

# x where Exp overflows (beta*x below -88.72), underflows to subnormal or zero (beta*x in 87.3 .. 104),
# and where the sigmoid is a subnormal quotient; subnormal and huge x; the specials.
_X_REGIONS = np.array([-88.8, -88.72, -88.7, -89.5, -100.0, -1e30, 87.3, 88.5, 95.0, 103.0, 103.98, 104.5,
                       1e-40, -1e-40, 1.5e-45, 3e38, -3e38, 0.03, -0.7, 2.2, -2.2, 16.0, -16.0], dtype=np.float64)
_G_VALUES = np.array([1.0, -1.0, 0.5, 3.0, -2.75, 1e-38, 6e-8, 65504.0, 3e38, -0.0], dtype=np.float64)


def _inputs(dtype, seed):
    """x: every special and region value; g: cycled values and specials. ~55 elements."""
    rng = np.random.default_rng(seed)
    x = np.concatenate([SPECIALS, _X_REGIONS])
    g = np.concatenate([_G_VALUES, SPECIALS])[rng.permutation(x.size) % (_G_VALUES.size + SPECIALS.size)]
    dt = DTYPES[dtype]
    with np.errstate(over="ignore"):
        return g.astype(np.float32).astype(dt), x.astype(np.float32).astype(dt)


def _key(v, dt):
    """Python int of an output pattern, or "nan"."""
    arr = np.array([v], dtype=dt)
    return "nan" if np.isnan(arr.astype(np.float32))[0] else int(arr.view(_UINT[dt.itemsize])[0])


def _order(key, dt):
    sign = 1 << (8 * dt.itemsize - 1)
    return -(key & (sign - 1)) if key & sign else (key & (sign - 1)) + 1


def _neighbours(key, dt):
    """Output patterns one step either side (bit patterns +-1, sign flipped for zeros)."""
    sign = 1 << (8 * dt.itemsize - 1)
    top = (1 << (8 * dt.itemsize)) - 1
    return [k & top for k in (key - 1, key + 1, key ^ sign)]


def _check_against_reference(g, x, beta, exp_ulp, div_ulp, ftz, kernel, dtype, membership_columns=None):
    dt = DTYPES[dtype]
    uint = _UINT[dt.itemsize]
    env = envelope(g, x, beta, exp_ulp=exp_ulp, div_ulp=div_ulp, flush_subnormals=ftz, platform=PLATFORMS[kernel])
    refs = [ref_envelope_members(gi, xi, beta, exp_ulp, div_ulp, ftz, kernel, dtype) for gi, xi in zip(g, x)]
    lo_bits, hi_bits = env.lo.view(uint), env.hi.view(uint)
    count = env.count()
    for i, ref in enumerate(refs):
        ctx = f"element {i}: g={g[i]!r} x={x[i]!r}, reachable {sorted(map(str, ref))}"
        numbers = [k for k in ref if k != "nan"]
        assert bool(env.nan_reachable[i]) == ("nan" in ref), ctx
        assert count[i] == len(ref), ctx
        if numbers:
            assert int(lo_bits[i]) == min(numbers, key=lambda k: _order(k, dt)), ctx
            assert int(hi_bits[i]) == max(numbers, key=lambda k: _order(k, dt)), ctx
        else:
            assert np.isnan(env.lo[i].astype(np.float32)) and np.isnan(env.hi[i].astype(np.float32)), ctx
    # Membership, bit for bit, on every member, its neighbours, the emulator's output, NaN, +-0 and +-inf.
    emulated = swish_backward(g, x, beta, platform=PLATFORMS[kernel]).view(uint)
    nan_key = int(np.array([np.nan], dtype=dt).view(uint)[0])
    specials = [nan_key] + [_key(v, dt) for v in (0.0, -0.0, np.inf, -np.inf)]
    candidates = []
    for i, ref in enumerate(refs):
        cand = {int(emulated[i]), *specials}
        for k in ref:
            if k != "nan":
                cand.add(k)
                cand.update(_neighbours(k, dt))
        candidates.append(sorted(cand))
    width = max(len(c) for c in candidates)
    columns = range(width)
    if membership_columns is not None and width > membership_columns:
        # A seeded sample of the query columns, the first and last included.
        columns = sorted({0, width - 1, *np.random.default_rng(7).choice(width, membership_columns, replace=False)})
    # Every query column in one contains() call (each call enumerates every combination once): the
    # elements tiled once per column, each tile asked its column's patterns.
    columns = list(columns)
    query = np.array([c[j % len(c)] for j in columns for c in candidates], dtype=uint)
    tiled = envelope(np.tile(g, len(columns)), np.tile(x, len(columns)), beta, exp_ulp=exp_ulp, div_ulp=div_ulp,
                     flush_subnormals=ftz, platform=PLATFORMS[kernel])
    got = tiled.contains(query.view(dt))
    expected = np.array([_key(q, dt) in refs[k % len(refs)] for k, q in enumerate(query.view(dt))])
    bad = np.flatnonzero(got != expected)
    if bad.size:
        i = bad[0] % len(refs)
        raise AssertionError(f"contains differs at element {i} for pattern {int(query[bad[0]]):#x}: got "
                             f"{got[bad[0]]}, reference {expected[bad[0]]}; reachable {sorted(map(str, refs[i]))}")


@pytest.mark.parametrize("kernel", ["a2", "arch35"])
@pytest.mark.parametrize("dtype", list(DTYPES))
@pytest.mark.parametrize("exp_ulp, div_ulp, ftz, beta", [
    (0, 0, False, 1.0), (1, 1, False, 1.0), (1, 1, True, 1.7), (2, 0, False, -0.6), (0, 3, True, 1.0),
])
def test_envelope_matches_reference(kernel, dtype, exp_ulp, div_ulp, ftz, beta):
    g, x = _inputs(dtype, seed=exp_ulp * 7 + div_ulp)
    _check_against_reference(g, x, beta, exp_ulp, div_ulp, ftz, kernel, dtype)


@pytest.mark.parametrize("kernel", ["a2", "arch35"])
@pytest.mark.parametrize("dtype", list(DTYPES))
def test_envelope_random_against_reference(kernel, dtype):
    g, x = random_inputs(np.random.default_rng(5), 40, dtype, special_fraction=0.2)
    _check_against_reference(g, x, 1.25, 2, 2, False, kernel, dtype)


@pytest.mark.parametrize("kernel", ["a2", "arch35"])
@pytest.mark.parametrize("dtype", list(DTYPES))
def test_zero_budget_is_the_emulator(kernel, dtype):
    """No freedom (and no flush): one reachable output per element, the emulator's."""
    g, x = random_inputs(np.random.default_rng(11), 20000, dtype)
    em = swish_backward(g, x, 0.9, platform=PLATFORMS[kernel])
    env = envelope(g, x, 0.9, exp_ulp=0, div_ulp=0, platform=PLATFORMS[kernel])
    assert env.contains(em).all()
    assert (env.count() == 1).all()
    nan = np.isnan(em.astype(np.float32))
    np.testing.assert_array_equal(bits(env.lo)[~nan], bits(em)[~nan])
    np.testing.assert_array_equal(bits(env.hi)[~nan], bits(em)[~nan])
    assert (env.nan_reachable == nan).all()


@pytest.mark.parametrize("kernel", ["a2", "arch35"])
@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_every_16_bit_x(kernel, dtype):
    """All 65,536 x: the emulator is always inside the 1-ulp envelope, and lo <= emulator <= hi."""
    dt = DTYPES[dtype]
    x = np.arange(65536, dtype=np.uint16).view(dt)
    g = np.ones(65536, dtype=np.float32).astype(dt)
    em = swish_backward(g, x, 1.0, platform=PLATFORMS[kernel])
    env = envelope(g, x, 1.0, platform=PLATFORMS[kernel])
    assert env.contains(em).all()
    e32, lo32, hi32 = (a.astype(np.float32) for a in (em, env.lo, env.hi))
    finite = ~np.isnan(e32)
    assert (lo32[finite] <= e32[finite]).all() and (e32[finite] <= hi32[finite]).all()
    # 16-bit results rarely move: most x have a single reachable output.
    assert (env.count() == 1).mean() > 0.5


def test_contains_is_membership_not_the_interval():
    """An output strictly between lo and hi can be unreachable: the set has gaps."""
    g, x = random_inputs(np.random.default_rng(3), 400, "float32", special_fraction=0.0)
    env = envelope(g, x, 1.0, exp_ulp=3, div_ulp=0)
    lo, hi = env.lo.view(np.uint32).astype(np.int64), env.hi.view(np.uint32).astype(np.int64)
    gaps = 0
    for i in np.flatnonzero((env.lo > 0) & (hi - lo >= 2))[:40]:
        between = np.arange(lo[i], hi[i] + 1, dtype=np.int64).astype(np.uint32)
        # Element i's envelope against every pattern between its bounds.
        one = envelope(np.full(between.size, g[i]), np.full(between.size, x[i]), 1.0, exp_ulp=3, div_ulp=0)
        got = one.contains(between.view(np.float32))
        ref = ref_envelope_members(g[i], x[i], 1.0, 3, 0, False, "a2", "float32")
        assert list(got) == [int(b) in ref for b in between]
        gaps += int((~got).sum())
    assert gaps > 0


def test_presets_are_envelope_arguments():
    for name, preset in ENVELOPE_PRESETS.items():
        kwargs = {k: v for k, v in preset.items() if k != "soc_version"}
        env = envelope(np.ones(3, np.float32), np.ones(3, np.float32),
                       platform=Platform(soc_version=preset["soc_version"]), **kwargs)
        assert env.architecture == Platform(soc_version=preset["soc_version"]).architecture
    assert ENVELOPE_PRESETS["950-doc"] == {"exp_ulp": 1, "div_ulp": 1, "flush_subnormals": True,
                                           "soc_version": "ascend950"}


def test_shapes_and_empty():
    g = np.ones((2, 0, 3), np.float16)
    env = envelope(g, g)
    assert env.lo.shape == (2, 0, 3) and env.contains(g).shape == (2, 0, 3) and env.count().shape == (2, 0, 3)
    g = np.full((), 2.0, np.float32)
    env = envelope(g, g, 1.0)
    assert env.lo.shape == () and env.contains(swish_backward(g, g)).shape == () and bool(env.contains(
        swish_backward(g, g)))
    assert isinstance(env, Envelope)


@pytest.mark.parametrize("kwargs, exc, match", [
    ({"exp_ulp": -1}, ValueError, r"exp_ulp must be in \[0, 64\]"),
    ({"div_ulp": MAX_ENVELOPE_ULP + 1}, ValueError, r"div_ulp must be in \[0, 64\]"),
    ({"exp_ulp": 1.0}, TypeError, "exp_ulp must be an integer"),
    ({"div_ulp": True}, TypeError, "div_ulp must be an integer"),
    ({"flush_subnormals": 1}, TypeError, "flush_subnormals must be a bool"),
    ({"platform": "ascend950"}, TypeError, "platform must be a Platform"),
    ({"platform": Platform(overflow_mode="saturation")}, ValueError, "Inf/NaN overflow mode only"),
])
def test_bad_arguments(kwargs, exc, match):
    a = np.ones(4, np.float32)
    with pytest.raises(exc, match=match):
        envelope(a, a, **kwargs)


def test_bad_arrays_and_outputs():
    a = np.ones(4, np.float32)
    with pytest.raises(TypeError, match="grad_output and x must have the same dtype"):
        envelope(a.astype(np.float16), a)
    with pytest.raises(ValueError, match="same shape"):
        envelope(a[:3], a)
    with pytest.raises(TypeError, match="x must be a numpy.ndarray"):
        envelope(a, [1.0] * 4)
    env = envelope(a, a)
    with pytest.raises(TypeError, match="device_output must have dtype float32"):
        env.contains(a.astype(np.float16))
    with pytest.raises(ValueError, match=r"device_output must have shape \(4,\)"):
        env.contains(a[:2])
    with pytest.raises(TypeError, match="device_output must be a numpy.ndarray"):
        env.contains(list(a))


def test_a_masked_device_output_is_refused():
    a = np.ones(4, np.float32)
    env = envelope(a, a)
    with pytest.raises(TypeError, match="device_output must be a plain numpy.ndarray, not a masked array"):
        env.contains(np.ma.masked_array(a, mask=[True, False, False, False]))


@pytest.mark.parametrize("kernel", ["a2", "arch35"])
def test_an_ulp_step_does_not_cross_zero(kernel):
    # x = -100: Div's exact result 1/(e^100 + 1) rounds to +0 or a tiny positive; a step below zero would
    # be a negative sigmoid, which gives a positive output (+1.39e-43 on the A2). No output is above +0.
    g, x = np.ones(1, np.float32), np.full(1, -100.0, np.float32)
    env = envelope(g, x, exp_ulp=1, div_ulp=1, platform=PLATFORMS[kernel])
    assert env.hi[0] <= 0
    _check_against_reference(g, x, 1.0, 1, 1, False, kernel, "float32")
    # A zero Exp (t far below -103) steps up only: e = -denorm_min would not be an Exp result.
    _check_against_reference(g, np.full(1, 200.0, np.float32), 1.0, 2, 2, False, kernel, "float32")


def test_the_largest_budget_against_reference():
    # MAX_ENVELOPE_ULP each: up to 129^2 members per element, counted after an n log n sort. The
    # count, lo and hi are checked against every member; membership on a sample of 40 of the
    # ~50,000 query columns (members and their neighbours; the columns are asked in one contains(),
    # which runs the 129^2 enumerations once over them all), the smaller budgets check them all.
    g = np.array([1.0, -2.5, 3.0e-3], np.float32)
    x = np.array([0.75, -100.0, 20.0], np.float32)
    _check_against_reference(g, x, 1.0, MAX_ENVELOPE_ULP, MAX_ENVELOPE_ULP, False, "a2", "float32",
                             membership_columns=40)
