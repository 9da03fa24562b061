"""Where Numba caches the package's compiled code, and how it is read back.

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

**Compiled code is only loaded from what was checked.** A cache index is a
pickle, so a cache folder another local user can write, or swap, runs their
code. So:

- each cache root is made absolute once, against the working folder at
  import, before it is checked or used (a relative ``NUMBA_CACHE_DIR``
  followed by ``os.chdir`` cannot send a load elsewhere);
- every folder above the root must belong to root or to this user and be
  writable by nobody else unless it is sticky (``/tmp``), so that no one
  else can rename the root away;
- the root and every folder below it must be this user's, real folders
  (not links) and writable by nobody else;
- and every index and data file is read and written through a folder
  handle: the chain is opened from the root down with ``O_NOFOLLOW``, each
  handle checked with ``fstat``, and the file opened relative to the last
  one (``dir_fd``) and checked too. A folder swapped after any earlier check
  is therefore seen at the load itself.

A refused folder or file is never an error out of a computation (a refused
file is a miss, never read): the package warns once and caches in a
throwaway private folder of this process (nothing is loaded from or left on
disk for later processes). Numba's in-tree locator
never serves the package, whatever happens. Platforms without ``dir_fd``
opens or uids (Windows) keep Numba's own file handling.

**A cached kernel is stale when any of the package's sources changed.**
Numba checks only the file that defines a function, but the launch
functions inline code from several modules. The locator therefore stamps
every cached function with the size and modification time of all the
package's ``.py`` files: after any edit, every kernel recompiles once.
"""
from __future__ import annotations

import atexit
import contextlib
import functools
import hashlib
import io
import os
import pickle
import shutil
import stat
import tempfile
import time
import uuid
import warnings

from numba.core import caching, config

#: The package's source folder: functions defined under it are cached by
#: :class:`PackageCacheLocator`.
PACKAGE_DIR = os.path.dirname(os.path.abspath(__file__))

# Numba 0.60 spells these with a leading underscore.
_UserWideCacheLocator = getattr(caching, "UserWideCacheLocator", None) or caching._UserWideCacheLocator
_CacheImpl = getattr(caching, "CacheImpl", None) or caching._CacheImpl
_NumbaCacheFile = caching.IndexDataCacheFile

#: Folder handles and relative opens that cannot follow a link.
_HANDLE_IO = (hasattr(os, "geteuid") and hasattr(os, "O_NOFOLLOW") and hasattr(os, "O_DIRECTORY")
              and os.open in os.supports_dir_fd)
_FOLDER_FLAGS = os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
_FILE_FLAGS = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)


class UnsafeCacheFolder(OSError):
    """A cache folder that another user could write or swap (or that is not ours)."""


def _check_private(st: os.stat_result, path: str, kind=stat.S_ISDIR, what="folder") -> None:
    if not kind(st.st_mode):
        raise UnsafeCacheFolder(f"{path} is not a {what} (a link or something else)")
    if not hasattr(os, "geteuid"):
        return
    if st.st_uid != os.geteuid():
        raise UnsafeCacheFolder(f"{path} belongs to uid {st.st_uid}, not to this user ({os.geteuid()})")
    if st.st_mode & (stat.S_IWGRP | stat.S_IWOTH):
        raise UnsafeCacheFolder(f"{path} can be written by other users (mode {stat.S_IMODE(st.st_mode):o})")


def check_private_folder(path: str) -> None:
    """Raise :class:`UnsafeCacheFolder` unless ``path`` is a real folder
    (not a link), owned by this user and writable by nobody else.

    A folder another user can write can hold a planted index file, which is a
    pickle: loading it runs that user's code. Windows has no such modes and
    is not checked.
    """
    _check_private(os.lstat(path), path)


def check_parent_folders(root: str) -> None:
    """Raise :class:`UnsafeCacheFolder` unless no other user can rename
    ``root`` (an absolute path) away: every folder above it belongs to root
    or to this user and is writable by nobody else, or is sticky."""
    if not hasattr(os, "geteuid"):
        return
    me = os.geteuid()
    folder = os.path.dirname(root)
    while True:
        st = os.stat(folder)
        if st.st_uid not in (0, me):
            raise UnsafeCacheFolder(f"{root} lies in {folder}, which belongs to uid {st.st_uid}")
        if st.st_mode & (stat.S_IWGRP | stat.S_IWOTH) and not st.st_mode & stat.S_ISVTX:
            raise UnsafeCacheFolder(f"{root} lies in {folder}, which other users can write and is not "
                                    f"sticky (mode {stat.S_IMODE(st.st_mode):o})")
        parent = os.path.dirname(folder)
        if parent == folder:
            return
        folder = parent


def _folders_below(root: str, path: str) -> list:
    below = os.path.relpath(path, root)
    if below == os.pardir or below.startswith(os.pardir + os.sep) or os.path.isabs(below):
        raise UnsafeCacheFolder(f"{path} is not inside {root}")
    return [part for part in below.split(os.sep) if part != os.curdir]


