"""GM inputs read at offsets of their own (issue 43): a row's two halves, and copies of several blocks.

A GLU-shaped kernel (ops-nn gelu_mul, fatrelu_mul; a tutorial's SwiGLU) reads one GM input twice per tile,
``x[row * 2h ...]`` into one local tensor and ``x[row * 2h + h ...]`` into another, and stores ``h``
elements per row: the input's offsets are not the output's. Its copies may be 2-D: ``DataCopyPad`` with
``{blockCount, blockLen, srcStride, dstStride}`` copies ``blockCount`` rows of ``blockLen`` bytes.

:func:`copy_rows` is where a copy's elements go: rows ``(ub, gm, n)``, ``n`` elements from GM element ``gm``
to local element ``ub`` (or back). The facts of the copy (Ascend C's ``DataCopyParams`` and
``DataCopyExtParams``): ``DataCopy`` counts ``blockLen`` and both strides in 32-byte blocks; ``DataCopyPad``
counts ``blockLen`` in bytes, the GM side's stride in bytes and the local side's in 32-byte blocks, and
each row in the local tensor starts on a 32-byte boundary (a row of 10 halves takes 32 bytes there).

A read program is elementwise in the local tensors' elements: element ``p`` of the tensor a tile stores
is computed from element ``p`` of each tensor a copy loaded. :func:`gathered` makes that exact on the
walk: each program input is gathered, per stored element, from the GM element its load put at ``p``
(one GM input loaded into two tensors is two program inputs), and the walk runs over the elements
stored. A stored element no load filled is refused where the tile is read (:func:`check_tile`).

Such kernels Cast in place. Narrowing: ``Cast(x, x.ReinterpretCast<float>(), ...)``, a half view and the
float view at the same byte: element ``i``'s half lands on bytes of float ``i / 2``, already read.
Widening: the halves loaded into the upper half of the float view's bytes (ops-nn gelu_mul's ``x1Tmp`` at
``PPMaxCalNum * sizeof(T)``), float ``i`` landing on halves ``<= i``, already read. Either way the result is
the Cast of the values as they were; :func:`in_place_casts` names those pairs of a tile where the Cast is
its destination's only write and no later call uses its source, and the schedule lets them share their
bytes where they lie so (:func:`.schedule._parts_apart`).
"""
from __future__ import annotations

import numpy as np

from .abstract import refuse
from .errors import KernelSourceError
from .values import CNum, is_int, render

__all__ = ["MAX_BLOCKS", "aligned", "check_tile", "copy_rows", "gathered", "halves", "in_place_casts",
           "output_shape", "shares_bytes", "split_inputs", "splits", "with_load_lines"]

#: ``blockCount`` at most (Ascend C's range for both parameter structs).
MAX_BLOCKS = 4095
_BLOCK = 32
_FIELDS = ("blockCount", "blockLen", "srcStride", "dstStride", "rsv")


