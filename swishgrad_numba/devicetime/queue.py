"""The event model of one launch: each core's tiles through the queues, GM bandwidth shared as transfers come and go.

Per core, tile ``k`` runs four stages, each on its own pipe, with ``B`` buffers per queue:

- SCALAR ``S_k`` (loop and queue bookkeeping) starts when ``S_{k-1}`` is done;
- CopyIn ``I_k`` (MTE2) starts when ``S_k`` and ``I_{k-1}`` are done and an input buffer is free
  (``C_{k-B}`` done: Compute is the input buffers' consumer);
- Compute ``C_k`` (VECTOR) starts when ``I_k`` has landed and ``C_{k-1}`` is done and an output buffer is free
  (``O_{k-B}`` landed: CopyOut is the output buffers' consumer);
- CopyOut ``O_k`` (MTE3) starts when ``C_k`` and ``O_{k-1}`` are done.

A transfer *lands* ``latency`` cycles after its pipe is done with it (the DMA's completion latency: the pipe is
free to issue the next transfer, but the data, and the flag that says so, arrive later); only a stage on another
pipe waits for that. A core ends when its last CopyOut has landed.

A transfer (CopyIn, CopyOut) is a fixed part (the DataCopy cost: it holds the pipe but moves no bytes) followed by
its bytes. Every transfer moving bytes, MTE2 and MTE3 of every core alike, shares the one GM bandwidth max-min
fairly (each gets the same share, no more than its core's own rate; what a capped transfer leaves goes to the
others), and the shares are recomputed whenever a transfer starts or ends moving bytes (a fluid model followed
event by event). A core ends with its last CopyOut.

Cores with the same tiles run in lockstep under this model, so they are simulated once, as one class of
``weight`` cores whose transfers count ``weight`` times in the sharing.
"""
from __future__ import annotations

import heapq

import numpy as np
from numba import njit

__all__ = ["PIPES", "schedule", "max_min_rates"]

#: The pipes, in the order of the schedule's columns (the msprof simulator's lane names).
PIPES = ("SCALAR", "MTE2", "VECTOR", "MTE3")


@njit(cache=True)
def max_min_rates(readers, writers, read_cap, write_cap, aggregate):
    """Max-min fair rate of one reading and one writing transfer when ``readers`` and ``writers`` transfers
    (counted with their weights) share ``aggregate`` bytes per cycle, each capped at its core's rate.
    Returns ``(read rate, write rate, saturated)``; ``saturated`` when the aggregate is what limits them."""
    if readers * read_cap + writers * write_cap <= aggregate:
        return read_cap, write_cap, False
    if writers == 0:
        return aggregate / readers, write_cap, True
    if readers == 0:
        return read_cap, aggregate / writers, True
    level = aggregate / (readers + writers)
    if level <= min(read_cap, write_cap):
        return level, level, True
    # the kind with the lower cap runs at its cap; the other shares what is left
    if read_cap <= write_cap:
        return read_cap, (aggregate - readers * read_cap) / writers, True
    return (aggregate - writers * write_cap) / readers, write_cap, True


@njit(cache=True)
def _stage_ready(done, landed, c, p, k, buffer_num):
    if p == 0:
        return True
    if p == 1:
        return done[c, 0] > k and done[c, 2] > k - buffer_num
    if p == 2:
        return landed[c, 0] > k and landed[c, 1] > k - buffer_num
    return done[c, 2] > k


