"""The reader's dataflow comparison, and the mapping to the program form (run once it is merged)."""
from pathlib import Path

import pytest

from swishgrad_numba.reader import AttrRef, Constant, Step, read_source
from swishgrad_numba.reader.dataflow import output_expression

KERNELS = Path(__file__).parent / "fixtures" / "kernels"


def test_names_and_the_order_of_independent_steps_do_not_matter():
    a = [Step("Muls", ("t", "x", AttrRef("s"))), Step("Exp", ("u", "y")), Step("Mul", ("o", "t", "u"))]
    b = [Step("Exp", ("p", "y")), Step("Muls", ("q", "x", AttrRef("beta"))), Step("Mul", ("q", "p", "q"))]
    assert output_expression(a, ["x", "y"], "o", {"s": "beta"}) == output_expression(b, ["x", "y"], "q")
    assert output_expression(a, ["x", "y"], "o") == ("Mul", ("Exp", ("in", 1)), ("Muls", ("in", 0), ("attr", "s")))


def test_a_different_operand_or_order_of_a_non_commutative_step_differs():
    a = [Step("Sub", ("o", "x", "y"))]
    assert output_expression(a, ["x", "y"], "o") != output_expression([Step("Sub", ("o", "y", "x"))], ["x", "y"], "o")
    c = [Step("Adds", ("o", "x", Constant(1.0)))]
    assert output_expression(c, ["x"], "o") != output_expression([Step("Adds", ("o", "x", Constant(2.0)))], ["x"], "o")
    with pytest.raises(ValueError, match="reads 'z'"):
        output_expression([Step("Exp", ("o", "z"))], ["x"], "o")


def test_fixture_kernels_by_dataflow():
    # the A2 SwishGrad-like kernel: float16 and bfloat16 compute alike, float32 without the casts
    d = read_source(KERNELS / "a2_swish_back")
    expr = {b.dtype: output_expression(b.steps, [t for _, t in b.inputs], b.output[1]) for b in d.bodies}
    assert expr["float16"] == expr["bfloat16"] != expr["float32"]
    op, inner, mode = expr["float16"]
    assert (op, mode) == ("Cast", "CAST_RINT") and expr["float32"][0] == "Mul"
    # under the narrowing: dy (input 0) widened, times the float32 derivative
    assert inner[0] == "Mul" and ("Cast", ("in", 0), "CAST_NONE") in inner[1:]


def test_to_program_maps_each_fixture():
    pytest.importorskip("swishgrad_numba.program")       # the program form (issue 28), once merged
    from swishgrad_numba.reader.to_program import to_program
    for folder in ("a2_swish_back", "a2_scaled_abs", "dag_swish_toy"):
        d = read_source(KERNELS / folder)
        for b in d.bodies:
            p = to_program(b, d.name)
            assert [i.op for i in p.body] == [s.op for s in b.steps]
            assert p.attrs == b.attrs and p.output.name == b.output[1]
