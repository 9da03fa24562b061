"""How the package runs on Numba: where compiled code is cached, which
threading layer runs the parallel kernels, and the lock that serialises
launches where that layer needs it. Imported first by the package, before
any kernel compiles.

**The disk cache lives outside the installed package.** Numba's default
for ``cache=True`` writes ``.nbi``/``.nbc`` files into a ``__pycache__``
folder next to each source file. pip does not know those files, so
uninstalling (or replacing a plain install by an editable one) leaves
``site-packages/swishgrad_numba/__pycache__`` behind, and that leftover
folder then imports as an empty namespace package that shadows the real
one. So this module registers a cache locator that sends the package's
compiled code to the per-user cache folder Numba already uses for read-only
trees (``~/.cache/numba`` or ``$XDG_CACHE_HOME/numba``), or to a private
folder under the temporary directory where that is not writable, or to
``NUMBA_CACHE_DIR`` when that is set. Other packages' functions are left to
Numba's usual locators.

**A cached kernel is stale when any of the package's sources changed.**
Numba checks only the file that defines a function, but the launch
functions inline code from several modules (the instruction sequence, the
Exp, the casts, the intrinsics, the SPEC arithmetic). The locator therefore
stamps every cached function with the size and modification time of all
the package's ``.py`` files: after any edit, every kernel recompiles once.

**The threading layer is TBB where it can load, else workqueue**, unless
``NUMBA_THREADING_LAYER`` says otherwise. Numba's own default order is tbb,
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
import functools
import hashlib
import os
import sys
import tempfile
import threading
from importlib import metadata

import numba
from numba.core import caching, config

__all__ = ["launch_guard", "launch_lock", "threading_layer", "num_threads", "PACKAGE_DIR"]

#: The package's source folder: functions defined under it are cached by
#: :class:`PackageCacheLocator`.
PACKAGE_DIR = os.path.dirname(os.path.abspath(__file__))


# Numba 0.60 spells these with a leading underscore.
_UserWideCacheLocator = getattr(caching, "UserWideCacheLocator", None) or caching._UserWideCacheLocator
_CacheImpl = getattr(caching, "CacheImpl", None) or caching._CacheImpl


class PackageCacheLocator(_UserWideCacheLocator):
    """Cache the package's jitted functions in the per-user Numba cache.

    Applies only to source files inside :data:`PACKAGE_DIR`. The cache goes
    under ``NUMBA_CACHE_DIR`` when that is set, else to the per-user cache,
    else (not writable) to a per-user folder under the temporary directory;
    never to the source tree. The source stamp covers the whole package
    (:func:`package_source_stamp`).
    """

    def __init__(self, py_func, py_file, root=None):
        super().__init__(py_func, py_file)
        if root is not None:
            self._cache_path = os.path.join(root, self.get_suitable_cache_subpath(py_file))

    def get_source_stamp(self):
        return package_source_stamp()

    @classmethod
    def from_function(cls, py_func, py_file):
        if not os.path.abspath(py_file).startswith(PACKAGE_DIR + os.sep):
            return None
        if config.CACHE_DIR:
            roots = (config.CACHE_DIR,)
        else:
            roots = (None, os.path.join(tempfile.gettempdir(), f"swishgrad_numba-cache-{_user_tag()}"))
        for root in roots:
            locator = cls(py_func, py_file, root)
            try:
                locator.ensure_cache_path()
            except OSError:
                continue
            return locator
        return None


@functools.lru_cache(maxsize=None)
def package_source_stamp() -> str:
    """A digest of the path, size and modification time of every ``.py``
    file of the package, taken once per process."""
    digest = hashlib.sha256()
    for folder, dirs, files in os.walk(PACKAGE_DIR):
        dirs[:] = sorted(d for d in dirs if d != "__pycache__")
        for name in sorted(f for f in files if f.endswith(".py")):
            path = os.path.join(folder, name)
            st = os.stat(path)
            digest.update(f"{os.path.relpath(path, PACKAGE_DIR)}\0{st.st_size}\0{st.st_mtime_ns}\n".encode())
    return digest.hexdigest()


def _user_tag() -> str:
    try:
        return str(os.getuid())
    except AttributeError:  # Windows
        return os.environ.get("USERNAME", "user")


def _install_cache_locator() -> None:
    locators = _CacheImpl._locator_classes
    if not any(getattr(c, "__name__", "") == PackageCacheLocator.__name__ for c in locators):
        # First, ahead of Numba's own NUMBA_CACHE_DIR locator, so that the
        # package's functions get the package-wide stamp there too.
        locators.insert(0, PackageCacheLocator)


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


def _choose_threading_layer() -> None:
    from numba.np.ufunc import parallel

    explicit = "NUMBA_THREADING_LAYER" in os.environ or config.THREADING_LAYER != "default"
    if not explicit and not parallel._is_initialized:
        config.THREADING_LAYER = "tbb" if _load_pip_tbb() else "workqueue"


def threading_layer() -> str:
    """The Numba threading layer that runs (or will run) the parallel kernels."""
    from numba.np.ufunc import parallel

    return numba.threading_layer() if parallel._is_initialized else str(config.THREADING_LAYER)


def num_threads() -> int:
    """Numba's thread count for this thread (``numba.set_num_threads``).

    ``numba.get_num_threads()`` takes a lock of Numba's on every call, and a
    child forked while another thread held it would hang on its first
    launch. Once the threading layer is up, the count is read from the
    layer directly, without that lock.
    """
    from numba.np.ufunc import parallel

    if parallel._is_initialized:
        count = parallel._get_num_threads()
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
    if threading_layer() in _THREAD_SAFE_LAYERS:
        return contextlib.nullcontext()
    return _lock


def _renew_lock_after_fork() -> None:
    global _lock
    _lock = threading.RLock()


_install_cache_locator()
_choose_threading_layer()
if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_renew_lock_after_fork)
