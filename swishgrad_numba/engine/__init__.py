"""The engine: a vector machine, compiled once, that runs any program as an instruction stream.

Instead of a fused pass compiled per (operator, kernel, dtype, variant, overflow mode)
(:mod:`swishgrad_numba.program.passes`), a program is lowered to a stream of vector instructions
(:mod:`.stream`, :mod:`.opcodes`) over the rows of a core's local buffer (the arena), and one
machine (:mod:`.machine`), compiled once into the disk cache, runs every stream block by block on
the fused passes' schedule of cores and passes (:mod:`.launch`, :mod:`.runner`). Each instruction
is computed by its function in :mod:`swishgrad_numba.program.semantics`, so the bits are the fused
passes' and the interpreter's.

The switch: :func:`enabled`, on by default; the environment variable ``SWISHGRAD_ENGINE=0`` at import
turns it off by default for a process (the fused passes of :mod:`swishgrad_numba.program.passes` then
run, each compiled per operator, kernel, dtype, variant and overflow mode). :func:`set_enabled` and
:func:`use` change it at run time for the calling thread only (a context variable: each thread, and
each asyncio task, has its own setting; a thread that never set it, such as a worker of a thread pool,
follows the process default), so two threads may run with different settings at once. While it is on, every launch of a compiled program
(:func:`swishgrad_numba.kernel.run_walk`, :func:`swishgrad_numba.kernel.broadcast.run_blocks`) runs on
the engine, and a compiled program's 16-bit tables are built by the engine's table streams.
"""
from __future__ import annotations

import contextlib
import contextvars
import os

__all__ = ["enabled", "set_enabled", "use", "ENV_VAR"]

#: The environment variable that turns the engine off by default for a process (``0``) at import; unset,
#: empty or any other value leaves it on (the default).
ENV_VAR = "SWISHGRAD_ENGINE"
_DEFAULT = os.environ.get(ENV_VAR, "1").strip() != "0"
#: This thread's (this context's) setting; None: the process default.
_SETTING: contextvars.ContextVar = contextvars.ContextVar("swishgrad_engine", default=None)


def _flag(flag) -> bool:
    if not isinstance(flag, bool):
        raise TypeError(f"flag must be a bool, got {flag!r}")
    return flag


def enabled() -> bool:
    """Whether launches of compiled programs made by the calling thread run on the engine."""
    setting = _SETTING.get()
    return _DEFAULT if setting is None else setting


def set_enabled(flag: bool) -> bool:
    """Turn the engine on or off for the calling thread (context); returns the previous setting."""
    previous = enabled()
    _SETTING.set(_flag(flag))
    return previous


@contextlib.contextmanager
def use(flag: bool = True):
    """``with engine.use():``: launches the calling thread makes inside run on the engine (or not,
    ``use(False)``); other threads keep their own setting."""
    previous = _SETTING.get()
    _SETTING.set(_flag(flag))
    try:
        yield
    finally:
        _SETTING.set(previous)
