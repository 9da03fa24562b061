"""ops.call and ops.call_plans's call plans, and faces.functional's face plans (issue 39): a repeated call goes from its checks
straight to its launch, with the first call's bits and the reference's; a call that changes anything the launch
is derived from is planned anew; bad input on a planned key still raises the same error."""
import os
import threading

import numba
import numpy as np
import pytest

from activation_checks import DT16
from reference import assert_bits_equal
import reference_activations as ra
import reference_activations_tier2 as rt2

import swishgrad_numba as sg
from swishgrad_numba.faces import plans as face_plans
from swishgrad_numba.ops import call as ops_call, call_plans
from swishgrad_numba.platform import ASCEND950_PLATFORM, REFERENCE_PLATFORM

DT = {"float32": np.dtype(np.float32), **DT16}
KERNELS = {"a2": REFERENCE_PLATFORM, "arch35": ASCEND950_PLATFORM}


@pytest.fixture
def tilings(monkeypatch):
    """The host tilings each call asked for: a call that went its plan's way asks none."""
    asked, real = [], ops_call.host_tiling

    def counted(*args):
        asked.append(args[:2])
        return real(*args)

    monkeypatch.setattr(ops_call, "host_tiling", counted)
    return asked


def _pair(shape, dtype, seed):
    rng = np.random.default_rng(seed)
    with np.errstate(over="ignore"):
        dy = rng.uniform(-4, 4, shape).astype(np.float32).astype(DT[dtype])
        y = rng.uniform(-0.5, 1.5, shape).astype(np.float32).astype(DT[dtype])
    return dy, y


@pytest.mark.parametrize("kernel", KERNELS)
@pytest.mark.parametrize("dtype", DT)
def test_a_repeated_call_gives_the_first_calls_bits_and_the_references(kernel, dtype, tilings):
    shape = (3, 1021 + len(dtype) + len(kernel))     # a shape of this test's own: no other test planned it
    dy, y = _pair(shape, dtype, 39)
    want = ra.ref_sigmoid_backward(dy, y, kernel)
    first = sg.sigmoid_backward(dy, y, platform=KERNELS[kernel])
    again = [sg.sigmoid_backward(dy, y, platform=KERNELS[kernel]) for _ in range(2)]
    into = np.empty(shape, DT[dtype])
    assert sg.sigmoid_backward(dy, y, out=into, platform=KERNELS[kernel]) is into
    for got in (first, *again, into):
        assert_bits_equal(got, want, f"{kernel} {dtype}")
    assert len(tilings) == 1, tilings      # the later calls took the plan


def test_a_plan_reads_each_calls_own_inputs_and_writes_its_own_out(tilings):
    dy, y = _pair(4099, "float16", 1)
    sg.sigmoid_backward(dy, y, platform=ASCEND950_PLATFORM)
    for seed in (2, 3):
        dy2, y2 = _pair(4099, "float16", seed)
        want = ra.ref_sigmoid_backward(dy2, y2, "arch35")
        assert_bits_equal(sg.sigmoid_backward(dy2, y2, platform=ASCEND950_PLATFORM), want)
        # in place (out is an input: written through a result of its own), strided, read-only inputs
        inplace = dy2.copy()
        assert sg.sigmoid_backward(inplace, y2, out=inplace, platform=ASCEND950_PLATFORM) is inplace
        assert_bits_equal(inplace, want)
        wide = np.empty(2 * 4099, np.float16)
        sg.sigmoid_backward(dy2, y2, out=wide[::2], platform=ASCEND950_PLATFORM)
        assert_bits_equal(wide[::2], want)
        frozen = y2.copy()
        frozen.flags.writeable = False
        assert_bits_equal(sg.sigmoid_backward(dy2, frozen, platform=ASCEND950_PLATFORM), want)
        strided = np.repeat(y2, 2)[::2]
        assert_bits_equal(sg.sigmoid_backward(dy2, strided, platform=ASCEND950_PLATFORM), want)
    # two tilings: the first call's, the strided y's (a key of its own); the other forms found a plan
    assert tilings == [("sigmoid_grad", 4099)] * 2


def _nan(payload: int) -> np.float32:
    return np.uint32(0x7FC00000 | payload).view(np.float32)


