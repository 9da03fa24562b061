"""swishgrad_numba.engine.hot: large flat launches as one fused loop per stream, bit for bit against the
interpreter of tests/program_interpreter.py: random well-typed programs (tests/test_program.py's generator)
and the registered operators' programs, both overflow modes, blocks cut short, two threads; Exp and Ln
blocks whose exact path runs, two-NaN operands (both sent back to the machine); the switch; a stream the
generator refuses; a second process reading the launch back from the disk cache."""
from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import time

import numpy as np
import pytest

import swishgrad_numba as sg
from program_interpreter import interpret
from reference import assert_bits_equal
from swishgrad_numba.engine import hot, hot_loops, hot_source, hot_words, launch, opcodes as O, runner
from swishgrad_numba.engine.stream import streams
from swishgrad_numba.kernel import exp_vector
from swishgrad_numba.kernel import plan as kernel_plan
from swishgrad_numba.ops import get_operator
from swishgrad_numba.platform import ARCH_A2
from swishgrad_numba.program import Attr, Const, Program, Tensor
from swishgrad_numba.program.form import V
from swishgrad_numba.program.lower import lower
from test_engine_operators import ATTR_VALUES, _cases, _values
from test_program import DTYPES, _inputs, random_program


def test_a_middle_launch_runs_hot_once_its_stream_is_warm(monkeypatch):
    """hot.large_enough: a launch from HOT_WARM_MIN_ELEMENTS runs hot once its stream has launched
    HOT_WARM_ELEMENTS elements at such sizes (this launch included), or at once where its block was made (by a
    launch from HOT_MIN_ELEMENTS); a smaller launch never counts. Both hot.run and a call plan's launcher."""
    n = 4096
    monkeypatch.setattr(hot, "HOT_WARM_MIN_ELEMENTS", n)
    monkeypatch.setattr(hot, "HOT_WARM_ELEMENTS", 3 * n)
    attrs = {"alpha": np.float32(2.0), "beta": np.float32(1.0)}
    launch_plan = kernel_plan.plan([kernel_plan.CoreRun(0, 1, 0, 1, n, n, n)], n, 2)
    pieces, bins = launch.frozen(launch_plan.pieces), launch.frozen(launch_plan.bins)
    x = np.arange(n, dtype=np.float32)
    want = x * np.float32(2.0) + np.float32(1.0)
    with hot.use(True):
        prepared = runner.Prepared(lower(_scaled_plus()), False)
        small = np.zeros(n - 1, np.float32)
        for _ in range(8):                                      # under HOT_WARM_MIN_ELEMENTS: never counted
            assert not hot.run(prepared, (x[:n - 1],), small, pieces, bins, attrs)
        answers = []
        for _ in range(4):
            out = np.zeros(n, np.float32)
            answers.append(hot.run(prepared, (x,), out, pieces, bins, attrs))
            assert answers[-1] == out.any()                     # where it declines, nothing was written
        assert answers == [False, False, True, True]
        assert_bits_equal(out, want)
        go = hot.launcher(runner.Prepared(lower(_scaled_plus()), False), launch_plan, attrs, np.float32, 1)
        assert [go((x,), np.zeros(n, np.float32)) for _ in range(3)] == [False, False, True]
        made = runner.Prepared(lower(_scaled_plus()), False)
        monkeypatch.setattr(hot, "HOT_MIN_ELEMENTS", 0)
        assert hot.run(made, (x,), np.zeros(n, np.float32), pieces, bins, attrs)   # a large launch makes its block
        monkeypatch.setattr(hot, "HOT_MIN_ELEMENTS", 1 << 20)
        out = np.zeros(n, np.float32)
        assert hot.run(made, (x,), out, pieces, bins, attrs)    # then a middle launch runs hot at once
        assert_bits_equal(out, want)


@pytest.fixture
def every_launch_hot(monkeypatch):
    """Every launch runs hot (none too small); the answers of :func:`hot.run`, in order."""
    ran = []
    run = hot.run

    def spy(*args):
        ran.append(run(*args))
        return ran[-1]
    monkeypatch.setattr(hot, "HOT_MIN_ELEMENTS", 0)
    monkeypatch.setattr(hot, "run", spy)
    with hot.use(True):
        yield ran


def _run(program, arrays, attrs, saturation, **kw):
    got = runner.run_program(program, arrays, attrs, saturation, **kw)
    want = interpret(program, {t.name: a for t, a in zip(program.inputs, arrays)}, attrs, saturation,
                     axpy_rounding=kw.get("axpy_rounding", "fused"))
    return got, want


@pytest.mark.parametrize("saturation", [False, True], ids=["infnan", "saturation"])
@pytest.mark.parametrize("dtype", list(DTYPES))
def test_random_programs_run_hot_as_interpreted(dtype, saturation, every_launch_hot):
    rng = np.random.default_rng([139, list(DTYPES).index(dtype), saturation])
    case = 0
    while sum(every_launch_hot) < 2 and case < 12:    # two that run hot (a program tabulated whole does not)
        program = random_program(rng, dtype, int(rng.integers(4, 10)), focus=case % 2 == 1)
        n = 65536 if dtype != "float32" else int(rng.integers(1, 5000))
        arrays = _inputs(rng, n, dtype, len(program.inputs))
        axpy = ("fused", "unfused")[case % 2]
        grain = int(rng.choice([16, 100, 1024]))
        got, want = _run(program, arrays, {"alpha": np.float32(rng.standard_normal())}, saturation,
                         axpy_rounding=axpy, grain=grain, pass_len=int(rng.choice([37, 1000, 8192])), threads=2)
        assert_bits_equal(got, want, f"{dtype} case {case} grain {grain}:\n{program}")
        case += 1
    assert sum(every_launch_hot) == 2


