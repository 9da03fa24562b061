"""The pass walk every element-wise kernel of the template shares, written once.

An emulated core (A2: its tiles; 950: its UB loops) walks a contiguous range
of the flat tensor in passes of a fixed length and a last, shorter one. Each
pass is CopyIn (global -> local buffer, one per input), Compute, CopyOut
(local -> global), with two local buffers per queue used alternately
(ping-pong).

The walk knows nothing of any operator. What a pass computes is the
operator's: it registers a jitted *pass function* for a NamedTuple class of
its launch parameters (:func:`register_pass`), and :func:`compute_pass`
resolves to it at compile time from the type of the ``params`` the launch
is given. (A function passed as an argument would also work, but Numba
never finds such a launch in its disk cache; a NamedTuple type it does.)

So that every host thread has work whatever the core count, the launch is
given *pieces*: runs of whole cores that walk alike, or consecutive passes
of one core (a part of it), grouped into one bin per thread (:mod:`.plan`
makes them).
Each bin is one ``prange`` iteration with its own local buffers; each piece
writes only its own range. Element-wise work makes the order
irrelevant, so the bits are the same for every split.
"""
from __future__ import annotations

import inspect

import numpy as np
from numba import njit, prange, types
from numba.extending import overload

from ..intrinsics import prefetch_read, prefetch_write

__all__ = ["PIECE_DTYPE", "BUFFER_NUM", "PASS_ARGS", "WORK_ROWS", "compute_pass", "launch_bins", "launch_serial",
           "launchers", "register_pass", "register_route", "route_of"]

#: ``cores`` cores that walk alike, core ``j`` from element ``start + stride * j``:
#: each makes ``passes`` passes, all of ``pass_len`` elements but the last,
#: which has ``last_len``, and stops at its first pass that starts past the
#: tensor. A part of one core's walk is a piece of one core.
PIECE_DTYPE = np.dtype([("start", "<i8"), ("cores", "<i8"), ("stride", "<i8"), ("passes", "<i8"),
                        ("pass_len", "<i8"), ("last_len", "<i8")])

#: Local buffers per queue: ping and pong. (A kernel that single-buffers
#: computes the same bits; its queue depth matters to the device-time model
#: only, :attr:`swishgrad_numba.ops.Kernel.queue_buffers`.)
BUFFER_NUM = 2
#: float32 scratch rows (each one pass long) a pass function may use, ``work[0]`` to ``work[3]``
#: (a compiled program keeps there the values that live past an Exp, :mod:`swishgrad_numba.program.compiler`).
WORK_ROWS = 4

# Compute runs over a pass in slices of this many elements; between slices
# the core prefetches the matching share of its next pass's GM lines.
COMPUTE_SLICE = 128
_CACHE_LINE_BYTES = 64

#: The arguments every pass function takes, in order:
#: ``params`` (its NamedTuple), ``in_bufs`` (the inputs' local buffers: a
#: C-contiguous ``(inputs, capacity)`` array, row ``i`` for input ``i``),
#: ``o_buf`` (the output's), ``work`` (``(WORK_ROWS, capacity)`` float32),
#: and the range ``[a, b)`` of elements to compute. It may overwrite its
#: input buffers (the device computes in place in UB).
PASS_ARGS = ("params", "in_bufs", "o_buf", "work", "a", "b")

_PASS_FUNCTIONS: dict = {}


def register_pass(params_class):
    """Decorator: the jitted function (``@njit(cache=True, inline="always")``,
    arguments :data:`PASS_ARGS`) that computes a pass of every launch whose
    ``params`` is a ``params_class`` (a ``typing.NamedTuple``)."""
    if not (isinstance(params_class, type) and issubclass(params_class, tuple) and hasattr(params_class, "_fields")):
        raise TypeError(f"params_class must be a NamedTuple class, got {params_class!r}")

    def decorate(function):
        py_func = getattr(function, "py_func", None)
        if py_func is None:
            raise TypeError(f"{function!r} must be a jitted function (numba.njit)")
        names = tuple(inspect.signature(py_func).parameters)
        if names != PASS_ARGS:
            raise TypeError(f"a pass function takes {PASS_ARGS}, {py_func.__qualname__} takes {names}")
        if _PASS_FUNCTIONS.get(params_class, py_func) is not py_func:
            raise ValueError(f"a pass function for {params_class.__qualname__} is registered already")
        _PASS_FUNCTIONS[params_class] = py_func
        return function

    return decorate


