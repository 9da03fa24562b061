"""swishgrad_numba.engine.lookup16: a 16-bit program tabulated whole, launched as gathers of its result's bits.
The lone Lookup recognised; the bits table (its entries' integers, or none where an entry is not a result's
bits); the launch over plans of one and of several bins, cores cut short and tails, against NumPy's indexing
of the table; its refusals; and the engine sending a tabulated program there, bit for bit against the
interpreter of tests/program_interpreter.py on every pattern."""
from __future__ import annotations

import numpy as np
import pytest

from program_interpreter import interpret
from reference import BF16, assert_bits_equal
from swishgrad_numba.engine import lookup16, opcodes as O, runner
from swishgrad_numba.engine.launch import frozen
from swishgrad_numba.kernel import plan as kernel_plan
from swishgrad_numba.program import Program
from swishgrad_numba.program.elementwise import elementwise
from swishgrad_numba.program.form import V
from swishgrad_numba.program.lower import lower


def _row(op, dst, src, mode):
    row = np.zeros(O.FIELDS, dtype=np.int64)
    row[O.OP], row[O.DST], row[O.SRC0], row[O.MODE] = op, dst, src, mode
    return row


def test_a_lone_lookup_is_one_lookup_of_input_0_into_the_result():
    lone = np.stack([_row(O.LOOKUP, 64, 0, 0)])
    assert lookup16.lone_lookup(lone, 64)
    assert not lookup16.lone_lookup(lone, 128)                            # into another row
    assert not lookup16.lone_lookup(np.stack([_row(O.LOOKUP, 64, 32, 0)]), 64)    # of input 1
    assert not lookup16.lone_lookup(np.stack([_row(O.LOOKUP, 64, 0, 0), _row(O.LOOKUP, 64, 0, 0)]), 64)
    assert not lookup16.lone_lookup(np.stack([_row(O.CAST_NONE, 64, 0, 1)]), 64)


def test_the_bits_table_holds_each_entry_s_integer_and_one_entry_more():
    entries = np.random.default_rng(3).integers(0, 65536, 65536)
    bits = lookup16.bits_table(entries.astype(np.float32))
    assert bits.dtype == np.uint16 and bits.shape == (lookup16.ENTRIES,) and not bits.flags.writeable
    assert np.array_equal(bits[:65536], entries) and bits[65536] == 0


@pytest.mark.parametrize("odd", [0.5, -1.0, 65536.0, np.nan, np.inf])
def test_no_bits_table_where_an_entry_is_not_a_result_s_bits(odd):
    table = np.arange(65536, dtype=np.float32)
    table[1234] = odd
    assert lookup16.bits_table(table) is None


def test_the_bits_table_refuses_a_table_of_another_form():
    with pytest.raises(ValueError, match="65536 float32"):
        lookup16.bits_table(np.zeros(65535, np.float32))
    with pytest.raises(ValueError, match="65536 float32"):
        lookup16.bits_table(np.zeros(65536, np.float64))


def _plan(n: int, cores: int, pass_len: int, threads: int):
    """``cores`` cores of passes of ``pass_len`` over ``n`` elements (the last ones cut short, or past the
    end), in ``threads`` bins."""
    per_core = -(-n // cores)
    passes = -(-per_core // pass_len)
    runs = [kernel_plan.CoreRun(0, cores, per_core, passes, pass_len, per_core - (passes - 1) * pass_len, n)]
    made = kernel_plan.plan(runs, n, threads)
    return frozen(made.pieces), frozen(made.bins)


@pytest.mark.parametrize("n, cores, pass_len, threads", [
    (65536, 1, 65536, 1),           # one bin, on the calling thread
    (65536 + 77, 7, 1000, 2),       # two bins, a core shared, passes and the last core cut short
    (100_003, 48, 333, 3),          # tails shorter than a gather's 32 lanes
    (5, 3, 2, 2),                   # fewer elements than a gather
])
def test_the_launch_gathers_every_element_s_bits(n, cores, pass_len, threads):
    rng = np.random.default_rng(n)
    entries = rng.integers(0, 65536, 65536)
    bits = lookup16.bits_table(entries.astype(np.float32))
    src = np.concatenate([rng.permutation(65536), rng.integers(0, 65536, max(n - 65536, 0))])[:n].astype(np.uint16)
    out = np.zeros(n, dtype=np.uint16)
    lookup16.launch(bits, src, out, *_plan(n, cores, pass_len, threads))
    assert np.array_equal(out, entries[src])


def test_the_launch_refuses_what_it_cannot_read_before_it_runs():
    bits = lookup16.bits_table(np.zeros(65536, np.float32))
    pieces, bins = _plan(64, 1, 64, 1)
    src, out = np.zeros(64, np.uint16), np.full(64, 7, np.uint16)
    with pytest.raises(ValueError, match="bits must be a bits table"):
        lookup16.launch(bits[:65536], src, out, pieces, bins)          # no entry past the last: a gather leaves it
    with pytest.raises(ValueError, match="src must be"):
        lookup16.launch(bits, src.astype(np.float32), out, pieces, bins)
    with pytest.raises(ValueError, match="out must be"):
        lookup16.launch(bits, src, np.zeros((8, 8), np.uint16), pieces, bins)
    with pytest.raises(ValueError, match="one length"):
        lookup16.launch(bits, src[:63], out, pieces, bins)
    assert (out == 7).all()


DTYPES = {"float16": np.dtype(np.float16), "bfloat16": BF16}


def _tabulated(dtype: str) -> Program:
    """A 16-bit unary program the engine tabulates whole: widen, Exp, Muls, narrow."""
    return elementwise("Tabulated", (("x", "xf"),), (V.Exp("t", "xf"), V.Muls("t", "t", 0.75)), "t", dtype)


@pytest.mark.parametrize("dtype", list(DTYPES))
@pytest.mark.parametrize("threads", [1, 2])
def test_the_engine_sends_a_tabulated_program_here_bit_for_bit(dtype, threads, monkeypatch):
    launched = []
    launch = lookup16.launch
    monkeypatch.setattr(lookup16, "launch", lambda *a: launched.append(a[3].shape) or launch(*a))
    program = _tabulated(dtype)
    prepared = runner.Prepared(lower(program), False)
    assert prepared.lone and prepared.bits_table({}) is prepared.bits_table({})     # made once, kept
    x = np.arange(65536, dtype=np.uint16).view(DTYPES[dtype])
    got = runner.run_program(program, [x], {}, pass_len=3000, threads=threads)
    assert_bits_equal(got, interpret(program, {"x": x}, {}))
    assert len(launched) == 1


def test_a_stream_of_more_than_a_lookup_has_no_bits_table():
    program = elementwise("TwoInputs", (("a", "af"), ("b", "bf")), (V.Add("t", "af", "bf"),), "t", "float16")
    prepared = runner.Prepared(lower(program), False)
    assert not prepared.lone and prepared.bits_table({}) is None
