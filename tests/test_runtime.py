"""The package under fork, spawn, forkserver and threads, and where Numba caches it.

Each scenario runs in a fresh interpreter (the threading layer and the
caches are per process), prints the output bits as JSON, and is checked here
against the plain reference. Every child is joined with a timeout, so a hang
fails the test instead of stalling the suite.
"""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import textwrap
from pathlib import Path

import numpy as np
import pytest
from reference import DTYPES, assert_bits_equal, ref_swish_grad
from reference_activations import ref_sigmoid

import swishgrad_numba
from swishgrad_numba import runtime
from swishgrad_numba.engine import hot

ROOT = Path(__file__).resolve().parent.parent
TIMEOUT = 240

try:
    import torch  # noqa: F401
    HAVE_TORCH = True
except ImportError:
    HAVE_TORCH = False


def run_script(body: str, env_extra: dict | None = None, drop=(), root=ROOT) -> dict:
    """Run ``body`` in a fresh interpreter with the package from ``root``; it
    must print one JSON line last."""
    env = dict(os.environ)
    env["PYTHONPATH"] = str(root) + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    for name in drop:
        env.pop(name, None)
    env.update(env_extra or {})
    # A file, not ``-c``: spawn and forkserver children re-import the main module.
    with tempfile.TemporaryDirectory() as folder:
        script = Path(folder) / "scenario.py"
        script.write_text(textwrap.dedent(body))
        proc = subprocess.run([sys.executable, str(script)], env=env, capture_output=True, text=True,
                              timeout=TIMEOUT)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return json.loads(proc.stdout.strip().splitlines()[-1])


# A child computes these inputs and sends back the output bits.
CHILD = """
import json, multiprocessing as mp, sys, threading, time
import numpy as np, ml_dtypes
import swishgrad_numba as sg

DT = {"float32": np.float32, "float16": np.float16, "bfloat16": ml_dtypes.bfloat16}

def inputs(name, n):
    g = np.linspace(-3, 3, n).astype(DT[name])
    x = np.linspace(-7, 5, n)[::-1].astype(DT[name])
    return g, x

def work(name, n, q):
    g, x = inputs(name, n)
    out = sg.swish_backward(g, x, 1.1)
    q.put(out.view(np.uint32 if out.itemsize == 4 else np.uint16).tolist())

def run_child(ctx_name, name, n):
    ctx = mp.get_context(ctx_name)
    q = ctx.Queue()
    p = ctx.Process(target=work, args=(name, n, q))
    p.start()
    try:
        bits = q.get(timeout=120)
    except Exception:
        bits = None
    p.join(60)
    if p.is_alive():
        p.kill()
        p.join()
        return {"exitcode": "hung", "bits": None}
    return {"exitcode": p.exitcode, "bits": bits}
"""


def _expected_bits(name: str, n: int) -> np.ndarray:
    dt = DTYPES[name]
    g = np.linspace(-3, 3, n).astype(dt)
    x = np.linspace(-7, 5, n)[::-1].astype(dt)
    return ref_swish_grad(g, x, 1.1)


def _check_child(result: dict, name: str, n: int) -> None:
    assert result["exitcode"] == 0, result["exitcode"]
    expected = _expected_bits(name, n)
    got = np.array(result["bits"], dtype=np.uint32 if expected.itemsize == 4 else np.uint16).view(expected.dtype)
    assert_bits_equal(got, expected)


def _expected_layer() -> str:
    import platform as _platform
    from importlib import metadata

    try:
        metadata.distribution("tbb")
    except metadata.PackageNotFoundError:
        return "workqueue"
    return "tbb" if sys.platform.startswith("linux") and _platform.machine() == "x86_64" else "workqueue"


# Every fork scenario runs on the layer the package picks (TBB where pip's
# wheel is installed) and on the workqueue fallback.
LAYERS = pytest.mark.parametrize("layer", ["chosen", "workqueue"])


def _layer_env(layer: str) -> dict:
    return {} if layer == "chosen" else {"NUMBA_THREADING_LAYER": layer}


