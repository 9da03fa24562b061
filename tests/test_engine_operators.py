"""Every registered operator's programs on the engine, bit for bit against the interpreter of
tests/program_interpreter.py (every kernel, dtype and variant, both overflow modes, sampled inputs with
+-0, +-inf, NaN and subnormals; every bit pattern of a 16-bit input); and the public functions on the
engine, the flat and the broadcast walk, against the same."""
from __future__ import annotations

import numpy as np
import pytest

import swishgrad_numba as sg
from program_interpreter import interpret
from reference import BF16, SPECIALS, assert_bits_equal
from swishgrad_numba.engine import runner
from swishgrad_numba.ops import get_operator
from swishgrad_numba.ops.registry import OPERATORS
from swishgrad_numba.platform import ARCH_950, ARCH_A2

DTYPES = {"float32": np.dtype(np.float32), "float16": np.dtype(np.float16), "bfloat16": BF16}
# the variants a host picks besides the default (by SoC, beta, or tiling key)
EXTRA_VARIANTS = {("elu", ARCH_950): ("threshold",), ("elu_grad", ARCH_950): ("result",),
                  ("gelu_grad", ARCH_A2): ("v1",), ("gelu_grad_v2", ARCH_A2): ("tanh",),
                  ("gelu_grad_v2", ARCH_950): ("tanh",), ("gelu_v2", ARCH_950): ("tanh",),
                  ("swish", ARCH_950): ("neg_one", "zero"), ("silu", ARCH_950): ("neg_one", "zero")}
ATTR_VALUES = (1.0, -1.5, 0.0, 2.5, 1e-3, 20.0)


def _cases():
    for name, op in sorted(OPERATORS.items()):
        for arch, kernel in sorted(op.kernels.items()):
            if kernel.programs is None:
                continue
            platform = sg.REFERENCE_PLATFORM if arch == ARCH_A2 else sg.ASCEND950_PLATFORM
            for variant in (op.variant(platform),) + EXTRA_VARIANTS.get((name, arch), ()):
                for dtype in DTYPES:
                    yield pytest.param(name, arch, variant, dtype, id=f"{name}-{arch}-{variant}-{dtype}")


def _values(rng, n, dtype, every_pattern):
    if every_pattern and dtype != "float32":
        return np.arange(65536, dtype=np.uint16).view(DTYPES[dtype])
    v = rng.uniform(-30, 30, n)
    wide = rng.random(n) < 0.2
    v[wide] = rng.standard_normal(wide.sum()) * 10.0 ** rng.integers(-44, 39, wide.sum())
    sp = rng.random(n) < 0.15
    v[sp] = rng.choice(SPECIALS, sp.sum())
    with np.errstate(over="ignore"):
        return v.astype(np.float32).astype(DTYPES[dtype])


@pytest.mark.parametrize("name, arch, variant, dtype", list(_cases()))
def test_operator_programs_run_on_the_engine_as_interpreted(name, arch, variant, dtype):
    program = get_operator(name).kernels[arch].programs(dtype, variant)
    rng = np.random.default_rng([39, len(name), len(variant), list(DTYPES).index(dtype)])
    n = 65536 if dtype != "float32" else 4099
    arrays = [_values(rng, n, dtype, every_pattern=i == len(program.inputs) - 1)
              for i in range(len(program.inputs))]
    for saturation in (False, True):
        attrs = {a: np.float32(ATTR_VALUES[rng.integers(len(ATTR_VALUES))]) for a in program.attrs}
        got = runner.run_program(program, arrays, attrs, saturation, grain=int(rng.choice([256, 1024])),
                                 pass_len=8192, threads=2)
        want = interpret(program, {t.name: a for t, a in zip(program.inputs, arrays)}, attrs, saturation)
        assert_bits_equal(got, want, f"{name} {arch} {variant} {dtype} saturation={saturation} {attrs}")


@pytest.fixture
def engine_runs(monkeypatch):
    """Counts the launches the engine runs."""
    runs = []
    for cls, method in ((runner.Prepared, "run"), (runner.Prepared, "engine_params")):
        original = getattr(cls, method)

        def spy(self, *args, _original=original, **kwargs):
            runs.append(self.lowered.program.name)
            return _original(self, *args, **kwargs)
        monkeypatch.setattr(cls, method, spy)
    return runs


A2, P950 = sg.REFERENCE_PLATFORM, sg.ASCEND950_PLATFORM
SATURATED = sg.Platform(overflow_mode="saturation")


