"""swishgrad_numba.engine: the vector machine against the interpreter of tests/program_interpreter.py, bit
for bit, on random well-typed programs (the generator of tests/test_program.py), every instruction and dtype,
both overflow modes; and malformed streams refused."""
from __future__ import annotations

import numpy as np
import pytest

from program_interpreter import interpret
from reference import assert_bits_equal
from swishgrad_numba.engine import launch, opcodes as O
from swishgrad_numba.engine.runner import run_program, run_stream
from swishgrad_numba.engine.stream import check
from swishgrad_numba.program import Attr, Const, Program, Tensor
from swishgrad_numba.program.form import V
from test_program import CONSTS, DTYPES, _inputs, random_program


def _alpha(rng):
    if rng.random() < 0.5:
        return np.float32(Const.of(CONSTS[rng.integers(len(CONSTS))]).value)
    return np.float32(rng.standard_normal())


@pytest.mark.parametrize("saturation", [False, True], ids=["infnan", "saturation"])
@pytest.mark.parametrize("dtype", list(DTYPES))
def test_random_programs_run_as_interpreted(dtype, saturation):
    rng = np.random.default_rng([39, list(DTYPES).index(dtype), saturation])
    for case in range(4):
        program = random_program(rng, dtype, int(rng.integers(4, 24)), focus=case >= 2)
        n = 65536 if dtype != "float32" else int(rng.integers(1, 5000))
        arrays = _inputs(rng, n, dtype, len(program.inputs))
        alpha = _alpha(rng)
        axpy = ("fused", "unfused")[case % 2]
        # blocks smaller and larger than a pass, passes cut into bins of two threads
        grain = int(rng.choice([16, 100, 1024]))
        got = run_program(program, arrays, {"alpha": alpha}, saturation, axpy, grain=grain,
                          pass_len=int(rng.choice([37, 1000, 8192])), threads=int(rng.integers(1, 3)))
        want = interpret(program, {t.name: a for t, a in zip(program.inputs, arrays)}, {"alpha": alpha},
                         saturation, axpy_rounding=axpy)
        assert_bits_equal(got, want, f"{dtype} case {case} grain {grain} (Axpy {axpy}):\n{program}")


@pytest.mark.parametrize("saturation", [False, True], ids=["infnan", "saturation"])
@pytest.mark.parametrize("dtype", list(DTYPES))
def test_integer_and_sixteen_bit_instructions_run_as_interpreted(dtype, saturation):
    # ShiftRight, the int32 and int8 Casts, a 16-bit Duplicate / Compare / Select, And / Or, CAST_ROUND
    rng = np.random.default_rng([40, list(DTYPES).index(dtype), saturation])
    wide = "x" if dtype == "float32" else "xf"
    body = ([] if dtype == "float32" else [V.Cast("xf", "x", "CAST_NONE")]) + [
        V.Muls("c", wide, Const.of(3e-3)), V.ShiftRight("i", "c", Const.of(31)), V.Cast("s", "i", "CAST_NONE"),
        V.ShiftRight("i", "c", Const.of(5)), V.Cast("b", "i", "CAST_NONE"), V.Cast("h", "c", "CAST_ROUND"),
        V.Cast("i8", "h", "CAST_NONE"), V.Cast("h", "i8", "CAST_NONE"), V.Duplicate("h0", Attr("alpha")),
        V.Compare("m", "h0", "h", "LE"), V.Select("h", "h", Const.of(-0.0), "m"), V.Select("h", "h0", "h", "m"),
        V.Or("a", "c", "s"), V.Cast("c", "h", "CAST_NONE"), V.And("a", "a", "b"), V.Sub("c", "a", "c"),
        V.Mul("c", "c", "s")]
    body.append(V.Adds("out", "c", Attr("alpha")) if dtype == "float32" else V.Cast("out", "c", "CAST_RINT"))
    local = (Tensor("i", "int32"), Tensor("i8", "int8"), Tensor("h", "float16"), Tensor("h0", "float16"),
             Tensor("m", "uint8"), Tensor("s"), Tensor("b"), Tensor("c"), Tensor("a")) \
        + (() if dtype == "float32" else (Tensor("xf"),))
    program = Program("Ints", (Tensor("x", dtype),), Tensor("out", dtype), local, tuple(body), ("alpha",))
    (x,) = _inputs(rng, 65536 if dtype != "float32" else 5000, dtype, 1)
    for alpha in (np.float32(0.0), np.float32(-7.5), np.float32(1e5)):
        got = run_program(program, [x], {"alpha": alpha}, saturation, grain=512)
        assert_bits_equal(got, interpret(program, {"x": x}, {"alpha": alpha}, saturation), f"{dtype} {alpha}")


