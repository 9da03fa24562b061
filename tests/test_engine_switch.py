"""The engine's switch is gone (issue 39): ``SWISHGRAD_ENGINE=0`` only warns, once, at the engine's import."""
import importlib
import warnings

import pytest

from swishgrad_numba import engine


@pytest.mark.parametrize("value, warns", [("0", True), (" 0 ", True), ("1", False), ("", False)])
def test_the_removed_switch_warns_and_does_nothing_else(monkeypatch, value, warns):
    monkeypatch.setenv("SWISHGRAD_ENGINE", value)
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        importlib.reload(engine)
    messages = [str(w.message) for w in seen if issubclass(w.category, RuntimeWarning)]
    assert messages == (["SWISHGRAD_ENGINE=0 has no effect: the fused passes were removed and the engine is the "
                         "only path (issue 39)"] if warns else [])
    assert not hasattr(engine, "enabled") and not hasattr(engine, "use") and not hasattr(engine, "set_enabled")
