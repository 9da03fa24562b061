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

**Compiled code is only loaded from a private folder.** A cache index is a
pickle, so a cache folder another local user can write runs their code.
Every folder from the cache root down must belong to this user and be
writable by nobody else, checked at every start; new ones are made 0700.
Where no such folder exists the package compiles into a throwaway private
folder of this process and warns once. Numba's in-tree locator never serves
the package, whatever happens.

**A cached kernel is stale when any of the package's sources changed.**
Numba checks only the file that defines a function, but the launch
functions inline code from several modules (the instruction sequence, the
Exp, the casts, the intrinsics, the SPEC arithmetic). The locator therefore
stamps every cached function with the size and modification time of all
the package's ``.py`` files: after any edit, every kernel recompiles once.

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

import atexit
import contextlib
import ctypes
import functools
import hashlib
import os
import shutil
import stat
import sys
import tempfile
import threading
import time
import warnings
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


class UnsafeCacheFolder(OSError):
    """A cache folder that another user could write (or that is not ours)."""


def check_private_folder(path: str) -> None:
    """Raise :class:`UnsafeCacheFolder` unless ``path`` is a real folder
    (not a link), owned by this user and writable by nobody else.

    A folder another user can write can hold a planted index file, which is a
    pickle: loading it runs that user's code. Windows has no such modes and
    is not checked.
    """
    st = os.lstat(path)
    if not stat.S_ISDIR(st.st_mode):
        raise UnsafeCacheFolder(f"{path} is not a folder (a link or a file)")
    if not hasattr(os, "geteuid"):
        return
    if st.st_uid != os.geteuid():
        raise UnsafeCacheFolder(f"{path} belongs to uid {st.st_uid}, not to this user ({os.geteuid()})")
    if st.st_mode & (stat.S_IWGRP | stat.S_IWOTH):
        raise UnsafeCacheFolder(f"{path} can be written by other users (mode {stat.S_IMODE(st.st_mode):o})")


def make_private_folders(root: str, path: str) -> None:
    """Create ``root`` and the folders from it down to ``path`` (mode 0700
    where new), checking each with :func:`check_private_folder`."""
    root, path = os.path.abspath(root), os.path.abspath(path)
    below = os.path.relpath(path, root)
    if below == os.pardir or below.startswith(os.pardir + os.sep):
        raise UnsafeCacheFolder(f"{path} is not inside {root}")
    if not os.path.lexists(root):
        os.makedirs(root, mode=0o700, exist_ok=True)
    folders = [root]
    for part in below.split(os.sep):
        if part != os.curdir:
            folders.append(os.path.join(folders[-1], part))
    for folder in folders:
        if not os.path.lexists(folder):
            try:
                os.mkdir(folder, 0o700)
            except FileExistsError:   # made meanwhile by another process: checked next
                pass
        check_private_folder(folder)


class PackageCacheLocator(_UserWideCacheLocator):
    """Cache the package's jitted functions in a private per-user folder.

    Applies only to source files inside :data:`PACKAGE_DIR`, and is asked
    first, so no other locator (Numba's in-tree one included) ever serves
    the package. The cache goes under ``NUMBA_CACHE_DIR`` when that is set,
    else to the per-user cache, else to a per-user folder under the
    temporary directory; each folder from that root down must be this
    user's and writable by nobody else (:func:`check_private_folder`),
    checked at every start. Where no such folder can be had, the package
    compiles into a fresh private folder of this process only (nothing is
    loaded from or left on disk for later processes) and warns once. The
    source stamp covers the whole package (:func:`package_source_stamp`).
    """

    def __init__(self, py_func, py_file, root):
        super().__init__(py_func, py_file)
        self._root = root
        # One folder per version of the package's sources: Numba unpickles an
        # index's signatures before it compares stamps, and the launches'
        # signatures name the operators' NamedTuple classes, so an index of
        # other sources could name a class that no longer exists.
        self._cache_path = os.path.join(root, self.get_suitable_cache_subpath(py_file),
                                        _STAMP_PREFIX + package_source_stamp()[:16])

    def get_source_stamp(self):
        return package_source_stamp()

    def ensure_cache_path(self):
        make_private_folders(self._root, self._cache_path)
        _prune_stale_versions(os.path.dirname(self._cache_path), os.path.basename(self._cache_path))
        # Can we write here? (Numba's own check; a read-only folder fails.)
        tempfile.TemporaryFile(dir=self._cache_path).close()

    @classmethod
    def from_function(cls, py_func, py_file):
        if not os.path.abspath(py_file).startswith(PACKAGE_DIR + os.sep):
            return None
        problems = []
        for root in cache_roots():
            locator = cls(py_func, py_file, root)
            try:
                locator.ensure_cache_path()
            except OSError as exc:
                problems.append(f"{root}: {exc}")
                continue
            return locator
        locator = cls(py_func, py_file, _process_private_root(problems))
        locator.ensure_cache_path()
        return locator


def cache_roots() -> tuple:
    """Where the package's compiled code may be cached, in order of preference."""
    if config.CACHE_DIR:
        return (config.CACHE_DIR,)
    return (_user_wide_root(), os.path.join(tempfile.gettempdir(), f"swishgrad_numba-cache-{_user_tag()}"))


def _user_wide_root() -> str:
    # Numba's per-user cache folder (~/.cache/numba or $XDG_CACHE_HOME/numba).
    from numba.misc.appdirs import AppDirs

    return AppDirs(appname="numba", appauthor=False).user_cache_dir


_private_root = None


def _process_private_root(problems) -> str:
    """A fresh folder only this process made (mkdtemp: mode 0700, a random
    name), removed at exit; warns once why no lasting cache is used."""
    global _private_root
    if _private_root is None:
        _private_root = tempfile.mkdtemp(prefix="swishgrad_numba-nocache-")
        owner = os.getpid()
        atexit.register(lambda: os.getpid() == owner and shutil.rmtree(_private_root, ignore_errors=True))
        warnings.warn(
            "swishgrad_numba: no private cache folder is usable ("
            + "; ".join(problems)
            + "), so compiled code is not cached across processes; set NUMBA_CACHE_DIR "
            "to a folder of yours that only you can write",
            RuntimeWarning, stacklevel=2)
    return _private_root


_STAMP_PREFIX = "src-"
#: A folder of other sources unused this long is removed.
STALE_VERSION_SECONDS = 7 * 24 * 3600


@functools.lru_cache(maxsize=None)
def _prune_stale_versions(parent: str, keep: str) -> None:
    """Remove ``parent``'s folders of other source versions not written to for
    :data:`STALE_VERSION_SECONDS` (once per folder and process; our own
    private folder, checked already)."""
    cutoff = time.time() - STALE_VERSION_SECONDS
    for entry in os.scandir(parent):
        if entry.name.startswith(_STAMP_PREFIX) and entry.name != keep and entry.is_dir(follow_symlinks=False):
            if entry.stat(follow_symlinks=False).st_mtime < cutoff:
                shutil.rmtree(entry.path, ignore_errors=True)


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
    layer = threading_layer()
    _warn_once_on_omp(layer)
    if layer in _THREAD_SAFE_LAYERS:
        return contextlib.nullcontext()
    return _lock


def _renew_lock_after_fork() -> None:
    global _lock
    _lock = threading.RLock()


_install_cache_locator()
_choose_threading_layer()
if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_renew_lock_after_fork)