def _stream(ops):
    code = np.zeros((len(ops), O.FIELDS), dtype=np.int64)
    for i, (name, dst, srcs, mode) in enumerate(ops):
        code[i, O.OP] = O.OPCODES[name] if isinstance(name, str) else name
        code[i, O.DST] = dst
        code[i, O.SRC0:O.SRC0 + len(srcs)] = srcs
        code[i, O.MODE] = mode
    return code


def test_a_hand_written_stream_runs():
    x = np.array([1.0, -2.0, 3.0, np.inf], dtype=np.float32)
    out = np.empty_like(x)
    # row 0: x; row 1: x * k0 (2.0); row 2: row 1 + x
    code = _stream([("MULS", 8, [0], 0), ("ADD", 16, [8, 0], 0)])
    run_stream(code, np.array([2.0], np.float32), None, (x,), out, grain=8, arena_len=24, out_offset=16)
    assert_bits_equal(out, x * np.float32(3.0))


@pytest.mark.parametrize("bad, message", [
    ([("ADD", 17, [8, 0], 0)], "leaves the arena"),          # dst + grain past the arena's 24
    ([("ADD", 16, [-1, 0], 0)], "leaves the arena"),
    ([("ADD", 16, [0, 1 << 40], 0)], "leaves the arena"),
    ([(len(O.NAMES), 16, [0, 0], 0)], "unknown opcode"),
    ([(-3, 16, [0, 0], 0)], "unknown opcode"),
    ([("LOOKUP", 16, [0], 0)], "mode 0 is not one of"),       # no tables
    ([("COMPARE", 16, [0, 8], 6)], "mode 6"),
    ([("CAST_NONE", 16, [0], 99)], "mode 99"),
])
def test_a_malformed_stream_is_refused_before_it_runs(bad, message):
    x = np.ones(8, dtype=np.float32)
    out = np.full(8, 7.0, dtype=np.float32)
    with pytest.raises(ValueError, match=message):
        run_stream(_stream(bad), np.array([2.0], np.float32), None, (x,), out, grain=8, arena_len=24, out_offset=16)
    assert (out == 7.0).all()     # nothing ran


@pytest.mark.parametrize("dtype", [np.uint8, np.int8, np.bool_])
def test_a_launch_of_one_byte_tensors_is_refused_before_it_runs(dtype):
    """1-byte tensors of one itemsize pass the inputs-match-the-output check, but read as 16-bit bits the
    launch would walk twice their bytes: refused, nothing written (the guard poisons nothing)."""
    x = np.ones(16, dtype=dtype)
    out = np.zeros(16, dtype=dtype)
    with pytest.raises(ValueError, match="4-byte .* or 2-byte"):
        run_stream(_stream([("MULS", 8, [0], 0)]), np.array([2.0], np.float32), None, (x,), out, grain=8,
                   arena_len=16, out_offset=8)
    assert not out.any()
    with pytest.raises(ValueError, match="4-byte .* or 2-byte"):       # the launch's own check, under run_stream's
        launch.raw_args((np.ones(16, np.uint8),), np.zeros(16, np.uint8))


def test_check_refuses_scalar_indices_output_offsets_and_bad_shapes():
    code = _stream([("MULS", 8, [0], 0)])
    code[0, O.K0] = 1
    scalars, tables = np.zeros(1, np.float32), np.zeros((0, 65536), np.float32)
    with pytest.raises(ValueError, match="scalar index"):
        check(code, scalars, tables, 24, 8, 16, 1)
    code[0, O.K0] = 0
    with pytest.raises(ValueError, match="output offset"):
        check(code, scalars, tables, 24, 8, 20, 1)
    with pytest.raises(ValueError, match="int64 array"):
        check(code.astype(np.int32), scalars, tables, 24, 8, 16, 1)
    with pytest.raises(ValueError, match="input rows"):
        check(code, scalars, tables, 24, 8, 16, 4)
    check(code, scalars, tables, 24, 8, 16, 1)     # the same stream, well formed


def test_the_machine_compiles_once_for_every_dtype_input_count_and_table():
    from swishgrad_numba.engine import launch

    rng = np.random.default_rng(43)
    for dtype in DTYPES:    # 16-bit: tables (read-only) and 16-bit tensors; float32: neither
        for inputs in (1, 2):   # (random programs of 1 to 3 inputs) one thread and two
            program = random_program(rng, dtype, 6)
            arrays = _inputs(rng, 65536, dtype, len(program.inputs))
            run_program(program, arrays, {"alpha": np.float32(1.5)}, threads=inputs)
    x = np.ones(8, dtype=np.float32)
    run_stream(_stream([("MULS", 8, [0], 0)]), np.array([2.0]), None, (x,), np.empty_like(x), 8, 16, 8)
    # the machine (machine.execute) is compiled inside these, for their one signature each (a width each)
    assert len(launch._run_bin_wide.signatures) == 1 and len(launch._run_bin_16.signatures) == 1
    assert len(launch.launch_bins.signatures) == 1
    assert len(launch.build_table.signatures) == 1