def test_the_package_picks_tbb_where_pip_installed_it():
    result = run_script("""
import json
import numpy as np
import swishgrad_numba as sg
sg.swish_backward(np.ones(1 << 16, np.float32), np.ones(1 << 16, np.float32))
print(json.dumps(sg.runtime.threading_layer()))
""", drop=("NUMBA_THREADING_LAYER",))
    assert result == _expected_layer()


@LAYERS
@pytest.mark.parametrize("name", ["float16", "float32"])
def test_fork_child_after_parallel_call_in_parent(name, layer):
    # Issue: with PyTorch installed Numba chose GNU OpenMP, and a forked child
    # that ran parallel code after its parent did was killed.
    result = run_script(CHILD + f"""
{"import torch" if HAVE_TORCH else ""}
sg.swish_backward(np.ones(1 << 16, np.float32), np.ones(1 << 16, np.float32))   # parallel launch
small = run_child("fork", {name!r}, 4)
big = run_child("fork", {name!r}, 1 << 17)
print(json.dumps({{"small": small, "big": big, "layer": sg.runtime.threading_layer()}}))
""", env_extra=_layer_env(layer), drop=("NUMBA_THREADING_LAYER",))
    assert result["layer"] == (_expected_layer() if layer == "chosen" else layer)
    _check_child(result["small"], name, 4)
    _check_child(result["big"], name, 1 << 17)


@LAYERS
def test_a_tabulated_program_in_a_forked_child_and_in_threads(layer):
    # A 16-bit forward operator runs as engine.lookup16's launch (its own parallel function): in a child forked
    # after the parent ran it on two bins, and in four threads at once, each on its own inputs.
    result = run_script("""
import json, multiprocessing as mp, threading
import numpy as np
import swishgrad_numba as sg

def x_of(k):
    return (np.linspace(-9, 7, 1 << 17) * (k + 1)).astype(np.float16)

def child(q):
    q.put(sg.sigmoid(x_of(1)).view(np.uint16).tolist())

sg.sigmoid(x_of(0))   # parallel launch in the parent
q = mp.get_context("fork").Queue()
p = mp.get_context("fork").Process(target=child, args=(q,))
p.start()
forked = q.get(timeout=120)
p.join(60)
threads = {}
def work(k):
    threads[k] = sg.sigmoid(x_of(k)).view(np.uint16).tolist()
ts = [threading.Thread(target=work, args=(k,)) for k in range(4)]
for t in ts:
    t.start()
for t in ts:
    t.join(120)
print(json.dumps({"forked": forked, "exitcode": p.exitcode, "threads": [threads.get(k) for k in range(4)]}))
""", env_extra=_layer_env(layer), drop=("NUMBA_THREADING_LAYER",))
    assert result["exitcode"] == 0

    def want(k):
        x = (np.linspace(-9, 7, 1 << 17) * (k + 1)).astype(np.float16)
        return ref_sigmoid(x).view(np.uint16)
    assert np.array_equal(np.array(result["forked"], np.uint16), want(1))
    for k, got in enumerate(result["threads"]):
        assert np.array_equal(np.array(got, np.uint16), want(k)), k


@LAYERS
def test_fork_while_another_thread_is_launching(layer):
    # Issue: a child forked while another thread held the launch lock
    # inherited it held, and hung on its first call.
    result = run_script(CHILD + """
stop = threading.Event()
g, x = inputs("float32", 100)
sg.swish_backward(g, x, 1.1)   # compiled (or loaded) before the forks: see the README's fork notes
def busy():
    while not stop.is_set():
        sg.swish_backward(g, x, 1.1)
t = threading.Thread(target=busy, daemon=True)
t.start()
time.sleep(0.2)
results = [run_child("fork", "float32", n) for n in (100, 1 << 17) for _ in range(6)]
stop.set()
t.join()
print(json.dumps(results))
""", env_extra=_layer_env(layer), drop=("NUMBA_THREADING_LAYER",))
    for r, n in zip(result, [100] * 6 + [1 << 17] * 6):
        _check_child(r, "float32", n)



#: The package's locks a call takes, and a size whose call in the child takes it: the compiled program's
#: lookup (every call), the hot tier's (a stream's first large launch, engine/hot.py).
HELD_AT_FORK = [("swishgrad_numba.program.passes:_LOCK", 100), ("swishgrad_numba.engine.hot:_LOCK", hot.HOT_MIN_ELEMENTS)]


