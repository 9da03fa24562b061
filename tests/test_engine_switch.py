"""The engine's switch (swishgrad_numba.engine.use / set_enabled) is per thread: two threads at once, each with
its own setting, each see their own; a thread that set nothing follows the process default."""
import threading

import numpy as np
import pytest

from swishgrad_numba import engine


def _in_threads(*bodies):
    """Run each body in a thread of its own, together; their results in order."""
    results, errors = [None] * len(bodies), []

    def run(i, body):
        try:
            results[i] = body()
        except BaseException as e:   # surfaced in the test's thread below
            errors.append(e)

    threads = [threading.Thread(target=run, args=(i, b)) for i, b in enumerate(bodies)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)
    if errors:
        raise errors[0]
    return results


def test_two_threads_with_different_settings_each_see_their_own():
    both_set, both_read = threading.Barrier(2, timeout=30), threading.Barrier(2, timeout=30)

    def with_setting(flag):
        def body():
            with engine.use(flag):
                both_set.wait()          # each thread has made its setting before either reads
                seen = engine.enabled()
                both_read.wait()
            return seen
        return body

    assert _in_threads(with_setting(True), with_setting(False)) == [True, False]


def test_set_enabled_in_one_thread_leaves_the_others_and_the_default():
    default = engine.enabled()
    done, checked = threading.Event(), threading.Event()

    def setter():
        previous = engine.set_enabled(not default)
        done.set()
        checked.wait(30)
        return previous, engine.enabled()

    def other():
        done.wait(30)
        seen = engine.enabled()
        checked.set()
        return seen

    (previous, own), seen = _in_threads(setter, other)
    assert (previous, own, seen) == (default, not default, default)
    assert engine.enabled() == default     # this thread's setting is untouched too


def test_use_restores_the_setting_and_refuses_a_non_bool():
    before = engine.enabled()
    with engine.use(not before):
        assert engine.enabled() is (not before)
        with engine.use(before):
            assert engine.enabled() is before
        assert engine.enabled() is (not before)
    assert engine.enabled() is before
    with pytest.raises(TypeError, match="flag must be a bool"):
        with engine.use(np.bool_(True)):
            pass
    with pytest.raises(TypeError, match="flag must be a bool"):
        engine.set_enabled(1)
