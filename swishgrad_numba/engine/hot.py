"""The hot tier: a large flat launch of an element-wise stream as one fused loop (issue 39).

The machine runs a stream one instruction at a time over rows of its arena, which costs a pass over L1
per instruction and the copies in and out. For a launch of at least :data:`HOT_MIN_ELEMENTS` elements
(or of :data:`HOT_WARM_MIN_ELEMENTS` once its stream is warm: :func:`large_enough`), a stream that
:func:`.hot_source.block_source` takes runs instead as one loop that keeps each element's whole stream
in registers: a cache of the stream, compiled once per stream (each instruction still its function in
:mod:`swishgrad_numba.program.semantics`). A block the loop flags (an Exp or Ln element on the exact path, a
NaN whose payload the loop may give otherwise: :mod:`.hot_source`) is run again on the machine, which is
authoritative.

A 16-bit launch whose tensors start on 4-byte boundaries also passes them viewed as 32-bit words
(:func:`.hot_words.word_views`), for a block that has a function over words (:mod:`.hot_words`).

Caching: the generated block function is registered under a NamedTuple class of this module named after
the stream's key (:func:`class_name`: the generator's version, the overflow mode, the grain, the result's
row, the inputs and the code's numbers). The launch (:func:`_hot_bins`) is compiled into the package's
disk cache (:mod:`swishgrad_numba.disk_cache`: a checked private folder; every package source stamps it)
once per class, and another process rebuilds the class from its name (:func:`__getattr__`) when Numba
reads the cached launch's index back: nothing is loaded from anywhere but that cache, and no source file
is written.

The switch: :func:`enabled`, on by default; ``SWISHGRAD_HOT=0`` at import turns it off for a process,
:func:`use` / :func:`set_enabled` for the calling thread (a context variable, as :mod:`swishgrad_numba.engine`'s).
A first large launch of a stream compiles it (a few seconds, once per stream and cache).
"""
from __future__ import annotations

import contextlib
import contextvars
import hashlib
import linecache
import os
import re
from typing import NamedTuple

import numpy as np
from numba import njit, prange

from .. import runtime
from ..arguments import may_share
from ..intrinsics import prefetch_write, vectorise_full_width
from ..kernel import exp_vector
from ..kernel.envelope import ulp_shift
from ..kernel.exp import GUARD_LIM, LOW_BITS, NO_KEY, T_HI, exp_fast
from ..kernel.ln import ln_fast, ln_flagged
from ..program import int_casts as IC, semantics as S
from . import hot_words, machine
from .direct16 import lookup_bits
from .entry import Entries
from .hot_source import HOT_BLOCK, VERSION, NotHot, block_and_rows, block_elements
from .launch import MAX_INPUTS, core_span, frozen, ready, rerun_block
from .opcodes import EXP, FIELDS, LN, LOOKUP, MODE, OP

__all__ = ["ENV_VAR", "HOT_MIN_ELEMENTS", "HOT_WARM_MIN_ELEMENTS", "HOT_WARM_ELEMENTS", "HOT_BLOCK", "enabled",
           "set_enabled", "use", "hot_class", "too_small", "large_enough", "launch_args", "run", "launcher",
           "source_and_rows"]

