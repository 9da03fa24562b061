"""The emulated device: ACL initialisation, devices, streams and memory.

Each stream runs its launches in order, on the threads that launch on it or
synchronize it (:class:`aclrtStream`); ``None`` is the default stream, made
on first use. "Device memory" is host memory: a
NumPy ``uint8`` array from :func:`aclrtMalloc`.
"""
from __future__ import annotations

import collections
import os
import threading

import numpy as np

from ..platform import ARCH_950
from .enums import (
    ACL_ERROR_INVALID_PARAM,
    ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
    ACL_RT_OVERFLOW_MODE_INFNAN,
    ACL_RT_OVERFLOW_MODE_SATURATION,
    OVERFLOW_MODE_NAMES,
    ACL_ERROR_RT_INTERNAL_ERROR,
    ACL_ERROR_RT_MEMORY_ALLOCATION,
    ACL_ERROR_RT_PARAM_INVALID,
    ACL_MEM_MALLOC_HUGE_FIRST,
    ACL_SUCCESS,
    INTP_MAX,
    MALLOC_POLICIES,
    MEMCPY_KINDS,
    enum_error,
    is_int,
    is_known,
)
from ..runtime import ChildRenewedLock
from .state import STATE_LOCK, fail, get_platform

__all__ = [
    "aclrtStream", "aclInit", "aclFinalize", "aclrtSetDevice", "aclrtResetDevice",
    "aclrtCreateStream", "aclrtSynchronizeStream", "aclrtDestroyStream", "aclrtMalloc", "aclrtFree", "aclrtMemcpy",
    "aclrtSetDeviceSatMode", "aclrtGetDeviceSatMode",
]


class aclrtStream:
    """A stream: launches queued on it run in order, one at a time, each once, on the threads that use it. A
    launch on an idle stream runs on the launching thread before the launch returns; one queued while another
    thread runs the stream's launches is run by that thread, after the ones before it, or by a thread that
    synchronizes the stream.

    The emulator starts no thread of its own. A Python thread woken while the caller's thread runs wants the
    GIL, and until it gets it every GIL release of the caller's wakes it in vain: a stream worker thread that
    woke on a launch or a timeout made the caller's next 4,096-element calls run 20-25 us slower for 50-150 ms
    (bench/RESULTS.md, nothread). The device's time (``device_time``) is modelled apart, so running a launch
    on the caller's thread changes no result and no estimate: results are defined after
    ``aclrtSynchronizeStream``, as on the device.

    ``overflow_mode`` is the device's float overflow mode when the stream was
    created (``aclrtSetDeviceSatMode`` applies to streams created after it).
    """

    def __init__(self):
        self.overflow_mode = OVERFLOW_MODE_NAMES[_device_sat_mode]
        self.destroyed = False
        self._reset()

    def _reset(self):
        self._jobs: collections.deque = collections.deque()
        self._changed = threading.Condition(threading.Lock())   # guards the jobs, _running and _errors
        self._running = False       # a thread is running one of the stream's launches
        self._errors: list = []
        self._pid = os.getpid()

    def _own_state(self):
        # A forked child has a copy of the stream but not the thread that was running its launches (nor, maybe,
        # a usable copy of its lock): it starts afresh. Launches the parent queued and had not run stay the
        # parent's.
        if self._pid != os.getpid():
            with _RESTART_LOCK:
                if self._pid != os.getpid():
                    self._reset()

    def _next(self):
        """The next launch, now marked running (called with the lock held), or None where one is running or none
        is queued."""
        if self._running or not self._jobs:
            return None
        self._running = True
        return self._jobs.popleft()

    def _run_queued(self, job=None) -> None:
        """Run the stream's queued launches on this thread until none is left or another thread runs one;
        ``job``: first queue it. A failed launch's error is kept for the next synchronize (an interrupt
        propagates)."""
        if job is not None:
            with self._changed:
                self._jobs.append(job)
        while True:
            with self._changed:
                job = self._next()
                if job is None:
                    return
            error = None
            try:
                job()
            except Exception as exc:
                error = exc
            finally:
                with self._changed:
                    if error is not None:
                        self._errors.append(f"{type(error).__name__}: {error}")
                    self._running = False
                    self._changed.notify_all()      # threads synchronizing the stream

    def _submit(self, job) -> None:
        self._own_state()
        self._run_queued(job)

    def _synchronize(self) -> list:
        """Run or wait for every queued launch; the errors of those that failed since the last synchronize."""
        self._own_state()
        while True:
            self._run_queued()
            with self._changed:
                if not self._running and not self._jobs:
                    errors, self._errors = self._errors, []
                    return errors
                if self._running:
                    self._changed.wait()

    def _close(self) -> list:
        errors = self._synchronize()
        self.destroyed = True
        return errors

    def __repr__(self):
        return f"aclrtStream({'destroyed' if self.destroyed else 'live'})"