@pytest.mark.parametrize("lock, n", HELD_AT_FORK)
def test_a_child_forked_while_another_thread_holds_a_package_lock_runs(lock, n):
    # Issue: a thread preempted inside `with passes._LOCK:` (taken on every call) at the fork left the
    # child's copy held for ever, and the child hung on its first call (test_fork_while_another_thread_is_launching,
    # now and then under load). Here the other thread holds the lock across the fork, every time.
    module, name = lock.split(":")
    result = run_script(CHILD + f"""
import importlib
held, release = threading.Event(), threading.Event()
g, x = inputs("float32", 100)
sg.swish_backward(g, x, 1.1)
def hold():
    with getattr(importlib.import_module({module!r}), {name!r}):
        held.set()
        release.wait()
t = threading.Thread(target=hold, daemon=True)
t.start()
held.wait()
results = [run_child("fork", "float32", {n})]
release.set()
t.join()
print(json.dumps(results))
""")
    _check_child(result[0], "float32", n)

@pytest.mark.parametrize("stream, busy", [("default", False), ("created", False), ("created", True)])
def test_a_forked_child_launches_on_a_stream_its_parent_used(stream, busy):
    # Issue: the thread that ran a stream's launches does not exist in a forked child, so the child's first
    # launch on a stream the parent had used (the default stream included) waited for ever in
    # aclrtSynchronizeStream. busy: another thread of the parent's is inside one of the stream's launches at
    # the fork.
    result = run_script(CHILD + f"""
from swishgrad_numba import aclnn

def tensor(a):
    return aclnn.aclCreateTensor(a.shape, aclnn.ACL_FLOAT, None, 0, aclnn.ACL_FORMAT_ND, a.shape, a)

STREAM = None if {stream!r} == "default" else aclnn.aclrtCreateStream()[1]

def launch(n, q):
    g, x = inputs("float32", n)
    out = np.zeros_like(x)
    status, ws, executor = aclnn.aclnnSwishBackwardGetWorkspaceSize(
        tensor(g), tensor(x), aclnn.aclCreateScalar(1.1, aclnn.ACL_FLOAT), tensor(out))
    assert status == 0, aclnn.aclGetRecentErrMsg()
    assert aclnn.aclnnSwishBackward(np.zeros(max(ws, 1), np.uint8) if ws else None, ws, executor, STREAM) == 0
    assert aclnn.aclrtSynchronizeStream(STREAM) == 0
    q.put(out.view(np.uint32).tolist())

import queue as _queue
launch(100, _queue.Queue())   # the parent's own launch
import threading
held, release = threading.Event(), threading.Event()
if {busy!r}:
    from swishgrad_numba.aclnn.device import resolve_stream
    busy_thread = threading.Thread(target=resolve_stream(STREAM)._submit,
                                   args=(lambda: (held.set(), release.wait(120)),))
    busy_thread.start()
    held.wait(60)
ctx = mp.get_context("fork")
q = ctx.Queue()
p = ctx.Process(target=launch, args=(100, q))
p.start()
try:
    bits = q.get(timeout=120)
except Exception:
    bits = None
p.join(60)
if p.is_alive():
    p.kill()
    p.join()
release.set()
print(json.dumps({{"exitcode": "hung" if bits is None else p.exitcode, "bits": bits}}))
""")
    _check_child(result, "float32", 100)


@pytest.mark.parametrize("ctx_name", ["spawn", "forkserver"])
def test_spawn_and_forkserver_children(ctx_name):
    result = run_script(CHILD + f"""
if __name__ == "__main__":
    sg.swish_backward(np.ones(1 << 16, np.float32), np.ones(1 << 16, np.float32))
    print(json.dumps(run_child({ctx_name!r}, "bfloat16", 1 << 16)))
""")
    _check_child(result, "bfloat16", 1 << 16)