# a sample of the registered programs (every one compiles a launch of its own): every 10th case, and those
# with integer Casts
_SAMPLE = [c for i, c in enumerate(_cases()) if i % 10 == 0 or c.id in (
    "gelu_grad_v2-a2-none-float32", "gelu_grad_v2-a2-tanh-float32", "mish_grad-a2-main-float32")]


@pytest.mark.parametrize("name, arch, variant, dtype", _SAMPLE)
def test_operator_programs_run_hot_as_interpreted(name, arch, variant, dtype, every_launch_hot):
    program = get_operator(name).kernels[arch].programs(dtype, variant)
    rng = np.random.default_rng([139, len(name), len(variant), list(DTYPES).index(dtype)])
    n = 65536 if dtype != "float32" else 4099
    arrays = [_values(rng, n, dtype, every_pattern=i == len(program.inputs) - 1) for i in range(len(program.inputs))]
    # one overflow mode a case, in turns (each mode compiles a launch of its own)
    saturation = [c.id for c in _SAMPLE].index(f"{name}-{arch}-{variant}-{dtype}") % 2 == 1
    attrs = {a: np.float32(ATTR_VALUES[rng.integers(len(ATTR_VALUES))]) for a in program.attrs}
    got, want = _run(program, arrays, attrs, saturation, grain=int(rng.choice([256, 1024])), pass_len=8192,
                     threads=2)
    assert_bits_equal(got, want, f"{name} {arch} {variant} {dtype} saturation={saturation} {attrs}")


@pytest.mark.parametrize("inline", [True, False], ids=["inlined", "gathered"])
@pytest.mark.parametrize("name, arch, dtype", [("sigmoid_grad", "a2", "float16"), ("elu_grad", "arch35", "bfloat16"),
                                               ("softplus_grad", "arch35", "float16")])
def test_cheap_tables_computed_in_the_loop_or_gathered(name, arch, dtype, inline, every_launch_hot, monkeypatch):
    """A Lookup of a table whose stream is cheap is that stream computed in the loop on the input's bits'
    number (or, switched off, gathered): every bit pattern of the looked-up input, both overflow modes."""
    monkeypatch.setattr(hot, "INLINE_TABLES", inline)
    kernel = get_operator(name).kernels[arch]
    program = kernel.programs(dtype, get_operator(name).variant(sg.REFERENCE_PLATFORM if arch == ARCH_A2
                                                                   else sg.ASCEND950_PLATFORM))
    rng = np.random.default_rng([1392, len(name)])
    arrays = [_values(rng, 65536, dtype, every_pattern=True) for _ in program.inputs]
    arrays[0] = rng.permutation(arrays[0])
    for saturation in (False, True):
        lowered = lower(program)
        prepared = runner.Prepared(lowered, saturation)
        attrs = {a: np.float32(ATTR_VALUES[rng.integers(len(ATTR_VALUES))]) for a in program.attrs}
        got = np.empty(65536, DTYPES[dtype])
        prepared.run(tuple(a.view(np.uint16) for a in arrays), got.view(np.uint16), _plan(65536), attrs)
        want = interpret(program, {t.name: a for t, a in zip(program.inputs, arrays)}, attrs, saturation)
        assert_bits_equal(got, want, f"{name} {arch} {dtype} saturation={saturation}")
        assert bool(prepared._hot[1]) == inline and every_launch_hot[-1]
        # a whole block's length a constant only where nothing is gathered (fullblock)
        source = hot.source_and_rows(prepared._hot[0].__name__)[0]
        assert ("lookup_bits(" in source) != ("    if n == " in source or "def hot_block_words(" in source)