#: The environment variable that turns the hot tier off for a process (``0``) at import.
ENV_VAR = "SWISHGRAD_HOT"
_DEFAULT = os.environ.get(ENV_VAR, "1").strip() != "0"
_SETTING: contextvars.ContextVar = contextvars.ContextVar("swishgrad_hot", default=None)
#: The least launch (elements) that runs hot: a smaller one keeps the machine, which compiles nothing. Measured
#: (SwishGrad, 2 threads): the loop saves nothing at 2^17-2^18 elements, 5-10% at 2^19, 15-20% at 2^20, so a
#: stream's compile (about 2 s) pays back only from about 2^20.
HOT_MIN_ELEMENTS = 1 << 20
#: A launch of at least this many elements (and under :data:`HOT_MIN_ELEMENTS`) runs hot once its stream is warm:
#: it has launched :data:`HOT_WARM_ELEMENTS` elements in all at such sizes (this one included), or its block was
#: made already (a large launch made it). Measured (``python bench/engine_compare.py middle``, bench/RESULTS.md,
#: midsize): the hot block is faster than the machine from 2^14-2^15 elements (2^15: 10-20%, 2^19: 25-35% on the
#: A2's float32 SiluGrad and SwishGrad), while a smaller launch gains nothing.
HOT_WARM_MIN_ELEMENTS = 1 << 15
#: Elements a stream launches at sizes from :data:`HOT_WARM_MIN_ELEMENTS` before such a launch runs hot: 2^26,
#: about 0.1 s of the machine's time (1-2 ns an element on a thread), what reading a block back from the disk
#: cache costs, so a process pays at most about twice what it would have paid knowing its calls ahead (a first
#: compile, about 2 s, once per stream and cache, comes on top). A process that calls a stream a few times at
#: these sizes (a test) compiles nothing; a loop of calls (a training step's) runs hot after 128 calls of 2^19
#: elements, 2,048 of 2^15.
HOT_WARM_ELEMENTS = 1 << 26

#: What a hot launch's tensors may be: float32, or 16-bit values' bits as uint16 (another dtype keeps the machine).
_HOT_DTYPES = (np.dtype(np.float32), np.dtype(np.uint16))
_LOCK = runtime.ChildRenewedLock()    # a forked child gets it anew (a compile in another thread at the fork)
_CLASSES: dict = {}        # class name -> class
_BLOCKS: dict = {}         # class -> generated block function (Python)
_ROWS: dict = {}           # class -> the scratch rows its block uses
_NAME = re.compile(r"^Hot__v(\d+)__(inf|sat)__exp([fv])__g(\d+)__o(\d+)__i(\d+)__([0-9a-f]+)"
                   r"((?:__T\d+g\d+i\d+o\d+k\d+_[0-9a-f]+)*)$")
_TABLE = re.compile(r"__T(\d+)g(\d+)i(\d+)o(\d+)k(\d+)_([0-9a-f]+)")
#: Whether a Lookup of a cheap table (no Exp, Ln or Lookup in its stream) is computed in the loop rather than
#: gathered (measured: bench/RESULTS.md, engine-hot).
INLINE_TABLES = True
#: Whether the blocks made from now on run each Exp's loop of its own by the AVX-512 vector loop
#: (:func:`swishgrad_numba.kernel.exp_vector.exp_rows`; Inf/NaN mode): where the compile target has it
#: (:data:`swishgrad_numba.kernel.exp_vector.VECTOR_EXP`). Part of each block's key (:func:`class_name`).
VECTOR_EXP = exp_vector.VECTOR_EXP
#: The longest table stream whose lone Lookup the loop computes rather than :mod:`.lookup16` gathering it (rows16,
#: 2 threads: leaky_relu's 5 instructions from 0.77x to 0.90x of PyTorch on float16; gelu_v2's 30 from 1.48x
#: down to 0.63x; castround: hardswish's 8 take 1.0-1.2 ms computed against 0.6 gathered in float16, 0.70 against
#: 0.54 in bfloat16, where relu's 3 and leaky_relu's 5 still gain 20-30% computed).
LONE_LOOKUP_COMPUTED = 5
#: Whether a stream with a Ln runs hot: on since each Ln has a loop of its own (:mod:`.hot_source`) and the
#: table-driven Ln (softplus arch35 float32 1.4x faster than on the machine, bench/RESULTS.md, softplus32;
#: before, 0.95x of the machine, engine-hot).
HOT_LN = True


def _flag(flag) -> bool:
    if not isinstance(flag, bool):
        raise TypeError(f"flag must be a bool, got {flag!r}")
    return flag


def enabled() -> bool:
    """Whether the calling thread's large flat launches run hot."""
    setting = _SETTING.get()
    return _DEFAULT if setting is None else setting


