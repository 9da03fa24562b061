"""The broadcast walk (atvoss ``BroadcastTiling``, arch35), written once for any two-input operator.

A block runs UB loops over the "fused" index of (the axes before the UB
split axis, the split axis's UB steps); each loop is a contiguous region of
the output, its inputs copied in with their own strides (0 on a broadcast
axis), so the inputs may broadcast against each other and have different
dtypes. What a pass computes is the pass function registered for
its parameters (:func:`.walk.register_pass`), or its wide pass (below: a compiled program's route gives
the engine's, :class:`swishgrad_numba.engine.launch.EngineParams`). SiluGrad's
950 kernel runs on it.

A pass registered as wide (:func:`register_wide_pass`: the engine's) is launched on the tensors' raw
bytes with their widths, ``(uint8 array, wide)`` (4 bytes an element where ``wide``, else 2)
(:func:`run_blocks`), so that it compiles once for every dtype and pair of dtypes, not once per pair, and
its buffers stay as compact as the tensors. It reads each UB loop's input where it lies, the tensor itself
where the loop's region is contiguous and inside it (else the local buffer the walk copied it into), and
writes its result straight into the output where the region lies inside it: an equal-shape launch copies
each value no more often than the engine's flat launch does.
"""
from __future__ import annotations

import numpy as np
from numba import njit, prange, types
from numba.core.imputils import impl_ret_borrowed
from numba.extending import intrinsic, overload

from .broadcast_identity import identity_pass_len
from .walk import WORK_ROWS, compute_pass, route_of

__all__ = ["MAX_RANK", "launch_blocks", "register_wide_pass", "run_blocks", "run_blocks_known"]

#: Axes of a collapsed broadcast shape (opbase's limit).
MAX_RANK = 8


@njit(cache=True, error_model="numpy", inline="always")
def _gm_offset(axes, strides, split, ub_former):
    """BroadcastGetGmOffset: where a pass starts in a tensor with these strides."""
    off = 0
    for i in range(split):
        off += axes[i] * strides[i]
    return off + axes[split] * strides[split] * ub_former


_WIDE_PASSES: dict = {}


def register_wide_pass(params_class, scratch, run) -> None:
    """The pass of ``params_class`` that :func:`run_blocks` launches on the tensors' raw bytes (it refuses
    tensors of other than 2 or 4 bytes an element, a ValueError), one compilation for every dtype, and that
    reads its inputs where they lie (the tensors themselves where a UB loop's region is contiguous, else the
    walk's local buffer) and writes its result likewise, so that each value
    is copied no more often than on the element-wise walk. Both jitted: ``scratch(params)`` makes what a
    block's loops share (allocated once per block); ``run(params, dy, dy_off, x, x_off, out, out_off,
    count, scratch)`` computes the ``count`` elements of one UB loop, input ``dy`` from its element
    ``dy_off`` and so on, each a ``(uint8 array, wide)`` pair: its bytes and whether its elements are 4
    bytes (else 2)."""
    _WIDE_PASSES[params_class] = (scratch, run)


def wide_scratch(params):
    """The registered ``scratch`` of ``type(params)`` (:func:`register_wide_pass`; jitted code only)."""
    raise NotImplementedError("wide_scratch is only callable from jitted code")


def wide_run(params, dy, dy_off, x, x_off, out, out_off, count, scratch):
    """The registered ``run`` of ``type(params)`` (:func:`register_wide_pass`; jitted code only)."""
    raise NotImplementedError("wide_run is only callable from jitted code")


def _wide_of(params, which):
    if isinstance(params, types.BaseNamedTuple) and params.instance_class in _WIDE_PASSES:
        return _WIDE_PASSES[params.instance_class][which]
    return None


@overload(wide_scratch, inline="always")
def _wide_scratch_overload(params):
    scratch = _wide_of(params, 0)
    return None if scratch is None else (lambda params: scratch(params))


@overload(wide_run, inline="always")
def _wide_run_overload(params, dy, dy_off, x, x_off, out, out_off, count, scratch):
    run = _wide_of(params, 1)
    if run is None:
        return None
    return lambda params, dy, dy_off, x, x_off, out, out_off, count, scratch: run(params, dy, dy_off, x, x_off, out,
                                                                                   out_off, count, scratch)


