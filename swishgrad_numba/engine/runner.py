"""A program made ready for the engine: its checked streams, its tables, its launches.

:class:`Prepared` holds a lowered program's streams (:mod:`.stream`), checked once when made (the code
arrays are then read-only), and builds its 16-bit tables per attribute values by running their
streams (:func:`.launch.build_table`), kept in a :class:`swishgrad_numba.kernel.tables.TableCache`.
:meth:`Prepared.run` launches it over a plan of the kernel's schedule
(:func:`swishgrad_numba.kernel.plan_launch`); :meth:`Prepared.engine_params` gives the broadcast
walk's pass parameters.
"""
from __future__ import annotations

import contextlib
import functools
import itertools
import threading

import numpy as np

from .. import runtime
from ..kernel import plan as kernel_plan
from ..kernel.tables import TableCache
from ..kernel.walk import PIECE_DTYPE
from ..program.lower import Lowered, lower
from . import hot, launch, lookup16
from .launch import frozen
from .opcodes import MODE
from .stream import Stream, check, streams

__all__ = ["DEFAULT_GRAIN", "Prepared", "prepare", "recorded", "run_program", "run_stream"]

#: Elements per block: every row of a stream stays in L1 through the whole stream (measured,
#: bench/engine_compare.py).
DEFAULT_GRAIN = 1024

_TABLES = TableCache(size=32)
#: Attribute values whose launch arguments a :class:`Prepared` keeps.
_ARGS_KEPT = 16
_KEYS = itertools.count()
_RECORDING = threading.local()


@contextlib.contextmanager
def recorded():
    """``with recorded() as runs:`` each :meth:`Prepared.run` the calling thread makes inside is appended to
    ``runs`` as ``(prepared, ins, out, launch_plan, attrs)`` (what :mod:`swishgrad_numba.ops.call` keeps as a
    call's plan)."""
    previous = getattr(_RECORDING, "runs", None)
    runs = _RECORDING.runs = []
    try:
        yield runs
    finally:
        _RECORDING.runs = previous


_NO_TABLES = frozen(np.zeros((0, 65536), dtype=np.float32))


def _checked(s: Stream, scalars: int, tables: int, inputs: int) -> Stream:
    check(s.code, np.zeros(scalars or 1, np.float32), np.zeros((tables, 65536), np.float32), s.arena_len, s.grain,
          s.out, inputs)
    s.code.flags.writeable = False
    return s