def set_enabled(flag: bool) -> bool:
    """Turn the hot tier on or off for the calling thread (context); returns the previous setting."""
    previous = enabled()
    _SETTING.set(_flag(flag))
    return previous


@contextlib.contextmanager
def use(flag: bool = True):
    """``with hot.use(False):``: the calling thread's launches inside keep the machine (or run hot)."""
    previous = _SETTING.get()
    _SETTING.set(_flag(flag))
    try:
        yield
    finally:
        _SETTING.set(previous)


def _numbers(code) -> str:
    return np.ascontiguousarray(code, dtype="<u4").tobytes().hex()


def class_name(code: np.ndarray, grain: int, inputs: int, out_row: int, sat: bool, inline: dict | None = None) -> str:
    """The stream's key as a class name: everything its block function is generated from (``inline``: as
    :func:`.hot_source.block_source` takes it; ``expv`` / ``expf``: its Exp loops by
    :func:`swishgrad_numba.kernel.exp_vector.exp_rows` or by :func:`swishgrad_numba.kernel.exp.exp_fast`)."""
    tables = "".join(f"__T{mode}g{g}i{i}o{o}k{k}_{_numbers(c)}" for mode, (c, g, i, o, k) in sorted((inline or {}).items()))
    exp = "v" if VECTOR_EXP and not sat else "f"
    return (f"Hot__v{VERSION}__{'sat' if sat else 'inf'}__exp{exp}__g{grain}__o{out_row}__i{inputs}__{_numbers(code)}"
            f"{tables}")


def _code(hexes: str) -> np.ndarray:
    if len(hexes) % (8 * FIELDS):
        raise NotHot("a stream's numbers cut short")
    return np.frombuffer(bytes.fromhex(hexes), dtype="<u4").astype(np.int64).reshape(-1, FIELDS)


def _globals() -> dict:
    return dict(np=np, S=S, vectorise_full_width=vectorise_full_width, exp_fast=exp_fast,
                exp_rows=exp_vector.exp_rows, EXP_T_HI=T_HI, EXP_GUARD_LIM=GUARD_LIM, EXP_LOW_BITS=LOW_BITS,
                NO_KEY=NO_KEY, ln_fast=ln_fast, ln_flagged=ln_flagged, prefetch_lines=prefetch_lines,
                ulp_shift=ulp_shift, lookup_bits=lookup_bits,
                IC=IC, INT_LO=machine._INT_LO, INT_HI=machine._INT_HI, SRC_CODES=machine._SRC_CODES,
                __name__=__name__)


_LINE_BYTES = 64     # a cache line