def compute_pass(params, in_bufs, o_buf, work, a, b):
    """Elements ``[a, b)`` of one pass, by the pass function registered for ``type(params)``."""
    raise NotImplementedError("compute_pass is only callable from jitted code")


@overload(compute_pass)
def _compute_pass_overload(params, in_bufs, o_buf, work, a, b):
    if isinstance(params, types.BaseNamedTuple):
        return _PASS_FUNCTIONS.get(params.instance_class)
    return None


_ROUTES: dict = {}


def register_route(params_class, route) -> None:
    """How a launch whose ``params`` is a ``params_class`` runs, decided by the layer that made the class
    (a compiled program's, :mod:`swishgrad_numba.program.passes`: on the engine or its fused pass), so
    that the walks need not import it. ``route.flat(params, ins, out, plan)`` returns the parameters
    whose pass function the element-wise walk runs, or None where it ran the launch itself;
    ``route.broadcast(params)`` returns the parameters the broadcast walk runs."""
    _ROUTES[params_class] = route


def route_of(params):
    """The route registered for ``type(params)`` (:func:`register_route`), or None."""
    return _ROUTES.get(type(params))


@njit(cache=True, error_model="numpy", inline="always")
def _copy_in(dst, src, offset, length, numel):
    """GM -> local buffer of ``length`` elements from ``offset``.

    On the A2 the last transfer may run into allocation padding past the
    tensor; here only the part inside ``[0, numel)`` is read and the rest of
    the buffer is zero-filled. Returns the number of valid elements.
    """
    valid = min(length, numel - offset) if offset < numel else 0
    if valid < 0:
        valid = 0
    # Index through a slice so the loop index is a plain 0..valid range
    # (no wraparound checks): the copy then vectorises.
    window = src[offset:offset + valid]
    for j in range(valid):
        dst[j] = window[j]
    for j in range(valid, length):
        dst[j] = 0
    return valid


@njit(cache=True, error_model="numpy", inline="always")
def _copy_out(dst, src, offset, valid):
    """Local buffer -> GM, only the elements inside the tensor."""
    window = dst[offset:offset + valid]
    for j in range(valid):
        window[j] = src[j]


@njit(cache=True, error_model="numpy", inline="always")
def _prefetch_share(ins, out, start, stop, step):
    """Prefetch GM lines of elements ``[start, stop)`` (inside the tensor):
    the next pass's inputs for reading, its output for writing."""
    for i in range(len(ins)):
        src = ins[i]
        for p in range(start, stop, step):
            prefetch_read(src, p)
    for p in range(start, stop, step):
        prefetch_write(out, p)


@njit(cache=True, error_model="numpy", inline="always")
def _run_piece(params, piece, ins, out, in_local, o_local, work):
    """Walk each core of one piece in turn."""
    numel = out.shape[0]
    for c in range(piece.cores):
        start = piece.start + c * piece.stride
        if start >= numel:  # the cores start in order: the rest lie past the tensor too
            break
        _walk_core(params, start, piece.passes, piece.pass_len, piece.last_len, ins, out, in_local, o_local, work)