def _defined(dispatcher):
    """The names of the functions each compiled signature of ``dispatcher`` holds code for, and those it only
    declares (its linked module, as Numba keeps it for linking and in the disk cache)."""
    defined, declared = set(), set()
    for sig in dispatcher.signatures:
        for f in dispatcher.overloads[sig].library._get_module_for_linking().functions:
            (declared if f.is_declaration else defined).add(f.name)
    return defined, declared


def test_the_launches_call_one_compiled_machine_and_hold_no_copy_of_it():
    from swishgrad_numba.engine import launch, machine, rows
    from swishgrad_numba.engine.rows import RowProgram

    rng = np.random.default_rng(44)
    program = random_program(rng, "float16", 5)    # a launch of the main stream, and the tables' builds
    run_program(program, _inputs(rng, 65536, "float16", len(program.inputs)), {"alpha": np.float32(0.5)}, threads=2)
    copy = RowProgram([np.array([[O.ROW_OPCODES["R_GM_IN"], 0, 0, 0, 8, 0, 0, 0],
                                  [O.ROW_OPCODES["R_GM_OUT"], 0, 0, 0, 8, 0, 0, 1]], np.int64)], [0.0], 8)
    gm = np.arange(16, dtype=np.float32)
    copy.run(gm, [(0, 8), (8, 8)], [(0, 0, 8)], [0, 1])                # one core: no parallel region
    assert (gm[8:] == gm[:8]).all()
    gm = np.arange(16, dtype=np.float32)
    copy.run(gm, [(0, 8), (8, 8)], [(0, 0, 8)], [0, 0, 1])             # two cores, in a prange
    assert (gm[8:] == gm[:8]).all()
    wide = random_program(rng, "float32", 5)    # and a float32 launch
    run_program(wide, _inputs(rng, 4096, "float32", len(wide.inputs)), {"alpha": np.float32(0.5)}, threads=2)
    # launch_bins holds both widths' launch code (run_bin's and build_table's entries hold no code to link)
    for dispatcher, shared, body in ((launch.launch_bins, machine.MACHINE, "7machine7execute"),
                                     (rows._run, rows.ROW_MACHINE, "4rows5_exec"),
                                     (rows._run_one, rows.ROW_MACHINE, "4rows5_exec")):
        assert dispatcher.signatures, dispatcher
        defined, declared = _defined(dispatcher)
        assert shared.symbol in declared, dispatcher
        assert not [n for n in defined if body in n], dispatcher    # the machine's code is not in the launch
    # each machine is compiled for its one signature, whatever the programs, dtypes and launches
    assert len(machine.execute.signatures) == 1 and len(rows._exec.signatures) == 1


@pytest.mark.parametrize("saturation", [False, True], ids=["infnan", "saturation"])
def test_ln_blocks_with_exact_path_elements_and_special_values(saturation):
    """The machine's Ln (a vectorised fast loop, then the exact path for the flagged elements of a block)
    against the independent correctly rounded reference: blocks that hold guard-band inputs (t near 1,
    0x3C413D3A), subnormals, zeros, infinities, NaN and negatives among random bit patterns."""
    from reference_activations_tier2 import ref_ln_f32
    from swishgrad_numba.kernel.ln import ln_fast, ln_flagged

    rng = np.random.default_rng(391)
    near_one = (np.uint32(0x3F800000) + np.arange(-300, 300)).astype(np.uint32)
    guard = np.array([0x3F008460, 0x3F04CBFC, 0x3F2F24EF, 0x3F9F93CE, 0x3FA2A9A1, 0x40014123, 0x4069A28A],
                     dtype=np.uint32)   # inputs whose fast value lies in the guard band (found by a scan)
    special = np.array([0x3C413D3A, 0, 0x80000000, 0x7F800000, 0xFF800000, 0x7FC00000, 0xFFC00001, 1, 0x007FFFFF,
                        0x80000001, 0xBF800000, 0x7F7FFFFF], dtype=np.uint32)
    bits = np.concatenate([near_one, guard, special, rng.integers(0, 1 << 32, 3000, dtype=np.uint64).astype(np.uint32)])
    x = rng.permutation(bits).view(np.float32)
    assert sum(ln_flagged(ln_fast(t)[1]) for t in x) >= 7   # the exact path runs, in several blocks
    out = np.empty_like(x)
    run_stream(_stream([("LN", 64, [0], 0)]), np.array([0.0], np.float32), None, (x,), out, grain=64,
               arena_len=128, out_offset=64, saturation=saturation)
    want = ref_ln_f32(x)
    if saturation:
        big = np.float32(np.finfo(np.float32).max)
        want = np.where(np.isnan(want), np.float32(0), np.where(np.isinf(want), np.copysign(big, want), want))
    assert_bits_equal(out, want.astype(np.float32))


