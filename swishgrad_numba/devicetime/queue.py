"""The discrete-event model of one launch: each core's tiles through the queues, and the shared bandwidth.

Per core, tile ``k`` runs four stages, each on its own pipe, with ``B`` buffers per queue:

- SCALAR ``S_k`` (loop and queue bookkeeping) starts when ``S_{k-1}`` is done;
- CopyIn ``I_k`` (MTE2) starts when ``S_k`` and ``I_{k-1}`` are done and an input buffer is free
  (``C_{k-B}`` done: Compute is the input buffers' consumer);
- Compute ``C_k`` (VECTOR) starts when ``I_k`` and ``C_{k-1}`` are done and an output buffer is free
  (``O_{k-B}`` done: CopyOut is the output buffers' consumer);
- CopyOut ``O_k`` (MTE3) starts when ``C_k`` and ``O_{k-1}`` are done.

A core ends with its last CopyOut. Transfers move at the per-core rates scaled by one factor ``sigma <= 1``,
the same for every core: the largest for which the launch's bytes over its duration stay within the aggregate
bandwidth. By Little's law that is the aggregate rate shared among the transfers in flight on average; a
launch that cannot stay within it runs at exactly ``bytes / aggregate`` (this averages the sharing over the
launch instead of following it instant by instant: a stated simplification).
"""
from __future__ import annotations

import numpy as np
from numba import njit

__all__ = ["PIPES", "schedule", "settle_bandwidth"]

#: The pipes, in the order of the schedule's columns (the msprof simulator's lane names).
PIPES = ("SCALAR", "MTE2", "VECTOR", "MTE3")


@njit(cache=True)
def _run(offsets, scalar, in_fixed, in_bytes, vec, out_fixed, out_bytes, buffer_num, read_rate, write_rate,
         record, starts, durations, core_end):
    """Walk every core's tiles through the queues; fill ``core_end`` (cycles) and, when ``record``, the
    per-tile ``starts``/``durations`` (columns in :data:`PIPES` order)."""
    n_cores = offsets.shape[0] - 1
    # ring buffers of the last buffer_num Compute and CopyOut ends of the current core
    c_ring = np.zeros(buffer_num)
    o_ring = np.zeros(buffer_num)
    for core in range(n_cores):
        lo = offsets[core]
        hi = offsets[core + 1]
        c_ring[:] = 0.0
        o_ring[:] = 0.0
        s_end = 0.0
        i_end = 0.0
        c_end = 0.0
        o_end = 0.0
        for t in range(lo, hi):
            slot = (t - lo) % buffer_num
            d_s = scalar[t]
            d_i = in_fixed[t] + in_bytes[t] / read_rate
            d_c = vec[t]
            d_o = out_fixed[t] + out_bytes[t] / write_rate
            s0 = s_end
            s_end = s0 + d_s
            i0 = max(s_end, i_end, c_ring[slot])
            i_end = i0 + d_i
            c0 = max(i_end, c_end, o_ring[slot])
            c_end = c0 + d_c
            o0 = max(c_end, o_end)
            o_end = o0 + d_o
            c_ring[slot] = c_end
            o_ring[slot] = o_end
            if record:
                starts[t, 0] = s0
                starts[t, 1] = i0
                starts[t, 2] = c0
                starts[t, 3] = o0
                durations[t, 0] = d_s
                durations[t, 1] = d_i
                durations[t, 2] = d_c
                durations[t, 3] = d_o
        core_end[core] = o_end


def schedule(stages, buffer_num: int, read_rate: float, write_rate: float, record: bool):
    """Run the queue model at the given per-core rates (bytes per cycle).

    ``stages`` is a dict of float64 arrays (``offsets`` int64; ``scalar``, ``in_fixed``, ``in_bytes``, ``vec``,
    ``out_fixed``, ``out_bytes`` per tile, cycles and bytes). Returns ``(core_end, starts, durations)``; the
    last two are empty unless ``record``.
    """
    n_tiles = stages["vec"].shape[0]
    n_cores = stages["offsets"].shape[0] - 1
    rows = n_tiles if record else 0
    starts = np.zeros((rows, 4))
    durations = np.zeros((rows, 4))
    core_end = np.zeros(n_cores)
    _run(stages["offsets"], stages["scalar"], stages["in_fixed"], stages["in_bytes"], stages["vec"],
         stages["out_fixed"], stages["out_bytes"], np.int64(buffer_num), float(read_rate), float(write_rate),
         record, starts, durations, core_end)
    return core_end, starts, durations


def settle_bandwidth(stages, buffer_num: int, read_rate: float, write_rate: float, aggregate_bytes_per_cycle: float,
                     total_bytes: float) -> float:
    """The rate factor ``sigma`` in (0, 1] (see the module docstring), found by bisection on ``log sigma``."""
    def span(sigma):
        core_end, _, _ = schedule(stages, buffer_num, read_rate * sigma, write_rate * sigma, False)
        return core_end.max() if core_end.size else 0.0

    if total_bytes <= 0 or total_bytes <= aggregate_bytes_per_cycle * span(1.0):
        return 1.0
    def excess(x):
        # log of demand over supply; increasing in x = log sigma, 0 at the answer
        return np.log(total_bytes) - np.log(aggregate_bytes_per_cycle * span(np.exp(x)))

    hi, g_hi = 0.0, excess(0.0)             # g_hi > 0
    lo, g_lo = -1.0, excess(-1.0)
    while g_lo > 0.0:                       # walk down until feasible
        hi, g_hi = lo, g_lo
        lo, g_lo = lo - 2.0, excess(lo - 2.0)
    side = 0
    for _ in range(100):                    # Illinois regula falsi, keeping lo feasible
        if hi - lo < 1e-13 or g_lo == 0.0:
            break
        x = (lo * g_hi - hi * g_lo) / (g_hi - g_lo)
        if not lo < x < hi:
            x = 0.5 * (lo + hi)
        g = excess(x)
        if abs(g) < 1e-14:
            lo = x
            break
        if g <= 0.0:
            lo, g_lo = x, g
            if side == -1:
                g_hi *= 0.5
            side = -1
        else:
            hi, g_hi = x, g
            if side == 1:
                g_lo *= 0.5
            side = 1
    return float(np.exp(lo))
