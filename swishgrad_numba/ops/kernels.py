"""One kernel of an operator (:class:`Kernel`, per architecture) and what it tells the generic validator
about a record (:class:`WalkCheck`); :mod:`.registry` re-exports both.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, NamedTuple

import numpy as np

__all__ = ["Kernel", "WalkCheck"]


class WalkCheck(NamedTuple):
    """What an operator's kernel tells the generic validator about one of its records.

    Attributes
    ----------
    fields : NamedTuple or None
        The walk in the template's core-class form: a ``spec.a2.TilingFields``
        (A2) or ``spec.arch35.TilingFields`` (950) the walk is run by, whose
        core classes the validator checks with SwishGrad's rules and
        coverage analysis. None where the walk has another form (its
        findings are all in ``findings``) or cannot be run (a field at fault).
    buffers : tuple
        The UB plan: ``((count, bytes_per_element), ...)``, each buffer holding
        ``pass_len`` elements and padded to 32 bytes by InitBuffer.
    pass_len : int
        Elements per buffer (A2 ``tileDataNum``, 950 ``ubFormer``/``elemNum``).
    findings : tuple
        The operator's own findings: field ranges, tiling key, and (for a
        walk not in core-class form) what could be checked of its coverage.
    whole_blocks : bool
        A2: whether the kernel's transfers must be whole blocks (``DataCopy``);
        False where it moves exact byte counts (``DataCopyPad``).
    """

    fields: object
    buffers: tuple
    pass_len: int
    findings: tuple = ()
    whole_blocks: bool = True


@dataclass(frozen=True)
class Kernel:
    """One kernel of an operator.

    Attributes
    ----------
    architecture : str
        ``platform.ARCH_A2`` or ``platform.ARCH_950``.
    source : str
        Where it lives in ops-nn.
    struct : str
        The tiling struct's C name.
    record_dtype : numpy.dtype
        The struct as a NumPy record (C layout: ``record.tobytes()`` is the
        struct as the device sees it).
    narrowing : str
        How 16-bit results are narrowed: ``"CAST_RINT"`` or ``"CAST_ROUND"``.
    walk_check : callable, optional
        ``walk_check(tiling, numel, info, platform) -> WalkCheck`` for an
        :class:`OpTiling` of this kernel (the validator's view of it).
    run : callable, optional
        ``run(grad, x, out, tiling)``: the kernel's launch with a checked
        :class:`OpTiling` over flat contiguous arrays (``grad`` None for a
        forward operator); an operator whose ``saturation`` is set also
        takes ``saturation=True`` there (its A2 kernel in that mode).
    device_instructions : callable, optional
        ``device_instructions(tiling, itemsize) -> tuple of str``: the vector
        instructions one tile (950: one UB loop) issues, as the device-time
        model (:mod:`swishgrad_numba.devicetime`) charges them.
    queue_buffers : callable, optional
        ``queue_buffers(tiling) -> int``: buffers per queue of the launch
        (``BUFFER_NUM``); 2 (ping-pong) where not given.
    programs : callable, optional
        ``programs(dtype_name, variant) -> program.Program``: the kernel's
        Compute as a program (:mod:`swishgrad_numba.program`), which
        :func:`swishgrad_numba.program.compiled` compiles to its pass.
    variant : callable, optional
        ``variant(beta32) -> str``: the program variant the host picks for a
        beta (the 950 Swish's DAG); ``"main"`` where not given.
    walk : str
        The walk its compiled pass runs on: ``"pass"`` (:mod:`swishgrad_numba.kernel.walk`) or
        ``"broadcast"`` (:mod:`swishgrad_numba.kernel.broadcast`: a tuple of input buffers, read-only).
    soc_variant : callable, optional
        ``soc_variant(platform) -> str``: the program variant the host picks by SoC (the A2 GeluGrad's
        ``versionNum``); ``variant`` (by beta) where not given.
    """

    architecture: str
    source: str
    struct: str
    record_dtype: np.dtype
    narrowing: str
    walk_check: Callable | None = None
    run: Callable | None = None
    device_instructions: Callable | None = None
    queue_buffers: Callable | None = None
    programs: Callable | None = None
    variant: Callable | None = None
    walk: str = "pass"
    soc_variant: Callable | None = None
