"""How the package runs on Numba: where compiled code is cached, which
threading layer runs the parallel kernels, and the lock that serialises
launches where that layer needs it. Imported first by the package, before
any kernel compiles.

Where compiled code is cached, and how a cache folder is checked, is
:mod:`swishgrad_numba.disk_cache`; this module installs it before anything
else of the package is imported.

**The threading layer is TBB where it can load, else workqueue**, unless
``NUMBA_THREADING_LAYER`` says otherwise (``tbb``, ``safe`` and
``threadsafe`` get the wheel's TBB too; a forced ``omp`` warns once that
forked children can hang). Numba's own default order is tbb,
omp, workqueue, but pip's ``tbb`` wheel puts ``libtbb.so.12`` in
``<prefix>/lib``, where the dynamic loader does not look, so Numba misses
it; this module loads it from there first (by the wheel's own file list).
TBB is both thread-safe and fork-safe, and its work stealing keeps both
threads of a small launch busy. Without it, with PyTorch installed, Numba
would pick GNU OpenMP, which kills a forked child that runs parallel code
after its parent did ("fork() called from a process already using GNU
OpenMP"); DataLoader workers fork, so that matters. workqueue, the
fallback, is fork-safe but not thread-safe: two Python threads must not
launch parallel code at once, hence :func:`launch_guard`.

**The lock survives fork.** A child forked while another thread of the
parent held it would inherit it held forever; an after-fork hook gives the
child a fresh one.
"""
from __future__ import annotations

import contextlib
import ctypes
import os
import sys
import threading
import warnings
import weakref
from importlib import metadata

import numba
from numba.core import config
from numba.np.ufunc import parallel as _parallel   # imported by numba itself

from . import disk_cache, label_guard

__all__ = ["launch_guard", "launch_lock", "threading_layer", "num_threads", "PACKAGE_DIR"]

# The cache's names the package and its tests reach through this module.
PACKAGE_DIR = disk_cache.PACKAGE_DIR
PackageCacheLocator = disk_cache.PackageCacheLocator
UnsafeCacheFolder = disk_cache.UnsafeCacheFolder
STALE_VERSION_SECONDS = disk_cache.STALE_VERSION_SECONDS
package_source_stamp = disk_cache.package_source_stamp


def _load_pip_tbb() -> bool:
    """Load the TBB library of pip's ``tbb`` wheel so that Numba finds it by name."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        dist = metadata.distribution("tbb")
    except metadata.PackageNotFoundError:
        return False
    for f in dist.files or ():
        if f.name == "libtbb.so.12":
            try:
                ctypes.CDLL(str(dist.locate_file(f)), mode=ctypes.RTLD_GLOBAL)
                # Numba's own checks: a new enough TBB, and its pool module loads.
                from numba.np.ufunc import parallel
                parallel._check_tbb_version_compatible()
                from numba.np.ufunc import tbbpool  # noqa: F401
            except Exception:  # any failure: fall back to workqueue
                return False
            return True
    return False


# The layers Numba may run TBB for, by the name the user gives.
_TBB_CHOICES = ("default", "tbb", "safe", "threadsafe")


def _choose_threading_layer() -> None:
    """Load the wheel's TBB wherever Numba may pick TBB; where the user left
    the choice to us, pick TBB (else workqueue, never OpenMP)."""
    from numba.np.ufunc import parallel

    if parallel._is_initialized:
        return
    explicit = "NUMBA_THREADING_LAYER" in os.environ or config.THREADING_LAYER != "default"
    if str(config.THREADING_LAYER) not in _TBB_CHOICES:
        return
    have_tbb = _load_pip_tbb()
    if not explicit:
        config.THREADING_LAYER = "tbb" if have_tbb else "workqueue"


_warned_omp = False


def _warn_once_on_omp(layer: str) -> None:
    # GNU OpenMP cannot be used again in a forked child: a fork after the
    # parent launched (DataLoader workers, multiprocessing's fork Pool)
    # aborts or hangs the child.
    global _warned_omp
    if layer == "omp" and not _warned_omp:
        _warned_omp = True
        warnings.warn(
            "swishgrad_numba runs on Numba's OpenMP threading layer: a child process forked after "
            "this process launched a kernel (DataLoader workers, multiprocessing with 'fork') can "
            "hang or abort; use NUMBA_THREADING_LAYER=tbb or workqueue, or the 'spawn' start method",
            RuntimeWarning, stacklevel=3)


def threading_layer() -> str:
    """The Numba threading layer that runs (or will run) the parallel kernels."""
    return numba.threading_layer() if _parallel._is_initialized else str(config.THREADING_LAYER)


def num_threads() -> int:
    """Numba's thread count for this thread (``numba.set_num_threads``).

    ``numba.get_num_threads()`` takes a lock of Numba's on every call, and a
    child forked while another thread held it would hang on its first
    launch. Once the threading layer is up, the count is read from the
    layer directly, without that lock.
    """
    if _parallel._is_initialized:
        count = _parallel._get_num_threads()
        if count > 0:
            return count
    return numba.get_num_threads()


_lock = threading.RLock()
_THREAD_SAFE_LAYERS = ("tbb", "omp")


def launch_lock() -> threading.RLock:
    """The package's lock (launches on a layer that is not thread-safe, and
    the shared table cache). Look it up at each use: a forked child gets a
    new one."""
    return _lock


def launch_guard():
    """What a launch holds: :func:`launch_lock` on workqueue, which runs one
    parallel region at a time, nothing on the thread-safe TBB and omp."""
    layer = threading_layer()
    _warn_once_on_omp(layer)
    if layer in _THREAD_SAFE_LAYERS:
        return _NO_GUARD
    return _lock


_NO_GUARD = contextlib.nullcontext()    # holds nothing, so one serves every launch and thread


class ChildRenewedLock:
    """A re-entrant lock that a forked child gets anew. A thread other than the forking one that held the
    lock at the fork does not exist in the child, so the child's copy would stay held for ever and its
    first use would hang (a child forked while another thread was inside ``program.passes.compiled``)."""

    def __init__(self):
        self._lock = threading.RLock()
        _CHILD_RENEWED.add(self)

    def __enter__(self):
        return self._lock.__enter__()

    def __exit__(self, *exc):
        return self._lock.__exit__(*exc)


_CHILD_RENEWED = weakref.WeakSet()


def _renew_lock_after_fork() -> None:
    global _lock
    _lock = threading.RLock()
    for lock in list(_CHILD_RENEWED):
        lock._lock = threading.RLock()


disk_cache.install()
label_guard.install()
_choose_threading_layer()
if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_renew_lock_after_fork)