class Prepared:
    """A lowered program's streams for the overflow mode ``sat``, ready to launch."""

    def __init__(self, lowered: Lowered, sat: bool, grain: int = DEFAULT_GRAIN):
        self.lowered, self.sat, self.key = lowered, bool(sat), next(_KEYS)
        self.attrs = lowered.program.attrs
        s = streams(lowered, grain)
        self.inputs = s.inputs
        n_tables = len(s.tables)
        self.main = _checked(s.main, len(s.main.scalar_ops), n_tables, s.inputs)
        self.tables = tuple((_checked(t, len(t.scalar_ops), 0, s.inputs), inp) for t, inp in s.tables)
        #: whether the main stream is a lone Lookup into the result (:func:`.lookup16.lone_lookup`)
        self.lone = lookup16.lone_lookup(self.main.code, self.main.out)
        self._args: dict = {}
        self._hot_args: dict = {}   # hot.launch_args', per args_key
        self._bits: dict = {}       # bits_table's, per args_key

    def launch_args(self, attrs) -> tuple:
        """``(scalars, tables)`` of the main stream for these attribute values, read-only, kept per
        values (a call of a few thousand elements would otherwise spend much of its time making them)."""
        key = self.args_key(attrs)
        got = self._args.get(key)
        if got is None:
            got = self.keep(self._args, key, (frozen(self.main.scalars(self._attr_values(attrs))),
                                              self.table_array(attrs)))
        return got

    @staticmethod
    def keep(kept: dict, key, value):
        """``value`` kept as ``kept[key]`` in a per-values dict, :data:`_ARGS_KEPT` entries at most."""
        if len(kept) >= _ARGS_KEPT:
            kept.clear()
        kept[key] = value
        return value

    def bits_table(self, attrs) -> np.ndarray | None:
        """The lone Lookup's :func:`.lookup16.bits_table` for these attribute values, kept per values (None
        where the main stream is not a lone Lookup, or its entries are not a result's bits)."""
        if not self.lone:
            return None
        key = self.args_key(attrs)
        try:
            return self._bits[key]
        except KeyError:    # (made here, or dropped by another thread's keep meanwhile)
            _scalars, tables = self.launch_args(attrs)
            return self.keep(self._bits, key, lookup16.bits_table(tables[self.main.code[0, MODE]]))

    def args_key(self, attrs) -> bytes:
        """The key of these attribute values' kept arguments: their float32 bits (-0.0 apart from 0.0, a NaN
        equal to itself)."""
        return np.array([attrs[a] for a in self.attrs], dtype=np.float32).tobytes() if self.attrs else b""

    def _attr_values(self, attrs) -> dict:
        return {a: np.float32(attrs[a]) for a in self.attrs}

    def table_array(self, attrs) -> np.ndarray:
        """The tables for these attribute values, ``(tables, 65536)`` float32 (arena rows' form)."""
        if not self.tables:
            return _NO_TABLES
        values = self._attr_values(attrs)
        key = (self.key, tuple(int(v.view(np.uint32)) for v in values.values()))
        return _TABLES.get(key, functools.partial(self._build, values))

    def _build(self, values) -> np.ndarray:
        out = np.empty((len(self.tables), 65536), dtype=np.float32)
        launch.ready()
        for i, (t, inp) in enumerate(self.tables):
            with runtime.launch_guard():
                launch.build_table(t.code, frozen(t.scalars(values)), _NO_TABLES, t.arena_len, inp * t.grain, t.out,
                                   self.sat, out[i])
        out.flags.writeable = False
        return out

    def run(self, ins: tuple, out: np.ndarray, launch_plan, attrs) -> None:
        """The launch over flat ``ins`` (a tuple of arrays of one dtype: float32, or 16-bit bits as
        uint16) into flat ``out``, scheduled by ``launch_plan`` (:class:`swishgrad_numba.kernel.Plan`)."""
        runs = getattr(_RECORDING, "runs", None)
        if runs is not None:
            runs.append((self, ins, out, launch_plan, attrs))
        if len(ins) != self.inputs:
            raise ValueError(f"{self.lowered.program.name} takes {self.inputs} inputs, got {len(ins)}")
        m = self.main
        # read-only, as some plans come (cached): one type of every argument, so one compile
        pieces, bins = frozen(launch_plan.pieces), frozen(launch_plan.bins)
        launch.ready()
        with runtime.launch_guard():
            if hot.run(self, ins, out, pieces, bins, attrs):  # a large launch: the hot tier
                return
            if _bits_16(ins, out) and (bits := self.bits_table(attrs)) is not None:    # a lone Lookup's gathers
                lookup16.launch(bits, ins[0], out, pieces, bins)
                return
            scalars, tables = self.launch_args(attrs)
            raw, inputs, wide, raw_out, numel = launch.raw_args(ins, out)
            if len(bins) <= 2:
                launch.run_bin(m.code, scalars, tables, raw, inputs, wide, raw_out, numel, pieces, 0, len(pieces),
                               m.grain, m.arena_len, m.out, self.sat)
            else:
                launch.launch_bins(m.code, scalars, tables, raw, inputs, wide, raw_out, numel, pieces, bins, m.grain,
                                   m.arena_len, m.out, self.sat)

    def engine_params(self, attrs) -> launch.EngineParams:
        """The broadcast walk's pass parameters (:class:`.launch.EngineParams`) for these attributes."""
        m = self.main
        scalars, tables = self.launch_args(attrs)
        launch.ready()
        return launch.EngineParams(m.code, scalars, tables, m.grain, m.arena_len, m.out, self.sat)