_default_stream: aclrtStream | None = None
_RESTART_LOCK = ChildRenewedLock()
# The device's float overflow mode (aclrtFloatOverflowMode) for streams created from now on.
_device_sat_mode = ACL_RT_OVERFLOW_MODE_INFNAN


def resolve_stream(stream):
    """The stream for a C stream argument (``None`` = the default stream), or an error string."""
    global _default_stream
    if stream is None:
        with STATE_LOCK:
            if _default_stream is None:
                _default_stream = aclrtStream()
            return _default_stream
    if not isinstance(stream, aclrtStream):
        return f"stream must be an aclrtStream or None (the default stream), got {type(stream).__name__}"
    if stream.destroyed:
        return "stream was destroyed by aclrtDestroyStream"
    return stream


def aclInit(config_path=None) -> int:
    """Initialise ACL (nothing to do on the CPU)."""
    return ACL_SUCCESS


def aclFinalize() -> int:
    """Finalise ACL (nothing to do on the CPU)."""
    return ACL_SUCCESS


def aclrtSetDevice(device_id) -> int:
    """Select a device; every non-negative id maps to the one emulated device."""
    if not is_int(device_id) or device_id < 0:
        return fail(ACL_ERROR_INVALID_PARAM, f"aclrtSetDevice: device_id must be an integer >= 0, got {device_id!r}")
    return ACL_SUCCESS


def aclrtResetDevice(device_id) -> int:
    """Release a device (nothing to do on the CPU)."""
    return aclrtSetDevice(device_id)


def aclrtCreateStream():
    """Create a stream; returns ``(status, stream)``."""
    return ACL_SUCCESS, aclrtStream()


def aclrtSynchronizeStream(stream) -> int:
    """Wait until every launch queued on ``stream`` (``None``: the default stream) has finished.

    Returns ``ACL_ERROR_RT_INTERNAL_ERROR`` if a launch failed while running.
    """
    s = resolve_stream(stream)
    if isinstance(s, str):
        return fail(ACL_ERROR_RT_PARAM_INVALID, f"aclrtSynchronizeStream: {s}")
    errors = s._synchronize()
    if errors:
        return fail(ACL_ERROR_RT_INTERNAL_ERROR, "aclrtSynchronizeStream: a launch failed: " + "; ".join(errors))
    return ACL_SUCCESS


def aclrtDestroyStream(stream) -> int:
    """Finish the launches queued on ``stream``, then destroy it."""
    if stream is None or not isinstance(stream, aclrtStream):
        return fail(ACL_ERROR_RT_PARAM_INVALID, f"aclrtDestroyStream: stream must be an aclrtStream, "
                                                 f"got {type(stream).__name__}")
    if stream.destroyed:
        return fail(ACL_ERROR_RT_PARAM_INVALID, "aclrtDestroyStream: stream was already destroyed")
    errors = stream._close()
    if errors:
        return fail(ACL_ERROR_RT_INTERNAL_ERROR, "aclrtDestroyStream: a launch failed: " + "; ".join(errors))
    return ACL_SUCCESS


def aclrtMalloc(size, policy=ACL_MEM_MALLOC_HUGE_FIRST):
    """Allocate ``size`` bytes of emulated device memory; returns ``(status, buffer)``.

    The buffer is a zero-filled 1-D ``uint8`` array (``aclCreateTensor``
    reinterprets it as the tensor's dtype). ``ACL_ERROR_RT_MEMORY_ALLOCATION``
    when the host cannot allocate it.
    """
    if not is_int(size) or size <= 0:
        return fail(ACL_ERROR_INVALID_PARAM, f"aclrtMalloc: size must be an integer > 0, got {size!r}"), None
    if not is_known(policy, MALLOC_POLICIES):
        return fail(ACL_ERROR_INVALID_PARAM,
                     f"aclrtMalloc: {enum_error(policy, 'policy', 'aclrtMemMallocPolicy')}"), None
    if size > INTP_MAX:
        return fail(ACL_ERROR_INVALID_PARAM, f"aclrtMalloc: size {size} exceeds the {INTP_MAX} bytes NumPy can "
                                              f"address"), None
    try:
        return ACL_SUCCESS, np.zeros(int(size), dtype=np.uint8)
    except MemoryError:
        return fail(ACL_ERROR_RT_MEMORY_ALLOCATION, f"aclrtMalloc: cannot allocate {size} bytes"), None