@intrinsic
def _read_only(typingctx, arr):
    """The same array typed read-only (a local buffer then has a tensor's type; nothing is copied)."""
    if not isinstance(arr, types.Array):
        return None

    def codegen(context, builder, signature, args):
        return impl_ret_borrowed(context, builder, signature.return_type, args[0])

    return arr.copy(readonly=True)(arr), codegen


def _raw(a: np.ndarray, writeable: bool) -> tuple:
    """A tensor as ``(raw uint8 view, wide)``: its bytes and whether it is 4 bytes an element (else 2)."""
    v = a.view(np.uint8)
    if not writeable:
        v.flags.writeable = False
    return v, a.itemsize == 4


def _is_raw(t) -> bool:
    return isinstance(t, types.BaseTuple) and len(t) == 2 and isinstance(t[0], types.Array)


def local_zeros(gm, shape):
    """Zeroed local buffers of ``shape`` elements for tensor ``gm``: of its dtype, raw bytes (room for 4 an
    element) for a raw tensor (jitted code only)."""
    raise NotImplementedError("local_zeros is only callable from jitted code")


@overload(local_zeros)
def _local_zeros_overload(gm, shape):
    if _is_raw(gm):
        return lambda gm, shape: np.zeros((shape[0], shape[1] * 4), dtype=np.uint8)
    return lambda gm, shape: np.zeros(shape, dtype=gm.dtype)


def numel(gm):
    """A tensor's elements, raw or typed (jitted code only)."""
    raise NotImplementedError("numel is only callable from jitted code")


@overload(numel)
def _numel_overload(gm):
    if _is_raw(gm):
        return lambda gm: gm[0].size // (4 if gm[1] else 2)
    return lambda gm: gm.size


def pass_buffer(gm, loc):
    """A local buffer as its pass function takes it: ``loc``, or ``(loc, wide)`` for a raw tensor (jitted
    code only)."""
    raise NotImplementedError("pass_buffer is only callable from jitted code")


@overload(pass_buffer)
def _pass_buffer_overload(gm, loc):
    if _is_raw(gm):
        return lambda gm, loc: (loc, gm[1])
    return lambda gm, loc: loc


def copy_out(out, o_loc, base, lo, hi):
    """CopyOut of ``o_loc[lo:hi]`` into ``out`` from ``base + lo``, raw or typed (jitted code only)."""
    raise NotImplementedError("copy_out is only callable from jitted code")


@njit(cache=True, error_model="numpy", inline="always")
def _copy_out_typed(out, o_loc, base, lo, hi):
    for k in range(lo, hi):
        out[base + k] = o_loc[k]


@overload(copy_out)
def _copy_out_overload(out, o_loc, base, lo, hi):
    if _is_raw(out):
        def raw(out, o_loc, base, lo, hi):
            if out[1]:
                _copy_out_typed(out[0].view(np.float32), o_loc.view(np.float32), base, lo, hi)
            else:
                _copy_out_typed(out[0].view(np.uint16), o_loc.view(np.uint16), base, lo, hi)
        return raw
    return lambda out, o_loc, base, lo, hi: _copy_out_typed(out, o_loc, base, lo, hi)


def copy_in(src, dst, axes, size, split, shape_len, ub_former, out_dims, out_strides, in_strides):
    """:func:`_copy_in` from a raw or typed tensor (jitted code only)."""
    raise NotImplementedError("copy_in is only callable from jitted code")


@overload(copy_in)
def _copy_in_overload(src, dst, axes, size, split, shape_len, ub_former, out_dims, out_strides, in_strides):
    if _is_raw(src):
        def raw(src, dst, axes, size, split, shape_len, ub_former, out_dims, out_strides, in_strides):
            if src[1]:
                _copy_in(src[0].view(np.float32), dst.view(np.float32), axes, size, split, shape_len, ub_former, out_dims,
                         out_strides, in_strides)
            else:
                _copy_in(src[0].view(np.uint16), dst.view(np.uint16), axes, size, split, shape_len, ub_former, out_dims,
                         out_strides, in_strides)
        return raw
    return lambda src, dst, axes, size, split, shape_len, ub_former, out_dims, out_strides, in_strides: _copy_in(
        src, dst, axes, size, split, shape_len, ub_former, out_dims, out_strides, in_strides)


