"""What one launch would cost on the device: :func:`estimate` (a tiling of a registered operator),
:func:`estimate_custom` (any element-wise kernel on the same template) and the :class:`Estimate` they return."""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

import numpy as np

from .. import kernel
from ..dtypes import dtype_info
from ..kernel.plan import classes_of, core_runs, work_bound
from ..ops import OPERATORS, get_operator
from ..platform import ARCH_950, ASCEND950_PLATFORM, REFERENCE_PLATFORM, Platform
from ..spec import a2 as spec_a2
from ..spec.arith import pad_to
from ..tiling.host import check_numel, compute_tiling
from ..tiling.launch import launch_of
from ..tiling.operators import is_op_tiling
from ..tiling.validate import validate_tiling
from .checks import check_buffer_num, check_params
from .params import Params
from .queue import PIPES, schedule
from .stages import vector_cycles
from .trace import plot_gantt, write_trace

__all__ = ["Estimate", "estimate", "instructions_of", "simulate", "OPS", "MAX_TILES"]


class _RegisteredOps(Mapping):
    """The registry (:data:`~swishgrad_numba.ops.OPERATORS`) as name -> (inputs, outputs), read at each use:
    an operator registered after this module was imported is known too."""

    def __getitem__(self, name):
        return (OPERATORS[name].inputs, 1)

    def __iter__(self):
        return iter(OPERATORS)

    def __len__(self):
        return len(OPERATORS)


#: The operators the model knows: every registered one (:mod:`swishgrad_numba.ops`), by name -> (inputs,
#: outputs). Their instruction lists are their programs' (or ``Kernel.device_instructions`` where a kernel
#: gives its own); a kernel on the 950's broadcast walk is charged per UB loop (:mod:`.broadcast`), one
#: whose walk has another form (the A2 EluGradV2's) is refused.
OPS = _RegisteredOps()
#: The most tiles one estimate simulates: the tiles of its distinct cores (cores with equal tiles are simulated
#: once). About 250 bytes of memory each.
MAX_TILES = 4_000_000
# DataCopy moves whole 32-byte blocks of UB.
_BLOCK = 32
# The msprof PipeUtilization.csv columns of each pipe.
_PIPE_COLUMNS = {"VECTOR": "aiv_vec", "MTE2": "aiv_mte2", "MTE3": "aiv_mte3", "SCALAR": "aiv_scalar"}


