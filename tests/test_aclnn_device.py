"""Tests of swishgrad_numba.aclnn.device: streams, memory and the runtime's status codes.

Results through the API are compared bit for bit with ``swish_backward`` (tested on its own elsewhere).
"""
import numpy as np

from aclnn_helpers import (  # noqa: F401  (fixtures)
    F16, F32, WORKSPACE, bits, random_values, reference_platform, stream, tensor, three,
)
from swishgrad_numba import aclnn, swish_backward
from swishgrad_numba.aclnn import ACLNN_ERR_RUNTIME_ERROR, ACLNN_SUCCESS
from swishgrad_numba.ops.swish_grad import kernel as swish_grad_kernel


# --------------------------------------------------------------------------
# Streams
# --------------------------------------------------------------------------


def test_destroyed_stream_is_a_runtime_error():
    _, _, _, go, xt, gi = three()
    status, s = aclnn.aclrtCreateStream()
    assert aclnn.aclrtDestroyStream(s) == aclnn.ACL_SUCCESS
    assert aclnn.aclrtDestroyStream(s) == aclnn.ACL_ERROR_RT_PARAM_INVALID
    assert aclnn.aclrtSynchronizeStream(s) == aclnn.ACL_ERROR_RT_PARAM_INVALID
    status, ws, executor = aclnn.aclnnSwishBackwardGetWorkspaceSize(go, xt, None, gi)
    assert aclnn.aclnnSwishBackward(WORKSPACE, ws, executor, s) == ACLNN_ERR_RUNTIME_ERROR
    assert "stream was destroyed" in aclnn.aclGetRecentErrMsg()
    assert aclnn.aclnnSwishBackward(WORKSPACE, ws, executor, 5) == ACLNN_ERR_RUNTIME_ERROR


def test_failed_launch_reports_on_synchronize(monkeypatch, stream):
    def boom(*args, **kwargs):
        raise RuntimeError("emulated kernel fault")

    monkeypatch.setattr(swish_grad_kernel, "launch", boom)   # the compiled kernel aclnnSwishBackward runs
    _, _, out, go, xt, gi = three()
    status, ws, executor = aclnn.aclnnSwishBackwardGetWorkspaceSize(go, xt, None, gi)
    assert aclnn.aclnnSwishBackward(WORKSPACE, ws, executor, stream) == ACLNN_SUCCESS
    assert aclnn.aclrtSynchronizeStream(stream) == aclnn.ACL_ERROR_RT_INTERNAL_ERROR
    assert "emulated kernel fault" in aclnn.aclGetRecentErrMsg()
    assert aclnn.aclrtSynchronizeStream(stream) == aclnn.ACL_SUCCESS  # the error was consumed


def test_launches_on_one_stream_run_in_order(stream):
    """Each launch reads the previous launch's output: only in-order execution gives the chain."""
    rng = np.random.default_rng(5)
    x = random_values(rng, (300,), F32, specials=False)
    bufs = [random_values(rng, (300,), F32, specials=False)] + [np.zeros(300, np.float32) for _ in range(4)]
    xt = tensor(x)
    for a, b in zip(bufs, bufs[1:]):
        status, ws, executor = aclnn.aclnnSwishBackwardGetWorkspaceSize(tensor(a), xt, None, tensor(b))
        assert aclnn.aclnnSwishBackward(WORKSPACE, ws, executor, stream) == ACLNN_SUCCESS
    assert aclnn.aclrtSynchronizeStream(stream) == aclnn.ACL_SUCCESS
    expected = bufs[0]
    for _ in range(4):
        expected = swish_backward(expected, x)
    np.testing.assert_array_equal(bits(bufs[-1]), bits(expected))


def test_a_launch_on_an_idle_stream_runs_on_the_launching_thread_and_starts_no_thread():
    """No thread of the emulator's: a woken one would slow the caller's later calls while it waits for the GIL.
    A failed launch is reported at the next synchronize, and the launches after it still run."""
    import threading

    before = set(threading.enumerate())
    s = aclnn.aclrtCreateStream()[1]
    ran = []

    def job(k):
        def run():
            ran.append((k, threading.current_thread()))
            if k == 2:
                raise ValueError("launch 2 fails")
        return run
    for k in range(5):
        s._submit(job(k))
        assert ran[-1] == (k, threading.current_thread())          # run before the launch returned
    assert set(threading.enumerate()) == before
    assert aclnn.aclrtSynchronizeStream(s) == aclnn.ACL_ERROR_RT_INTERNAL_ERROR
    assert "launch 2 fails" in aclnn.aclGetRecentErrMsg()
    assert [k for k, _ in ran] == list(range(5))
    assert aclnn.aclrtSynchronizeStream(s) == aclnn.ACL_SUCCESS and len(ran) == 5
    assert aclnn.aclrtDestroyStream(s) == aclnn.ACL_SUCCESS
    assert set(threading.enumerate()) == before