@pytest.mark.parametrize("saturation", [False, True], ids=["infnan", "saturation"])
def test_exp_blocks_with_exact_path_elements_and_low_arguments(saturation):
    """The machine's Exp (a vectorised fast loop per chunk of the block, then, in a chunk with an element
    below -87 or in the guard band, the marks, the +0 of every t < -104.5 and the exact path) against
    the independent correctly rounded reference: blocks of 1,024 whose chunks hold guard-band inputs,
    subnormal and zero results (-110 .. -80, far below, -inf), overflow, NaN and random bit patterns,
    and chunks that hold none."""
    from reference import ref_exp_f32
    from swishgrad_numba.kernel.exp import clamp_exp_arg, exact_exp_mark

    rng = np.random.default_rng(392)
    guard = np.array([0x3F06AFC9, 0x3F95F6B1, 0x4001B249, 0xBF01F150, 0xBF81EADF, 0xBF86978C, 0xC00498A0],
                     dtype=np.uint32)   # inputs whose fast value lies in the guard band (found by a scan)
    special = np.array([0, 0x80000000, 0x7F800000, 0xFF800000, 0x7FC00000, 0xFFC00001, 1, 0x80000001, 0xC2AE0000,
                        0xC2D10000, 0xC2D0FFFF, 0xC2DC0000, 0xC2DC0001, 0xFF7FFFFF, 0x42B17218, 0x42B17217],
                       dtype=np.uint32)   # -87, -104.5 and its neighbours, -110 and below, ln(max) around
    low = rng.uniform(-112.0, -80.0, 600).astype(np.float32).view(np.uint32)
    mixed = np.concatenate([guard, special, low, rng.integers(0, 1 << 32, 1000, dtype=np.uint64).astype(np.uint32)])
    calm = rng.uniform(-20.0, 20.0, 2048).astype(np.float32)
    calm = calm[[exact_exp_mark(clamp_exp_arg(t)) == 0 for t in calm]][:2048 - mixed.size % 1024]
    x = np.concatenate([rng.permutation(mixed).view(np.float32), calm])
    assert sum(exact_exp_mark(clamp_exp_arg(t)) for t in x) >= 7   # the exact path runs
    out = np.empty_like(x)
    run_stream(_stream([("EXP", 1024, [0, 2048], 0)]), np.array([0.0], np.float32), None, (x,), out, grain=1024,
               arena_len=3072, out_offset=1024, saturation=saturation)
    with np.errstate(invalid="ignore", over="ignore"):   # inf and NaN among the inputs
        want = ref_exp_f32(x)
    if saturation:
        big = np.float32(np.finfo(np.float32).max)
        want = np.where(np.isnan(want), np.float32(0), np.where(np.isinf(want), np.copysign(big, want), want))
    assert_bits_equal(out, want.astype(np.float32))


def test_a_cores_span_is_its_passes_together():
    """``launch.core_span``: a core's passes laid end to end (pass ``p`` of core ``c`` from ``start + c * stride +
    p * pass_len``, ``pass_len`` elements, the last ``last_len``), cut at the tensor's end; -1 where the core starts
    past it, 0 for a core of no passes. Checked against the passes' elements listed one by one."""
    from swishgrad_numba.kernel.walk import PIECE_DTYPE

    rng = np.random.default_rng(1403)
    for _ in range(300):
        cores, passes, pass_len = int(rng.integers(1, 5)), int(rng.integers(0, 5)), int(rng.integers(1, 50))
        last_len = int(rng.integers(1, pass_len + 1))
        span = (passes - 1) * pass_len + last_len if passes else 0
        stride = span if cores > 1 else 0
        start = int(rng.integers(0, 40))
        numel = int(rng.integers(1, start + cores * span + 40))
        piece = np.array([(start, cores, stride, passes, pass_len, last_len)], dtype=PIECE_DTYPE)[0]
        for c in range(cores):
            covered = [e for p in range(passes)
                       for e in range(start + c * stride + p * pass_len,
                                      start + c * stride + p * pass_len + (last_len if p == passes - 1 else pass_len))
                       if e < numel]
            offset, count = launch.core_span(piece, c, numel)
            assert offset == start + c * stride
            if offset >= numel:
                assert count == -1
            else:
                assert list(range(offset, offset + count)) == covered
