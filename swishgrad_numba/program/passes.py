"""Compiled programs: one lowered program per (operator, kernel, dtype, variant, overflow mode), run on the engine.

:func:`compiled` lowers a kernel's program once per process (:func:`.lower.lower`) and registers it with
the walks (:func:`kernel.walk.register_route`) under a NamedTuple class of its own, named after its key
(``Pass__swish_grad__a2__float16__main__inf``): the class of its launch parameters, the program's
attributes as float32 (:meth:`Compiled.params`). Every launch of them goes by the route to the engine
(:mod:`swishgrad_numba.engine`): :meth:`Compiled.flat`, :meth:`Compiled.broadcast`,
:meth:`Compiled.equal_shapes`. The class lives in this module and another process finds it by name here
(:func:`__getattr__` rebuilds it), so that launch parameters pickle.
"""
from __future__ import annotations

import functools
import itertools
from typing import NamedTuple

import numpy as np

from .. import runtime
from ..kernel.walk import register_route
from .isa import AXPY_ROUNDINGS
from .lower import ENVELOPE_FREE, lower

__all__ = ["Compiled", "compiled", "compile_program", "key_name"]

_OVERFLOW = {False: "inf", True: "sat"}
_LOCK = runtime.ChildRenewedLock()
_ENGINE_MODULES = None
#: What :func:`compiled` made, by key (:func:`_compiled`'s, never evicted either).
_MADE: dict = {}


def _engine_modules() -> tuple:
    """``(engine.runner, engine.equal_shapes)``, imported at the first launch (the engine imports this
    module) and kept: import statements in every call cost a warm call of a few thousand elements a
    microsecond or two."""
    global _ENGINE_MODULES
    if _ENGINE_MODULES is None:
        from ..engine import equal_shapes, runner

        _ENGINE_MODULES = (runner, equal_shapes)
    return _ENGINE_MODULES


_ADHOC = itertools.count()


def key_name(prefix: str, key: tuple) -> str:
    op, arch, dtype, variant, sat = key
    return "__".join((prefix, op, arch, dtype, variant, _OVERFLOW[sat]))


def _parse(name: str):
    parts = name.split("__")
    if len(parts) != 6 or parts[0] != "Pass" or parts[5] not in ("inf", "sat"):
        return None
    return tuple(parts[1:5]) + (parts[5] == "sat",)


class Compiled:
    """A program lowered for one key ``(op, architecture, dtype, variant, saturation)``."""

    def __init__(self, key: tuple, program, module: str = __name__, axpy_rounding: str = "fused",
                 free: tuple = (), cast_overflow: str = "ieee", cast_int_overflow: str = "saturate"):
        self.key = key
        self.axpy_rounding = axpy_rounding
        self.lowered = lower(program, axpy_rounding=axpy_rounding, free=free, cast_overflow=cast_overflow,
                             cast_int_overflow=cast_int_overflow)
        program = self.program = self.lowered.program     # with the freed results' attributes
        self.params_class = NamedTuple(key_name("Pass", key), [(a, np.float32) for a in program.attrs])
        self.params_class.__module__ = module
        register_route(self.params_class, self)

    def flat(self, params, ins, out, launch_plan) -> None:
        """The element-wise walk's route (:func:`kernel.walk.register_route`): the launch on the engine."""
        _engine_modules()[0].prepare(self).run(ins, out, launch_plan, params._asdict())

    def broadcast(self, params):
        """The broadcast walk's route: the engine's pass parameters (:class:`engine.launch.EngineParams`)."""
        return _engine_modules()[0].prepare(self).engine_params(params._asdict())

    def equal_shapes(self, params, ins, out, pass_len) -> bool:
        """The broadcast walk's identity launches (:func:`kernel.broadcast.run_blocks`): on the engine's flat
        launch where the stream is element-wise (:func:`engine.equal_shapes.run_flat`); whether it ran
        (False: the walk runs)."""
        runner, equal_shapes = _engine_modules()
        return equal_shapes.run_flat(runner.prepare(self), ins, out, params._asdict(), pass_len)

    def params(self, **attrs) -> NamedTuple:
        """The launch parameters for these attribute values (float32); the engine builds the program's
        16-bit tables from them (:mod:`swishgrad_numba.engine.runner`)."""
        return self.params_class(*(np.float32(attrs[a]) for a in self.program.attrs))


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
    return Compiled(key, program, axpy_rounding=rounding, free=free)


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
    """Any program compiled for a launch of ``dtype`` inputs, its class placed in ``module`` (not this
    one, whose :func:`__getattr__` rebuilds only the registry's classes). For tests and for operators being
    written; ``cast_overflow``, ``cast_int_overflow``: the Platform's (its ``cast_rules``)."""
    if module == __name__:
        raise ValueError("a program outside the registry cannot have its classes in the registry's module")
    with _LOCK:
        key = (f"{program.name}{next(_ADHOC)}", "adhoc", dtype, "main", bool(saturation))
        return Compiled(key, program, module, axpy_rounding=axpy_rounding, cast_overflow=cast_overflow,
                        cast_int_overflow=cast_int_overflow)


def __getattr__(name: str):
    # a pickled launch's parameters name their class: rebuild it (module-level __getattr__, PEP 562)
    key = _parse(name)
    if key is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return compiled(*key).params_class
