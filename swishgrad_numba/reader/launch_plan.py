"""A read A2 kernel run on its own schedule (issue 43): the tiles its scalar code gives each core.

Where an A2 class-style kernel runs on its own record (its op_host's tiling function evaluated, or
``tiling=``), :func:`schedule` runs the kernel's scalar code per core on that record
(:func:`swishgrad_numba.reader.schedule.core_schedule`) and :func:`schedule_plan` makes the walk's
launch of exactly those tiles: one piece per run of a core's tiles that abut and are of one length
(the last may be shorter), cut into one bin per thread. Every element a tile stores is computed by
the read program over its tile; an element no tile stores is left as the output was (``run`` gives
zeros there; the device leaves what GM held).
"""
from __future__ import annotations

import numpy as np

from ..kernel import SERIAL_BELOW, Plan
from ..kernel.walk import PIECE_DTYPE

__all__ = ["MAX_SCHEDULES", "run_equal_shapes", "run_own_schedule", "run_plan", "schedule", "schedule_plan", "variant_inputs"]

#: Schedules kept per operator (by dtype, variant, record, block dim and tiling key).
MAX_SCHEDULES = 32
_SLACK = 64
#: A record field's C integer type, by NumPy kind and size (the reader's CNum types).
_C_INT = {("b", 1): "bool", ("u", 1): "uint8_t", ("i", 1): "int8_t", ("u", 2): "uint16_t", ("i", 2): "int16_t",
          ("u", 4): "uint32_t", ("i", 4): "int", ("u", 8): "uint64_t", ("i", 8): "int64_t"}      # elements past the tensor a local buffer may hold (a tail tile reaching into padding)


def schedule(op, tiling, info, variant=None) -> tuple:
    """Each core's tiles, ``((Tile, ...), ...)`` in core order, for ``tiling`` (a record of
    ``op.record_dtype``, its block dim and tiling key) on ``info``'s dtype; with ``variant`` None where
    the source has several, each tile names the one its core's branches chose."""
    from .field_paths import check_fields
    from .read import DTYPE_CNAMES, entry_symbols
    from .schedule import core_schedule

    variants = op.description.variants(info.name)
    variant = variants[0] if variant is None and len(variants) == 1 else variant
    data = tiling.data
    key = (info.name, variant, bytes(np.asarray(data).tobytes()), int(tiling.block_dim), int(tiling.tiling_key))
    cache = op._compiled.setdefault("schedules", {})
    if key in cache:
        return cache[key]
    builds = op.description.builds          # a build per dtype (DTYPE_X flags): its own scalar code
    skey = ("entry_symbols", info.name) if builds else "entry_symbols"
    if skey not in op._compiled:
        folder, entry, defines, side = op.source_args
        op._compiled[skey] = entry_symbols(folder, entry, builds.get(info.name, defines), side)
    symbols, fn = op._compiled[skey]
    values = {n: (int(data[n]), _C_INT[data.dtype.fields[n][0].kind, data.dtype.fields[n][0].itemsize])
              for n in data.dtype.names if data.dtype.fields[n][0].kind in "iub"}
    for n in data.dtype.names:               # an array field's elements (.tiling_arrays)
        sub = data.dtype.fields[n][0].subdtype
        if sub is not None and sub[0].kind in "iub":
            values[n] = (tuple(int(v) for v in np.asarray(data[n]).ravel()), _C_INT[sub[0].kind, sub[0].itemsize])
    floats = {n: data[n] for n in data.dtype.names if data.dtype.fields[n][0].kind == "f"}     # attributes
    def calls(body):            # a dead call the body left out is still made (.dead_reads)
        return list(body.called) or [(s.op, tuple(s.at)) for s in body.steps]
    # each tile's Compute picked by the calls its core made and the branches it took (issue 43, .variant_ways);
    # a variant given by hand must be the one picked
    bodies = {v: op.description.body(info.name, v) for v in variants}
    expected = (variant if len(variants) > 1 else None, {v: (calls(b), b.ways) for v, b in bodies.items()})
    gm = op.description.gm_params
    result = tuple(tuple(core_schedule(symbols, fn, DTYPE_CNAMES[info.name], gm, values, core,
                                       int(tiling.block_dim), int(tiling.tiling_key), expected, floats))
                   for core in range(int(tiling.block_dim)))
    for tiles in result:          # a record on a path left out does not run as another variant (.field_paths)
        for t in tiles:
            check_fields(t.variant, values, op.description.entry)
    if len(cache) >= MAX_SCHEDULES:
        cache.pop(next(iter(cache)))
    cache[key] = result
    return result