def _plan(n, pass_len=8192, threads=2):
    from swishgrad_numba.kernel import plan as kernel_plan
    passes = -(-n // pass_len)
    return kernel_plan.plan([kernel_plan.CoreRun(0, 1, 0, passes, pass_len, n - (passes - 1) * pass_len, n)], n,
                            threads)


def _exp_ln_program():
    body = (V.Exp("e", "x"), V.Ln("l", "x"), V.Mul("p", "e", "y"), V.Add("out", "p", "l"))
    return Program("ExpLn", (Tensor("x"), Tensor("y")), Tensor("out"), (Tensor("e"), Tensor("l"), Tensor("p")),
                   body, ())


def _exp_ln_inputs(rng, n):
    # Exp's guard band and low arguments, Ln's guard band, specials; NaNs of two payloads in both inputs
    guard = np.array([0x3F95F6B1, 0x3F9C7C14, 0xBF81EADF, 0x3F008460, 0x3F04CBFC, 0x3C413D3A, 0xC2AE0000,
                      0xC2D10000, 0x7FC00001, 0xFFC00002, 0x7F800000, 0x80000000, 1], dtype=np.uint32).view(np.float32)
    x = rng.uniform(0.1, 20.0, n).astype(np.float32)
    y = rng.uniform(-3.0, 3.0, n).astype(np.float32)
    at = rng.choice(n, 40, replace=False)
    x[at] = rng.choice(guard, 40)
    y[at[:20]] = np.array([0x7FC00123, 0xFFC00456], np.uint32).view(np.float32)[rng.integers(0, 2, 20)]
    return x, y


@pytest.mark.parametrize("saturation", [False, True], ids=["infnan", "saturation"])
def test_exp_ln_and_two_nan_blocks_are_run_again_on_the_machine(saturation, every_launch_hot, monkeypatch):
    monkeypatch.setattr(hot, "HOT_LN", True)
    program = _exp_ln_program()
    x, y = _exp_ln_inputs(np.random.default_rng(1391), 20000)
    got, want = _run(program, [x, y], {}, saturation, grain=1024, pass_len=3000, threads=2)
    assert_bits_equal(got, want)
    assert every_launch_hot == [True]
    # the flags themselves: the generated block flags a block with such an element, not a calm one
    m = streams(lower(program), 256).main
    cls = hot.hot_class(m.code, 256, 2, m.out, saturation)
    block = sg.engine.hot._BLOCKS[cls]
    # the Ln in a loop of its own: Exp's result and Ln's carried to the third loop in two scratch rows
    assert hot_source.block_source(m.code, 256, 2, m.out, saturation).count("for i in range(n)") == 3
    rows = hot_source.scratch_rows(m.code, 256, 2, m.out, saturation)
    assert rows == 2
    from numba import njit
    run_block = njit(error_model="numpy")(block)
    rows = max(hot_source.scratch_rows(m.code, 256, 2, m.out, saturation), 1)
    tables, scratch, out = np.zeros((0, 65536), np.float32), np.zeros((rows, 256), np.float32), np.empty(256, np.float32)
    calm = np.linspace(0.5, 2.0, 256).astype(np.float32)
    for special, flagged in ((None, False), (0x3F95F6B1, True), (0x3C413D3A, True), (0xC2D10000, True)):
        xs = calm.copy()
        if special is not None:
            xs[100] = np.array([special], np.uint32).view(np.float32)[0]
        assert run_block(cls(0), xs, calm, calm, out, 0, 256, np.zeros(1, np.float32), tables, scratch) == flagged
    two_nans = np.full(256, np.float32(np.nan))    # Exp and Ln of a positive NaN: not on the exact path
    assert run_block(cls(0), two_nans, two_nans, calm, out, 0, 256, np.zeros(1, np.float32), tables, scratch) \
        == (not saturation)    # saturation turns each NaN result into 0


def _nan_through_exp_program(bit_op: str, long: bool):
    """x * y (two varying operands: a NaN of either payload), its Exp, a float32 ``bit_op`` with -0.0 (Or: the
    sign set, a NaN stays a NaN; And: the sign alone, a NaN's sign becomes a zero's), times z. ``long``: enough
    Adds before the Exp for it to run in a loop of its own (hot_loops.EXP_LOOP_MIN)."""
    body = [V.Mul("a", "x", "y")] + [V.Add("a", "a", "z")] * (hot_loops.EXP_LOOP_MIN if long else 0)
    body += [V.Exp("e", "a"), V.Duplicate("k", -0.0), getattr(V, bit_op)("o", "e", "k"), V.Mul("out", "o", "z")]
    return Program(f"NanThroughExp{bit_op}", (Tensor("x"), Tensor("y"), Tensor("z")), Tensor("out"),
                   tuple(Tensor(t) for t in ("a", "e", "k", "o")), tuple(body), ())


@pytest.mark.parametrize("long", [False, True], ids=["exp_in_the_loop", "exp_loop_of_its_own"])
@pytest.mark.parametrize("bit_op", ["Or", "And"])
def test_a_nan_passed_on_by_an_exp_or_a_float32_or_is_tested_where_it_ends(bit_op, long, every_launch_hot):
    """A value whose NaN payload may differ from the machine's (a Mul of two varying operands) is not tested
    before an Exp, which passes a NaN on as a NaN: it is tested where it ends, at the result after a float32 Or
    (which keeps a NaN a NaN), at the Exp's result before an And (which may turn it into a zero). NaNs of
    payloads of both signs in x and y (a Mul of two NaNs), the bits against the interpreter."""
    program = _nan_through_exp_program(bit_op, long)
    m = streams(lower(program), 1024).main
    source = hot_source.block_source(m.code, 1024, 3, m.out, False, vector_exp=exp_vector.VECTOR_EXP)
    assert ("if exp_rows(" in source) == (long and exp_vector.VECTOR_EXP)
    tested = set(re.findall(r"\((\w+) != \1\)", source))
    result = re.search(r"out\[j\] = (\w+)\n", source)[1]
    exp_of = re.search(r"(\w+)c = min\((\w+), EXP_T_HI\)", source)
    exp_result, exp_argument = exp_of[1], exp_of[2]
    assert exp_argument not in tested
    assert tested == ({result} if bit_op == "Or" else {result, exp_result})
    rng = np.random.default_rng([1397, long, bit_op == "Or"])
    n = 6000
    x, y = rng.uniform(-3, 3, n).astype(np.float32), rng.uniform(-3, 3, n).astype(np.float32)
    z = rng.choice(np.array([1.0, -1.0, 0.5], np.float32), n)
    nans = np.array([0x7FC00123, 0xFFC00456, 0x7FA00001, 0xFF800007], np.uint32).view(np.float32)
    for arr, at in ((x, rng.choice(n, 30, replace=False)), (y, rng.choice(n, 30, replace=False))):
        arr[at] = rng.choice(nans, 30)
    both = rng.choice(n, 10, replace=False)        # a Mul of two NaNs: which one it returns is the payload
    x[both], y[both] = nans[0], nans[1]
    got, want = _run(program, [x, y, z], {}, False, grain=1024, pass_len=3000, threads=2)
    assert_bits_equal(got, want)
    assert every_launch_hot == [True]


def _exp_loops_program():
    # Exps in loops of their own: one of an input, one of a computed value, one of values from both their
    # results; values kept across the loops (a, e1, the mask k: an int32 row); enough float32 instructions
    # (hot_source.EXP_LOOP_MIN); a, b and k, cheap functions of the inputs alone, computed again in the later
    # loops rather than kept (hot_loops.RECOMPUTE_PER_ROW), the mask q of the second Exp's result kept (int32)
    body = [V.Mul("a", "x", "y"), V.Add("b", "a", "x"), V.CompareScalar("k", "b", 0.5, "GT"), V.Exp("e1", "b"),
            V.Exp("e2", "x"), V.Mul("m", "e2", "y"),
            V.Add("d", "m", "a"), V.Exp("e3", "d"), V.Add("f", "e3", "e1")]
    for k in range(hot_source.EXP_LOOP_MIN):
        body.append((V.Mul, V.Sub, V.Add, V.Max)[k % 4]("f", "f", ("y", "a", "x", "e1")[k % 4]))
    body += [V.Mul("g", "f", "a"), V.Select("h", "g", "e1", "k"), V.CompareScalar("q", "m", 1.0, "LT"),
             V.Select("out", "h", "d", "q")]
    return Program("ExpLoops", (Tensor("x"), Tensor("y")), Tensor("out"),
                   tuple(Tensor(t, "uint8" if t in "kq" else "float32")
                         for t in ("a", "b", "k", "e1", "e2", "m", "d", "e3", "f", "g", "h", "q")), tuple(body), ())


@pytest.mark.parametrize("vector", [True, False], ids=["vector_exp", "exp_fast"])
def test_exps_in_loops_of_their_own_run_as_interpreted(vector, every_launch_hot, monkeypatch):
    """A long stream's Exps run in loops of their own over the block, between float32 loops, the values the
    later loops read kept in scratch rows (a Compare read only as a Select's mask: an int32 -1 / 0): guard-band
    and low arguments, NaNs of two payloads. Each Exp's loop by the AVX-512 vector loop (where the target has
    it) and by exp_fast (where it does not, forced here): a block of each key, the same bits."""
    if vector and not exp_vector.VECTOR_EXP:
        pytest.skip("the compile target has no AVX-512F")
    monkeypatch.setattr(hot, "VECTOR_EXP", vector)
    program = _exp_loops_program()
    rng = np.random.default_rng(1394)
    x, y = (np.concatenate([a, rng.uniform(-2, 2, 18000).astype(np.float32)]) for a in _exp_ln_inputs(rng, 2000))
    x = np.where(np.abs(x) > 3, x * np.float32(0.2), x)        # mostly finite results; the specials in the first
    y = y * np.float32(0.5)                                     # 4 blocks, the other 36 calm (not sent back)
    got, want = _run(program, [x, y], {}, False, grain=1024, pass_len=3000, threads=2)
    assert_bits_equal(got, want)
    assert every_launch_hot == [True]
    m = streams(lower(program), 1024).main
    assert hot._CLASSES[hot.class_name(m.code, 1024, 2, m.out, False)] is not None
    assert ("__expv__" if vector else "__expf__") in hot.class_name(m.code, 1024, 2, m.out, False)
    source = hot_source.block_source(m.code, 1024, 2, m.out, False, vector_exp=vector)
    # float32, Exps, float32, Exp, float32; the Exps' loops as calls of the vector loop
    assert source.count("for i in range(n)") == (3 if vector else 5)
    assert source.count("if exp_rows(scratch[") == (3 if vector else 0)
    # k computed in the last loop alone (nothing before reads it), q kept as an int32: one row read back
    assert source.count("np.int32(-np.int32(S.compare_gt(") == 1 and source.count(".view(np.int32)") == 1
    assert source.count("np.int32(-np.int32(S.compare_lt(") == 1
    # a computed again in both later loops, b in the last: the Exps' rows, d's and q's
    loops = source.split("    for i in range(n):\n")[1:]
    assert [loop.count("S.mul(x0, x1, False)") for loop in loops] == ([1, 1, 1] if vector else [1, 0, 1, 0, 1])
    assert hot_source.scratch_rows(m.code, 1024, 2, m.out, False) == 8
    monkeypatch.setattr(hot_loops, "RECOMPUTE_PER_ROW", 0)
    assert hot_source.scratch_rows(m.code, 1024, 2, m.out, False) == 10
    # the output's lines asked for in thirds, before the first loop, the first Exp's and the loop after it
    ends = ("np.int64(at)", "np.int64(at) + 1 * n // 3", "np.int64(at) + 2 * n // 3", "np.int64(at) + n")
    parts = [source.index(f"    prefetch_lines(out, {a}, {b})\n") for a, b in zip(ends, ends[1:])]
    assert source.count("prefetch_lines(") == 3
    assert parts[0] < source.index("for i in range(n)") < parts[1] < source.index("exp_rows(" if vector else "exp_fast(") \
        < parts[2]


def test_each_ln_of_a_varying_value_has_a_loop_of_its_own():
    # the generator alone (no compile): Mul | Ln | Ln | Ln of a Duplicate, Add, Add; each loop's values carried
    body = (V.Mul("a", "x", "y"), V.Ln("l", "a"), V.Ln("m", "l"), V.Duplicate("two", 2.0), V.Ln("c", "two"),
            V.Add("p", "m", "c"), V.Add("out", "p", "x"))
    program = Program("LnLn", (Tensor("x"), Tensor("y")), Tensor("out"),
                      tuple(Tensor(t) for t in ("a", "l", "m", "two", "c", "p")), body, ())
    m = streams(lower(program), 256).main
    for saturation in (False, True):
        loops = hot_source.block_source(m.code, 256, 2, m.out, saturation).split("    for i in range(n):\n")[1:]
        assert len(loops) == 4
        assert [loop.count("ln_fast(") for loop in loops] == [0, 1, 1, 1]
        assert "in1[j]" in loops[0] and "in1[j]" not in "".join(loops[1:]) and "in0[j]" in loops[3]
        assert "two_nans |=" in loops[0]      # the Mul's NaN test (infnan: its result; saturation: its operands)
        assert hot_source.scratch_rows(m.code, 256, 2, m.out, saturation) == 3


def test_a_launch_in_place_keeps_the_machine(every_launch_hot):
    # the output is an input: a flagged block, run again on the machine, would read the values the hot loop
    # had already stored over that input (Exp's guard band: e**x read back as x)
    program = Program("ExpInPlace", (Tensor("x"),), Tensor("out"), (), (V.Exp("out", "x"),), ())
    x, _ = _exp_ln_inputs(np.random.default_rng(1392), 20000)
    want = interpret(program, {"x": x}, {}, False)
    prepared = runner.Prepared(lower(program), False)
    runs = [kernel_plan.CoreRun(0, 1, 0, 7, 3000, 20000 - 6 * 3000, 20000)]
    prepared.run((x,), x, kernel_plan.plan(runs, 20000, 2), {})
    assert_bits_equal(x, want)
    assert every_launch_hot == [False]


def test_the_switch_and_the_size_keep_the_machine(monkeypatch):
    program = Program("Twice", (Tensor("x"),), Tensor("out"), (), (V.Muls("out", "x", Const.of(2.0)),), ())
    x = np.arange(300, dtype=np.float32)
    ran = []
    run = hot.run
    monkeypatch.setattr(hot, "run", lambda *a: ran.append(run(*a)) or ran[-1])
    with hot.use(True):
        runner.run_program(program, [x], {})            # below HOT_MIN_ELEMENTS
        monkeypatch.setattr(hot, "HOT_MIN_ELEMENTS", 0)
        runner.run_program(program, [x], {})
        with hot.use(False):
            assert not hot.enabled()
            assert_bits_equal(runner.run_program(program, [x], {}), 2 * x)
        assert hot.enabled()
    assert ran == [False, True, False]
    with pytest.raises(TypeError):
        hot.set_enabled(1)
    done = subprocess.run([sys.executable, "-c", "from swishgrad_numba.engine import hot; print(hot.enabled())"],
                          capture_output=True, text=True, timeout=600,
                          env=dict(os.environ, SWISHGRAD_HOT="0", PYTHONPATH=os.pathsep.join(sys.path)))
    assert done.stdout.strip() == "False", done.stderr[-2000:]


def test_a_stream_the_generator_refuses_runs_on_the_machine(every_launch_hot, monkeypatch):
    def refuse(*args, **kw):
        raise hot_source.NotHot("refused")
    monkeypatch.setattr(hot, "block_and_rows", refuse)
    program = Program("Refused", (Tensor("x"),), Tensor("out"), (), (V.Adds("out", "x", Const.of(0.125)),), ())
    x = np.random.default_rng(7).uniform(-1e4, 1e4, 5000).astype(np.float32)
    got, want = _run(program, [x], {}, False)
    assert_bits_equal(got, want)
    assert every_launch_hot == [False]


@pytest.mark.parametrize("fields, message", [((O.ADD, 64, 128, 0), "read before"), ((O.MULS, 64, 3), "row's start"),
                                             ((O.LOOKUP, 64, 64), "computed value"),
                                             ((len(O.NAMES) + 1, 64, 0), "opcode")])
def test_the_generator_refuses_what_it_does_not_take(fields, message):
    code = np.zeros((2, O.FIELDS), np.int64)
    code[0, :3] = (O.NEG, 64, 0)
    code[1, :len(fields)] = fields
    with pytest.raises(hot_source.NotHot, match=message):
        hot_source.block_source(code, 64, 1, 64, False)


_CHILD = r"""
import sys
import numpy as np
from swishgrad_numba.engine import hot, runner
from swishgrad_numba.program import Const, Program, Tensor
from swishgrad_numba.program.form import V
hot.HOT_MIN_ELEMENTS = 0
program = Program("Hotter", (Tensor("x"), Tensor("y")), Tensor("out"), (Tensor("t"),),
                  (V.Mul("t", "x", "y"), V.Adds("out", "t", Const.of(float(sys.argv[1])))), ())
x = np.arange(5000, dtype=np.float32)
got = runner.run_program(program, [x, x], {}, threads=2)
assert np.array_equal(got, x * x + np.float32(sys.argv[1]))
print(hot._hot_bins.stats.cache_hits.total(), hot._hot_bins.stats.cache_misses.total())
"""


def test_a_second_process_reads_the_hot_launch_from_the_disk_cache(tmp_path):
    # a copy of the session's cache (the machine read back, not compiled again) without the hot tier's
    # entries, so the first child compiles its launch and the second reads it back, however often this runs
    # (a constant is a scalar of the launch, not part of its stream: an earlier run's launch would serve)
    launches = hot._hot_bins._cache._cache_path           # <root>/<the module's folder>/<the sources' stamp>
    copy = tmp_path / "cache"
    shutil.copytree(os.path.dirname(os.path.dirname(launches)), copy,
                    ignore=lambda folder, names: [n for n in names if n.startswith("hot._")])
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path), NUMBA_CACHE_DIR=str(copy))
    constant = repr(float(np.float32(1 + (time.time_ns() % (1 << 23)) * 2.0 ** -23)))
    counts = []
    for _ in range(2):
        done = subprocess.run([sys.executable, "-c", _CHILD, constant], capture_output=True, text=True, timeout=600,
                              env=env)
        assert done.returncode == 0, done.stderr[-2000:]
        counts.append(tuple(int(v) for v in done.stdout.split()))
    assert counts == [(0, 1), (1, 0)]     # compiled once, then read back without compiling


