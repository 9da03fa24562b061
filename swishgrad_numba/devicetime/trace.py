"""An estimate as a Chrome Trace Event file (Perfetto UI, chrome://tracing) and as a Gantt chart.

One process per core (pid = core + 1; pid 0 is the launch's head overhead), one thread per pipe named as the
msprof simulator names its lanes, one complete ("X") event per stage and tile; times in microseconds from the
launch's start. Each pipe's events add up to that core's busy time for the pipe.
"""
from __future__ import annotations

import json

import numpy as np

from .queue import PIPES

__all__ = ["STAGE_NAMES", "MAX_TRACE_EVENTS", "trace_event_count", "trace_events", "write_trace", "plot_gantt"]

#: The most complete events a trace holds by default (about 160 bytes each on disk: some 160 MB; viewers slow
#: down well before); ``write_trace(..., max_events=...)`` raises it.
MAX_TRACE_EVENTS = 1_000_000
# Bytes of one event on disk, roughly (for the refusal's message).
_EVENT_BYTES = 160

#: The stage each pipe runs, by pipe.
STAGE_NAMES = {"SCALAR": "Bookkeeping", "MTE2": "CopyIn", "VECTOR": "Compute", "MTE3": "CopyOut"}
_COLOURS = {"SCALAR": "tab:gray", "MTE2": "tab:blue", "VECTOR": "tab:orange", "MTE3": "tab:green"}


def trace_events(est):
    """The trace's events, one dict at a time (metadata first)."""
    yield {"ph": "M", "pid": 0, "name": "process_name", "args": {"name": "launch"}}
    yield {"ph": "M", "pid": 0, "tid": 0, "name": "thread_name", "args": {"name": "head"}}
    yield {"ph": "X", "pid": 0, "tid": 0, "name": "head overhead", "ts": 0.0, "dur": est.head_us, "args": {}}
    for core in range(est.n_cores):
        pid = core + 1
        yield {"ph": "M", "pid": pid, "name": "process_name", "args": {"name": f"core {core}"}}
        yield {"ph": "M", "pid": pid, "name": "process_sort_index", "args": {"sort_index": pid}}
        for tid, pipe in enumerate(PIPES):
            yield {"ph": "M", "pid": pid, "tid": tid, "name": "thread_name", "args": {"name": pipe}}
    # the distinct cores' schedules, repeated for each core that runs one
    starts = (est.class_starts_us + est.head_us).tolist()
    durations = est.class_durations_us.tolist()
    tiles = est.class_tiles.tolist()
    nbytes = est.class_tiles * est.itemsize
    nbytes = ((nbytes + 31) // 32 * 32).tolist()
    offsets = est.class_offsets
    for core, cls in enumerate(est.classes.tolist()):
        lo, hi = int(offsets[cls]), int(offsets[cls + 1])
        for t in range(lo, hi):
            args = {"tile": t - lo, "elements": tiles[t], "bytes": nbytes[t]}
            for tid, pipe in enumerate(PIPES):
                yield {"ph": "X", "pid": core + 1, "tid": tid, "name": STAGE_NAMES[pipe],
                       "ts": starts[t][tid], "dur": durations[t][tid], "args": args}


def trace_event_count(est) -> int:
    """The complete events a trace of ``est`` holds: the head and one per stage of every core's tiles."""
    return 1 + 4 * int(np.diff(est.class_offsets)[est.classes].sum())


def write_trace(est, path, max_events: int = MAX_TRACE_EVENTS) -> None:
    """Write ``est`` as a Chrome Trace Event JSON object (``{"traceEvents": [...]}``) to ``path``.

    Raises
    ------
    ValueError
        The trace would hold more than ``max_events`` events (nothing is written).
    OSError
        The file cannot be written (full disk, not a writable file).
    """
    count = trace_event_count(est)
    if count > max_events:
        raise ValueError(f"the trace would hold {count} events (about {count * _EVENT_BYTES / 1e6:.0f} MB), "
                         f"more than the "
                         f"{max_events} allowed; trace a smaller launch, or raise max_events")
    with open(path, "w", encoding="utf-8") as fh:
        fh.write('{"displayTimeUnit": "ns", "otherData": ')
        json.dump({"duration_us": est.duration_us, "bottleneck": est.bottleneck, "label": est.label,
                   "valid": est.valid}, fh, allow_nan=False)
        fh.write(', "traceEvents": [\n')
        first = True
        for event in trace_events(est):
            if not first:
                fh.write(",\n")
            json.dump(event, fh, allow_nan=False)     # strict JSON: no Infinity or NaN
            first = False
        fh.write("\n]}\n")


def plot_gantt(est, ax=None, max_cores: int = 64):
    """A Gantt chart of the launch: one row per pipe of each core (at most ``max_cores`` cores)."""
    import matplotlib.pyplot as plt

    if ax is None:
        _, ax = plt.subplots(figsize=(10, 1 + 0.5 * min(est.n_cores, max_cores)))
    starts = est.class_starts_us + est.head_us
    shown = min(est.n_cores, max_cores)
    ticks, labels = [], []
    for core in range(shown):
        cls = int(est.classes[core])
        lo, hi = int(est.class_offsets[cls]), int(est.class_offsets[cls + 1])
        for tid, pipe in enumerate(PIPES):
            y = core * (len(PIPES) + 1) + tid
            spans = np.column_stack([starts[lo:hi, tid], est.class_durations_us[lo:hi, tid]])
            spans = spans[spans[:, 1] > 0]
            ax.broken_barh(spans, (y, 0.8), facecolors=_COLOURS[pipe],
                           label=STAGE_NAMES[pipe] if core == 0 else None)
            if tid == 1:
                ticks.append(y)
                labels.append(f"core {core}")
    ax.axvspan(0, est.head_us, color="0.9", label="head overhead")
    ax.set_yticks(ticks)
    ax.set_yticklabels(labels)
    ax.invert_yaxis()
    ax.set_xlabel("time (us)")
    ax.set_title(f"{est.label}: {est.duration_us:.2f} us, bound by {est.bottleneck}")
    ax.legend(loc="upper right", fontsize="small")
    return ax
