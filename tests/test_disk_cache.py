"""Compiled code is loaded only from what was checked (swishgrad_numba.disk_cache).

Each scenario is end to end in a fresh interpreter: a cache folder is
planted or swapped the way another local user could (here as root, with
chown to another uid), and the victim's first call must neither run the
planted pickle nor fail; it warns and compiles into a private folder.
"""
from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest
from test_runtime import CACHE_PROBE, _check_probe_bits, run_script

from swishgrad_numba import disk_cache

OTHER_UID = 54321
needs_root = pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0,
                                reason="making a folder of another uid needs root")

# The victim: import (every folder is checked at decoration), then the
# attack, then the first call. It reports where the cache file went, the
# warnings, the bits, and whether the planted pickle ran.
VICTIM = """
import json, os, pickle, shutil, sys, warnings
{prelude}
import numba
import numpy as np
from swishgrad_numba import casts

MARKER = {marker!r}
OTHER = {other_uid}

class Payload:                       # what another user would plant
    def __reduce__(self):
        return (open, (MARKER, "w"))

PLANTED = pickle.dumps(numba.__version__) + pickle.dumps(Payload())

def plant_index(folder):
    for dirpath, dirs, files in os.walk(folder):
        for name in files:
            if name.endswith((".nbi", ".nbc")):
                with open(os.path.join(dirpath, name), "wb") as f:
                    f.write(PLANTED)

def chown_tree(folder):
    for dirpath, dirs, files in os.walk(folder):
        os.chown(dirpath, OTHER, OTHER)
        for name in files:
            os.chown(os.path.join(dirpath, name), OTHER, OTHER)

f = casts.bf16_bits_to_f32
index = f._cache._cache_file._index_path
{attack}
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    out = np.array([f(np.uint16(b)) for b in range(0, 1 << 16, 257)], np.float32)
print(json.dumps({{"path": f._cache._cache_file._cache_path,
                  "hits": len(f.stats.cache_hits),
                  "warnings": [str(w.message) for w in caught],
                  "planted_ran": os.path.exists(MARKER),
                  "bits": out.view(np.uint32).tolist()}}))
"""

SWAP = """
root = {root!r}
os.rename(root, root + "-away")
shutil.copytree(root + "-away", root)
plant_index(root)
chown_tree(root)
"""

LINK = """
root = {root!r}
os.rename(root, root + "-away")
shutil.copytree(root + "-away", root + "-theirs")
plant_index(root + "-theirs")
chown_tree(root + "-theirs")
os.symlink(root + "-theirs", root)
"""

# Below the root: the source-version folder swapped for another user's.
SWAP_BELOW = """
version = os.path.dirname(index)
os.rename(version, version + "-away")
shutil.copytree(version + "-away", version)
plant_index(version)
chown_tree(version)
"""


def _victim(tmp_path: Path, attack: str, env: dict, root=None, prelude="") -> dict:
    marker = tmp_path / "planted-code-ran"
    body = VICTIM.format(marker=str(marker), other_uid=OTHER_UID, attack=attack, prelude=prelude)
    result = run_script(body, env_extra=env, **({"root": root} if root else {}))
    _check_probe_bits(result)
    return result


def _assert_refused(result: dict, planted: Path) -> None:
    assert not result["planted_ran"]
    assert result["hits"] == 0
    assert not result["path"].startswith(str(planted) + os.sep), result["path"]
    assert any("not cached across processes" in w for w in result["warnings"]), result["warnings"]


@needs_root
@pytest.mark.parametrize("attack", [SWAP, LINK], ids=["copy of another uid", "link to another uid's folder"])
def test_a_cache_root_swapped_between_import_and_first_call_is_never_loaded(tmp_path, attack):
    # Issue 27.1: the folders were checked at decoration (import) only; Numba
    # opened the index later by path, so a root swapped in between was loaded.
    root = tmp_path / "safe" / "nc"
    env = {"NUMBA_CACHE_DIR": str(root)}
    assert run_script(CACHE_PROBE, env_extra=env)["warnings"] == []   # a real cache to copy
    result = _victim(tmp_path, attack.format(root=str(root)), env)
    _assert_refused(result, root)


@needs_root
def test_a_folder_swapped_below_the_root_is_never_loaded(tmp_path):
    root = tmp_path / "safe" / "nc"
    env = {"NUMBA_CACHE_DIR": str(root)}
    run_script(CACHE_PROBE, env_extra=env)
    result = _victim(tmp_path, SWAP_BELOW, env)
    _assert_refused(result, root)


def test_an_untouched_cache_is_loaded_through_the_checked_handle(tmp_path):
    # The control for the swaps above: the same victim, no attack, loads.
    root = tmp_path / "safe" / "nc"
    env = {"NUMBA_CACHE_DIR": str(root)}
    run_script(CACHE_PROBE, env_extra=env)
    result = _victim(tmp_path, "", env)
    assert result["hits"] == 1 and result["warnings"] == [] and not result["planted_ran"]
    assert result["path"].startswith(str(root) + os.sep)