@njit(cache=True, error_model="numpy", inline="always")
def _copy_in(src, dst, axes, size, split, shape_len, ub_former, out_dims, out_strides, in_strides):
    """BroadcastNddmaWithoutLoop / WithLoop into ``dst``: the pass laid out as the output's region.

    Where the input's stride on the split axis equals the output's, one
    contiguous copy (DataCopyMoveAlign); else the multi-dimensional copy with
    the input's strides (0 on broadcast axes). Reads outside ``src`` (a
    broken tiling) give 0.
    """
    base = _gm_offset(axes, in_strides, split, ub_former)
    m = src.size
    if in_strides[split] == out_strides[split]:
        count = size * in_strides[split]
        lo = min(max(-base, 0), count)                 # the part of [base, base + count) inside src
        hi = max(min(m - base, count), lo)
        for k in range(lo):
            dst[k] = 0
        for k in range(lo, hi):
            dst[k] = src[base + k]
        for k in range(hi, count):
            dst[k] = 0
        return
    count = size * out_strides[split]
    last = shape_len - 1
    # a row of the innermost output axis at a time: its index arithmetic once per row, each element of the
    # row ``step`` further on (the same index, per element, as the whole decomposition gives)
    row = out_dims[last] if last > split and out_dims[last] > 0 else 1
    step = in_strides[last] if row > 1 else 0
    for k0 in range(0, count, row):
        rem = k0
        j0 = base
        for a in range(last, split, -1):
            j0 += (rem % out_dims[a]) * in_strides[a]
            rem //= out_dims[a]
        j0 += rem * in_strides[split]
        row_dst = dst[k0:k0 + min(row, count - k0)]
        for t in range(row_dst.size):
            j = j0 + t * step
            row_dst[t] = src[j] if 0 <= j < m else 0


@njit(cache=True, error_model="numpy", inline="always")
def _first_axes(blk, block_former, fused, split, out_dims):
    """BroadcastGetAxesIndices: the axes indices of block ``blk``'s first UB loop."""
    axes = np.zeros(MAX_RANK, dtype=np.int64)
    prod_idx = block_former * blk
    total = fused
    for i in range(split):
        total //= out_dims[i]
        cur = prod_idx // total
        axes[i] = cur
        prod_idx -= cur * total
    axes[split] = prod_idx
    return axes


@njit(cache=True, error_model="numpy", inline="always")
def _next_axes(axes, split, ub_outer, out_dims):
    """BroadcastUpdateAxesIndices: step ``axes`` to the next UB loop."""
    axes[split] += 1
    if axes[split] == ub_outer and split > 0:
        axes[split] = 0
        axes[split - 1] += 1
    for i in range(split - 1, 0, -1):
        if axes[i] == out_dims[i]:
            axes[i] = 0
            axes[i - 1] += 1


@njit(cache=True, error_model="numpy")
def _run_block(params, dy, x, out, blk, block_num, block_former, block_tail, ub_former, ub_outer, ub_tail, shape_len,
               split, fused, out_dims, out_strides, dy_strides, x_strides, buf_len):
    """Block ``blk``'s UB loops on the calling thread (:func:`launch_blocks`' body: the parallel launch calls
    it rather than inline it, so that its own compilation is a small loop)."""
    n = numel(out)
    loops = block_tail if blk == block_num - 1 else block_former
    dy_loc = local_zeros(dy, (2, buf_len))
    x_loc = local_zeros(x, (2, buf_len))
    o_loc = local_zeros(out, (1, buf_len))[0]
    work = np.empty((WORK_ROWS, buf_len), dtype=np.float32)
    axes = _first_axes(blk, block_former, fused, split, out_dims)
    for loop in range(loops):
        if loop != 0:
            _next_axes(axes, split, ub_outer, out_dims)
        size = ub_tail if axes[split] == ub_outer - 1 else ub_former
        count = size * out_strides[split]
        q = loop % 2
        reload = loop <= 1 or (blk * block_former + loop) % ub_outer <= 1
        if dy_strides[split] != 0 or reload:
            copy_in(dy, dy_loc[q], axes, size, split, shape_len, ub_former, out_dims, out_strides, dy_strides)
        if x_strides[split] != 0 or reload:
            copy_in(x, x_loc[q], axes, size, split, shape_len, ub_former, out_dims, out_strides, x_strides)
        compute_pass(params, (pass_buffer(dy, dy_loc[q]), pass_buffer(x, x_loc[q])), pass_buffer(out, o_loc), work,
                     0, count)
        base = _gm_offset(axes, out_strides, split, ub_former)
        lo = min(max(-base, 0), count)                # CopyOut of the part inside out
        hi = max(min(n - base, count), lo)
        copy_out(out, o_loc, base, lo, hi)