@dataclass
class Estimate:
    """One launch under the model. Times in microseconds; per-tile arrays in core order.

    Cores with the same tiles run the same schedule, so it is computed once per distinct core (``classes``)
    and the per-core, per-tile arrays are expanded from it when asked for.

    Attributes
    ----------
    duration_us : float
        The launch: head overhead plus the last core's last CopyOut.
    head_us : float
        The launch head: ``params.head_us + params.head_per_block_us * blocks launched``.
    gm_saturated : float
        The share of the cores' span during which the shared GM bandwidth, not the cores' own rates, limited
        the transfers moving bytes.
    bottleneck : str
        ``"aggregate bandwidth"`` (GM saturated for at least half the span), ``"launch overhead"``, or the
        busiest pipe of the core that ends last
        (``"MTE2"``, ``"VECTOR"``, ``"MTE3"``, ``"SCALAR"``).
    valid : bool
        False for a tiling the validator rejects (estimated only with ``allow_invalid=True``); ``findings`` says why.
    """

    duration_us: float
    bottleneck: str
    label: str
    params: Params
    buffer_num: int
    head_us: float
    gm_saturated: float          # the share of the cores' span during which the GM bandwidth limited the transfers
    classes: np.ndarray          # per core: its distinct core's index
    class_offsets: np.ndarray    # the distinct cores' tiles: class_offsets[i]:class_offsets[i + 1]
    class_tiles: np.ndarray
    class_starts_us: np.ndarray
    class_durations_us: np.ndarray
    class_end_us: np.ndarray
    class_busy_us: np.ndarray
    itemsize: int = 4
    valid: bool = True
    findings: tuple = field(default_factory=tuple)

    @property
    def core_end_us(self) -> np.ndarray:
        return self.class_end_us[self.classes]

    @property
    def busy_us(self) -> np.ndarray:
        return self.class_busy_us[self.classes]

    @property
    def offsets(self) -> np.ndarray:
        """Tiles of core ``c``: ``offsets[c]:offsets[c + 1]`` of the per-tile arrays."""
        counts = np.diff(self.class_offsets)[self.classes]
        return np.concatenate([[0], np.cumsum(counts)]).astype(np.int64)

    def _tile_index(self) -> np.ndarray:
        lo = self.class_offsets[self.classes]
        counts = np.diff(self.class_offsets)[self.classes]
        first = np.repeat(lo - np.concatenate([[0], np.cumsum(counts)[:-1]]), counts)
        return np.arange(int(counts.sum()), dtype=np.int64) + first

    @property
    def tile_elements(self) -> np.ndarray:
        return self.class_tiles[self._tile_index()]

    @property
    def tile_bytes(self) -> np.ndarray:
        return pad_to(self.tile_elements * self.itemsize, _BLOCK)

    @property
    def starts_us(self) -> np.ndarray:
        """Per tile, the start of each stage (columns: SCALAR, MTE2, VECTOR, MTE3) from the cores' start."""
        return self.class_starts_us[self._tile_index()]

    @property
    def durations_us(self) -> np.ndarray:
        return self.class_durations_us[self._tile_index()]

    @property
    def n_cores(self) -> int:
        return self.classes.shape[0]

    def pipe_utilization(self) -> list:
        """One dict per core keyed by msprof's PipeUtilization.csv column names (block_id, aiv_time(us), and the
        time and ratio of aiv_vec, aiv_mte2, aiv_mte3, aiv_scalar)."""
        rows = []
        core_end, busy_us = self.core_end_us, self.busy_us
        for core in range(self.n_cores):
            total = float(core_end[core])
            row = {"block_id": core, "aiv_time(us)": total}
            for tid, pipe in enumerate(PIPES):
                key = _PIPE_COLUMNS[pipe]
                busy = float(busy_us[core, tid])
                row[f"{key}_time(us)"] = busy
                row[f"{key}_ratio"] = busy / total if total > 0 else 0.0
            rows.append(row)
        return rows

    def write_trace(self, path, max_events: int | None = None) -> None:
        """Write the launch's timeline as a Chrome Trace Event file (opens in Perfetto UI and chrome://tracing);
        a ValueError refuses one of more than ``max_events`` events (default ``trace.MAX_TRACE_EVENTS``)."""
        write_trace(self, path) if max_events is None else write_trace(self, path, max_events)

    def plot(self, ax=None):
        """A Gantt chart of the launch on ``ax`` (a new figure when None); returns the axes."""
        return plot_gantt(self, ax)

    def summary(self) -> dict:
        """The launch's figures as plain data (for JSON)."""
        return {"label": self.label, "duration_us": self.duration_us, "bottleneck": self.bottleneck,
                "valid": self.valid, "findings": list(self.findings), "head_us": self.head_us,
                "gm_saturated": self.gm_saturated, "buffer_num": self.buffer_num,
                "cores": self.n_cores, "tiles": int(np.diff(self.class_offsets)[self.classes].sum()),
                "params": self.params.as_dict(), "pipe_utilization": self.pipe_utilization()}


def distinct_cores(offsets, tile_elements) -> tuple:
    """(classes, class_offsets, class_tiles): the cores with distinct tile sequences, and each core's one."""
    seen, classes, parts = {}, [], []
    for core in range(offsets.shape[0] - 1):
        tiles = tile_elements[offsets[core]:offsets[core + 1]]
        key = tiles.tobytes()
        if key not in seen:
            seen[key] = len(parts)
            parts.append(tiles)
        classes.append(seen[key])
    counts = [p.shape[0] for p in parts]
    class_offsets = np.concatenate([[0], np.cumsum(counts)]).astype(np.int64)
    class_tiles = np.concatenate(parts) if parts else np.zeros(0, dtype=np.int64)
    return np.asarray(classes, dtype=np.int64), class_offsets, class_tiles.astype(np.int64)


