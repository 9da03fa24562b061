"""Compiled programs: one pass function per (operator, kernel, dtype, variant, overflow mode).

:func:`compiled` lowers and compiles a kernel's program once per process and
registers its pass function with the walk (:func:`kernel.walk.register_pass`)
under a NamedTuple class of its own, named after its key
(``Pass__swish_grad__a2__float16__main__inf``). The class lives in this
module: a launch's disk cache is keyed by the class, and an index read in
another process finds it by name here (:func:`__getattr__` rebuilds it), so
the launches stay disk-cacheable. The generated code is a function of the
package's sources (the programs and this compiler), which the cache's
source stamp covers.

A pass's parameters are the program's attributes as float32 and its
16-bit tables, built by :func:`build_table` (a parallel launch over the
65,536 bit patterns, one generated entry function per table) and kept in a
:class:`kernel.tables.TableCache`. Every launch of a pass goes by its route (:meth:`Compiled.flat`,
:meth:`Compiled.broadcast`, registered with the walks): on the engine where it is switched on.
"""
from __future__ import annotations

import functools
import itertools
import linecache
import os
from typing import NamedTuple

import numpy as np
from numba import njit, prange
from numba.core import types
from numba.extending import overload

from .. import engine, runtime
from ..intrinsics import vectorise_full_width
from ..kernel import exp as _exp
from ..kernel.envelope import ulp_shift
from ..kernel.tables import TableCache
from ..kernel.walk import register_pass, register_route
from . import semantics
from .compiler import entry_source, pass_source
from .isa import AXPY_ROUNDINGS, MASK_DTYPE
from .lower import ENVELOPE_FREE, lower

__all__ = ["Compiled", "compiled", "compiled_of", "with_tables", "compile_program", "build_table", "key_name"]

_OVERFLOW = {False: "inf", True: "sat"}
_ENTRIES: dict = {}
_LOCK = runtime.ChildRenewedLock()
_TABLES = TableCache(size=32)
_ENGINE_MODULES = None
#: What :func:`compiled` made, by key (:func:`_compiled`'s, never evicted either).
_MADE: dict = {}


def _engine_modules() -> tuple:
    """``(engine.runner, engine.equal_shapes)``, imported at the first launch on the engine (the engine
    imports this module) and kept: import statements in every call cost a warm call of a few thousand
    elements a microsecond or two."""
    global _ENGINE_MODULES
    if _ENGINE_MODULES is None:
        from ..engine import equal_shapes, runner

        _ENGINE_MODULES = (runner, equal_shapes)
    return _ENGINE_MODULES


_ADHOC = itertools.count()
_BY_CLASS: dict = {}
_NO_TABLE = np.zeros(0, dtype=np.float32)


def compiled_of(params) -> "Compiled | None":
    """The :class:`Compiled` whose launch parameters ``params`` are (None for another NamedTuple)."""
    return _BY_CLASS.get(type(params))


def with_tables(params):
    """``params`` for a fused pass: where they were made while the engine was on (their 16-bit tables
    left to the engine, :meth:`Compiled.params`), the same attributes with the tables built."""
    c = _BY_CLASS.get(type(params))
    if c is None or not c.table_classes or params.table0.size:
        return params
    return c.params(**{a: getattr(params, a) for a in c.program.attrs})


def key_name(prefix: str, key: tuple) -> str:
    op, arch, dtype, variant, sat = key
    return "__".join((prefix, op, arch, dtype, variant, _OVERFLOW[sat]))


def _parse(name: str):
    parts = name.split("__")
    if len(parts) not in (6, 7) or parts[0] not in ("Pass", "Table") or parts[5] not in ("inf", "sat"):
        return None
    return tuple(parts[1:5]) + (parts[5] == "sat",), parts[0], (int(parts[6]) if len(parts) == 7 else None)


def _globals() -> dict:
    g = {name: getattr(semantics, name) for name in set(semantics.FUNCTIONS.values())}
    g.update(np=np, vectorise_full_width=vectorise_full_width, exp_fast=_exp.exp_fast,
             clamp_exp_arg=_exp.clamp_exp_arg, no_exact_flags=_exp.no_exact_flags,
             exact_exp_flags=_exp.exact_exp_flags, exact_exp_mark=_exp.exact_exp_mark,
             redo_marked=_exp.redo_marked, ulp_shift=ulp_shift)
    return g


