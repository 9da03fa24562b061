"""Round trip: fuzzed kernel bodies printed as Ascend C (A2 class style) and read back are the same."""
import random

import numpy as np
import pytest

from swishgrad_numba.reader import AttrRef, Body, Constant, ScalarProduct, Step, read_source
from swishgrad_numba.reader.instructions import COMPARE_OPS, SPELLINGS, VECTOR_CALLS
from swishgrad_numba.reader.printer import print_a2, write_a2

ATTRS = ("alpha", "beta")
# the form's names only: another spelling (AscendC::Log) reads back as the form's (Ln)
FLOAT_OPS = [op for op in VECTOR_CALLS if op != "Cast" and op not in SPELLINGS and op not in COMPARE_OPS
             and op not in ("And", "Or", "ShiftRight", "Not")]      # on bit views / mask words only (issue 43,
#                                               test_reader_bitviews.py, test_reader_views.py, test_reader_mask_words.py)


def _scalar(rng):
    pick = rng.random()
    if pick < 0.1:      # an attribute times a float32 constant, computed once
        factors = [AttrRef(rng.choice(ATTRS)), Constant(float(np.float32(rng.uniform(-4, 4))))]
        return ScalarProduct(*(factors if rng.random() < 0.5 else factors[::-1]))
    if pick < 0.3:
        return AttrRef(rng.choice(ATTRS))
    if pick < 0.5:      # a double expression, rounded to float once
        a, b = (f"{rng.uniform(-9, 9):.{rng.randint(1, 9)}f}" for _ in range(2))
        op = rng.choice("*/+-")
        return Constant(float(np.float32(eval(f"{a} {op} {b}"))), f"{a} {op} {b}")
    return Constant(float(np.float32(rng.uniform(-1e3, 1e3))))


def _attr_names(a):
    if isinstance(a, ScalarProduct):
        return _attr_names(a.a) + _attr_names(a.b)
    return (a.name,) if isinstance(a, AttrRef) else ()


def _body(rng, dtype, n_in, n_steps):
    """A random Compute: every input read, every read after a write, the output written last."""
    inputs = [f"{g}Local" for g in "ab"[:n_in]]
    locals_ = ["t0", "t1", "t2"]
    steps, ready = [], []
    if dtype == "float32":
        ready = list(inputs)
        pool = locals_ + inputs
        for src in inputs:      # each input is read first
            steps.append(Step("Abs", (rng.choice(locals_), src)))
    else:
        for g, src in zip("ab", inputs):
            steps.append(Step("Cast", (f"{g}f", src, "CAST_NONE")))
            ready.append(f"{g}f")
        pool = locals_ + list(ready)
    ready += [s.args[0] for s in steps if s.args[0] not in ready]
    for _ in range(n_steps):
        op = rng.choice(FLOAT_OPS)
        kinds = VECTOR_CALLS[op]
        dst = rng.choice(ready) if kinds[0] == "D" else rng.choice(pool)
        args = [dst] + [rng.choice(ready) if k == "s" else _scalar(rng) for k in kinds[1:]]
        steps.append(Step(op, tuple(args)))
        if dst not in ready:
            ready.append(dst)
    last = rng.choice([r for r in ready if r not in inputs] or ready)
    if dtype == "float32":
        steps.append(Step("Mul", ("outLocal", last, rng.choice(ready))))
    else:
        steps.append(Step("Cast", ("outLocal", last, rng.choice(["CAST_RINT", "CAST_ROUND"]))))
    order = list(dict.fromkeys(inputs + [a for s in steps for a, k in zip(s.args, VECTOR_CALLS[s.op])
                                           if k in "dDs"] + ["outLocal"]))
    io = set(inputs) | {"outLocal"}
    tensors = tuple((t, dtype if t in io else "float32") for t in order)
    attrs = tuple(dict.fromkeys(n for s in steps for a in s.args for n in _attr_names(a)))
    return Body(dtype, tuple(zip("ab"[:n_in], inputs)), ("out", "outLocal"), tensors, tuple(steps), attrs,
                "", 2)


@pytest.mark.parametrize("seed", range(40))
def test_printed_kernel_reads_back(tmp_path, seed):
    rng = random.Random(seed)
    n_in = rng.randint(1, 2)
    bodies = {dt: _body(rng, dt, n_in, rng.randint(1, 12)) for dt in ("float32", "float16", "bfloat16")}
    gm = tuple("ab"[:n_in]) + ("out",)
    folder = write_a2(tmp_path / "k", f"fuzz_{seed}", gm, bodies, ATTRS)
    d = read_source(folder)
    assert d.gm_params == gm and d.dtypes == ("float32", "float16", "bfloat16")
    assert d.tiling.float_fields() == ATTRS
    for dtype, want in bodies.items():
        got = d.body(dtype)
        assert got.steps == want.steps
        assert (got.inputs, got.output, got.attrs) == (want.inputs, want.output, want.attrs)
        assert dict(got.tensors) == dict(want.tensors)
        assert [s.at[1] for s in got.steps] == sorted(s.at[1] for s in got.steps)    # lines in order


def test_a_printed_fixture_reads_back_the_same(tmp_path):
    # the A2 fixture's description printed and read back: a kernel written by the printer reads as the original
    from pathlib import Path
    d = read_source(Path(__file__).parent / "fixtures" / "kernels" / "a2_swish_back")
    bodies = {b.dtype: b for b in d.bodies}
    again = read_source(write_a2(tmp_path, "swish_back", ("dy", "x", "dx"), bodies, ("sconf",)))
    for b in d.bodies:
        assert again.body(b.dtype).steps == b.steps and again.body(b.dtype).inputs == b.inputs


