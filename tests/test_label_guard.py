"""Numba's block-label counter stays bounded however many kernels one process compiles."""
from numba import njit
from numba.core import ir_utils

import swishgrad_numba  # noqa: F401  (installs the guard)
from swishgrad_numba.label_guard import RESET_ABOVE


@njit(inline="always")
def _clip(x):
    if x > 1.0:
        return 1.0
    if x < -1.0:
        return -1.0
    return x


@njit(inline="always")
def _twice_clipped(x):
    # Inlines _clip (which branches) and branches itself: inlining this into
    # a caller doubles Numba's label counter.
    y = _clip(x) + _clip(2.0 * x)
    if y > 0.5:
        return y
    return -y


def _fresh_top_level():
    @njit
    def top(x):
        return _twice_clipped(x) + _twice_clipped(x + 1.0) + _twice_clipped(x - 1.0)
    return top


def test_counter_stays_bounded_over_many_compilations():
    # Each compile doubles the counter three times or more; 40 compiles
    # would take it past 2**120 without the guard (LLVM refuses labels of
    # about 1,000 digits; the package's own compiles double it dozens of
    # times each).
    start = ir_utils._the_max_label._value
    for i in range(40):
        assert _fresh_top_level()(float(i)) is not None
        assert ir_utils._the_max_label._value <= max(start, RESET_ABOVE) << 16, i


def test_doubling_is_real_within_one_compile():
    # The guard is needed: one compile of the function above multiplies the
    # counter (from a value past 2**10) by at least 8.
    ir_utils._the_max_label._value = 1 << 20
    _fresh_top_level()(0.5)
    after = ir_utils._the_max_label._value
    assert after >= 1 << 23


def test_install_reports_whether_the_counter_exists(monkeypatch):
    from swishgrad_numba import label_guard
    assert label_guard.install() is True                    # installed once; a second call adds nothing
    monkeypatch.delattr(ir_utils, "_the_max_label")
    assert label_guard.install() is False