def simulate(offsets, tile_elements, itemsize: int, compute_itemsize: int, inputs: int, outputs: int,
             instructions, buffer_num: int, params: Params, label: str, valid: bool = True,
             findings=(), classes=None, bursts: int = 1, gm_aligned: bool = True,
             blocks: int | None = None) -> Estimate:
    """The model on checked arrays: ``offsets`` (int64, cores + 1) cut ``tile_elements`` (int64) into cores;
    or, with ``classes`` (per core, an index), they describe the distinct cores only. Each DataCopy moves its
    tile in ``bursts`` contiguous pieces. ``blocks``: the blocks launched, for the head (default: the cores)."""
    if classes is None:
        classes, offsets, tile_elements = distinct_cores(offsets, tile_elements)
    weight = np.bincount(classes, minlength=offsets.shape[0] - 1)      # cores per distinct core
    clock = params.cycles_per_us
    tile_bytes = pad_to(tile_elements * itemsize, _BLOCK)
    n = tile_elements.shape[0]
    per_burst = params.burst_cycles + (0.0 if gm_aligned else params.unaligned_burst_cycles)
    copy_fixed = params.datacopy_cycles + bursts * per_burst
    stages = {
        "offsets": offsets,
        "scalar": np.full(n, params.scalar_cycles_per_tile),
        "in_fixed": np.full(n, inputs * copy_fixed),
        "in_bytes": (inputs * tile_bytes).astype(np.float64),
        "vec": vector_cycles(instructions, tile_elements, compute_itemsize, params),
        "out_fixed": np.full(n, outputs * copy_fixed),
        "out_bytes": (outputs * tile_bytes).astype(np.float64),
    }
    aggregate = params.aggregate_gbps * 1e3 / clock          # bytes per cycle: GB/s * 1e9 / (MHz * 1e6)
    # more buffers than a core has tiles never wait: the same schedule
    most_tiles = int(np.diff(offsets).max()) if n else 1
    class_end, starts, durations, saturated = schedule(stages, weight, min(buffer_num, max(most_tiles, 1)),
                                                       params.core_read_bytes_per_cycle,
                                                       params.core_write_bytes_per_cycle, aggregate,
                                                       params.transfer_latency_cycles)
    cum = np.vstack([np.zeros((1, 4)), np.cumsum(durations, axis=0)])
    busy = cum[offsets[1:]] - cum[offsets[:-1]]
    class_end_us, busy_us = class_end / clock, busy / clock
    span = float(class_end_us.max()) if class_end_us.size else 0.0
    head = params.head_us + params.head_per_block_us * (classes.shape[0] if blocks is None else blocks)
    saturated_fraction = saturated / clock / span if span > 0 else 0.0
    if saturated_fraction >= 0.5:
        bottleneck = "aggregate bandwidth"
    elif head > span:
        bottleneck = "launch overhead"
    else:
        last = int(np.argmax(class_end_us))
        bottleneck = PIPES[int(np.argmax(busy_us[last]))]
    return Estimate(duration_us=head + span, bottleneck=bottleneck, label=label, params=params,
                    buffer_num=buffer_num, head_us=head, gm_saturated=saturated_fraction, classes=classes,
                    class_offsets=offsets, class_tiles=tile_elements, class_starts_us=starts / clock,
                    class_durations_us=durations / clock, class_end_us=class_end_us, class_busy_us=busy_us,
                    itemsize=itemsize, valid=valid, findings=tuple(findings))


def _tiles_of_walks(walks) -> tuple:
    """(offsets, tile_elements) of the walks (passes - 1 tiles of pass_len, then last_len)."""
    passes = walks["passes"].astype(np.int64)
    offsets = np.concatenate([[0], np.cumsum(passes)]).astype(np.int64)
    tiles = np.repeat(walks["pass_len"].astype(np.int64), passes)
    ends = offsets[1:][passes > 0] - 1
    tiles[ends] = walks["last_len"].astype(np.int64)[passes > 0]
    return offsets, tiles