@njit(cache=True, error_model="numpy", inline="always")
def _in_place(gm, base, count, in_stride, out_stride):
    """Whether a UB loop's input is the contiguous ``[base, base + count)`` of ``gm``, wholly inside it: the
    region a contiguous CopyIn (DataCopyMoveAlign) would copy, so the pass may read it where it lies."""
    return in_stride == out_stride and in_stride != 0 and base >= 0 and base + count <= numel(gm)


@njit(cache=True, error_model="numpy")
def _run_block_wide(params, dy, x, out, blk, block_num, block_former, block_tail, ub_former, ub_outer, ub_tail,
                    shape_len, split, fused, out_dims, out_strides, dy_strides, x_strides, buf_len):
    """:func:`_run_block` of a wide pass (:func:`register_wide_pass`): the same UB loops in the same order,
    each input read where it lies when its region is contiguous and inside the tensor (else copied into
    the local buffer as :func:`_run_block` does, skipped likewise), the result written straight into
    ``out`` when its region lies inside it (else into the local buffer, then its part inside ``out``)."""
    n = numel(out)
    loops = block_tail if blk == block_num - 1 else block_former
    dy_loc = local_zeros(dy, (2, buf_len))
    x_loc = local_zeros(x, (2, buf_len))
    o_loc = local_zeros(out, (1, buf_len))[0]
    scratch = wide_scratch(params)
    axes = _first_axes(blk, block_former, fused, split, out_dims)
    for loop in range(loops):
        if loop != 0:
            _next_axes(axes, split, ub_outer, out_dims)
        size = ub_tail if axes[split] == ub_outer - 1 else ub_former
        count = size * out_strides[split]
        q = loop % 2
        reload = loop <= 1 or (blk * block_former + loop) % ub_outer <= 1
        dy_off = _gm_offset(axes, dy_strides, split, ub_former)
        dy_src = dy[0]
        if not _in_place(dy, dy_off, count, dy_strides[split], out_strides[split]):
            if dy_strides[split] != 0 or reload:
                copy_in(dy, dy_loc[q], axes, size, split, shape_len, ub_former, out_dims, out_strides, dy_strides)
            dy_src, dy_off = _read_only(dy_loc[q]), 0
        x_off = _gm_offset(axes, x_strides, split, ub_former)
        x_src = x[0]
        if not _in_place(x, x_off, count, x_strides[split], out_strides[split]):
            if x_strides[split] != 0 or reload:
                copy_in(x, x_loc[q], axes, size, split, shape_len, ub_former, out_dims, out_strides, x_strides)
            x_src, x_off = _read_only(x_loc[q]), 0
        base = _gm_offset(axes, out_strides, split, ub_former)
        lo = min(max(-base, 0), count)                # the part of the result inside out
        hi = max(min(n - base, count), lo)
        if lo == 0 and hi == count:
            wide_run(params, (dy_src, dy[1]), dy_off, (x_src, x[1]), x_off, out, base, count, scratch)
        else:
            wide_run(params, (dy_src, dy[1]), dy_off, (x_src, x[1]), x_off, (o_loc, out[1]), 0, count, scratch)
            copy_out(out, o_loc, base, lo, hi)


def _block(params, dy, x, out, blk, block_num, block_former, block_tail, ub_former, ub_outer, ub_tail, shape_len,
           split, fused, out_dims, out_strides, dy_strides, x_strides, buf_len):
    """A block's UB loops: :func:`_run_block_wide` for a wide pass on raw tensors, else :func:`_run_block`
    (jitted code only)."""
    raise NotImplementedError("_block is only callable from jitted code")