def _held_launch(s, ran):
    """A thread inside a launch on ``s`` until ``release`` is set, which then appends ("held", itself) to ``ran``:
    ``(thread, release)``."""
    import threading

    started, release = threading.Event(), threading.Event()

    def held():
        started.set()
        assert release.wait(30)
        ran.append(("held", threading.current_thread()))
    runner = threading.Thread(target=s._submit, args=(held,))
    runner.start()
    assert started.wait(30)
    return runner, release


def test_a_launch_queued_while_another_thread_runs_the_stream_runs_after_it_on_that_thread():
    import threading

    s, ran = aclnn.aclrtCreateStream()[1], []
    runner, release = _held_launch(s, ran)
    s._submit(lambda: ran.append(("second", threading.current_thread())))
    assert ran == []                                   # queued behind the running launch, not run here
    release.set()
    runner.join(30)
    assert ran == [("held", runner), ("second", runner)]
    assert aclnn.aclrtSynchronizeStream(s) == aclnn.ACL_SUCCESS
    assert aclnn.aclrtDestroyStream(s) == aclnn.ACL_SUCCESS


def test_a_synchronize_waits_for_the_launch_another_thread_runs():
    import threading

    s, ran = aclnn.aclrtCreateStream()[1], []
    runner, release = _held_launch(s, ran)
    got = []
    syncer = threading.Thread(target=lambda: got.append(aclnn.aclrtSynchronizeStream(s)))
    syncer.start()
    syncer.join(0.2)
    assert syncer.is_alive() and got == []              # waiting on the running launch
    release.set()
    syncer.join(30)
    runner.join(30)
    assert got == [aclnn.ACL_SUCCESS] and ran == [("held", runner)]
    assert aclnn.aclrtDestroyStream(s) == aclnn.ACL_SUCCESS


def test_launches_run_once_and_in_order_whoever_runs_them():
    """Launches queued from two threads at once while two others synchronize the stream over and over: each
    runs once, in the order its thread queued it, never two at a time."""
    import threading
    import time

    s = aclnn.aclrtCreateStream()[1]
    ran, running, overlap = [], [0], []

    def job(tag, k):
        def run():
            running[0] += 1
            overlap.append(running[0] > 1)
            time.sleep(0.0001 * (k % 3))
            ran.append((tag, k))
            running[0] -= 1
        return run
    stop = threading.Event()

    def sync():
        while not stop.is_set():
            assert aclnn.aclrtSynchronizeStream(s) == aclnn.ACL_SUCCESS

    def launches(tag):
        for k in range(150):
            s._submit(job(tag, k))
    syncers = [threading.Thread(target=sync) for _ in range(2)]
    launchers = [threading.Thread(target=launches, args=(tag,)) for tag in "ab"]
    for t in syncers + launchers:
        t.start()
    for t in launchers:
        t.join()
    assert aclnn.aclrtSynchronizeStream(s) == aclnn.ACL_SUCCESS
    stop.set()
    for t in syncers:
        t.join()
    assert len(ran) == 300 and not any(overlap)
    for tag in "ab":
        assert [k for t, k in ran if t == tag] == list(range(150))
    assert aclnn.aclrtDestroyStream(s) == aclnn.ACL_SUCCESS


def test_default_stream_and_several_streams():
    rng = np.random.default_rng(6)
    streams = [aclnn.aclrtCreateStream()[1] for _ in range(2)] + [None]
    jobs = []
    for i, s in enumerate(streams):
        g, x = random_values(rng, (64,), F16), random_values(rng, (64,), F16)
        out = np.zeros(64, F16)
        status, ws, executor = aclnn.aclnnSwishBackwardGetWorkspaceSize(tensor(g), tensor(x), None, tensor(out))
        assert aclnn.aclnnSwishBackward(WORKSPACE, ws, executor, s) == ACLNN_SUCCESS
        jobs.append((g, x, out))
    for s in streams:
        assert aclnn.aclrtSynchronizeStream(s) == aclnn.ACL_SUCCESS
    for g, x, out in jobs:
        np.testing.assert_array_equal(bits(out), bits(swish_backward(g, x)))
    for s in streams[:2]:
        assert aclnn.aclrtDestroyStream(s) == aclnn.ACL_SUCCESS


# --------------------------------------------------------------------------
# Memory
# --------------------------------------------------------------------------


def test_malloc_beyond_memory_is_an_error_not_an_exception():
    assert aclnn.aclrtMalloc(2**63) == (aclnn.ACL_ERROR_INVALID_PARAM, None)
    assert "exceeds" in aclnn.aclGetRecentErrMsg()
    # 4 EiB: more than any 64-bit address space maps
    assert aclnn.aclrtMalloc(2**62) == (aclnn.ACL_ERROR_RT_MEMORY_ALLOCATION, None)
    assert "cannot allocate" in aclnn.aclGetRecentErrMsg()