@pytest.mark.parametrize("dtype", list(DTYPES))
def test_public_functions_run_on_the_engine_as_interpreted(dtype, engine_runs):
    rng = np.random.default_rng([41, list(DTYPES).index(dtype)])
    x = _values(rng, 65536, dtype, every_pattern=True)
    g = _values(rng, x.size, dtype, every_pattern=False)
    cases = [   # (operator, platform, the call, the program's inputs and attributes, beta)
        ("swish", A2, lambda p: sg.swish(x, 1.5, platform=p), {"x": x}, {"scale": 1.5}, 1.5),
        ("swish", SATURATED, lambda p: sg.swish(x, -2.0, platform=p), {"x": x}, {"scale": -2.0}, -2.0),
        ("swish_grad", A2, lambda p: sg.swish_backward(g, x, beta=0.5, platform=p), {"grad": g, "x": x},
         {"beta": 0.5}, 0.5),
        ("gelu", P950, lambda p: sg.gelu(x, platform=p), {"x": x}, {}, 1.0),
        ("silu_grad", P950, lambda p: sg.silu_backward(g, x, platform=p), {"dy": g, "x": x}, {}, 1.0),
        ("leaky_relu_grad", P950, lambda p: sg.leaky_relu_backward(g, x, 0.25, platform=p), {"dy": g, "x": x},
         {"negative_slope": 0.25}, 1.0),
    ]
    for name, platform, call, inputs, attrs, beta in cases:
        before = len(engine_runs)
        got = call(platform)
        assert len(engine_runs) > before, f"{name}: the engine did not run"
        program = get_operator(name).program(dtype, platform, beta=beta)
        want = interpret(program, inputs, {k: np.float32(v) for k, v in attrs.items()}, platform.saturation)
        assert_bits_equal(got, want, f"{name} {platform.architecture} {dtype}")


def test_a_broadcast_launch_runs_on_the_engine(engine_runs):
    rng = np.random.default_rng(42)
    dy = _values(rng, 4 * 33, "float32", False).reshape(4, 1, 33)
    x = _values(rng, 5 * 33, "float32", False).reshape(1, 5, 33)
    got = sg.silu_backward(dy, x, platform=P950)
    assert engine_runs, "the engine did not run"
    full = np.broadcast_shapes(dy.shape, x.shape)
    program = get_operator("silu_grad").program("float32", P950)
    want = interpret(program, {"dy": np.broadcast_to(dy, full).reshape(-1), "x": np.broadcast_to(x, full).reshape(-1)},
                     {})
    assert_bits_equal(got.reshape(-1), want)


def test_the_broadcast_walk_on_the_engine_compiles_once_for_every_dtype_pair(engine_runs):
    # the engine's pass is wide (kernel.broadcast.register_wide_pass): the walk hands it the tensors' raw
    # bytes, so every pair of input dtypes, mixed ones too, runs one compiled launch (issue 39)
    from numba.core import types

    from swishgrad_numba.engine.launch import EngineParams
    from swishgrad_numba.kernel import broadcast

    rng = np.random.default_rng(45)
    for gd, xd in (("float32", "float32"), ("float16", "float16"), ("bfloat16", "bfloat16"),
                   ("float16", "float32"), ("float32", "bfloat16")):
        dy = _values(rng, 3 * 1 * 41, gd, False).reshape(3, 1, 41)
        x = _values(rng, 5 * 41, xd, False).reshape(5, 41)
        got = sg.silu_backward(dy, x, platform=P950)
        full = np.broadcast_shapes(dy.shape, x.shape)
        program = get_operator("silu_grad").kernels[ARCH_950].programs(gd if gd == xd else f"{gd}_{xd}", "main")
        want = interpret(program, {"dy": np.broadcast_to(dy, full).reshape(-1),
                                   "x": np.broadcast_to(x, full).reshape(-1)}, {})
        assert_bits_equal(got.reshape(-1), want, f"{gd}/{xd}")
    engine_launches = [s for s in broadcast.launch_blocks.signatures
                       if getattr(s[0], "instance_class", None) is EngineParams]
    raw = [s for s in engine_launches if isinstance(s[1], types.BaseTuple)]
    typed = [s for s in engine_launches if getattr(s[1], "dtype", None) in (types.float32, types.uint16)]
    assert len(raw) == 1 and not typed, engine_launches