def test_each_attributes_bits_are_planned_apart():
    """-0.0 and 0.0 (a negative x times the slope: +0.0 and -0.0), and NaNs of two payloads (carried into
    the products), each gives its own reference's bits, before and after the others were planned."""
    rng = np.random.default_rng(7)
    x = rng.uniform(-3, 3, 2053).astype(np.float32)
    x[:4] = (-1.0, -0.0, 0.0, 2.0)
    slopes = (0.0, -0.0, np.float32(0.0), np.float32(-0.0), _nan(1), _nan(2), 0.01, np.float32(0.25))
    for turn in range(2):
        for slope in slopes:
            got = sg.leaky_relu(x, slope, platform=ASCEND950_PLATFORM)
            assert_bits_equal(got, rt2.ref_leaky_relu(x, np.float32(slope)), f"slope {slope!r} turn {turn}")


def test_shapes_dtypes_and_platforms_are_planned_apart(tilings):
    asked = []
    for turn in range(2):
        for shape in ((2050,), (2, 1025), (2051,)):
            for dtype in DT:
                for kernel, platform in KERNELS.items():
                    dy, y = _pair(shape, dtype, len(shape) + len(dtype))
                    got = sg.sigmoid_backward(dy, y, platform=platform)
                    assert got.shape == shape and got.dtype == DT[dtype]
                    assert_bits_equal(got, ra.ref_sigmoid_backward(dy, y, kernel), f"{shape} {dtype} {kernel}")
        asked.append(len(tilings))
    assert asked[0] == 3 * 3 * 2 and asked[1] == asked[0]    # each key planned once, the second turn by its plan


def test_a_key_holds_what_the_launch_depends_on():
    """The call's key: the thread count of a launch that asks it, the attributes' bits, the
    platform by identity, each input's strides and writeability."""
    big = np.zeros(1 << 15, np.float32)
    args = ("sigmoid_grad", (("dy", big), ("y", big)), np.float32(1.0), ASCEND950_PLATFORM)
    key = call_plans.plan_key(*args)
    threads = numba.get_num_threads()
    if threads > 1:
        numba.set_num_threads(1)
        try:
            assert call_plans.plan_key(*args) != key
        finally:
            numba.set_num_threads(threads)
    assert call_plans.plan_key(*args[:2], np.float32(-1.0), args[3]) != key
    assert call_plans.plan_key(*args[:2], np.float32(0.0), args[3]) != call_plans.plan_key(*args[:2], np.float32(-0.0),
                                                                                          args[3])
    assert call_plans.plan_key(*args[:2], _nan(1), args[3]) != call_plans.plan_key(*args[:2], _nan(2), args[3])
    assert call_plans.plan_key(*args[:3], sg.Platform(soc_version="ascend950")) != key
    frozen = big.view()
    frozen.flags.writeable = False
    assert call_plans.plan_key(args[0], (("dy", big), ("y", frozen)), *args[2:]) != key
    assert call_plans.plan_key(args[0], (("dy", big), ("y", np.zeros(1 << 16, np.float32)[::2])), *args[2:]) != key
    assert call_plans.plan_key(args[0], (("dy", big), ("y", list(big))), *args[2:]) is None
    assert call_plans.plan_key(*args[:2], 1.0, args[3]) is None     # not a face's float32: not planned


def test_bad_input_on_a_planned_key_still_raises():
    dy, y = _pair(1500, "float16", 5)
    sg.sigmoid_backward(dy, y, platform=ASCEND950_PLATFORM)
    sg.sigmoid_backward(dy, y, platform=ASCEND950_PLATFORM)       # planned
    with pytest.raises(ValueError, match="out must have shape"):
        sg.sigmoid_backward(dy, y, out=np.empty(1499, np.float16), platform=ASCEND950_PLATFORM)
    with pytest.raises((TypeError, ValueError), match="out"):
        sg.sigmoid_backward(dy, y, out=np.empty(1500, np.float32), platform=ASCEND950_PLATFORM)
    frozen = np.empty(1500, np.float16)
    frozen.flags.writeable = False
    with pytest.raises(ValueError, match="out"):
        sg.sigmoid_backward(dy, y, out=frozen, platform=ASCEND950_PLATFORM)
    with pytest.raises(TypeError, match="must be a numpy.ndarray"):
        sg.sigmoid_backward(dy, list(y), platform=ASCEND950_PLATFORM)
    with pytest.raises(ValueError, match="broadcast"):
        sg.sigmoid_backward(dy, y[:1499], platform=ASCEND950_PLATFORM)
    with pytest.raises(TypeError, match="platform must be a Platform"):
        sg.sigmoid_backward(dy, y, platform="ascend950")
    # an attribute rule, after the same call with an allowed value was planned
    x = np.linspace(-2, 2, 1500, dtype=np.float32)
    sg.leaky_relu_backward(x, x, 0.5, True, platform=ASCEND950_PLATFORM)
    sg.leaky_relu_backward(x, x, 0.5, True, platform=ASCEND950_PLATFORM)
    with pytest.raises(ValueError, match="needs"):
        sg.leaky_relu_backward(x, x, -0.5, True, platform=ASCEND950_PLATFORM)