def test_memcpy_bounds():
    dst, src = np.zeros(4, np.float32), np.arange(4, dtype=np.float32)
    assert aclnn.aclrtMemcpy(dst, 16, src, 8, aclnn.ACL_MEMCPY_HOST_TO_DEVICE) == aclnn.ACL_SUCCESS
    np.testing.assert_array_equal(dst, [0, 1, 0, 0])
    assert aclnn.aclrtMemcpy(dst, 20, src, 8, aclnn.ACL_MEMCPY_HOST_TO_DEVICE) == aclnn.ACL_ERROR_INVALID_PARAM
    assert aclnn.aclrtMemcpy(dst, 8, src, 12, aclnn.ACL_MEMCPY_HOST_TO_DEVICE) == aclnn.ACL_ERROR_INVALID_PARAM
    assert aclnn.aclrtMemcpy(dst, 16, src[:1], 8, aclnn.ACL_MEMCPY_HOST_TO_DEVICE) == aclnn.ACL_ERROR_INVALID_PARAM
    assert "exceeds" in aclnn.aclGetRecentErrMsg()


# --------------------------------------------------------------------------
# The float overflow mode: aclrtSetDeviceSatMode (model section 2, overflow modes)
# --------------------------------------------------------------------------


def test_set_device_sat_mode_applies_to_streams_created_after():
    import pytest

    from reference import ref_saturated_swish_grad

    with np.errstate(over="ignore"):
        x = np.array([-100.0, -89.0, np.nan, np.inf, 1.0, -3.0, 0.5, 70000.0], np.float32).astype(F16)
        g = np.array([1.0, -2.0, 1.0, np.nan, np.inf, 2.0, 1.0, 1.0], np.float32).astype(F16)
    expected_sat = ref_saturated_swish_grad(g, x, 1.0, "float16")
    assert aclnn.aclrtGetDeviceSatMode() == (aclnn.ACL_SUCCESS, aclnn.ACL_RT_OVERFLOW_MODE_INFNAN)
    _, before = aclnn.aclrtCreateStream()
    try:
        assert aclnn.aclrtSetDeviceSatMode(aclnn.ACL_RT_OVERFLOW_MODE_SATURATION) == aclnn.ACL_SUCCESS
        assert aclnn.aclrtGetDeviceSatMode() == (aclnn.ACL_SUCCESS, aclnn.ACL_RT_OVERFLOW_MODE_SATURATION)
        _, after = aclnn.aclrtCreateStream()
        for s, expected in ((before, swish_backward(g, x)), (after, expected_sat)):
            out = np.zeros_like(x)
            status, ws, executor = aclnn.aclnnSwishBackwardGetWorkspaceSize(tensor(g), tensor(x), None, tensor(out))
            assert status == ACLNN_SUCCESS
            assert aclnn.aclnnSwishBackward(WORKSPACE, ws, executor, s) == ACLNN_SUCCESS
            assert aclnn.aclrtSynchronizeStream(s) == aclnn.ACL_SUCCESS
            np.testing.assert_array_equal(bits(out), bits(expected))
        assert not np.array_equal(bits(swish_backward(g, x)), bits(expected_sat))
        aclnn.aclrtDestroyStream(after)
    finally:
        assert aclnn.aclrtSetDeviceSatMode(aclnn.ACL_RT_OVERFLOW_MODE_INFNAN) == aclnn.ACL_SUCCESS
        aclnn.aclrtDestroyStream(before)
    with pytest.raises(AssertionError):   # the test's own check of the two expectations is not vacuous
        np.testing.assert_array_equal(bits(expected_sat), bits(swish_backward(g, x)))


def test_set_device_sat_mode_refusals():
    from swishgrad_numba import Platform

    for bad in (aclnn.ACL_RT_OVERFLOW_MODE_UNDEF, -1, "saturation", None, 1.0):
        assert aclnn.aclrtSetDeviceSatMode(bad) == aclnn.ACL_ERROR_INVALID_PARAM
        assert "mode must be ACL_RT_OVERFLOW_MODE_SATURATION (0) or ACL_RT_OVERFLOW_MODE_INFNAN (1)" in \
            aclnn.aclGetRecentErrMsg()
    previous = aclnn.set_platform(Platform(soc_version="ascend950"))
    try:
        assert aclnn.aclrtSetDeviceSatMode(aclnn.ACL_RT_OVERFLOW_MODE_SATURATION) == \
            aclnn.ACL_ERROR_RT_FEATURE_NOT_SUPPORT == 207000
        assert "supports ACL_RT_OVERFLOW_MODE_INFNAN only" in aclnn.aclGetRecentErrMsg()
        assert aclnn.aclrtSetDeviceSatMode(aclnn.ACL_RT_OVERFLOW_MODE_INFNAN) == aclnn.ACL_SUCCESS
    finally:
        aclnn.set_platform(previous)
    assert aclnn.aclrtGetDeviceSatMode() == (aclnn.ACL_SUCCESS, aclnn.ACL_RT_OVERFLOW_MODE_INFNAN)