@LAYERS
@pytest.mark.skipif(not HAVE_TORCH, reason="needs torch")
def test_dataloader_workers_call_the_emulator(layer):
    result = run_script("""
import json
import numpy as np, torch
import swishgrad_numba as sg

class Data(torch.utils.data.Dataset):
    def __len__(self):
        return 8
    def __getitem__(self, i):
        g = np.linspace(-3, 3, 1 << 15).astype(np.float16) * np.float16(i + 1)
        x = np.linspace(-7, 5, 1 << 15)[::-1].astype(np.float16)
        return torch.from_numpy(sg.swish_backward(g, x, 1.1).view(np.int16).astype(np.int32))

sg.swish_backward(np.ones(1 << 16, np.float32), np.ones(1 << 16, np.float32))
torch.ones(1 << 16).exp().sum()   # the parent's own OpenMP threads run too
loader = torch.utils.data.DataLoader(Data(), batch_size=2, num_workers=2, timeout=120)
batches = [b.numpy().astype(np.uint16).tolist() for b in loader]
print(json.dumps(batches))
""", env_extra=_layer_env(layer), drop=("NUMBA_THREADING_LAYER",))
    rows = [row for batch in result for row in batch]
    assert len(rows) == 8
    for i, row in enumerate(rows):
        g = np.linspace(-3, 3, 1 << 15).astype(np.float16) * np.float16(i + 1)
        x = np.linspace(-7, 5, 1 << 15)[::-1].astype(np.float16)
        assert_bits_equal(np.array(row, dtype=np.uint16).view(np.float16), ref_swish_grad(g, x, 1.1))


@pytest.mark.parametrize("choice", ["tbb", "safe", "threadsafe"])
def test_a_layer_that_may_be_tbb_loads_the_wheels_tbb(choice):
    # Issue: the wheel's TBB was loaded only when NUMBA_THREADING_LAYER was
    # unset: "tbb" and "safe" failed, "threadsafe" fell back to OpenMP and a
    # fork Pool then hung.
    if _expected_layer() != "tbb":
        pytest.skip("pip's tbb wheel is not installed here")
    result = run_script(CHILD + """
if __name__ == "__main__":
    sg.swish_backward(np.ones(1 << 16, np.float32), np.ones(1 << 16, np.float32))
    layer = sg.runtime.threading_layer()
    ctx = mp.get_context("fork")
    with ctx.Pool(2) as pool:
        got = pool.starmap_async(sg.swish_backward, [(*inputs("float32", 1 << 17), 1.1) for _ in range(2)]).get(120)
    print(json.dumps({"layer": layer, "bits": [o.view(np.uint32).tolist() for o in got]}))
""", env_extra={"NUMBA_THREADING_LAYER": choice})
    assert result["layer"] == "tbb"
    for bits in result["bits"]:
        _check_child({"exitcode": 0, "bits": bits}, "float32", 1 << 17)


def test_a_forced_openmp_layer_warns_once_about_fork():
    result = run_script("""
import json, warnings
import numpy as np
import swishgrad_numba as sg
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    for _ in range(3):
        sg.swish_backward(np.ones(1 << 16, np.float32), np.ones(1 << 16, np.float32))
print(json.dumps([str(w.message) for w in caught]))
""", env_extra={"NUMBA_THREADING_LAYER": "omp"})
    assert len(result) == 1 and "fork" in result[0] and "OpenMP" in result[0], result


def test_threading_layer_respects_an_explicit_choice():
    result = run_script("""
import json
import numpy as np
import swishgrad_numba as sg
sg.swish_backward(np.ones(1 << 16, np.float32), np.ones(1 << 16, np.float32))
print(json.dumps(sg.runtime.threading_layer()))
""", env_extra={"NUMBA_THREADING_LAYER": "workqueue"})
    assert result == "workqueue"


def test_compiled_code_is_cached_outside_the_package(tmp_path):
    # Issue: Numba's in-tree cache files survived pip's uninstall; the
    # leftover site-packages/swishgrad_numba/__pycache__ then shadowed the
    # editable install as an empty namespace package.
    def cache_files():
        return {p: p.stat().st_mtime_ns for p in Path(runtime.PACKAGE_DIR).rglob("*") if p.suffix in (".nbi", ".nbc")}

    before = cache_files()
    xdg = tmp_path / "xdg"
    result = run_script("""
import json
import numpy as np
from swishgrad_numba import casts
assert casts.bf16_bits_to_f32(np.uint16(0x3F80)) == 1.0   # compiles and caches one function
print(json.dumps(True))
""", env_extra={"XDG_CACHE_HOME": str(xdg), "HOME": str(tmp_path)}, drop=("NUMBA_CACHE_DIR",))
    assert result is True
    assert cache_files() == before
    written = [p.name for p in xdg.rglob("*.nbi")]
    assert any("bf16_bits_to_f32" in name for name in written), written


