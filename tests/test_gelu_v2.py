"""gelu_v2 and gelu_backward_v2 (generated; ops/gelu_v2/, ops/gelu_grad_v2/) and
the Erf subroutines (swishgrad_numba.program.erf), bit for bit against the plain references of
tests/reference_activations_tier2.py: both approximations, the three dtypes, every 16-bit x, specials,
seeded float32 samples, both Axpy roundings (tanh), broadcasting, refusals."""
from __future__ import annotations

import numpy as np
import pytest

import reference_activations_tier2 as rb
import swishgrad_numba as sg
from activation_checks import DT16, every16
from program_interpreter import interpret
from reference import SPECIALS, assert_bits_equal
from reference_activations import ref_gelu, ref_gelu_backward
from swishgrad_numba.ops import get_operator
from swishgrad_numba.ops import gelu_grad_v2 as GG2
from swishgrad_numba.ops import gelu_v2 as G2
from swishgrad_numba.program.erf import ALGORITHMS, erf_program
from swishgrad_numba.program.passes import compile_program

DTYPES = ("float32", "float16", "bfloat16")
NP = {"float32": np.dtype(np.float32), **DT16}
P950 = sg.ASCEND950_PLATFORM
P950_UNFUSED = sg.Platform(soc_version="ascend950", axpy_rounding="unfused")


def _x(dtype, rng):
    """Every 16-bit pattern; for float32 seeded samples in [-12, 12), 80 decades, and the specials."""
    if dtype != "float32":
        return every16(dtype)
    x = rng.uniform(-12, 12, 60_000)
    x[:20_000] = rng.standard_normal(20_000) * 10.0 ** rng.integers(-40, 39, 20_000)
    with np.errstate(over="ignore"):
        return np.concatenate([x, SPECIALS]).astype(np.float32)


def _dy(rng, n, dtype):
    dy = rng.uniform(-4, 4, n)
    special = rng.random(n) < 0.05
    dy[special] = rng.choice(SPECIALS, special.sum())
    with np.errstate(over="ignore"):
        return dy.astype(np.float32).astype(NP[dtype])


def _erf_inputs():
    rng = np.random.default_rng(30)
    x = np.concatenate([rng.uniform(-6, 6, 40_000), rng.standard_normal(10_000) * 10.0 ** rng.integers(-40, 39, 10_000),
                        SPECIALS, [1.0029, -1.0029, 3.92, -3.92, 5.9, -5.9]])
    with np.errstate(over="ignore"):
        x = x.astype(np.float32)
    # the threshold's neighbours (the branch switch) and all widened 16-bit patterns
    c = rb.ERF_C0.view(np.uint32)
    near = (np.arange(-64, 64, dtype=np.int64) + int(c)).astype(np.uint32).view(np.float32)
    return np.concatenate([x, near, -near, every16("float16").astype(np.float32), every16("bfloat16").astype(np.float32)])


@pytest.mark.parametrize("algo", ALGORITHMS)
def test_erf_subroutine_is_the_reference_erf(algo):
    x = _erf_inputs()
    want = rb.erf_f32(x, algo)
    some = slice(None, None, 17)   # the interpreter's fused multiply-adds are exact rationals: slow
    assert_bits_equal(interpret(erf_program(algo), {"x": x[some]}, {}), want[some], f"{algo} interpreted")
    compiled = compile_program(erf_program(algo), "float32", module=__name__)
    got = np.empty_like(x)
    sg.kernel.run_walk(compiled.params(), (x.copy(),), got, sg.kernel.plan_launch(
        sg.spec.arch35.host_tiling(x.size, 4, 253_952, 1, 4)[2], 1, sg.kernel.arch_code(sg.platform.ARCH_950), x.size))
    assert_bits_equal(got, want, f"{algo} compiled")


