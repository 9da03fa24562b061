"""Medians of calls timed round-robin, so that a shared machine's drift hits every implementation alike."""
from __future__ import annotations

import statistics
import time

__all__ = ["TURN_PAUSE", "time_call", "time_interleaved"]

#: Seconds of sleep between turns of the round-robin timing, so that one
#: implementation's spinning worker threads (OpenMP's, Numba's) are idle
#: before the next is timed.
TURN_PAUSE = 0.002
# A repeat never loops more calls than this.
_MAX_NUMBER = 1 << 20


def _calibrate(fn, min_time: float) -> int:
    """Calls per repeat so that one repeat of ``fn()`` lasts ``min_time``."""
    number = 1
    while True:
        t0 = time.perf_counter()
        for _ in range(number):
            fn()
        elapsed = time.perf_counter() - t0
        if elapsed >= min_time or number >= _MAX_NUMBER:
            return number
        number = min(_MAX_NUMBER, max(2 * number, int(number * min_time / max(elapsed, 1e-9) * 1.2)))


def time_interleaved(fns: dict, repeat: int = 5, min_time: float = 0.02, pause: float = 0.0,
                     setups: dict | None = None) -> dict:
    """Median seconds per call of each ``fns[key]()``, timed round-robin.

    The turns alternate direction: ``fns``' order on even repeats, the
    reverse on odd ones, so that no function always runs right after the
    same other one (a peer whose worker threads keep spinning after a call
    slows whatever follows it).

    Each function gets one warm-up call and a calibrated ``number`` of calls
    per repeat (so that a repeat lasts at least ``min_time``); then the
    repeats take turns: one repeat of every function, ``repeat`` times. On a
    shared machine whose speed drifts, every function sees the same drift,
    so ratios of their medians stay fair. ``pause`` seconds of sleep between
    turns let the previous function's worker threads go idle;
    ``setups[key]()``, when given, runs untimed before each turn of ``key``
    (and before its warm-up), for example to set a thread count.

    Returns
    -------
    dict
        ``{key: {"seconds": median, "min_seconds", "number", "repeat"}}``.
    """
    if repeat < 1:
        raise ValueError(f"repeat must be >= 1, got {repeat}")
    setups = setups or {}
    numbers = {}
    for key, fn in fns.items():
        if key in setups:
            setups[key]()
        fn()
        numbers[key] = _calibrate(fn, min_time)
    samples = {key: [] for key in fns}
    order = list(fns.items())
    for turn in range(repeat):
        for key, fn in (order if turn % 2 == 0 else order[::-1]):
            if key in setups:
                setups[key]()
            if pause:
                time.sleep(pause)
            number = numbers[key]
            t0 = time.perf_counter()
            for _ in range(number):
                fn()
            samples[key].append((time.perf_counter() - t0) / number)
    return {key: {"seconds": statistics.median(samples[key]), "min_seconds": min(samples[key]),
                  "number": numbers[key], "repeat": repeat} for key in fns}


def time_call(fn, repeat: int = 5, min_time: float = 0.02) -> dict:
    """Median seconds per call of ``fn()``: :func:`time_interleaved` of one function."""
    return time_interleaved({"fn": fn}, repeat, min_time)["fn"]