def test_the_plans_are_bounded():
    x = np.ones(8, np.float32)
    for n in range(call_plans.PLANS_KEPT + 8):
        assert_bits_equal(sg.sigmoid(x[:n % 8 + 1] + np.float32(n), platform=ASCEND950_PLATFORM),
                          ra.ref_sigmoid(x[:n % 8 + 1] + np.float32(n)))
    assert len(call_plans.CALL_PLANS) <= call_plans.PLANS_KEPT
    assert len(face_plans.FACE_PLANS) <= call_plans.PLANS_KEPT


@pytest.mark.parametrize("hot_tier", [False, True], ids=["machine", "hot"])
def test_planned_calls_in_threads_and_in_a_forked_child(hot_tier, monkeypatch):
    """Planned calls from four threads at once, then in a forked child; on the hot tier each runs through the
    launch's kept entry points (engine.entry), the threads' first calls racing to keep them."""
    from swishgrad_numba.engine import hot

    launched = []
    if hot_tier:
        real = hot._launch
        monkeypatch.setattr(hot, "HOT_MIN_ELEMENTS", 0)
        monkeypatch.setattr(hot, "_launch", lambda *args: launched.append(args[3:]) or real(*args))
    dy, y = _pair(3001, "bfloat16", 11)
    want = ra.ref_sigmoid_backward(dy, y, "a2")
    sg.sigmoid_backward(dy, y)
    launched.clear()   # (the first call runs in full where no other test planned it)
    got = [None] * 4

    def run(i):
        for _ in range(5):
            got[i] = sg.sigmoid_backward(dy, y)

    threads = [threading.Thread(target=run, args=(i,)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for g in got:
        assert_bits_equal(g, want)
    assert len(launched) == (20 if hot_tier else 0) and all(e and e[0] is not None for e in launched)
    if not hasattr(os, "fork"):
        return
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:   # the child: a planned call, its bits back through the pipe
        try:
            os.write(write, sg.sigmoid_backward(dy, y).view(np.uint16).tobytes())
        finally:
            os._exit(0)
    os.close(write)
    data = b""
    while chunk := os.read(read, 1 << 16):
        data += chunk
    os.close(read)
    os.waitpid(pid, 0)
    assert_bits_equal(np.frombuffer(data, np.uint16).view(DT["bfloat16"]), want.reshape(-1))


def test_a_face_plan_serves_only_while_the_parts_read_at_each_call_hold(tilings, monkeypatch):
    """The grain and the thread count are read at each call: another value is planned anew (the bits the
    same), and the first plan serves again when it is back."""
    from swishgrad_numba.engine import runner

    dy, y = _pair(1 << 15, "float32", 9)
    want = ra.ref_sigmoid_backward(dy, y, "arch35")

    def checked_call():
        assert_bits_equal(sg.sigmoid_backward(dy, y, platform=ASCEND950_PLATFORM), want)
    checked_call()
    checked_call()
    assert len(tilings) == 1
    grain = runner.DEFAULT_GRAIN
    monkeypatch.setattr(runner, "DEFAULT_GRAIN", grain // 2)
    checked_call()
    checked_call()
    assert len(tilings) == 2
    monkeypatch.setattr(runner, "DEFAULT_GRAIN", grain)
    checked_call()
    threads = numba.get_num_threads()
    if threads > 1:
        numba.set_num_threads(1)
        try:
            checked_call()
        finally:
            numba.set_num_threads(threads)
        checked_call()
    assert len(tilings) == 2 + (threads > 1)