@njit(cache=True, error_model="numpy", inline="always")
def _walk_core(params, start, passes, pass_len, last_len, ins, out, in_local, o_local, work):
    """Walk one core's passes from ``start`` with ping-pong local buffers.

    On the device MTE2 fills the other buffer of each queue while the vector
    unit computes. Here the core does the same work in turn; to overlap the
    memory traffic with the arithmetic it computes each pass in slices and,
    after each slice, prefetches an equal share of the next pass's GM lines.
    """
    numel = out.shape[0]
    capacity = o_local.shape[1]
    line = max(_CACHE_LINE_BYTES // out.itemsize, 1)   # elements per cache line
    for p in range(passes):
        offset = start + p * pass_len
        if offset >= numel:  # the passes abut: this one and the rest lie past the tensor
            break
        length = pass_len if p < passes - 1 else last_len
        if length > capacity:  # never index past the local buffer
            length = capacity
        ping = p % BUFFER_NUM
        in_bufs = in_local[ping]
        o_buf = o_local[ping]
        # CopyIn
        valid = _copy_in(in_bufs[0], ins[0], offset, length, numel)
        if valid == 0:  # a pass of no element writes nothing back
            continue
        for i in range(1, len(ins)):
            _copy_in(in_bufs[i], ins[i], offset, length, numel)
        # The next pass of this core, clipped to the tensor (empty if none).
        next_start = min(offset + pass_len, numel)
        next_stop = next_start
        if p + 1 < passes:
            next_stop = min(next_start + (pass_len if p + 1 < passes - 1 else last_len), numel)
        slices = (length + COMPUTE_SLICE - 1) // COMPUTE_SLICE
        share = ((next_stop - next_start + slices - 1) // slices + line - 1) // line * line
        # Compute: the whole pass, padding included, as the vector unit
        # does; element-wise, so slicing it changes no bit.
        for s in range(slices):
            a = s * COMPUTE_SLICE
            b = min(a + COMPUTE_SLICE, length)
            q = next_start + s * share
            _prefetch_share(ins, out, q, min(q + share, next_stop), line)
            compute_pass(params, in_bufs, o_buf, work, a, b)
        # CopyOut
        _copy_out(out, o_buf, offset, valid)


@njit(cache=True, error_model="numpy", inline="always")
def _local_buffers(ins, out, capacity):
    in_local = np.empty((BUFFER_NUM, len(ins), capacity), dtype=ins[0].dtype)
    o_local = np.empty((BUFFER_NUM, capacity), dtype=out.dtype)
    work = np.empty((WORK_ROWS, capacity), dtype=np.float32)
    return in_local, o_local, work


@njit(cache=True, error_model="numpy")
def _run_bin(params, ins, out, pieces, first, stop, capacity):
    """Run ``pieces[first:stop]`` on the calling thread with one set of local buffers.

    The launches call it rather than inline it, so a pass is compiled once here for both of them: the
    parallel launch's own compilation is then a small loop (it took about as long as this one before)."""
    in_local, o_local, work = _local_buffers(ins, out, capacity)
    for k in range(first, stop):
        _run_piece(params, pieces[k], ins, out, in_local, o_local, work)


@njit(parallel=True, cache=True, error_model="numpy")
def launch_bins(params, ins, out, pieces, bins, capacity):
    """Run ``pieces`` over the flat inputs ``ins`` (a tuple of arrays of one
    dtype and ``out``'s size) into flat ``out``, one ``prange`` iteration per
    bin (``pieces[bins[i]:bins[i + 1]]``).

    ``capacity`` is the local buffers' length. Each bin allocates its own
    local buffers; each piece writes only its own range.
    """
    for i in prange(bins.shape[0] - 1):
        _run_bin(params, ins, out, pieces, bins[i], bins[i + 1], capacity)


@njit(cache=True, error_model="numpy")
def launch_serial(params, ins, out, pieces, capacity):
    """:func:`launch_bins` on the calling thread, for small launches."""
    _run_bin(params, ins, out, pieces, 0, pieces.shape[0], capacity)


# The launches above are cached on disk, keyed by the params' class, and the
# package-wide source stamp (runtime) keeps them in step with the package's
# pass functions. A pass registered from outside the package (a new
# operator being written, a test) is not covered by that stamp: a cached
# launch could then run an older version of its pass, or name a class another
# process cannot import. Such launches compile per process instead, the same
# three functions without the disk cache (the two launches name their runner).
_run_bin_uncached = njit(cache=False, error_model="numpy")(_run_bin.py_func)


@njit(parallel=True, cache=False, error_model="numpy")
def _launch_bins_uncached(params, ins, out, pieces, bins, capacity):
    for i in prange(bins.shape[0] - 1):
        _run_bin_uncached(params, ins, out, pieces, bins[i], bins[i + 1], capacity)


@njit(cache=False, error_model="numpy")
def _launch_serial_uncached(params, ins, out, pieces, capacity):
    _run_bin_uncached(params, ins, out, pieces, 0, pieces.shape[0], capacity)


def launchers(params) -> tuple:
    """``(serial, bins)``: the launch functions for ``params``, cached on disk
    only where its class (and so its pass function) is the package's own."""
    if type(params).__module__.split(".")[0] == __name__.split(".")[0]:
        return launch_serial, launch_bins
    return _launch_serial_uncached, _launch_bins_uncached