@pytest.mark.parametrize("name, arch, dtype", [("sigmoid_grad", "arch35", "bfloat16"), ("sigmoid_grad", "a2", "float16"),
                                               ("leaky_relu_grad", "arch35", "float16"),
                                               ("leaky_relu", "arch35", "float16")])
def test_16_bit_blocks_without_a_nan_keep_the_loops_bits(name, arch, dtype):
    """Inf/NaN mode's 16-bit loops widen a float16 by the CPU alone (a signalling NaN comes back quieted) and
    narrow without a NaN test: a block is flagged where a NaN could reach its result, and only there. Each
    block of every bit pattern of the last input (in order: the NaNs in a few blocks; the others finite) as
    the generated block gives it: a block not flagged holds the interpreter's bits, and every block without a
    NaN in its inputs or results is not flagged (a lone Lookup of a cheap table included: computed)."""
    from numba import njit

    op = get_operator(name)
    program = op.kernels[arch].programs(dtype, op.variant(sg.REFERENCE_PLATFORM if arch == ARCH_A2
                                                          else sg.ASCEND950_PLATFORM))
    rng = np.random.default_rng([1393, len(name)])
    n, block = 65536, 512
    arrays = [rng.uniform(-8, 8, n).astype(DTYPES[dtype]) for _ in program.inputs]
    arrays[-1] = np.arange(n, dtype=np.uint16).view(DTYPES[dtype])
    attrs = {a: np.float32(0.25) for a in program.attrs}
    want = interpret(program, {t.name: a for t, a in zip(program.inputs, arrays)}, attrs, False).view(np.uint16)
    prepared = runner.Prepared(lower(program), False)
    params, scalars, tables = hot.launch_args(prepared, attrs)
    run_block = njit(error_model="numpy")(hot._BLOCKS[type(params)])
    bits = [a.view(np.uint16) for a in arrays] + [arrays[0].view(np.uint16)] * (3 - len(arrays))
    out = np.zeros(n, np.uint16)
    scratch = np.zeros((max(params.scratch_rows, 1), block), np.float32)
    nan = np.isnan(arrays[-1].astype(np.float32)) | np.isnan(want.view(DTYPES[dtype]).astype(np.float32))
    for a in arrays[:-1]:
        nan |= np.isnan(a.astype(np.float32))
    calm = 0
    for at in range(0, n, block):
        flagged = run_block(params, *bits, out, at, block, scalars, tables, scratch)
        if not flagged:
            assert np.array_equal(out[at:at + block], want[at:at + block]), f"{name} {arch} {dtype} block at {at}"
        assert flagged <= nan[at:at + block].any(), f"{name} {arch} {dtype} block at {at}"
        calm += not flagged
    assert calm >= n // block - 8       # float16's NaNs lie in 4 blocks, bfloat16's in 2