@pytest.mark.parametrize("seed", range(20))
def test_a_printed_program_reads_back_as_the_same_program(tmp_path, seed):
    # fuzzed programs (the program form, swishgrad_numba.program) printed as Ascend C and read back by
    # read_kernel: the same program, instruction for instruction, with the same tensors and attributes
    from swishgrad_numba.ops import read_kernel
    from swishgrad_numba.reader.to_program import from_program, to_program

    rng = random.Random(1000 + seed)
    n_in = rng.randint(1, 2)
    programs = {dt: to_program(_body(rng, dt, n_in, rng.randint(1, 12)), f"fuzz_{seed}")
                for dt in ("float32", "float16", "bfloat16")}
    gm = tuple("ab"[:n_in])
    bodies = {dt: from_program(p, gm, "out") for dt, p in programs.items()}
    op = read_kernel(write_a2(tmp_path / "k", f"fuzz_{seed}", gm + ("out",), bodies, ATTRS))
    for dtype, want in programs.items():
        got = op.program(dtype)
        assert got.body == want.body and got.attrs == want.attrs
        assert (got.inputs, got.output) == (want.inputs, want.output)
        assert set(got.locals) == set(want.locals)


def test_infinite_constants_print_and_read_back(tmp_path):
    # issue 38: an infinity printed as `inff` (the Softplus kernel's Duplicate(t, inf), `ops show softplus`),
    # which no compiler nor the reader takes; now as (1.0f / 0.0f), which the reader evaluates in float as C
    # does. A body with both infinities printed as Ascend C and read back: the same, bit for bit
    from swishgrad_numba.ops import get_operator

    shown = str(get_operator("softplus").program("float32"))
    assert "Duplicate(t, (1.0f / 0.0f));" in shown and "inff" not in shown
    inf, ninf = Constant(float("inf")), Constant(float("-inf"))
    bodies = {"float32": Body("float32", (("a", "aLocal"),), ("out", "outLocal"),
                              (("aLocal", "float32"), ("t0", "float32"), ("t1", "float32"), ("outLocal", "float32")),
                              (Step("Duplicate", ("t0", inf)), Step("Maxs", ("t1", "aLocal", ninf)),
                               Step("Min", ("outLocal", "t1", "t0"))), (), "", 2)}
    for dt in ("float16", "bfloat16"):
        bodies[dt] = Body(dt, (("a", "aLocal"),), ("out", "outLocal"),
                          (("aLocal", dt), ("af", "float32"), ("t0", "float32"), ("t1", "float32"), ("outLocal", dt)),
                          (Step("Cast", ("af", "aLocal", "CAST_NONE")), Step("Duplicate", ("t0", inf)),
                           Step("Maxs", ("t1", "af", ninf)), Step("Min", ("t1", "t1", "t0")),
                           Step("Cast", ("outLocal", "t1", "CAST_ROUND"))), (), "", 2)
    printed = print_a2("infs", ("a", "out"), bodies)["infs.h"]
    assert "(1.0f / 0.0f)" in printed and "(-1.0f / 0.0f)" in printed and "inff" not in printed
    back = read_source(write_a2(tmp_path / "k", "infs", ("a", "out"), bodies))
    for dt, want in bodies.items():
        got = back.body(dt).steps
        assert got == want.steps
        scalars = [np.float32(s.args[-1].value).view(np.uint32) for s in got if s.op in ("Duplicate", "Maxs")]
        assert scalars == [0x7F800000, 0xFF800000]


def test_a_program_with_a_call_is_not_printed():
    from swishgrad_numba.program import Call, Program, Tensor
    from swishgrad_numba.program.form import V
    from swishgrad_numba.reader.to_program import from_program

    sub = Program("Sq", (Tensor("p"),), Tensor("r"), (), (V.Mul("r", "p", "p"),))
    prog = Program("Outer", (Tensor("x"),), Tensor("y"), (), (Call(sub, "y", ("x",)),))
    with pytest.raises(ValueError, match="calls a subroutine"):
        from_program(prog, ("x",), "y")


def test_log_reads_as_ln(tmp_path):
    # AscendC::Log (the SoftplusV2 kernel's spelling) is the form's Ln
    def body(dt):
        if dt == "float32":
            return Body(dt, (("a", "aLocal"),), ("out", "outLocal"), (("aLocal", dt), ("outLocal", dt)),
                        (Step("Ln", ("outLocal", "aLocal")),), (), "", 2)
        return Body(dt, (("a", "aLocal"),), ("out", "outLocal"),
                    (("aLocal", dt), ("af", "float32"), ("outLocal", dt)),
                    (Step("Cast", ("af", "aLocal", "CAST_NONE")), Step("Ln", ("af", "af")),
                     Step("Cast", ("outLocal", "af", "CAST_RINT"))), (), "", 2)
    folder = write_a2(tmp_path / "k", "log_kernel", ("a", "out"),
                      {dt: body(dt) for dt in ("float32", "float16", "bfloat16")}, ATTRS)
    for path in folder.rglob("*.h"):
        path.write_text(path.read_text().replace("Ln(", "AscendC::Log("))
    d = read_source(folder)
    assert [s.op for s in d.body("float32").steps] == ["Ln"]
    assert [s.op for s in d.body("float16").steps] == ["Cast", "Ln", "Cast"]