def estimate(tiling, numel, dtype, *, op: str = "swish_grad", platform: Platform | None = None,
             params: Params | None = None, allow_invalid: bool = False, buffer_num: int | None = None,
             label: str | None = None, block_dim: int | None = None) -> Estimate:
    """Estimate the device time of one launch of ``op`` with a tiling.

    Parameters
    ----------
    tiling : Tiling, record, bytes, Mapping or None
        Anything :func:`~swishgrad_numba.tiling.io.as_tiling_record` accepts (a bare record needs its block dim
        in a mapping's ``blockDim``), or None for the host's tiling on ``platform``.
    numel : int
        Elements of the tensor (> 0).
    dtype : dtype-like
        float32, float16 or bfloat16.
    op : str
        The operator (:data:`OPS`).
    platform : Platform, optional
        The hardware (default: the reference platform of the tiling's kernel).
    params : Params, optional
        The model's numbers (default :func:`~swishgrad_numba.devicetime.params.default_params` of the platform).
    allow_invalid : bool
        Estimate a tiling the validator rejects anyway (the estimate's ``valid`` is then False).
    buffer_num : int, optional
        Buffers per queue (default: the kernel's, 2); a what-if for ``--compare``. The operator's queues (its
        inputs and outputs) hold at most 64 buffers in all (:func:`check_buffer_num`).
    block_dim : int, optional
        Cores launched: required for a bare record or struct bytes, overrides the one a tiling carries.

    Raises
    ------
    TypeError, ValueError
        Naming the argument: an unknown ``op``, a bad tiling or dtype, a tiling the validator rejects.
    """
    if op not in OPS:
        raise ValueError(f"op must be one of {sorted(OPS)}, got {op!r}")
    numel = check_numel(numel)
    info = dtype_info(dtype, argname="dtype")
    operator = get_operator(op)
    if tiling is None:
        tiling = compute_tiling(numel, info.numpy, platform=platform if platform is not None else operator.default_platform,
                                op=op)
    if op != "swish_grad" and is_op_tiling(tiling) and tiling.op == op \
            and operator.kernels[tiling.architecture].walk == "broadcast":       # the 950's BroadcastSch
        from .broadcast import estimate_broadcast
        return estimate_broadcast(operator, tiling, numel, info, platform or ASCEND950_PLATFORM, params,
                                  allow_invalid=allow_invalid, buffer_num=buffer_num, label=label, block_dim=block_dim)
    if op == "swish_grad":
        launch = launch_of(tiling, info.numpy, platform, block_dim)
        fields, block_dim, architecture, platform = launch.fields, launch.block_dim, launch.architecture, \
            launch.platform
    else:
        fields, block_dim, architecture, platform = _op_launch(operator, tiling, numel, info, platform, block_dim)
    report = validate_tiling(tiling, numel, info.numpy, platform, block_dim)
    findings = tuple(str(f) for f in report.errors)
    if not report.ok and not allow_invalid:
        raise ValueError("tiling: the validator rejects it (pass allow_invalid=True to estimate it anyway): "
                         + "; ".join(findings))
    if fields is None:
        raise ValueError(f"tiling: its fields give no walk the model can follow: {'; '.join(findings)}")
    launch = _Launch(fields, block_dim, architecture, platform)
    arch = kernel.arch_code(launch.architecture)
    if work_bound(launch.fields, launch.block_dim, arch, numel) > MAX_TILES * (1 << 20):
        raise ValueError("tiling: its walk is too long to model")
    walks = _core_walks(launch.fields, launch.block_dim, arch, numel)
    if walks.shape[0] and (walks["passes"].max() > MAX_TILES or (walks["passes"] < 0).any()):
        raise ValueError(f"tiling: its walk has more than {MAX_TILES} tiles (or a negative count); not modelled")
    shape = np.stack([walks["passes"], walks["pass_len"], walks["last_len"]], axis=1).astype(np.int64)
    shapes, classes = np.unique(shape, axis=0, return_inverse=True) if len(shape) else (shape, np.zeros(0, np.int64))
    distinct = np.zeros(shapes.shape[0], dtype=walks.dtype)
    distinct["passes"], distinct["pass_len"], distinct["last_len"] = shapes[:, 0], shapes[:, 1], shapes[:, 2]
    if int(distinct["passes"].sum()) > MAX_TILES:
        raise ValueError(f"tiling: its distinct cores walk more than {MAX_TILES} tiles; not modelled")
    offsets, tiles = _tiles_of_walks(distinct)
    inputs, outputs = OPS[op]
    if buffer_num is None:   # the kernel's own, else ping-pong (spec.a2.BUFFER_NUM; every 950 queue too)
        queue_buffers = operator.kernels[launch.architecture].queue_buffers
        buffer_num = queue_buffers(tiling) if queue_buffers is not None else spec_a2.BUFFER_NUM
    buffer_num = check_buffer_num(buffer_num, inputs + outputs)
    params = check_params(params, launch.platform)
    instructions = instructions_of(operator, launch.architecture, tiling, info, launch.platform)
    name = label or f"{op} {info.name} numel={numel} on {launch.platform.soc_version} ({launch.block_dim} cores)"
    return simulate(offsets, np.maximum(tiles, 0), info.itemsize, 4, inputs, outputs, instructions, buffer_num,
                    params, name, valid=report.ok, findings=findings, classes=np.ravel(classes).astype(np.int64),
                    blocks=launch.block_dim)