def test_erf_specials():
    x = np.array([0.0, -0.0, np.inf, -np.inf, np.nan], np.float32)
    sub = rb.erf_f32(x, "subsection")
    assert sub[:4].tolist() == [0.0, -0.0, 1.0, -1.0] and np.signbit(sub[1]) and np.isnan(sub[4])
    pade = rb.erf_f32(x, "pade")        # the clip keeps +-inf finite: exactly +-1 from |x| = 3.92 on
    assert pade[2:4].tolist() == [1.0, -1.0] and np.isnan(pade[4])


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("approximate", G2.APPROXIMATIONS)
def test_gelu_v2_bit_exact(approximate, dtype):
    x = _x(dtype, np.random.default_rng([30, len(approximate), len(dtype)]))
    assert_bits_equal(sg.gelu_v2(x, approximate), rb.ref_gelu_v2(x, approximate), f"{approximate} {dtype}")


def test_gelu_v2_tanh_is_the_950_gelu_both_axpy_roundings():
    x = every16("float16")
    for platform, axpy in ((P950, "fused"), (P950_UNFUSED, "unfused")):
        got = sg.gelu_v2(x, "tanh", platform=platform)
        assert_bits_equal(got, rb.ref_gelu_v2(x, "tanh", axpy_model=axpy), axpy)
        assert_bits_equal(got, ref_gelu(x, "arch35", axpy), axpy)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("approximate", G2.APPROXIMATIONS)
def test_gelu_backward_v2_950_bit_exact(approximate, dtype):
    rng = np.random.default_rng([301, len(approximate), len(dtype)])
    x = _x(dtype, rng)
    dy = _dy(rng, x.size, dtype)
    got = sg.gelu_backward_v2(dy, x, approximate, platform=P950)
    assert_bits_equal(got, rb.ref_gelu_backward_v2(dy, x, approximate, "arch35"), f"{approximate} {dtype}")


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("approximate", G2.APPROXIMATIONS)
def test_gelu_backward_v2_a2_bit_exact(approximate, dtype):
    rng = np.random.default_rng([302, len(approximate), len(dtype)])
    x = _x(dtype, rng)
    dy = _dy(rng, x.size, dtype)
    got = sg.gelu_backward_v2(dy, x, approximate)        # the A2 reference platform: the default
    assert_bits_equal(got, rb.ref_gelu_backward_v2(dy, x, approximate, "a2"), f"{approximate} {dtype}")


def test_gelu_backward_v2_a2_specials():
    x = np.array([np.inf, -np.inf, np.nan, 0.0, -0.0, -11.0, -30.0], np.float32)
    dy = np.full(x.size, 2.0, np.float32)
    none = sg.gelu_backward_v2(dy, x)
    # the clamp keeps +-inf finite; NaN only because Mins(NaN, 30) propagates; +-0 give the same 0.5 dy
    assert none[0] == 2.0 and none[1] == 0.0 and np.isnan(none[2]) and none[3] == none[4] == 1.0
    tanh = sg.gelu_backward_v2(dy, x, "tanh")
    # the half-precision guard: where the A2 GeluGrad gives NaN (Exp overflows, +-inf), 0 + s
    assert np.isfinite(tanh[[0, 1, 5, 6]]).all() and tanh[0] == 2.0 and np.isnan(tanh[2])
    assert np.isnan(sg.gelu_backward(dy[[1, 5]], x[[1, 5]])).all()


