"""The engine: a vector machine, compiled once, that runs any program as an instruction stream.

A compiled program (:mod:`swishgrad_numba.program.passes`) is lowered to a stream of vector
instructions (:mod:`.stream`, :mod:`.opcodes`) over the rows of a core's local buffer (the arena), and
one machine (:mod:`.machine`), compiled once into the disk cache, runs every stream block by block on the
kernels' schedule of cores and passes (:mod:`.launch`, :mod:`.runner`; a large launch as one fused loop,
:mod:`.hot`). Each instruction is computed by its function in :mod:`swishgrad_numba.program.semantics`,
so the bits are the interpreter's. Every launch of a compiled program
(:func:`swishgrad_numba.kernel.run_walk`, :func:`swishgrad_numba.kernel.broadcast.run_blocks`) runs here:
the engine is the only path (issue 39 deleted the fused passes, one compiled per operator, kernel, dtype,
variant and overflow mode, and the switch between them and the engine).

``SWISHGRAD_ENGINE=0``, which turned the engine off for a process, has no effect now but one
RuntimeWarning at import saying so.
"""
from __future__ import annotations

import os
import warnings

__all__ = ["REMOVED_SWITCH"]

#: The environment variable that once turned the engine off (``0``); read only to warn that it is gone.
REMOVED_SWITCH = "SWISHGRAD_ENGINE"

if os.environ.get(REMOVED_SWITCH, "").strip() == "0":
    warnings.warn(f"{REMOVED_SWITCH}=0 has no effect: the fused passes were removed and the engine is the only "
                  f"path (issue 39)", RuntimeWarning, stacklevel=1)