def schedule_plan(cores, numel: int, threads: int | None = None, variant=None) -> Plan:
    """The walk's launch of the tiles ``cores`` (:func:`schedule`) over ``numel`` elements (only those of
    ``variant``, where given)."""
    import numba

    pieces = []
    for tiles in cores:
        run = None
        for t in tiles:
            if variant is not None and t.variant != variant:
                continue
            if t.length <= 0 or t.offset >= numel:
                continue
            if run is not None and run[4] == run[5] and t.offset == run[0] + run[3] * run[4] and t.length <= run[4]:
                run = (run[0], 1, 0, run[3] + 1, run[4], t.length)
                continue
            if run is not None:
                pieces.append(run)
            run = (t.offset, 1, 0, 1, t.length, t.length)
        if run is not None:
            pieces.append(run)
    sizes = [min(numel, p[0] + (p[3] - 1) * p[4] + p[5]) - p[0] for p in pieces]
    total = sum(sizes)
    # a launch below SERIAL_BELOW runs on one bin, as kernel.plan_launch's (asking the count starts the thread pool)
    threads = max(1, int(threads or (1 if numel < SERIAL_BELOW else numba.get_num_threads())))
    bins, done, b = [0], 0, 1
    for i, size in enumerate(sizes):
        done += size
        if b < threads and done >= total * b // threads and i + 1 < len(sizes):
            bins.append(i + 1)
            b += 1
    bins.append(len(pieces))
    out = np.array(pieces, dtype=PIECE_DTYPE) if pieces else np.empty(0, dtype=PIECE_DTYPE)
    longest = int(max(out["pass_len"].max(), out["last_len"].max())) if out.size else 1
    return Plan(out, np.array(bins, dtype=np.int64), max(1, min(longest, numel + _SLACK)), total)


def run_own_schedule(op, ins, out, tiling, info, program, variant, saturation, cast_rules=()) -> None:
    """Run ``op`` on the tiles its scalar code gives each core for ``tiling``; with ``variant`` None where
    the source has several, each variant's program over the tiles whose core chose it (issue 43)."""
    from .split_loads import aligned, gathered

    cores = schedule(op, tiling, info, variant)
    split = not all(aligned(t) for tiles in cores for t in tiles)    # inputs at offsets of their own (.split_loads)

    def launch(inputs, v, program, only):
        tiles = cores
        if split:
            body = op.description.body(info.name, v if v is not None else op.description.variants(info.name)[0])
            inputs, tiles = gathered(cores, body, inputs, out.size, only)
        run_plan(op, inputs, out, tiling, info, program, v, saturation, schedule_plan(tiles, out.size, variant=only),
                 cast_rules)
    if variant is None and len(op.description.variants(info.name)) > 1:
        for v in sorted({t.variant for tiles in cores for t in tiles}):
            launch(variant_inputs(op, info, v, ins), v, op.program(info, variant=v), v)
        return
    launch(ins, variant, program, None)


def run_plan(op, ins, out, tiling, info, program, variant, saturation, plan, cast_rules=()) -> None:
    """Run ``op``'s compiled ``program`` (its ``variant``) over the walk's ``plan``, attributes from the record
    (``cast_rules``: the platform's, :attr:`~swishgrad_numba.platform.Platform.cast_rules`)."""
    from .. import kernel as kernel_pkg
    from ..dtypes import FLOAT32
    from .launch_scalars import attribute_values

    if any(a.size != out.size for a in ins):        # an input of its own shape (.gm_scalars) copied tile by tile
        raise ValueError(f"{op.name}: an input the kernel copies tile by tile must have the output's "
                         f"{out.size} elements, got {[a.size for a in ins]}")
    attrs = attribute_values(op.description, program.attrs, tiling.data)
    params = op.compiled(info, variant, saturation, cast_rules).params(**attrs)
    raw = (lambda a: a) if info is FLOAT32 else (lambda a: a.view(np.uint16))
    kernel_pkg.run_walk(params, tuple(raw(a) for a in ins), raw(out), plan)


def variant_inputs(op, info, variant, ins) -> tuple:
    """The flat inputs ``variant``'s Compute reads, in its order (a variant may read fewer than another:
    issue 43), from ``ins`` (GM name -> flat array); a tuple or list is returned as it is."""
    if not isinstance(ins, dict):
        return ins
    variants = op.description.variants(info.name)
    v = variants[0] if variant is None and len(variants) == 1 else variant
    return tuple(ins[g] for g, _ in op.description.body(info.name, v).inputs)


def run_equal_shapes(op, ins, out, tiling, info, program, variant, saturation) -> bool:
    """A BroadcastSch kernel of other than two inputs (the broadcast walk takes two) on its broadcast record:
    its equal shapes' elements on the flat walk, in passes of :data:`.broadcast_sch.FLAT_PASS` (issue 43);
    False where the record is not a broadcast one or there are two inputs."""
    if len(ins) == 2 or not (tiling.data.dtype.metadata or {}).get("opbase"):     # the common case: no imports
        return False
    from .broadcast_sch import FLAT_PASS, is_broadcast
    from .schedule import Tile

    if not is_broadcast(tiling.data.dtype):
        return False
    n, v = out.size, variant or ""
    plan = schedule_plan(((tuple(Tile(o, min(FLAT_PASS, n - o), v) for o in range(0, n, FLAT_PASS)),)), n)
    run_plan(op, ins, out, tiling, info, program, variant, saturation, plan)
    return True