def _bits_16(ins: tuple, out: np.ndarray) -> bool:
    """Whether a launch's first input (a lone Lookup's) and its result are flat C-contiguous uint16 arrays of
    one length."""
    return (out.dtype == np.uint16 and ins[0].dtype == np.uint16 and out.ndim == 1 and ins[0].shape == out.shape
            and out.flags.c_contiguous and ins[0].flags.c_contiguous)


def prepare(compiled, grain: int | None = None) -> Prepared:
    """The :class:`Prepared` of a :class:`swishgrad_numba.program.passes.Compiled` (made once per grain;
    :data:`DEFAULT_GRAIN` read at the call, so a benchmark may set it)."""
    grain = DEFAULT_GRAIN if grain is None else grain
    cache = compiled.__dict__.setdefault("_engine", {})
    if grain not in cache:
        cache[grain] = Prepared(compiled.lowered, compiled.key[4], grain)
    return cache[grain]


def run_program(program, arrays, attrs, saturation: bool = False, axpy_rounding: str = "fused",
                grain: int = DEFAULT_GRAIN, pass_len: int = 4096, threads: int = 1,
                cast_overflow: str = "ieee", cast_int_overflow: str = "saturate") -> np.ndarray:
    """``program`` over ``arrays`` (its inputs, of one dtype) on the engine, one core walking passes of
    ``pass_len`` elements, cut into ``threads`` bins: for tests and benchmarks."""
    prepared = Prepared(lower(program, axpy_rounding=axpy_rounding, cast_overflow=cast_overflow,
                              cast_int_overflow=cast_int_overflow), saturation, grain)
    n = arrays[0].size
    raw = tuple(np.ascontiguousarray(a).reshape(-1).view(np.uint16) if a.dtype.itemsize == 2
                else np.ascontiguousarray(a).reshape(-1) for a in arrays)
    out = np.empty(n, dtype=arrays[0].dtype)
    passes = max(-(-n // pass_len), 1)
    runs = [kernel_plan.CoreRun(0, 1, 0, passes, pass_len, n - (passes - 1) * pass_len, n)]
    launch_plan = kernel_plan.plan(runs, n, threads)
    assert launch_plan.pieces.dtype == PIECE_DTYPE
    prepared.run(raw, out.view(np.uint16) if out.dtype.itemsize == 2 else out, launch_plan, attrs)
    return out


def run_stream(code, scalars, tables, ins: tuple, out: np.ndarray, grain: int, arena_len: int, out_offset: int,
               saturation: bool = False) -> np.ndarray:
    """A raw stream (:mod:`.opcodes`) over flat ``ins`` (input ``i`` in the arena at ``i * grain``)
    into flat ``out``, on the calling thread, after :func:`.stream.check` (a malformed stream raises
    ValueError and never runs)."""
    code = frozen(np.ascontiguousarray(code))
    scalars = frozen(np.ascontiguousarray(scalars, dtype=np.float32))
    tables = _NO_TABLES if tables is None else frozen(np.ascontiguousarray(tables, dtype=np.float32))
    check(code, scalars, tables, arena_len, grain, out_offset, len(ins))
    n = out.shape[0]
    if any(a.shape != out.shape for a in ins):
        raise ValueError("ins and out must be flat arrays of one length")
    pieces = frozen(np.array([(0, 1, 0, 1, n, n)], dtype=PIECE_DTYPE))
    raw, inputs, wide, raw_out, numel = launch.raw_args(tuple(ins), out)
    launch.ready()
    with runtime.launch_guard():
        launch.run_bin(code, scalars, tables, raw, inputs, wide, raw_out, numel, pieces, 0, 1, grain, arena_len,
                       out_offset, bool(saturation))
    return out