@overload(_block, inline="always")   # no call of its own: the launch calls the block itself
def _block_overload(params, dy, x, out, blk, block_num, block_former, block_tail, ub_former, ub_outer, ub_tail,
                    shape_len, split, fused, out_dims, out_strides, dy_strides, x_strides, buf_len):
    run = _run_block_wide if _is_raw(dy) and _wide_of(params, 1) is not None else _run_block

    def impl(params, dy, x, out, blk, block_num, block_former, block_tail, ub_former, ub_outer, ub_tail, shape_len,
             split, fused, out_dims, out_strides, dy_strides, x_strides, buf_len):
        run(params, dy, x, out, blk, block_num, block_former, block_tail, ub_former, ub_outer, ub_tail, shape_len,
            split, fused, out_dims, out_strides, dy_strides, x_strides, buf_len)
    return impl


@njit(parallel=True, cache=True, error_model="numpy")
def launch_blocks(params, dy, x, out, block_num, block_former, block_tail, ub_former, ub_outer, ub_tail, shape_len,
                  split, fused, elem_num, out_dims, out_strides, dy_strides, x_strides):
    """Every block's UB loops (arch35 ``Process``), blocks in parallel.

    Each loop: the axes indices of its pass, ``ubSplitSize`` (``ubTail`` on
    the split axis's last step), CopyIn of both inputs into the ping or
    pong buffer (skipped, as on the device, for an input broadcast along
    the split axis whose buffer from two loops back holds the same data),
    Compute (the pass function registered for ``type(params)``), CopyOut of
    the contiguous output region. A wide pass reads and writes the tensors
    themselves where a loop's regions allow (:func:`_run_block_wide`).
    """
    # The local buffers hold the longest pass the loops run, at most elemNum
    # elements: sized from the data, not from the UB alone (a huge UB would
    # otherwise allocate elemNum elements per block). A pass is ubTail long
    # on the split axis's last step, ubFormer on the others; with one step
    # (ubOuter 1) every pass is ubTail long, provided the blocks' loops stay
    # inside the fused index (a record that does not is sized by both).
    outer = 1
    for i in range(split):
        outer *= out_dims[i]
    inside = fused == ub_outer * outer and (block_num - 1) * block_former + block_tail <= fused
    longest = ub_tail if ub_outer == 1 and inside else max(ub_former, ub_tail)
    buf_len = max(min(elem_num, longest * out_strides[split]), 0)
    for blk in prange(block_num):   # the index as int64: one signature of the block (a prange types it twice)
        _block(params, dy, x, out, np.int64(blk), block_num, block_former, block_tail, ub_former, ub_outer, ub_tail,
               shape_len, split, fused, out_dims, out_strides, dy_strides, x_strides, buf_len)


def run_blocks(params, dy, x, out, *args) -> None:
    """:func:`launch_blocks` of ``params``, or of what their route gives (:func:`.walk.register_route`: a
    compiled program's pass on the engine); a wide pass
    (:func:`register_wide_pass`) on the tensors' raw bytes where each is 2 or 4 bytes an element. A launch
    whose walk is the identity (:mod:`.broadcast_identity`) goes to its route's flat launch first
    (``route.equal_shapes``: the engine's, for an element-wise stream), the walk where that declines. Call it
    under the launch guard."""
    run_blocks_known(params, dy, x, out, identity_pass_len(dy.size, x.size, out.size, *args) if route_of(params)
                     is not None else 0, lambda: args)


def run_blocks_known(params, dy, x, out, pass_len: int, make_args) -> None:
    """:func:`run_blocks` of the arguments ``make_args()`` (called only where the walk runs) whose
    :func:`.broadcast_identity.identity_pass_len` the caller found: ``pass_len`` (a call of a few thousand
    elements would otherwise spend much of its time on both). Call it under the launch guard."""
    route = route_of(params)
    if route is not None:
        # the identity walk (equal shapes, nothing broadcast) of an element-wise program: the flat launch
        if pass_len and route.equal_shapes(params, (dy, x), out, pass_len):
            return
        params = route.broadcast(params)
    if type(params) in _WIDE_PASSES:
        if not all(a.itemsize in (2, 4) for a in (dy, x, out)):
            raise ValueError(f"the broadcast walk's {type(params).__qualname__} pass takes tensors of 2 or 4 bytes an "
                             f"element, got {dy.dtype}, {x.dtype}, {out.dtype}")
        dy, x, out = _raw(dy, False), _raw(x, False), _raw(out, True)
    launch_blocks(params, dy, x, out, *make_args())