@njit(cache=True, error_model="numpy", inline="always")
def prefetch_lines(out, start, stop):
    """Hints that the lines of ``out[start:stop]`` will be written: a split hot block asks for its output's lines
    in parts before its loops (:data:`.hot_source.PREFETCH_PARTS`), so that the write misses overlap its
    arithmetic (all at once, or the next block's, gained nothing: bench/RESULTS.md, gelu35c)."""
    for i in range(start, stop, _LINE_BYTES // out.itemsize):
        prefetch_write(out, i)


def source_and_rows(name: str) -> tuple:
    """The generated source of key ``name``'s block and its scratch rows (:func:`.hot_source.block_and_rows`;
    :class:`.hot_source.NotHot` where the key is not one of this version and target)."""
    m = _NAME.match(name)
    if m is None or int(m[1]) != VERSION or (m[3] == "v" and not exp_vector.VECTOR_EXP):
        raise NotHot(f"not a hot stream's key here: {name[:80]!r}")
    inline = {int(t[0]): (_code(t[5]), int(t[1]), int(t[2]), int(t[3]), int(t[4])) for t in _TABLE.findall(m[8])}
    return block_and_rows(_code(m[7]), int(m[4]), int(m[6]), int(m[5]), m[2] == "sat", inline=inline,
                          vector_exp=m[3] == "v")


def _make(name: str):
    """The class of key ``name`` and its block function (generated; :class:`.hot_source.NotHot` where the
    stream is not taken)."""
    source, rows = source_and_rows(name)
    # the key's start and a digest of the whole: keys that share their first characters (gelu_v2's and elu's
    # arch35 blocks) show each its own source
    digest = hashlib.sha1(name.encode()).hexdigest()[:12]
    filename = os.path.join(os.path.dirname(__file__), f"<hot {name[:60]} {digest}>.py")
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    namespace = _globals()
    exec(compile(source, filename, "exec"), namespace)   # noqa: S102 (source generated from a stream's numbers)
    cls = NamedTuple(name, [("scratch_rows", np.int64)])
    cls.__module__ = __name__
    _BLOCKS[cls] = namespace["hot_block"]
    hot_words.register(cls, namespace.get("hot_block_words"))
    _ROWS[cls] = rows
    _CLASSES[name] = cls
    return cls


def _inlined(prepared) -> dict:
    """``block_source``'s ``inline`` for a :class:`.runner.Prepared`: its cheap tables (:data:`INLINE_TABLES`)."""
    if not INLINE_TABLES:
        return {}
    out, k = {}, max(len(prepared.main.scalar_ops), 1)
    for mode, (t, inp) in enumerate(prepared.tables):
        if np.isin(t.code[:, OP], (EXP, LN, LOOKUP)).any() or t.out % t.grain:
            continue
        out[mode] = (t.code, t.grain, inp, t.out // t.grain, k)
        k += max(len(t.scalar_ops), 1)
    return out


def hot_class(code, grain: int, inputs: int, out_row: int, sat: bool, inline: dict | None = None):
    """The class of a checked stream's hot block, made once per process; None where it does not run hot."""
    code = np.asarray(code)
    if code.shape[0] == 1 and code[0, OP] == LOOKUP:   # a lone Lookup: .lookup16 gathers it into the result
        table = (inline or {}).get(int(code[0, MODE]))
        if table is None or table[0].shape[0] > LONE_LOOKUP_COMPUTED:
            return None
    if code.min(initial=0) < 0:
        return None
    if any(c.min(initial=0) < 0 for c, *_rest in (inline or {}).values()):
        return None
    name = class_name(code, grain, inputs, out_row, sat, inline)
    with _LOCK:
        cls = _CLASSES.get(name)
        if cls is None and name not in _CLASSES:
            try:
                cls = _make(name)
            except NotHot:
                _CLASSES[name] = None
        return cls


def __getattr__(name: str):
    # an index of a cached launch names its class: rebuild it (module-level __getattr__, PEP 562)
    if not name.startswith("Hot__"):
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    with _LOCK:
        cls = _CLASSES.get(name)
        if cls is None:
            try:
                cls = _make(name)
            except NotHot as e:
                raise AttributeError(str(e)) from None
        return cls


#: The generated block of ``type(params)`` (jitted code only).
hot_block = hot_words.per_class(_BLOCKS, "hot_block")


@njit(cache=True, error_model="numpy")
def _span(params, ins, inputs, offset, out, count, code, scalars, tables, arena, scratch, grain, out_row, sat,
          words, paired):
    """``count`` elements from ``offset`` (a core's passes, :func:`.launch.core_span`) in hot blocks (over
    ``words`` where ``paired`` and the block has a function over words, :func:`.hot_words.word_views`), a flagged
    one again on the machine."""
    block = scratch.shape[1]
    for b0 in range(0, count, block):
        n = min(block, count - b0)
        at = offset + b0
        ran = hot_words.run(params, words[0], words[1], words[2], words[3], at, n, scalars, tables, scratch) \
            if paired else -1       # whether it flagged the block, -1 where it did not run it
        flagged = ran > 0 if ran >= 0 else hot_block(params, ins[0], ins[1], ins[2], out, at, n, scalars, tables,
                                                     scratch)
        if flagged:
            rerun_block(ins, inputs, out, at, n, code, scalars, tables, arena, grain, out_row, sat)


@njit(parallel=True, cache=True, error_model="numpy")
def _hot_bins(params, ins, inputs, out, numel, pieces, bins, code, scalars, tables, grain, arena_len, out_row, sat,
              block):
    """The planned launch as :func:`.launch.launch_bins` splits it (one ``prange`` iteration per bin, each
    bin's cores in order), each core's passes as one span (:func:`.launch.core_span`) in hot blocks of ``block``
    elements: an element's bits do not depend on the block it runs in, and a span cut into passes would cut a
    short block at each pass's end (gelu_v2 arch35 float32: one in 11 blocks; bench/RESULTS.md, spans)."""
    words, paired = hot_words.word_views(ins, out, numel)
    for t in prange(bins.shape[0] - 1):
        arena = np.empty(arena_len, dtype=np.float32)
        scratch = np.empty((max(params.scratch_rows, 1), block), dtype=np.float32)
        for k in range(bins[t], bins[t + 1]):
            pc = pieces[k]
            for c in range(pc.cores):
                offset, valid = core_span(pc, c, numel)
                if valid < 0:
                    break
                if valid > 0:
                    _span(params, ins, inputs, offset, out, valid, code, scalars, tables, arena, scratch, grain,
                          out_row, sat, words, paired)


def _block(params, grain: int) -> int:
    """A launch's hot block (:func:`.hot_source.block_elements`)."""
    return block_elements(params.scratch_rows, grain)


def launch_args(prepared, attrs):
    """``(params, scalars, tables)`` of a :class:`.runner.Prepared`'s hot block for these attribute values
    (``params`` an instance of its class: what the generated block is called with), or None where its stream
    does not run hot (the machine runs it). Kept per values (:meth:`.runner.Prepared.args_key`), as the
    Prepared keeps its own launch arguments."""
    m = prepared.main
    got = prepared.__dict__.get("_hot")
    if got is None:
        inline = _inlined(prepared)
        taken = HOT_LN or not (m.code[:, OP] == LN).any()
        cls = hot_class(m.code, m.grain, prepared.inputs, m.out, prepared.sat, inline) if taken else None
        got = prepared._hot = (cls, inline, 0 if cls is None else _ROWS[cls])
    cls, inline, rows = got
    if cls is None:
        return None
    key = prepared.args_key(attrs)
    kept = prepared._hot_args.get(key)
    if kept is None:
        scalars, tables = prepared.launch_args(attrs)
        if inline:        # the inlined tables' scalars after the main stream's
            values = prepared._attr_values(attrs)
            scalars = np.concatenate([scalars] + [prepared.tables[mode][0].scalars(values) for mode in sorted(inline)])
            scalars.flags.writeable = False
        kept = prepared.keep(prepared._hot_args, key, (cls(rows), scalars, tables))
    return kept


def _not_taken(prepared) -> bool:
    """Whether ``prepared``'s stream was found not to run hot (a lone Lookup, a stream refused): then a launch
    spends nothing more here."""
    made = prepared.__dict__.get("_hot")
    return made is not None and made[0] is None


def too_small(numel: int) -> bool:
    """Whether a launch of ``numel`` elements is under every size :func:`large_enough` takes, warm or not (a
    caller need not make a launch's operands for the hot tier, which would decline it)."""
    return numel < min(HOT_MIN_ELEMENTS, HOT_WARM_MIN_ELEMENTS)


def large_enough(prepared, numel: int) -> bool:
    """Whether a launch of ``numel`` elements of ``prepared``'s stream is one the hot tier takes: from
    :data:`HOT_MIN_ELEMENTS`, or from :data:`HOT_WARM_MIN_ELEMENTS` once the stream is warm (all three read at
    each call). Counts the launch towards its stream's warmth (a count two threads may race on: it only
    decides when the block is made, never the bits)."""
    if numel >= HOT_MIN_ELEMENTS:
        return True
    if numel < HOT_WARM_MIN_ELEMENTS:
        return False
    made = prepared.__dict__.get("_hot")
    if made is not None:           # the block was asked for already: made, or the stream not taken
        return made[0] is not None
    warmth = prepared.__dict__.get("_warmth", 0) + numel
    prepared._warmth = warmth
    return warmth >= HOT_WARM_ELEMENTS


def run(prepared, ins: tuple, out: np.ndarray, pieces, bins, attrs) -> bool:
    """Run a flat launch hot where it is on, the launch large enough and the stream taken; whether it ran
    (False: the machine runs it, and :func:`.launch.raw_args` refuses what it must; a launch too small,
    :func:`large_enough`, first of all). ``ins`` and ``out`` as
    :meth:`.runner.Prepared.run` has them (flat, float32 or 16-bit bits as uint16), ``pieces`` and ``bins``
    the plan's (read-only)."""
    if out.ndim != 1 or not enabled() or out.dtype not in _HOT_DTYPES or not out.flags.c_contiguous \
            or not 1 <= len(ins) <= MAX_INPUTS \
            or out.shape[0] < min(HOT_MIN_ELEMENTS, HOT_WARM_MIN_ELEMENTS) or _not_taken(prepared):
        return False
    for a in ins:
        # the loop reads its tensors as typed (the machine as bytes): float32 values or 16-bit bits only
        if a.shape != out.shape or a.dtype != out.dtype or not a.flags.c_contiguous:
            return False    # the machine's raw_args refuses it
        if may_share(out, a):
            return False    # in place: a flagged block's rerun would read inputs the loop has overwritten
    if not large_enough(prepared, out.shape[0]):
        return False
    got = launch_args(prepared, attrs)
    if got is None:
        return False
    _launch(_launch_fixed(prepared, got, pieces, bins), ins, out)
    return True


def _launch_fixed(prepared, got, pieces, bins) -> tuple:
    """The parameters and the arguments of :func:`_hot_bins` that are the same at every launch of a stream's
    plan, for :func:`launch_args`' ``got``."""
    params, scalars, tables = got
    m = prepared.main
    return params, (pieces, bins, m.code, scalars, tables, m.grain, m.arena_len, m.out, prepared.sat,
                    _block(params, m.grain))


def _launch(fixed, ins: tuple, out: np.ndarray, entries: Entries | None = None) -> None:
    """The hot launch over flat ``ins`` into ``out`` (:func:`_launch_fixed`'s ``fixed``), through ``entries``
    (of :func:`_hot_bins`, kept with ``fixed``) where given."""
    params, rest = fixed
    ins = tuple(frozen(a) for a in ins)
    args = (params, ins + (ins[0],) * (MAX_INPUTS - len(ins)), len(ins), out, out.shape[0], *rest)
    if entries is None:
        _hot_bins(*args)
    else:
        entries.call(args, ins + (out,))


def launcher(prepared, launch_plan, attrs, dtype, inputs: int):
    """A planned call's hot launch (:mod:`swishgrad_numba.ops.call`): ``go(ins, out)`` runs :func:`run`'s launch
    over ``inputs`` flat C-contiguous arrays of ``dtype`` and of ``out``'s length, none of them sharing memory
    with ``out`` (the caller's to ensure, as a call plan does), and says whether it ran (False: the switch is off
    for the thread, the launch not :func:`large_enough`, both read at each call, or the stream not taken;
    :meth:`.runner.Prepared.run` then runs it). The stream's arguments for these attributes are found at its
    first launch that runs hot. None where :func:`run` would never take it."""
    if np.dtype(dtype) not in _HOT_DTYPES or not 1 <= inputs <= MAX_INPUTS:
        return None
    pieces, bins = frozen(launch_plan.pieces), frozen(launch_plan.bins)
    found = []     # the launch's fixed arguments, or None where the stream does not run hot: found once

    def go(ins: tuple, out: np.ndarray) -> bool:
        if not enabled() or not large_enough(prepared, out.shape[0]):
            return False
        if not found:
            got = launch_args(prepared, attrs)
            found.append(None if got is None else (_launch_fixed(prepared, got, pieces, bins), Entries(_hot_bins)))
        if found[0] is None:
            return False
        fixed, entries = found[0]
        ready()
        with runtime.launch_guard():
            _launch(fixed, ins, out, entries)
        return True
    return go