def make_private_folders(root: str, path: str) -> None:
    """Create ``root`` and the folders from it down to ``path`` (mode 0700
    where new), checking the root's parents and each folder."""
    root, path = os.path.abspath(root), os.path.abspath(path)
    parts = _folders_below(root, path)
    if not os.path.lexists(root):
        os.makedirs(root, mode=0o700, exist_ok=True)
    check_parent_folders(root)
    folders = [root]
    for part in parts:
        folders.append(os.path.join(folders[-1], part))
    for folder in folders:
        if not os.path.lexists(folder):
            try:
                os.mkdir(folder, 0o700)
            except FileExistsError:   # made meanwhile by another process: checked next
                pass
        check_private_folder(folder)


def open_private_folder(root: str, path: str) -> int:
    """A handle (file descriptor) on the folder ``path`` below ``root``,
    opened from the root down without following links, each folder checked
    on its handle; the caller closes it."""
    parts = _folders_below(root, path)
    check_parent_folders(root)
    fd = os.open(root, _FOLDER_FLAGS)
    try:
        _check_private(os.fstat(fd), root)
        where = root
        for part in parts:
            child = os.open(part, _FOLDER_FLAGS, dir_fd=fd)
            os.close(fd)
            fd = child
            where = os.path.join(where, part)
            _check_private(os.fstat(fd), where)
        return fd
    except BaseException:
        os.close(fd)
        raise


def _read_private_file(folder_fd: int, name: str, where: str) -> bytes:
    if os.sep in name or name in (os.curdir, os.pardir):
        raise UnsafeCacheFolder(f"{name!r} is not a file name")
    fd = os.open(name, _FILE_FLAGS, dir_fd=folder_fd)
    with os.fdopen(fd, "rb") as f:
        _check_private(os.fstat(f.fileno()), os.path.join(where, name), stat.S_ISREG, "file")
        return f.read()


class PrivateCacheFile(_NumbaCacheFile):
    """Numba's index and data files, read and written through a checked
    folder handle when they belong to the package (see the module's notes);
    any other package's cache files behave as Numba's own."""

    def __init__(self, cache_path, filename_base, source_stamp):
        super().__init__(cache_path, filename_base, source_stamp)
        self._root = _PACKAGE_ROOTS.get(cache_path) if _HANDLE_IO else None

    @contextlib.contextmanager
    def _folder(self):
        try:
            fd = open_private_folder(self._root, self._cache_path)
        except OSError as exc:
            if self._root == _private_root:
                raise
            self._move_to_private_root(exc)
            fd = open_private_folder(self._root, self._cache_path)
        try:
            yield fd
        finally:
            os.close(fd)

    def _move_to_private_root(self, exc: OSError, warn=True) -> None:
        private = _process_private_root([f"{self._root}: {exc}"], warn_always=warn)
        folder = os.path.join(private, *_folders_below(self._root, self._cache_path))
        make_private_folders(private, folder)
        self._root, self._cache_path = private, folder
        self._index_path = os.path.join(folder, self._index_name)

    def _load_index(self):
        if self._root is None:
            return super()._load_index()
        with self._folder() as fd:
            try:
                raw = _read_private_file(fd, self._index_name, self._cache_path)
            except FileNotFoundError:
                return {}
            except OSError as exc:   # a link, another user's file: a miss
                self._refuse_file(exc)
                return {}
        # The same layout as Numba's: its version, then (source stamp, overloads).
        version_end = _pickle_end(raw)
        if pickle.loads(raw[:version_end]) != self._version:
            return {}
        stamp, overloads = pickle.loads(raw[version_end:])
        return overloads if stamp == self._source_stamp else {}

    def _load_data(self, name):
        if self._root is None:
            return super()._load_data(name)
        with self._folder() as fd:
            try:
                raw = _read_private_file(fd, name, self._cache_path)
            except OSError as exc:   # Numba's load() takes an OSError as a miss
                if not isinstance(exc, FileNotFoundError):
                    self._refuse_file(exc)
                raise
        return pickle.loads(raw)

    def _refuse_file(self, exc: OSError) -> None:
        # A refused file is never read; the rest of this function's cache
        # moves to the private folder (one warning per refusing root).
        root = self._root
        if root != _private_root:
            self._move_to_private_root(exc, warn=root not in _warned_roots)
            _warned_roots.add(root)

    @contextlib.contextmanager
    def _open_for_write(self, filepath):
        if self._root is None:
            with super()._open_for_write(filepath) as f:
                yield f
            return
        name = os.path.basename(filepath)
        with self._folder() as folder_fd:
            temporary = f"{name}.tmp.{uuid.uuid4().hex[:16]}"
            fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL | _FILE_FLAGS, 0o600, dir_fd=folder_fd)
            try:
                with os.fdopen(fd, "wb") as f:
                    yield f
                os.replace(temporary, name, src_dir_fd=folder_fd, dst_dir_fd=folder_fd)
            except BaseException:
                with contextlib.suppress(OSError):
                    os.unlink(temporary, dir_fd=folder_fd)
                raise