@pytest.mark.parametrize("mode, usable", [(0o777, False), (0o775, False), (0o1777, True), (0o755, True)])
def test_a_root_in_a_folder_others_can_write_is_refused_unless_sticky(tmp_path, mode, usable):
    # Issue 27.1: a root whose parent others can write can be renamed away
    # by them; a sticky parent (/tmp) keeps our entries ours.
    shared = tmp_path / "shared"
    shared.mkdir()
    os.chmod(shared, mode)
    root = shared / "nc"
    result = run_script(CACHE_PROBE, env_extra={"NUMBA_CACHE_DIR": str(root)})
    _check_probe_bits(result)
    if usable:
        assert result["path"].startswith(str(root) + os.sep) and result["warnings"] == []
    else:
        assert not result["path"].startswith(str(shared))
        assert any("not sticky" in w and str(shared) in w for w in result["warnings"]), result["warnings"]


RELATIVE_ROOT_THEN_CHDIR = """
here = os.getcwd()
there = {there!r}
planted = os.path.join(there, os.path.relpath(index, here))
os.makedirs(os.path.dirname(planted))
with open(planted, "wb") as fh:
    fh.write(PLANTED)
chown_tree(os.path.join(there, "nc"))
for dirpath, dirs, files in os.walk(os.path.join(there, "nc")):
    os.chmod(dirpath, 0o777)
os.chdir(there)
"""


def test_a_relative_cache_root_is_fixed_at_import_and_survives_chdir(tmp_path):
    # Issue 27.2: a relative NUMBA_CACHE_DIR was checked against the working
    # folder at import and opened against the one at the first call.
    here, there = tmp_path / "here", tmp_path / "there"
    here.mkdir()
    there.mkdir()
    attack = RELATIVE_ROOT_THEN_CHDIR.format(there=str(there))
    if os.geteuid() != 0:
        attack = attack.replace("chown_tree(", "(lambda folder: None)(")
    result = _victim(tmp_path, attack, {"NUMBA_CACHE_DIR": "nc"}, prelude=f"os.chdir({str(here)!r})")
    assert not result["planted_ran"]
    assert result["path"].startswith(str(here / "nc") + os.sep), result["path"]
    assert list((here / "nc").rglob("*.nbi"))


def test_absolute_root_is_resolved_once(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    first = disk_cache.absolute_root("a-relative-root-for-this-test")
    monkeypatch.chdir("/")
    assert disk_cache.absolute_root("a-relative-root-for-this-test") == first == str(tmp_path.resolve() / "a-relative-root-for-this-test")


def test_the_handle_walk_refuses_a_link_and_a_foreign_mode(tmp_path):
    root = tmp_path / "root"
    disk_cache.make_private_folders(str(root), str(root / "a" / "b"))
    os.close(disk_cache.open_private_folder(str(root), str(root / "a" / "b")))
    os.rename(root / "a" / "b", root / "a" / "real")
    os.symlink(root / "a" / "real", root / "a" / "b")
    with pytest.raises(OSError):
        disk_cache.open_private_folder(str(root), str(root / "a" / "b"))
    os.chmod(root / "a", stat.S_IRWXU | stat.S_IWOTH | stat.S_IXOTH)
    with pytest.raises(disk_cache.UnsafeCacheFolder, match="written by other users"):
        disk_cache.open_private_folder(str(root), str(root / "a"))


# Issue 38.1: one file in an otherwise private folder is refused (a link, or
# left root's by one sudo run): the load raised ELOOP or UnsafeCacheFolder
# out of the call. It must be a miss, one warning, and a private compile.
INDEX_LINK = """
with open(index + "-elsewhere", "wb") as fh:
    fh.write(PLANTED)
os.remove(index)
os.symlink(index + "-elsewhere", index)
"""

INDEX_OTHER_UID = """
with open(index, "wb") as fh:
    fh.write(PLANTED)
os.chown(index, OTHER, OTHER)
"""

DATA_OTHER_UID = """
folder = os.path.dirname(index)
for name in os.listdir(folder):
    if name.endswith(".nbc"):
        with open(os.path.join(folder, name), "wb") as fh:
            fh.write(PLANTED)
        os.chown(os.path.join(folder, name), OTHER, OTHER)
"""


@pytest.mark.parametrize("attack", [
    INDEX_LINK,
    pytest.param(INDEX_OTHER_UID, marks=needs_root),
    pytest.param(DATA_OTHER_UID, marks=needs_root),
], ids=["index is a link", "index of another uid", "data file of another uid"])
def test_a_refused_cache_file_is_a_miss_with_one_warning(tmp_path, attack):
    root = tmp_path / "safe" / "nc"
    env = {"NUMBA_CACHE_DIR": str(root)}
    assert run_script(CACHE_PROBE, env_extra=env)["warnings"] == []
    result = _victim(tmp_path, attack, env)
    _assert_refused(result, root)
    assert len(result["warnings"]) == 1 and str(root) in result["warnings"][0], result["warnings"]
