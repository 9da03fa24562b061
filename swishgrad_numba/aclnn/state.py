"""The aclnn layer's module state: the emulated platform, and the last error message of each thread.

The C API takes no platform (the device's SoC decides), so the platform is
selected here once: :func:`set_platform`. Every failing entry point records
a message with :func:`fail` that :func:`aclGetRecentErrMsg` hands back.
"""
from __future__ import annotations

import threading

from ..platform import REFERENCE_PLATFORM, Platform
from ..runtime import ChildRenewedLock

__all__ = ["set_platform", "get_platform", "aclGetRecentErrMsg"]

# Guards the platform and the default stream (:mod:`.device`).
STATE_LOCK = ChildRenewedLock()   # a forked child gets its own (runtime)
_platform = REFERENCE_PLATFORM
_errmsg = threading.local()


def set_platform(platform: Platform) -> Platform:
    """Select the emulated platform for later ``GetWorkspaceSize`` calls; returns the previous one.

    The platform decides the kernel (an Ascend 950 SoC runs the arch35 kernel,
    which accepts ``ACL_FORMAT_ND`` storage only), the tiling, the workspace
    size reported and whether bfloat16 is accepted
    (``Platform.supports_bfloat16``). The C API has no such argument: the
    device's SoC decides.
    """
    global _platform
    if not isinstance(platform, Platform):
        raise TypeError(f"platform must be a Platform, got {type(platform).__name__}")
    with STATE_LOCK:
        previous, _platform = _platform, platform
    return previous


def get_platform() -> Platform:
    """The platform ``GetWorkspaceSize`` currently uses (the A2 reference platform (model section 3) by default)."""
    return _platform


def fail(status, message: str):
    """Record ``message`` as this thread's last error and return ``status``."""
    _errmsg.value = message
    return status


def aclGetRecentErrMsg():
    """Message of the last failure in this thread, or ``None``; reading it clears it."""
    message = getattr(_errmsg, "value", None)
    _errmsg.value = None
    return message