def test_numba_cache_dir_still_wins(tmp_path):
    result = run_script("""
import json
import numpy as np
from swishgrad_numba import casts
casts.bf16_bits_to_f32(np.uint16(0x3F80))
print(json.dumps(True))
""", env_extra={"NUMBA_CACHE_DIR": str(tmp_path / "nc"), "XDG_CACHE_HOME": str(tmp_path / "xdg")})
    assert result is True
    assert any("bf16_bits_to_f32" in p.name for p in (tmp_path / "nc").rglob("*.nbi"))
    assert not (tmp_path / "xdg").exists()


def test_editing_any_module_recompiles_cached_kernels(tmp_path):
    # Numba alone checks only the defining file; the launch functions inline
    # other modules, so the package stamps its cache with all its sources.
    copy = tmp_path / "src"
    shutil.copytree(runtime.PACKAGE_DIR, copy / "swishgrad_numba", ignore=shutil.ignore_patterns("__pycache__"))
    body = """
import json
import numpy as np
from swishgrad_numba import casts
assert casts.bf16_bits_to_f32(np.uint16(0x3F80)) == 1.0
print(json.dumps(casts.bf16_bits_to_f32.stats.cache_hits.__len__()))
"""
    env = {"NUMBA_CACHE_DIR": str(tmp_path / "nc")}

    def run():
        return run_script(body, env_extra=env, root=copy)

    assert run() == 0            # compiled and cached
    assert run() == 1            # loaded from the cache
    other = copy / "swishgrad_numba" / "kernel" / "plan.py"   # not casts.py
    os.utime(other, ns=(other.stat().st_atime_ns, other.stat().st_mtime_ns + 10**9))
    assert run() == 0            # stale: compiled again
    assert run() == 1


def test_each_source_version_caches_in_its_own_folder_and_stale_ones_go(tmp_path):
    # Numba unpickles an index's signatures before comparing its stamp, and
    # the launches' signatures name the operators' NamedTuple classes: an
    # index of other sources must never be opened. Folders of other source
    # versions unused for a week are removed.
    env = {"NUMBA_CACHE_DIR": str(tmp_path / "nc")}
    first = Path(run_script(CACHE_PROBE, env_extra=env)["path"])
    assert first.name == "src-" + runtime.package_source_stamp()[:16]
    stale, recent = first.parent / "src-0000000000000000", first.parent / "src-1111111111111111"
    for folder in (stale, recent):
        folder.mkdir()
        (folder / "x.nbi").write_bytes(b"an index of other sources")
    week = runtime.STALE_VERSION_SECONDS
    os.utime(stale, (stale.stat().st_atime - week - 60, stale.stat().st_mtime - week - 60))
    second = run_script(CACHE_PROBE, env_extra=env)
    _check_probe_bits(second)
    assert Path(second["path"]) == first
    assert not stale.exists() and (recent / "x.nbi").exists()


def test_package_functions_only():
    # Functions outside the package keep Numba's usual locators.
    assert runtime.PackageCacheLocator.from_function(test_package_functions_only, __file__) is None
    assert swishgrad_numba.runtime is runtime


# A script that reports where one package function's compiled code went, the
# warnings it saw, and bits to check (one small function: compiling the
# kernels in every fresh cache would cost a minute).
CACHE_PROBE = """
import json, warnings
import numpy as np
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    from swishgrad_numba import casts
    out = np.array([casts.bf16_bits_to_f32(np.uint16(b)) for b in range(0, 1 << 16, 257)], np.float32)
impl = casts.bf16_bits_to_f32._cache._impl
print(json.dumps({"path": casts.bf16_bits_to_f32._cache._cache_path,
                  "locator": type(impl.locator).__name__,
                  "warnings": [str(w.message) for w in caught],
                  "bits": out.view(np.uint32).tolist()}))
"""