def _define(source: str, name: str, label: str):
    # A file name in this folder, so that Numba's cache locator (the
    # package's) accepts the function (it is only ever compiled inside a
    # launch); linecache holds its text for tracebacks.
    filename = os.path.join(os.path.dirname(__file__), f"<generated {label}>.py")
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    namespace = _globals()
    namespace["__name__"] = __name__
    exec(compile(source, filename, "exec"), namespace)   # noqa: S102 (source generated from a checked program)
    return namespace[name]


class Compiled:
    """A program compiled for one key ``(op, architecture, dtype, variant, saturation)``."""

    def __init__(self, key: tuple, program, module: str = __name__, broadcast: bool = False,
                 axpy_rounding: str = "fused", free: tuple = (), cast_overflow: str = "ieee",
                 cast_int_overflow: str = "saturate"):
        self.key = key
        self.module = module
        self.axpy_rounding = axpy_rounding
        self.lowered = lower(program, axpy_rounding=axpy_rounding, free=free, cast_overflow=cast_overflow,
                             cast_int_overflow=cast_int_overflow)
        program = self.program = self.lowered.program     # with the freed results' attributes
        sat = key[4]
        self.params_class = NamedTuple(key_name("Pass", key), [(a, np.float32) for a in program.attrs]
                                       + [(f"table{i}", np.ndarray) for i in range(len(self.lowered.tables))])
        self.params_class.__module__ = module
        _BY_CLASS[self.params_class] = self
        register_route(self.params_class, self)
        self.pass_source = pass_source(self.lowered, "compute", sat, broadcast)
        register_pass(self.params_class)(njit(cache=True, error_model="numpy")(_define(self.pass_source, "compute",
                                                                                key_name("Pass", key))))
        self.table_classes, self.entry_sources = [], []
        for i, v in enumerate(self.lowered.tables):
            cls = NamedTuple(f"{key_name('Table', key)}__{i}", [(a, np.float32) for a in program.attrs])
            cls.__module__ = module
            src = entry_source(self.lowered, v, "entry", sat)
            _ENTRIES[cls] = _define(src, "entry", cls.__name__)
            self.table_classes.append(cls)
            self.entry_sources.append(src)

    def flat(self, params, ins, out, launch_plan):
        """The element-wise walk's route (:func:`kernel.walk.register_route`): on the engine where it is
        switched on (the launch runs here: None), else the fused pass's parameters, tables built."""
        if engine.enabled():
            _engine_modules()[0].prepare(self).run(ins, out, launch_plan, params._asdict())
            return None
        return with_tables(params)

    def broadcast(self, params):
        """The broadcast walk's route: the engine's pass parameters where it is switched on, else the fused
        pass's, tables built."""
        if engine.enabled():
            return _engine_modules()[0].prepare(self).engine_params(params._asdict())
        return with_tables(params)

    def equal_shapes(self, params, ins, out, pass_len) -> bool:
        """The broadcast walk's identity launches (:func:`kernel.broadcast.run_blocks`): on the engine's flat
        launch where it is switched on and the stream is element-wise (:func:`engine.equal_shapes.run_flat`);
        whether it ran (False: the walk runs)."""
        if not engine.enabled():
            return False
        runner, equal_shapes = _engine_modules()
        return equal_shapes.run_flat(runner.prepare(self), ins, out, params._asdict(), pass_len)

    def table_dtype(self, i: int):
        dtype = self.lowered.values[self.lowered.tables[i]].dtype
        # 16-bit values as their bits: float16, bfloat16 and int16 (isa.BITS_DTYPE)
        return {"float32": np.float32, MASK_DTYPE: np.uint8, "int32": np.int32, "int8": np.int8}.get(dtype, np.uint16)

    def params(self, **attrs) -> NamedTuple:
        """The launch parameters for these attribute values (float32): tables built or found for the fused
        pass, none while the engine is on (it builds its own from the attributes, engine.runner)."""
        if engine.enabled():
            values = [np.float32(attrs[a]) for a in self.program.attrs]
            return self.params_class(*values, *(_NO_TABLE,) * len(self.table_classes))
        return self.fused_params(**attrs)

    def fused_params(self, **attrs) -> NamedTuple:
        """The fused pass's launch parameters, its 16-bit tables built or found, whether the engine is on or
        not (the benchmark's flat loop calls the pass function itself)."""
        values = [np.float32(attrs[a]) for a in self.program.attrs]
        tables = []
        for i, cls in enumerate(self.table_classes):
            key = (self.key, i, tuple(int(v.view(np.uint32)) for v in values))
            tables.append(_TABLES.get(key, functools.partial(self._build, i, cls(*values))))
        return self.params_class(*values, *tables)

    def _build(self, i, tparams):
        table = np.empty(65536, dtype=self.table_dtype(i))
        # cached on disk only where the class is this module's (another process can rebuild it)
        build = build_table if self.module == __name__ else _build_table_uncached
        with runtime.launch_guard():
            build(tparams, table)
        return table