@dataclass(frozen=True)
class _Launch:
    fields: object
    block_dim: int
    architecture: str
    platform: Platform


def _op_launch(operator, tiling, numel, info, platform, block_dim):
    """``(fields, block_dim, architecture, platform)`` of another operator's record: its walk in the template's
    core-class form (``Kernel.walk_check``), or a ValueError where the model cannot follow it."""
    if not is_op_tiling(tiling) or tiling.op != operator.name:
        raise TypeError(f"tiling must be an {operator.name!r} record from compute_tiling(..., op={operator.name!r}), "
                        f"got {type(tiling).__name__}")
    kernel_desc = operator.kernels[tiling.architecture]
    if platform is None:
        platform = ASCEND950_PLATFORM if tiling.architecture == ARCH_950 else REFERENCE_PLATFORM
    if (kernel_desc.device_instructions is None and kernel_desc.programs is None) or kernel_desc.walk_check is None:
        raise ValueError(f"op {operator.name!r} on the {tiling.architecture} kernel is not on the template's walk "
                         f"(its tiling is not in core-class form); the model does not cover it")
    check = kernel_desc.walk_check(tiling, numel, info, platform)
    if check.fields is None and not check.findings:   # a walk of another form (the 950's BroadcastSch)
        raise ValueError(f"op {operator.name!r} on the {tiling.architecture} kernel is not on the template's walk "
                         f"(its tiling is not in core-class form: {kernel_desc.walk} walk); the model does not "
                         f"cover it")
    return check.fields, int(tiling.block_dim if block_dim is None else block_dim), tiling.architecture, platform


def instructions_of(operator, architecture, tiling, info, platform) -> tuple:
    """The vector instructions one tile issues: the kernel's own list where it gives one
    (``Kernel.device_instructions``), else its program's for the platform (``Program.instructions``)."""
    kernel_desc = operator.kernels[architecture]
    if kernel_desc.device_instructions is not None:
        return kernel_desc.device_instructions(tiling, info.itemsize)
    return operator.program(info.name, platform).instructions()


_WALK_DTYPE = np.dtype([("start", "<i8"), ("passes", "<i8"), ("pass_len", "<i8"), ("last_len", "<i8")])


def _core_walks(fields, block_dim: int, arch: int, numel: int) -> np.ndarray:
    """One walk per launched core that moves data, in core order: the
    kernel's runs of alike cores (``kernel.plan.core_runs``) spelled out
    core by core, each cut after its last pass that starts inside the tensor."""
    parts = []
    for r in core_runs(classes_of(fields, block_dim, arch), numel):
        walks = np.empty(r.cores, dtype=_WALK_DTYPE)
        start = r.start + r.stride * np.arange(r.cores, dtype=np.int64)
        walks["start"] = start
        walks["pass_len"] = r.pass_len
        if r.pass_len == 0:
            walks["passes"], walks["last_len"] = 1, r.last_len
        else:
            # passes that start inside the tensor: later cores may stop sooner
            passes = np.minimum(r.passes, -(-(numel - start) // r.pass_len))
            walks["passes"] = passes
            walks["last_len"] = np.where(passes == r.passes, r.last_len, r.pass_len)
        parts.append(walks)
    return np.concatenate(parts) if parts else np.empty(0, dtype=_WALK_DTYPE)