def test_a2_gelu_grad_v2_tiling_by_hand():
    from reference_activation_tiling_tier2 import a2_gelu_grad_v2_kernel_ub_bytes, a2_gelu_grad_v2_tile
    from swishgrad_numba.spec.a2 import plan_bytes
    for dtype in DTYPES:
        info = sg.dtypes.dtype_info(dtype)
        for n in (1, 7, 2048, 100_003, 6_912 * 48 + 5, 3_000_000):
            for approximate in G2.APPROXIMATIONS:
                tanh = approximate == "tanh"
                tile, buffer_open, block_dim = a2_gelu_grad_v2_tile(n, info.itemsize, tanh)
                t = GG2.host_tiling((n,), (n,), info, approximate, sg.REFERENCE_PLATFORM)
                assert (int(t["tileDataNum"]), int(t["bufferOpen"]), t.block_dim, t.tiling_key) == \
                    (tile, buffer_open, block_dim, int(tanh)) and len(t.tobytes()) == 72
                assert plan_bytes(tile, GG2.a2.buffer_plan(info.itemsize, tanh, buffer_open)) == \
                    a2_gelu_grad_v2_kernel_ub_bytes(tile, info.itemsize, tanh, buffer_open) <= \
                    sg.REFERENCE_PLATFORM.ub_size
                # the kernel DataCopies whole 256-byte blocks: past the tensor's 32-byte padding unless the
                # tensor fills its last 256 bytes (upstream's behaviour, which the validator reports)
                report = sg.validate_tiling(t, n, dtype, sg.REFERENCE_PLATFORM)
                assert report.codes() <= {"OVERRUN_PADDING", "OVERRUN_BEYOND_PADDING"}, report.format()
                assert report.ok == ((n * info.itemsize) % GG2.a2.BLOCK == 0 or
                                     -(-n * info.itemsize // 32) * 32 % GG2.a2.BLOCK == 0), report.format()


def test_gelu_backward_v2_a2_saturation_mode_matches_the_interpreter():
    sat = sg.Platform(overflow_mode="saturation")
    rng = np.random.default_rng(9)
    x = np.concatenate([rng.uniform(-40, 40, 3000), SPECIALS]).astype(np.float32)
    dy = rng.uniform(-3e38, 3e38, x.size).astype(np.float32)
    for approximate in G2.APPROXIMATIONS:
        got = sg.gelu_backward_v2(dy, x, approximate, platform=sat)
        want = interpret(get_operator("gelu_grad_v2").program("float32", sg.REFERENCE_PLATFORM,
                                                              G2.approximate_code(approximate)),
                         {"dy": dy, "x": x}, {}, saturation=True)
        assert_bits_equal(got, want, approximate)
        assert not np.isnan(got).any()


def test_gelu_backward_v2_tanh_is_the_950_gelu_grad_unfused():
    rng = np.random.default_rng(7)
    x = every16("bfloat16")
    dy = _dy(rng, x.size, "bfloat16")
    got = sg.gelu_backward_v2(dy, x, "tanh", platform=P950_UNFUSED)
    assert_bits_equal(got, ref_gelu_backward(dy, x, "arch35", "unfused"))


def test_specials_at_infinity_and_nan():
    x = np.array([np.inf, -np.inf, np.nan, -np.nan, 0.0, -0.0], np.float32)
    y = sg.gelu_v2(x)
    assert y[0] == np.inf and np.isnan(y[1:4]).all() and y[4] == 0.0
    g = sg.gelu_backward_v2(np.ones(6, np.float32), x, platform=P950)
    assert np.isnan(g[:4]).all() and (g[4:] == 0.5).all()   # pdf * x = 0 * inf at +-inf
    t = sg.gelu_backward_v2(np.ones(6, np.float32), x, "tanh", platform=P950)
    assert t[0] == 1.0 and t[1] == 0.0 and np.isnan(t[2:4]).all()   # the 950 GeluGrad's NaN guard


def test_backward_broadcasts_writes_out_and_promotes():
    rng = np.random.default_rng(5)
    dy = rng.uniform(-3, 3, (4, 1, 6)).astype(np.float32)
    x = rng.uniform(-6, 6, (5, 1)).astype(np.float32)
    for approximate in G2.APPROXIMATIONS:
        for platform, kernel in ((P950, "arch35"), (sg.REFERENCE_PLATFORM, "a2")):
            want = rb.ref_gelu_backward_v2(*np.broadcast_arrays(dy, x), approximate, kernel)
            out = np.full((4, 5, 6, 2), np.nan, np.float32)[..., 0]
            assert sg.gelu_backward_v2(dy, x, approximate, out=out, platform=platform) is out
            assert_bits_equal(out, want)
    h, b = rng.uniform(-3, 3, 300).astype(np.float16), rng.uniform(-6, 6, 300).astype(DT16["bfloat16"])
    got = sg.gelu_backward_v2(h, b, platform=P950)
    assert got.dtype == np.float32
    assert_bits_equal(got, rb.ref_gelu_backward_v2(h.astype(np.float32), b.astype(np.float32)))
    y = np.empty((3, 4), np.float16)[:, ::2]
    xs = rng.uniform(-6, 6, (3, 2)).astype(np.float16)
    assert sg.gelu_v2(xs, out=y) is y
    assert_bits_equal(y, rb.ref_gelu_v2(xs))


def test_host_tilings_keys_and_programs():
    info = sg.dtypes.dtype_info("float16")
    t = G2.host_tiling(100_000, info, "tanh", P950)
    assert t.tiling_key == 1 | 1 << 1 | 1 << 2 and t.workspace_size == 16 << 20 and len(t.tobytes()) == 16
    t32 = G2.host_tiling(100_000, sg.dtypes.dtype_info("float32"), "none", P950)
    assert t32.tiling_key == 1 | 3 << 2
    align = sg.spec.arch35.UB_ALIGN_BYTES // 4
    assert int(t32["ubFormer"]) == (P950.ub_size - G2.API_BUFFER) * 8 // (6 * 32) // align * align
    g = GG2.host_tiling((1000,), (1000,), info, "tanh", P950)
    assert g.tiling_key & 2 and GG2.host_tiling((1000,), (1000,), info, "none", P950).tiling_key & 2 == 0
    assert "ErfPade(e, t);" in str(get_operator("gelu_v2").program("float16"))
    assert "ErfSubsection(e, t);" in str(get_operator("gelu_grad_v2").program("float32", P950))
    assert "ShiftRight(si, x, 31.0f);" in str(get_operator("gelu_grad_v2").program("float32"))
    assert "Axpy" in str(get_operator("gelu_v2").program("float32", beta=G2.approximate_code("tanh")))


@pytest.mark.parametrize("op", ["gelu_v2", "gelu_grad_v2"])
def test_host_tilings_validate(op):
    for dtype in DTYPES:
        for n in (1, 31, 4096, 100_003, 1 << 22):
            tilings = [sg.compute_tiling(n, dtype, platform=P950, op=op)]
            tilings.append(get_operator(op).host_tiling(n, sg.dtypes.dtype_info(dtype), np.float32(2.0), P950))
            for t in tilings:
                report = sg.validate_tiling(t, n, dtype, P950)
                assert report.ok and report.codes() <= {"OVERRUN_PADDING"}, report.format()


@pytest.mark.parametrize("call, error, match", [
    (lambda: sg.gelu_v2(np.ones(3, np.float32), platform=sg.REFERENCE_PLATFORM), ValueError,
     "for the Ascend 950 only"),
    (lambda: sg.gelu_v2(np.ones(3, np.float32), "tanh "), ValueError, "approximate must be one of"),
    (lambda: sg.gelu_v2(np.ones(3, np.float32), 1), ValueError, "approximate must be one of"),
    (lambda: sg.gelu_backward_v2(np.ones(3, np.float32), np.ones(3, np.float32), None), ValueError, "approximate"),
    (lambda: sg.gelu_v2([1.0]), TypeError, "x must be a numpy.ndarray"),
    (lambda: sg.gelu_v2(np.ones(3, np.float64)), ValueError, "x.dtype must be one of"),
    (lambda: sg.gelu_v2(np.ones(3, np.float32), out=np.ones(4, np.float32)), ValueError, "out"),
    (lambda: sg.gelu_backward_v2(np.ones(3, np.float32), np.ones(4, np.float32)), ValueError, "broadcast"),
    (lambda: sg.gelu_v2(np.ones(3, np.float32), platform=sg.Platform(soc_version="ascend950", ub_size=100_000)),
     ValueError, "platform.ub_size"),
])
def test_refusals(call, error, match):
    with pytest.raises(error, match=match):
        call()


def test_empty_inputs():
    assert sg.gelu_v2(np.zeros((0, 3), np.float16), "tanh").shape == (0, 3)
    assert sg.gelu_backward_v2(np.zeros((2, 0), np.float32), np.zeros((1, 0), np.float32)).shape == (2, 0)