def _pickle_end(raw: bytes) -> int:
    """Where the first pickle of ``raw`` ends (Numba writes two, back to back)."""
    stream = io.BytesIO(raw)
    pickle.load(stream)
    return stream.tell()


#: Cache folder -> the absolute root it was checked from, for every folder
#: :class:`PackageCacheLocator` hands to Numba.
_PACKAGE_ROOTS: dict = {}


class PackageCacheLocator(_UserWideCacheLocator):
    """Cache the package's jitted functions in a private per-user folder.

    Applies only to source files inside :data:`PACKAGE_DIR`, and is asked
    first, so no other locator (Numba's in-tree one included) ever serves
    the package. The cache goes under ``NUMBA_CACHE_DIR`` when that is set,
    else to the per-user cache, else to a per-user folder under the
    temporary directory (:func:`cache_roots`); each must pass
    :func:`make_private_folders` at every start, and every later read and
    write goes through :class:`PrivateCacheFile`. Where no such folder can be
    had, the package compiles into a fresh private folder of this process
    only and warns once. The source stamp covers the whole package
    (:func:`package_source_stamp`).
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

    def prepare_cache_path(self):
        """Make and check the folders (raises :class:`UnsafeCacheFolder` or
        another ``OSError`` where this root cannot serve)."""
        make_private_folders(self._root, self._cache_path)
        _prune_stale_versions(os.path.dirname(self._cache_path), os.path.basename(self._cache_path))
        # Can we write here? (Numba's own check; a read-only folder fails.)
        tempfile.TemporaryFile(dir=self._cache_path).close()
        _PACKAGE_ROOTS[self._cache_path] = self._root

    def ensure_cache_path(self):
        # Numba calls this again before each save; the save itself goes
        # through a checked handle and moves to a private folder when the
        # folder went bad meanwhile, so nothing is raised out of a call here.
        with contextlib.suppress(OSError):
            make_private_folders(self._root, self._cache_path)

    @classmethod
    def from_function(cls, py_func, py_file):
        if not os.path.abspath(py_file).startswith(PACKAGE_DIR + os.sep):
            return None
        problems = []
        for root in cache_roots():
            locator = cls(py_func, py_file, root)
            try:
                locator.prepare_cache_path()
            except OSError as exc:
                problems.append(f"{root}: {exc}")
                continue
            return locator
        locator = cls(py_func, py_file, _process_private_root(problems))
        locator.prepare_cache_path()
        return locator


def cache_roots() -> tuple:
    """Where the package's compiled code may be cached, in order of
    preference; each an absolute path (see :func:`absolute_root`)."""
    if config.CACHE_DIR:
        roots = (config.CACHE_DIR,)
    else:
        roots = (_user_wide_root(), os.path.join(tempfile.gettempdir(), f"swishgrad_numba-cache-{_user_tag()}"))
    return tuple(absolute_root(root) for root in roots)


@functools.lru_cache(maxsize=None)
def absolute_root(root: str) -> str:
    """``root`` made absolute once per process, against the working folder
    when it was first seen (at import for the configured roots), so a later
    ``os.chdir`` cannot move it; its parent's links resolved."""
    root = os.path.abspath(os.path.expanduser(root))
    return os.path.join(os.path.realpath(os.path.dirname(root)), os.path.basename(root))


def _user_wide_root() -> str:
    # Numba's per-user cache folder (~/.cache/numba or $XDG_CACHE_HOME/numba).
    from numba.misc.appdirs import AppDirs

    return AppDirs(appname="numba", appauthor=False).user_cache_dir


_private_root = None
_warned_roots: set = set()


def _process_private_root(problems, warn_always=False) -> str:
    """A fresh folder only this process made (mkdtemp: mode 0700, a random
    name), removed at exit; warns once per refused folder why no lasting
    cache is used."""
    global _private_root
    new = _private_root is None
    if new:
        _private_root = tempfile.mkdtemp(prefix="swishgrad_numba-nocache-")
        owner = os.getpid()
        atexit.register(lambda: os.getpid() == owner and shutil.rmtree(_private_root, ignore_errors=True))
    message = "; ".join(problems)
    if new or (warn_always and message not in _warned_roots):
        _warned_roots.add(message)
        warnings.warn(
            "swishgrad_numba: no private cache folder is usable (" + message + "), so compiled code "
            "is not cached across processes; set NUMBA_CACHE_DIR to a folder of yours that only you "
            "can write, in a folder that only you (or root) can write",
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


def install() -> None:
    """Put the locator first and the checked cache file in Numba's place
    (idempotent). Called at import, before any of the package's kernels is
    decorated."""
    locators = _CacheImpl._locator_classes
    if not any(getattr(c, "__name__", "") == PackageCacheLocator.__name__ for c in locators):
        # First, ahead of Numba's own NUMBA_CACHE_DIR locator, so that the
        # package's functions get the package-wide stamp there too.
        locators.insert(0, PackageCacheLocator)
    # Numba's Cache builds its file object by this module-level name; the
    # subclass only changes the package's own folders.
    caching.IndexDataCacheFile = PrivateCacheFile
    cache_roots()   # the configured roots made absolute now, at import