#: A key's variant ends with this where its Axpys round twice (the default rounds once: no suffix).
UNFUSED_AXPY_SUFFIX = "_axpy_unfused"
#: A key's variant ends with this (before any Axpy suffix) where its :data:`.lower.ENVELOPE_FREE`
#: results are shifted by attributes (an envelope's program, :mod:`.envelope`).
ENVELOPE_SUFFIX = "_envelope"


@functools.lru_cache(maxsize=None)
def _compiled(key: tuple) -> Compiled:
    from ..ops.registry import get_operator   # the operators import this module

    op, arch, dtype, variant, sat = key
    kernel = get_operator(op).kernels[arch]
    if kernel.programs is None:
        raise ValueError(f"operator {op!r} has no program for kernel {arch!r}")
    rounding = "unfused" if variant.endswith(UNFUSED_AXPY_SUFFIX) else "fused"
    variant = variant.removesuffix(UNFUSED_AXPY_SUFFIX)
    free = ENVELOPE_FREE if variant.endswith(ENVELOPE_SUFFIX) else ()
    program = kernel.programs(dtype, variant.removesuffix(ENVELOPE_SUFFIX))
    # an envelope's program runs on flat, broadcast inputs
    return Compiled(key, program, broadcast=kernel.walk == "broadcast" and not free, axpy_rounding=rounding,
                    free=free)


def compiled(op: str, architecture: str, dtype: str, variant: str = "main", saturation: bool = False,
             axpy_rounding: str = "fused", envelope: bool = False) -> Compiled:
    """The compiled program of operator ``op``'s kernel on ``architecture`` for ``dtype``, made once;
    ``axpy_rounding`` (:data:`.isa.AXPY_ROUNDINGS`): how its Axpys round; ``envelope``: its
    :data:`.lower.ENVELOPE_FREE` results shifted by attributes, for the flat walk (:mod:`.envelope`)."""
    if axpy_rounding not in AXPY_ROUNDINGS:
        raise ValueError(f"axpy_rounding must be one of {AXPY_ROUNDINGS}, got {axpy_rounding!r}")
    if envelope:
        variant += ENVELOPE_SUFFIX
    if axpy_rounding == "unfused":
        variant += UNFUSED_AXPY_SUFFIX
    key = (op, architecture, dtype, variant, bool(saturation))
    made = _MADE.get(key)   # made before: found without the lock (a warm call's path)
    if made is None:
        with _LOCK:
            made = _MADE[key] = _compiled(key)
    return made


def compile_program(program, dtype: str, saturation: bool = False, module: str = "__main__",
                    axpy_rounding: str = "fused", cast_overflow: str = "ieee",
                    cast_int_overflow: str = "saturate") -> Compiled:
    """Any program compiled for a launch of ``dtype`` inputs, its classes placed in ``module`` (not this
    one: so its launches are not cached on disk, :func:`kernel.walk.launchers`). For tests and for
    operators being written; ``cast_overflow``, ``cast_int_overflow``: the Platform's (its ``cast_rules``)."""
    if module == __name__:
        raise ValueError("a program outside the registry cannot have its classes in the registry's module")
    with _LOCK:
        key = (f"{program.name}{next(_ADHOC)}", "adhoc", dtype, "main", bool(saturation))
        return Compiled(key, program, module, axpy_rounding=axpy_rounding, cast_overflow=cast_overflow,
                        cast_int_overflow=cast_int_overflow)


def __getattr__(name: str):
    # an index of a cached launch names its class: rebuild it (module-level __getattr__, PEP 562)
    parsed = _parse(name)
    if parsed is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    key, kind, index = parsed
    c = compiled(*key)
    return c.params_class if kind == "Pass" else c.table_classes[index]


def table_entry(tparams, bits):
    """One table entry: resolved at compile time by ``type(tparams)``."""
    raise NotImplementedError("table_entry is only callable from jitted code")


@overload(table_entry)
def _table_entry_overload(tparams, bits):
    if isinstance(tparams, types.BaseNamedTuple):
        return _ENTRIES.get(tparams.instance_class)
    return None


@njit(parallel=True, cache=True, error_model="numpy")
def build_table(tparams, table):
    """``table[bits]`` for each of the 65,536 bit patterns of a 16-bit input."""
    for bits in prange(65536):
        table[bits] = table_entry(tparams, np.uint16(bits))


_build_table_uncached = njit(parallel=True, cache=False, error_model="numpy")(build_table.py_func)