@njit(cache=True)
def _run(offsets, weight, scalar, in_fixed, in_bytes, vec, out_fixed, out_bytes, buffer_num, read_cap, write_cap,
         aggregate, latency, starts, durations, class_end):
    """Follow every class's stages event by event; fill ``starts``/``durations`` (per tile, columns in
    :data:`PIPES` order) and ``class_end`` (cycles). Returns the cycles during which the aggregate limited."""
    n_cls = offsets.shape[0] - 1
    done = np.zeros((n_cls, 4), dtype=np.int64)       # stages completed per pipe
    busy = np.zeros((n_cls, 4), dtype=np.bool_)       # a stage is running on the pipe
    landed = np.zeros((n_cls, 2), dtype=np.int64)     # CopyIns, CopyOuts whose data have landed (latency after)
    pending = np.zeros((n_cls, 4))                    # bytes to move once the fixed part is over
    # progress[0]: bytes one reading transfer has moved since the start, progress[1]: one writing transfer (all
    # transfers of a kind move at the same rate, so a transfer ends when this reaches its target, which never moves)
    progress = np.zeros(2)
    # heaps: (end time, class, pipe) of fixed parts (pipe 4, 5: a CopyIn, CopyOut lands); (target progress, class)
    # of reads and of writes
    timed = [(0.0, 0, 0)]
    heapq.heappop(timed)
    reads = [(0.0, 0)]
    heapq.heappop(reads)
    writes = [(0.0, 0)]
    heapq.heappop(writes)
    touched = np.ones(n_cls, dtype=np.bool_)
    todo = list(range(n_cls))                         # classes whose pipes may start a stage
    movers = np.zeros(2)                              # weighted count of reading, writing transfers
    t = 0.0
    saturated_cycles = 0.0
    while True:
        while len(todo) > 0:
            c = todo.pop()
            touched[c] = False
            lo = offsets[c]
            n = offsets[c + 1] - lo
            changed = True
            while changed:
                changed = False
                for p in range(4):
                    k = done[c, p]
                    if busy[c, p] or k >= n or not _stage_ready(done, landed, c, p, k, buffer_num):
                        continue
                    tile = lo + k
                    starts[tile, p] = t
                    if p == 0:
                        fixed, nbytes = scalar[tile], 0.0
                    elif p == 1:
                        fixed, nbytes = in_fixed[tile], in_bytes[tile]
                    elif p == 2:
                        fixed, nbytes = vec[tile], 0.0
                    else:
                        fixed, nbytes = out_fixed[tile], out_bytes[tile]
                    if fixed > 0.0:
                        busy[c, p] = True
                        pending[c, p] = nbytes
                        heapq.heappush(timed, (t + fixed, c, p))
                    elif nbytes > 0.0:
                        busy[c, p] = True
                        if p == 1:
                            heapq.heappush(reads, (progress[0] + nbytes, c))
                            movers[0] += weight[c]
                        else:
                            heapq.heappush(writes, (progress[1] + nbytes, c))
                            movers[1] += weight[c]
                    else:                             # nothing to do, nothing to land
                        durations[tile, p] = 0.0
                        done[c, p] = k + 1
                        if p == 1 or p == 3:
                            landed[c, p // 2] += 1
                        if p == 3 and k + 1 == n:
                            class_end[c] = t
                        changed = True
        read_rate, write_rate, saturated = max_min_rates(movers[0], movers[1], read_cap, write_cap, aggregate)
        t_next = np.inf
        first = -1                                    # what ends first: 0 a fixed part, 1 a read, 2 a write
        if len(timed) > 0:
            t_next, first = timed[0][0], 0
        if len(reads) > 0:
            t_read = t + (reads[0][0] - progress[0]) / read_rate
            if t_read < t_next:
                t_next, first = t_read, 1
        if len(writes) > 0:
            t_write = t + (writes[0][0] - progress[1]) / write_rate
            if t_write < t_next:
                t_next, first = t_write, 2
        if first < 0:
            break
        span = t_next - t
        if movers[0] > 0:
            progress[0] += read_rate * span
        if movers[1] > 0:
            progress[1] += write_rate * span
        # the transfer that ends the interval ends exactly (no rounding left to chase)
        if first == 1:
            progress[0] = max(progress[0], reads[0][0])
        elif first == 2:
            progress[1] = max(progress[1], writes[0][0])
        if saturated:
            saturated_cycles += span
        t = t_next
        while len(timed) > 0 and timed[0][0] <= t:
            _end, c, p = heapq.heappop(timed)
            if p >= 4:                                # a transfer lands
                q = p - 4
                landed[c, q] += 1
                if q == 1 and landed[c, 1] == offsets[c + 1] - offsets[c]:
                    class_end[c] = t
                if not touched[c]:
                    touched[c] = True
                    todo.append(c)
            elif pending[c, p] > 0.0:                 # the fixed part is over: now the bytes
                q = 0 if p == 1 else 1
                if q == 0:
                    heapq.heappush(reads, (progress[0] + pending[c, p], c))
                else:
                    heapq.heappush(writes, (progress[1] + pending[c, p], c))
                movers[q] += weight[c]
            else:
                _finish(c, p, t, offsets, done, busy, starts, durations, touched, todo, timed, latency)
        while len(reads) > 0 and reads[0][0] - progress[0] <= 1e-12 * max(reads[0][0], 1.0):
            _target, c = heapq.heappop(reads)
            movers[0] -= weight[c]
            _finish(c, 1, t, offsets, done, busy, starts, durations, touched, todo, timed, latency)
        while len(writes) > 0 and writes[0][0] - progress[1] <= 1e-12 * max(writes[0][0], 1.0):
            _target, c = heapq.heappop(writes)
            movers[1] -= weight[c]
            _finish(c, 3, t, offsets, done, busy, starts, durations, touched, todo, timed, latency)
        if len(reads) == 0:
            movers[0] = 0.0                           # no rounding left over in the weighted counts
        if len(writes) == 0:
            movers[1] = 0.0
    return saturated_cycles


@njit(cache=True)
def _finish(c, p, t, offsets, done, busy, starts, durations, touched, todo, timed, latency):
    k = done[c, p]
    tile = offsets[c] + k
    durations[tile, p] = t - starts[tile, p]
    busy[c, p] = False
    done[c, p] = k + 1
    if p == 1 or p == 3:                              # the transfer lands ``latency`` later (a timed event)
        heapq.heappush(timed, (t + latency, c, 4 + p // 2))
    if not touched[c]:
        touched[c] = True
        todo.append(c)


def schedule(stages, weight, buffer_num: int, read_rate: float, write_rate: float, aggregate: float,
             latency: float = 0.0):
    """Run the model (rates in bytes per cycle: one core's read and write caps, the shared aggregate; ``latency``:
    cycles from a transfer's end on its pipe to its data landing).

    ``stages`` is a dict of float64 arrays (``offsets`` int64 over the distinct cores; ``scalar``, ``in_fixed``,
    ``in_bytes``, ``vec``, ``out_fixed``, ``out_bytes`` per tile, cycles and bytes); ``weight`` (int64) is how many
    cores run each distinct core. Returns ``(class_end, starts, durations, saturated_cycles)``.
    """
    n_tiles = stages["vec"].shape[0]
    n_cls = stages["offsets"].shape[0] - 1
    starts = np.zeros((n_tiles, 4))
    durations = np.zeros((n_tiles, 4))
    class_end = np.zeros(n_cls)
    saturated = _run(stages["offsets"], np.asarray(weight, dtype=np.float64), stages["scalar"], stages["in_fixed"],
                     stages["in_bytes"], stages["vec"], stages["out_fixed"], stages["out_bytes"], np.int64(buffer_num),
                     float(read_rate), float(write_rate), float(aggregate), float(latency), starts, durations,
                     class_end)
    return class_end, starts, durations, float(saturated)