def copy_rows(node, params, pad: bool, load: bool, offset: int, size: int) -> tuple:
    """The rows ``((ub, gm, n), ...)`` of a copy between GM element ``offset`` and a local tensor by its
    parameter struct ``params`` (a ``_Params``' members, by field name: CNum or other values), of elements of
    ``size`` bytes (the GlobalTensor's own: a uint8 mask's 1 beside float tensors)."""
    name = node.fn.last
    values = {k: v.value if isinstance(v, CNum) else None for k, v in params.items()}
    unknown = [k for k in _FIELDS[:4] if k in params and values[k] is None]
    if unknown or values.get("blockLen") is None:
        refuse(node, f"{name}'s {unknown[0] if unknown else 'blockLen'} ({render(node.args[2])})",
               "not known for the launch")
    count, length = values.get("blockCount", 1), values["blockLen"]
    src, dst = values.get("srcStride") or 0, values.get("dstStride") or 0
    if not 1 <= count <= MAX_BLOCKS or length < 0 or src < 0 or dst < 0:
        refuse(node, f"{name} of {count} blocks of {length} (strides {src}, {dst})",
               f"outside the copy's ranges (1 to {MAX_BLOCKS} blocks, no negative length or stride)")
    nbytes = length if pad else length * _BLOCK            # DataCopyPad: bytes; DataCopy: 32-byte blocks
    if nbytes % size:
        refuse(node, f"{name} of {nbytes} bytes", "not a whole number of elements")
    gm_gap, ub_gap = (src, dst) if load else (dst, src)
    gm_row = nbytes + (gm_gap if pad else gm_gap * _BLOCK)   # a GM stride: bytes (Pad) or blocks
    ub_row = -(-nbytes // _BLOCK) * _BLOCK + ub_gap * _BLOCK  # a local row starts on a 32-byte boundary
    if gm_row % size:
        refuse(node, f"{name} with a GM stride of {gm_row - nbytes} bytes", "not a whole number of elements")
    n = nbytes // size
    return tuple((r * ub_row // size, offset + r * gm_row // size, n) for r in range(count))


def aligned(tile) -> bool:
    """Whether every load of ``tile`` (a :class:`.schedule.Tile`) is at the store's elements, one row."""
    return len(tile.rows) == 1 and all(rows == tile.rows for _, _, rows, _ in tile.loads)


def splits(tile) -> bool:
    """Whether ``tile`` reads one GM input into two tensors at different elements (a row's two halves), or
    copies several rows: otherwise a load at other elements than the store's is refused (a tile's copies
    are one range)."""
    gms = [g for _, g, _, _ in tile.loads]
    twice = any(len({rows for _, g2, rows, _ in tile.loads if g2 == g}) > 1 for g in set(gms))
    return twice or len(tile.rows) > 1 or any(len(rows) > 1 for _, _, rows, _ in tile.loads)


def halves(cores) -> bool:
    """Whether a tile of ``cores`` (a schedule) reads one GM input as two parts at different elements: the
    output is then a GLU's, its last dimension half the input's."""
    return any(len({rows for _, g2, rows, _ in t.loads if g2 == g}) > 1
               for tiles in cores for t in tiles for _, g, _, _ in t.loads)


def check_tile(store_rows, loads, at, core) -> int:
    """Refuse a stored element that a load of the tile did not fill; the stored rows' local extent."""
    for key, name, gm, rows, where in loads:
        for ub, o, n in store_rows:
            if _source(rows, ub, n) is None:
                raise KernelSourceError(where[0], where[1], f"the copy of {gm} into {name}",
                                        f"core {core}'s tile stores local elements {ub} to {ub + n} (GM element "
                                        f"{o}) that this copy does not fill")
    return max(ub + n for ub, _, n in store_rows)


def _load_of(tile, gm, name, lines):
    """The rows of ``tile``'s copy into program input ``name`` (of GM input ``gm``): the one copy of ``gm`` at a
    line where the reading copied ``name`` in, else the copy into a tensor of that name."""
    at = [rows for n, g, rows, where in tile.loads if g == gm and tuple(where) in lines]
    if len(at) == 1:
        return at[0]
    named = [rows for n, g, rows, _ in tile.loads if n == name]
    if len(named) == 1:
        return named[0]
    raise KernelSourceError(*(tile.loads[0][3] if tile.loads else ("", 0)), f"the copies of GM input {gm}",
                            f"the tile at element {tile.offset} has no one copy that is the program's input "
                            f"{name}")


def _source(rows, ub, n):
    """The load row holding local elements ``ub`` to ``ub + n``: (its local start, its GM start), or None."""
    for lu, g, m in rows:
        if lu <= ub and ub + n <= lu + m:
            return lu, g
    return None


def in_place_casts(events, dtypes) -> dict:
    """``{tile: {(dst, src): [(widening, eligible), ...]}}``: the Casts between a float32 and a 16-bit tensor in
    a core's schedule (its ``events``, :mod:`.schedule`), each eligible to share its bytes where in its tile
    it is ``dst``'s only write and no later call uses ``src``."""
    steps = [e for e in events if e[0] == "step"]
    out = {}
    for i, (_, op, _, _, _, keys, tile) in enumerate(steps):
        if op != "Cast" or len(keys) != 2:
            continue
        dst, src = keys
        if {dtypes.get(dst), dtypes.get(src)} not in ({"float32", "float16"}, {"float32", "bfloat16"}):
            continue
        same = [e for e in steps if e[6] == tile]
        later = [e for e in steps[i + 1:] if e[6] == tile]
        eligible = all(e[5][:1] != (dst,) for e in same if e is not steps[i]) and all(src not in e[5] for e in later)
        out.setdefault(tile, {}).setdefault((dst, src), []).append((dtypes[dst] == "float32", eligible))
    return out


def shares_bytes(in_place, first, second) -> bool:
    """Whether two overlapping views ``(lo, hi, name)`` of a tile, ``first`` from the lower byte, are a Cast in
    place (:func:`in_place_casts`, the tile's): every Cast between them eligible, a narrowing one from the
    same byte, a widening one whose source lies in the upper half of its destination's bytes (the source's
    own length or more past its start)."""
    safe = []
    for (lo, hi, dst), (lo2, hi2, src) in ((first, second), (second, first)):
        for widening, eligible in in_place.get((dst, src), ()):
            safe.append(eligible and (lo2 - lo >= hi2 - lo2 and hi2 <= hi if widening else lo == lo2))
    return bool(safe) and all(safe)


def with_load_lines(body, machine):
    """``body`` with the lines where the abstract reading (``machine``) copied each input in, where it reads
    a GM input into two tensors: the schedule's copies are matched to the program's inputs by their line."""
    if not split_inputs(body):
        return body
    from dataclasses import replace

    lines, views = getattr(machine, "load_lines", {}), getattr(machine, "bit_views", {})
    by_name = {}
    for key, at in lines.items():
        by_name.setdefault(machine.names.get(views.get(key, key), views.get(key, key)), set()).update(at)
    return replace(body, load_lines=tuple((t, tuple(sorted(by_name.get(t, ())))) for _, t in body.inputs))


def split_inputs(body) -> bool:
    """Whether ``body`` reads a GM input into two tensors (a row's two halves)."""
    gms = [g for g, _ in body.inputs]
    return len(set(gms)) != len(gms)


def output_shape(cores, shape) -> tuple:
    """The output's shape for inputs of ``shape``: the input's, but where the schedule ``cores`` reads a GM
    input as two parts (:func:`halves`), the last dimension halved (a GLU's)."""
    if cores is None or not halves(cores):
        return tuple(shape)
    if not shape or shape[-1] % 2:
        raise ValueError(f"the kernel reads each row of its input as two halves: the last dimension must be "
                         f"even, got shape {tuple(shape)}")
    return tuple(shape[:-1]) + (shape[-1] // 2,)


def gathered(cores, body, arrays, out_size: int, variant=None):
    """``(inputs, cores)``: each of ``body``'s inputs (``arrays``, in ``body.inputs``' order) gathered to the
    output's elements from where the tiles of ``cores`` loaded it, and the tiles cut into one per stored
    row (contiguous in the output), for :func:`.launch_plan.schedule_plan`."""
    from .schedule import Tile

    lines = dict(body.load_lines)
    starts, lengths, sources = [], [], [[] for _ in body.inputs]     # per stored row: its GM start per input
    out_cores = []
    for tiles in cores:
        cut = []
        for t in tiles:
            if variant is not None and t.variant != variant:
                continue
            loads = [_load_of(t, gm, name, lines.get(name, ())) for gm, name in body.inputs]
            for i, (ub, o, n) in enumerate(t.rows):
                if o + n > out_size:
                    raise KernelSourceError(*(t.at or ("", 0)), f"a store of {n} elements at element {o}",
                                            f"past the output's {out_size} elements")
                for k, rows in enumerate(loads):
                    lu, g = _source(rows[i:i + 1], ub, n) or _source(rows, ub, n)   # most often row i
                    sources[k].append(g + ub - lu)
                starts.append(o)
                lengths.append(n)
                cut.append(Tile(o, n, t.variant))
        out_cores.append(tuple(cut))
    lengths = np.asarray(lengths, dtype=np.int64)
    within = np.arange(int(lengths.sum()), dtype=np.int64) - np.repeat(np.cumsum(lengths) - lengths, lengths)
    at = np.repeat(np.asarray(starts, dtype=np.int64), lengths) + within
    ins = []
    for k, (gm, _) in enumerate(body.inputs):
        a, idx = arrays[k], np.zeros(out_size, dtype=np.int64)     # an element no tile stores is not computed
        idx[at] = np.repeat(np.asarray(sources[k], dtype=np.int64), lengths) + within
        if idx.size and (int(idx.min()) < 0 or int(idx.max()) >= a.size):    # NumPy would wrap a negative one
            bad = int(idx.min()) if int(idx.min()) < 0 else int(idx.max())
            raise ValueError(f"input {gm}: a tile reads element {bad}, outside its {a.size} elements")
        ins.append(a[idx])
    return tuple(ins), tuple(out_cores)