def _scaled_plus():
    return Program("ScaledPlus", (Tensor("x"),), Tensor("out"), (Tensor("t"),),
                   (V.Muls("t", "x", Attr("alpha")), V.Adds("out", "t", Attr("beta"))), ("alpha", "beta"))


def test_launch_args_are_kept_per_attribute_bits():
    prepared = runner.Prepared(lower(_scaled_plus()), False)
    attrs = {"alpha": np.float32(2.0), "beta": np.float32(0.0)}
    first = hot.launch_args(prepared, attrs)
    assert first is not None
    assert hot.launch_args(prepared, dict(attrs)) is first     # found again, not made again
    negative = hot.launch_args(prepared, {"alpha": np.float32(2.0), "beta": np.float32(-0.0)})
    assert negative is not first                               # -0.0 and 0.0: equal floats, other bits
    assert not np.array_equal(negative[1].view(np.uint32), first[1].view(np.uint32))
    assert not first[1].flags.writeable and not negative[1].flags.writeable


def test_what_the_machine_refuses_never_runs_hot(monkeypatch):
    monkeypatch.setattr(hot, "HOT_MIN_ELEMENTS", 0)
    prepared = runner.Prepared(lower(_scaled_plus()), False)
    attrs = {"alpha": np.float32(2.0), "beta": np.float32(1.0)}
    n = 4096
    launch_plan = kernel_plan.plan([kernel_plan.CoreRun(0, 1, 0, 1, n, n, n)], n, 2)
    pieces, bins = launch.frozen(launch_plan.pieces), launch.frozen(launch_plan.bins)
    x, out = np.arange(n, dtype=np.float32), np.zeros(n, np.float32)
    refused = {"short input": ((x[:n // 2],), out), "other itemsize": ((x.view(np.uint16)[:n],), out),
               "strided input": ((np.arange(2 * n, dtype=np.float32)[::2],), out),
               "2-D output": ((x,), out.reshape(64, 64)), "in place": ((x,), x)}
    for name, (ins, into) in refused.items():
        assert not hot.run(prepared, ins, into, pieces, bins, attrs), name
        if name != "in place":
            with pytest.raises(ValueError):
                prepared.run(ins, into, launch_plan, attrs)
    assert not out.any()
    assert hot.run(prepared, (x,), out, pieces, bins, attrs)
    assert_bits_equal(out, x * np.float32(2.0) + np.float32(1.0))


def test_a_planned_launch_runs_hot_only_where_run_would(monkeypatch):
    """hot.launcher (a call plan's launch): the stream's arguments found once; each call reads the switch and
    HOT_MIN_ELEMENTS, and where it declines (False) nothing was written."""
    prepared = runner.Prepared(lower(_scaled_plus()), False)
    attrs = {"alpha": np.float32(2.0), "beta": np.float32(1.0)}
    n = 4096
    launch_plan = kernel_plan.plan([kernel_plan.CoreRun(0, 1, 0, 1, n, n, n)], n, 2)
    go = hot.launcher(prepared, launch_plan, attrs, np.float32, 1)
    assert hot.launcher(prepared, launch_plan, attrs, np.int32, 1) is None
    x, out = np.arange(n, dtype=np.float32), np.zeros(n, np.float32)
    assert not go((x,), out)                                   # under HOT_MIN_ELEMENTS
    monkeypatch.setattr(hot, "HOT_MIN_ELEMENTS", 0)
    with hot.use(False):
        assert not go((x,), out)
    assert not out.any()
    with hot.use(True):
        assert go((x,), out)
        # again (the launch's entry point, engine.entry), and into a result one byte off (a form of its own)
        again, odd = x[::-1].copy(), np.zeros(4 * n + 1, np.uint8)[1:].view(np.float32)
        assert go((again,), odd) and go((again,), odd)
    assert_bits_equal(out, x * np.float32(2.0) + np.float32(1.0))
    assert_bits_equal(odd, again * np.float32(2.0) + np.float32(1.0))


def test_blocks_whose_keys_share_their_start_show_each_its_own_source():
    # the generator alone (no compile): two streams alike but for their last instruction, whose keys
    # share more than their first 60 characters; each block's file name and the source linecache shows
    import linecache
    names = []
    for last in (V.Add, V.Sub):
        body = (V.Mul("a", "x", "y"), V.Add("b", "a", "x"), V.Mul("c", "b", "a"), last("out", "c", "y"))
        program = Program("Alike", (Tensor("x"), Tensor("y")), Tensor("out"),
                          tuple(Tensor(t) for t in "abc"), body, ())
        m = streams(lower(program), 256).main
        cls = hot.hot_class(m.code, 256, 2, m.out, False)
        code = hot._BLOCKS[cls].__code__
        assert "".join(linecache.getlines(code.co_filename)) == hot.source_and_rows(cls.__name__)[0]
        names.append((cls.__name__, code.co_filename))
    (a, file_a), (b, file_b) = names
    assert a != b and a[:60] == b[:60] and file_a != file_b


def test_random_long_programs_split_around_their_exps_as_interpreted(every_launch_hot, monkeypatch):
    """Random float32 programs long enough for their Exps to run in loops of their own, chosen where a later
    loop computes values again rather than read their scratch rows (remat: fewer rows than with no budget):
    the values that cross loops and those computed again give the interpreter's bits. Two such programs."""
    rng, data = np.random.default_rng(1395), np.random.default_rng(1396)
    chosen, budget0 = [], hot_loops.RECOMPUTE_PER_ROW
    for case in range(200):
        program = random_program(rng, "float32", int(rng.integers(24, 34)))
        m = streams(lower(program), 1024).main
        rows = []
        for budget in (budget0, 0):
            monkeypatch.setattr(hot_loops, "RECOMPUTE_PER_ROW", budget)
            try:
                rows.append(hot_source.scratch_rows(m.code, 1024, len(program.inputs), m.out, False))
            except hot_source.NotHot:
                break
        monkeypatch.setattr(hot_loops, "RECOMPUTE_PER_ROW", budget0)
        if len(rows) == 2 and rows[0] < rows[1]:
            chosen.append((case, program))
        if len(chosen) == 2:
            break
    assert len(chosen) == 2
    for case, program in chosen:
        arrays = _inputs(data, 6000, "float32", len(program.inputs))
        got, want = _run(program, arrays, {"alpha": np.float32(data.standard_normal())}, False, grain=1024,
                         pass_len=3000, threads=2)
        assert_bits_equal(got, want, f"case {case}:\n{program}")
    assert every_launch_hot == [True, True]


@pytest.mark.parametrize("program", [_exp_loops_program(), _scaled_plus()], ids=["scratch_rows", "one_loop"])
def test_a_whole_block_and_blocks_cut_short_give_the_interpreters_bits(program):
    """The generated block runs a whole block (``n`` its launch's block length) with that length as a constant,
    any other ``n`` with it a variable: both give the interpreter's bits, over the same elements."""
    from numba import njit

    attrs = {a: np.float32(1.25) for a in program.attrs}
    prepared = runner.Prepared(lower(program), False, grain=1024)
    params, scalars, tables = hot.launch_args(prepared, attrs)
    full = hot._block(params, prepared.main.grain)
    assert full == (hot_source.HOT_BLOCK if params.scratch_rows else min(hot_source.HOT_BLOCK_NO_SCRATCH, 1024))
    assert f"    if n == {full}:\n" in hot.source_and_rows(type(params).__name__)[0]
    run_block = njit(error_model="numpy")(hot._BLOCKS[type(params)])
    rng = np.random.default_rng(1397)
    n = 4 * full
    arrays = [rng.uniform(-1, 1, n).astype(np.float32) for _ in program.inputs]     # no block flagged
    want = interpret(program, {t.name: a for t, a in zip(program.inputs, arrays)}, attrs, False)
    ins = arrays + [arrays[0]] * (3 - len(arrays))
    scratch = np.zeros((max(params.scratch_rows, 1), full), np.float32)
    for cuts in ([full] * 4, [full - 16, 16, full - 1, 1, 7, full - 7, full]):    # whole blocks; cut short
        out, at = np.zeros(n, np.float32), 0
        for length in cuts:
            assert not run_block(params, *ins, out, at, length, scalars, tables, scratch)
            at += length
        assert at == n
        assert_bits_equal(out, want)


def _bfloat16_grad():
    """SigmoidGrad's A2 bfloat16 program: one loop whose inputs are read only by a widening of bfloat16."""
    op = get_operator("sigmoid_grad")
    return op.kernels[ARCH_A2].programs("bfloat16", op.variant(sg.REFERENCE_PLATFORM))


def _bfloat16_inputs(rng, program, n, offset=0, nans=0):
    """Inputs of ``program`` (bfloat16, finite), each ``offset`` elements into an array of its own; ``nans``
    NaNs of three payloads in the last."""
    arrays = []
    for _ in program.inputs:
        buf = np.zeros(n + offset, dtype=DTYPES["bfloat16"])
        buf[offset:] = rng.uniform(-4, 4, n).astype(np.float32).astype(DTYPES["bfloat16"])
        arrays.append(buf[offset:])
    at = rng.choice(n, nans, replace=False)
    arrays[-1].view(np.uint16)[at] = rng.choice(np.array([0x7FC1, 0xFFC2, 0x7F81], np.uint16), nans)
    return arrays


@pytest.mark.parametrize("saturation", [False, True], ids=["infnan", "saturation"])
def test_bfloat16_blocks_over_words_give_the_interpreters_bits(saturation, every_launch_hot):
    """A block whose inputs are read only by a widening of bfloat16 runs a whole block at an even offset over
    32-bit words (hot_source: pairwords), any other block element by element: the interpreter's bits with
    passes of even length (words), of odd length (the second bin's span from 12,285: blocks at odd offsets),
    inputs one element off a 4-byte boundary (no words: hot_words.word_views), NaNs of three payloads (their
    blocks flagged and run on the machine)."""
    program = _bfloat16_grad()
    prepared = runner.Prepared(lower(program), saturation, grain=1024)
    params = hot.launch_args(prepared, {})[0]
    assert "def hot_block_words(" in hot.source_and_rows(type(params).__name__)[0]
    rng = np.random.default_rng([1399, saturation])
    n = 3 * 8192 + 5
    for offset, pass_len in ((0, 8192), (0, 4095), (1, 8192)):
        arrays = _bfloat16_inputs(rng, program, n, offset, nans=6)
        got, want = _run(program, arrays, {}, saturation, grain=1024, pass_len=pass_len, threads=2)
        assert_bits_equal(got, want, f"offset {offset}, passes of {pass_len}")
    assert every_launch_hot == [True] * 3


def test_a_block_over_words_runs_only_a_whole_block_at_an_even_offset():
    """The function over words (its arrays uint32 views of the 16-bit tensors, ``at`` and ``n`` in elements):
    the interpreter's bits block by block, whether it flagged the block (a NaN), and -1 (not run) for a block
    at an odd offset or cut short; none for float16 (slower over words) or float32."""
    from numba import njit

    program = _bfloat16_grad()
    prepared = runner.Prepared(lower(program), False, grain=1024)
    params, scalars, tables = hot.launch_args(prepared, {})
    full = hot._block(params, 1024)
    run_words = njit(error_model="numpy")(hot_words._WORDS[type(params)])
    arrays = _bfloat16_inputs(np.random.default_rng(1401), program, 4 * full)
    want = interpret(program, {t.name: a for t, a in zip(program.inputs, arrays)}, {}, False).view(np.uint16)
    words = [a.view(np.uint16).view(np.uint32) for a in arrays]
    words += [words[0]] * (3 - len(words))
    out = np.zeros(4 * full, np.uint16)
    scratch = np.zeros((1, full), np.float32)
    for at in range(0, 4 * full, full):
        assert run_words(params, *words, out.view(np.uint32), at, full, scalars, tables, scratch) == 0
    assert_bits_equal(out, want)
    before = out.copy()
    assert run_words(params, *words, out.view(np.uint32), 1, full, scalars, tables, scratch) == -1
    assert run_words(params, *words, out.view(np.uint32), 0, full - 2, scalars, tables, scratch) == -1
    assert np.array_equal(out, before)
    arrays[-1].view(np.uint16)[full + 3] = 0x7FC1
    flags = [run_words(params, *words, out.view(np.uint32), at, full, scalars, tables, scratch)
             for at in range(0, 4 * full, full)]
    assert flags == [0, 1, 0, 0]
    op = get_operator("sigmoid_grad")
    for dtype in ("float16", "float32"):
        other = runner.Prepared(lower(op.kernels[ARCH_A2].programs(dtype, op.variant(sg.REFERENCE_PLATFORM))),
                                False, grain=1024)
        name = type(hot.launch_args(other, {})[0]).__name__
        assert "def hot_block_words(" not in hot.source_and_rows(name)[0], dtype