def aclrtFree(buffer) -> int:
    """Free emulated device memory (Python frees it when the last reference goes)."""
    if not isinstance(buffer, np.ndarray):
        return fail(ACL_ERROR_INVALID_PARAM, f"aclrtFree: buffer must be a numpy.ndarray, got {type(buffer).__name__}")
    return ACL_SUCCESS


def aclrtMemcpy(dst, dest_max, src, count, kind) -> int:
    """Copy ``count`` bytes from ``src`` into ``dst`` (both C-contiguous arrays), synchronously.

    ``count`` must not exceed ``dest_max``, ``dst.nbytes`` or ``src.nbytes``.
    """
    where = "aclrtMemcpy"
    if not is_known(kind, MEMCPY_KINDS):
        return fail(ACL_ERROR_INVALID_PARAM, f"{where}: {enum_error(kind, 'kind', 'aclrtMemcpyKind')}")
    for name, arr in (("dst", dst), ("src", src)):
        if not isinstance(arr, np.ndarray) or not arr.flags.c_contiguous:
            return fail(ACL_ERROR_INVALID_PARAM, f"{where}: {name} must be a C-contiguous numpy.ndarray")
    for name, v in (("dest_max", dest_max), ("count", count)):
        if not is_int(v) or v < 0:
            return fail(ACL_ERROR_INVALID_PARAM, f"{where}: {name} must be an integer >= 0, got {v!r}")
    if dest_max > dst.nbytes:
        return fail(ACL_ERROR_INVALID_PARAM, f"{where}: dest_max {dest_max} exceeds dst's {dst.nbytes} bytes")
    if count > dest_max or count > src.nbytes:
        return fail(ACL_ERROR_INVALID_PARAM, f"{where}: count {count} exceeds dest_max {dest_max} "
                                              f"or src's {src.nbytes} bytes")
    if not dst.flags.writeable:
        return fail(ACL_ERROR_INVALID_PARAM, f"{where}: dst is read-only")
    dst.reshape(-1).view(np.uint8)[:count] = src.reshape(-1).view(np.uint8)[:count]
    return ACL_SUCCESS


def aclrtSetDeviceSatMode(mode) -> int:
    """Set the device's float overflow mode for streams created from now on (model section 2, overflow modes).

    ``ACL_RT_OVERFLOW_MODE_INFNAN`` (IEEE 754, the default) or
    ``ACL_RT_OVERFLOW_MODE_SATURATION`` (every instruction's infinite result
    becomes the largest finite value, a NaN result 0). Streams created
    before the call keep their mode, as CANN documents; the default stream
    takes the mode in force when it is first used. The Ascend 950 has the
    Inf/NaN mode only: saturation there is ``ACL_ERROR_RT_FEATURE_NOT_SUPPORT``.
    """
    global _device_sat_mode
    if not is_known(mode, OVERFLOW_MODE_NAMES):
        return fail(ACL_ERROR_INVALID_PARAM, f"aclrtSetDeviceSatMode: mode must be ACL_RT_OVERFLOW_MODE_SATURATION "
                                              f"(0) or ACL_RT_OVERFLOW_MODE_INFNAN (1), got {mode!r}")
    platform = get_platform()
    if mode == ACL_RT_OVERFLOW_MODE_SATURATION and platform.architecture == ARCH_950:
        return fail(ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
                     f"aclrtSetDeviceSatMode: the Ascend 950 (platform soc_version {platform.soc_version!r}) "
                     f"supports ACL_RT_OVERFLOW_MODE_INFNAN only")
    with STATE_LOCK:
        _device_sat_mode = int(mode)
    return ACL_SUCCESS


def aclrtGetDeviceSatMode():
    """The device's current float overflow mode: ``(ACL_SUCCESS, mode)``."""
    return ACL_SUCCESS, _device_sat_mode