def _check_probe_bits(result):
    # a bfloat16 widens to the float32 of the same top 16 bits
    expected = (np.arange(0, 1 << 16, 257, dtype=np.uint32) << 16).view(np.float32)
    assert_bits_equal(np.array(result["bits"], dtype=np.uint32).view(np.float32), expected)


def _snapshot(folder: Path) -> dict:
    return {str(p): (p.stat().st_mode, p.stat().st_size, p.stat().st_mtime_ns) for p in [folder, *folder.rglob("*")]}


def _plant(folder: Path, other_uid: bool) -> dict:
    """A cache folder another user made first, with a planted index."""
    folder.mkdir()
    (folder / "planted.nbi").write_bytes(b"not a pickle of ours")
    os.chmod(folder, 0o777)
    if other_uid:
        os.chown(folder, 54321, 54321)
    return _snapshot(folder)


@pytest.mark.parametrize("owner", ["other user", "this user, world-writable"])
def test_a_planted_temporary_cache_folder_is_never_used(tmp_path, owner):
    # Issue: with ~/.cache unwritable and NUMBA_CACHE_DIR unset, the package
    # cached in $TMPDIR/swishgrad_numba-cache-<uid> without checking who made
    # it: another local user could plant an index (a pickle) there.
    if owner == "other user" and os.geteuid() != 0:
        pytest.skip("making a folder of another uid needs root")
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    planted = tmp / f"swishgrad_numba-cache-{os.getuid()}"
    before = _plant(planted, owner == "other user")
    blocker = tmp_path / "a-file"
    blocker.write_text("")   # the per-user cache cannot be made under a file
    env = {"TMPDIR": str(tmp), "XDG_CACHE_HOME": str(blocker / "xdg"), "HOME": str(blocker)}
    result = run_script(CACHE_PROBE, env_extra=env, drop=("NUMBA_CACHE_DIR",))
    _check_probe_bits(result)
    assert _snapshot(planted) == before           # nothing written (and so nothing read as ours)
    assert not result["path"].startswith(str(planted))
    assert result["locator"] == "PackageCacheLocator"
    assert any("not cached across processes" in w and str(planted) in w for w in result["warnings"]), result
    assert not list(tmp.glob("swishgrad_numba-nocache-*"))   # the process's own folder went at exit


def test_a_private_temporary_cache_folder_is_made_private_and_used(tmp_path):
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    env = {"TMPDIR": str(tmp), "XDG_CACHE_HOME": str(blocker / "xdg"), "HOME": str(blocker)}
    result = run_script(CACHE_PROBE, env_extra=env, drop=("NUMBA_CACHE_DIR",))
    _check_probe_bits(result)
    folder = tmp / f"swishgrad_numba-cache-{os.getuid()}"
    assert result["path"].startswith(str(folder)) and result["warnings"] == []
    assert stat_mode(folder) == 0o700
    assert list(folder.rglob("*.nbi"))
    os.chmod(folder, 0o757)                      # checked again at every start
    again = run_script(CACHE_PROBE, env_extra=env, drop=("NUMBA_CACHE_DIR",))
    assert not again["path"].startswith(str(folder)) and again["warnings"]


def stat_mode(path: Path) -> int:
    return path.stat().st_mode & 0o777


def test_an_unusable_numba_cache_dir_never_sends_the_cache_into_the_package(tmp_path):
    # Issue: a read-only NUMBA_CACHE_DIR let Numba's in-tree locator cache into
    # swishgrad_numba/kernel/__pycache__, stamped by each file alone.
    copy = tmp_path / "src"
    shutil.copytree(runtime.PACKAGE_DIR, copy / "swishgrad_numba", ignore=shutil.ignore_patterns("__pycache__"))
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    result = run_script(CACHE_PROBE, env_extra={"NUMBA_CACHE_DIR": str(blocker / "nc")}, root=copy)
    _check_probe_bits(result)
    assert result["locator"] == "PackageCacheLocator"   # the package-wide stamp applies
    assert not [p for p in (copy / "swishgrad_numba").rglob("*") if p.suffix in (".nbi", ".nbc")]
    assert any("not cached across processes" in w for w in result["warnings"])
