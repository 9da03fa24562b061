"""ln_ulp, the Ln budget of the error envelope (issue 30): precision.envelope and compare --envelope."""
import json

import numpy as np
import pytest

import swishgrad_numba as sg
from swishgrad_numba.cli import main
from swishgrad_numba.cli.compare import InputFileError, parse_envelope
from swishgrad_numba.precision import envelope


def test_parse_envelope_takes_an_optional_ln_term():
    assert parse_envelope("exp=1,div=2,ln=3")["ln_ulp"] == 3
    assert parse_envelope("exp=1,div=2")["ln_ulp"] == 1
    assert parse_envelope("ln=0,exp=0,div=0,ftz") == {"exp_ulp": 0, "div_ulp": 0, "ln_ulp": 0,
                                                      "flush_subnormals": True}
    for bad in ("exp=1,div=1,ln=65", "exp=1,div=1,ln=1,ln=2", "ln=1", "exp=1,div=1,ln=-1"):
        with pytest.raises(InputFileError, match=r"exp=E,div=D with optional ,ln=L"):
            parse_envelope(bad)


def test_swish_grad_has_no_ln_so_the_budget_frees_nothing():
    rng = np.random.default_rng(3)
    g, x = rng.uniform(-3, 3, 500).astype(np.float32), rng.uniform(-9, 9, 500).astype(np.float32)
    a, b = envelope(g, x, exp_ulp=1, div_ulp=1, ln_ulp=0), envelope(g, x, exp_ulp=1, div_ulp=1, ln_ulp=64)
    assert (a.ln_ulp, b.ln_ulp) == (0, 64)
    assert np.array_equal(a.lo.view(np.uint32), b.lo.view(np.uint32))
    assert np.array_equal(a.count(), b.count())
    with pytest.raises(ValueError, match=r"ln_ulp must be in \[0, 64\]"):
        envelope(g, x, ln_ulp=65)
    with pytest.raises(TypeError, match="ln_ulp must be an integer"):
        envelope(g, x, ln_ulp=1.0)


def test_compare_reports_the_ln_budget(tmp_path, capsys):
    rng = np.random.default_rng(4)
    g, x = rng.uniform(-3, 3, 64).astype(np.float32), rng.uniform(-9, 9, 64).astype(np.float32)
    paths = []
    for name, a in (("g", g), ("x", x), ("o", sg.swish_backward(g, x, 1.0))):
        np.save(tmp_path / f"{name}.npy", a)
        paths.append(str(tmp_path / f"{name}.npy"))
    code = main(["compare", "--grad", paths[0], "--x", paths[1], "--output", paths[2], "--beta", "1.0",
                 "--envelope", "exp=1,div=1,ln=2", "--json", str(tmp_path / "r.json")])
    out = capsys.readouterr().out
    assert code == 0 and "Ln within 2 ulp" in out
    assert json.loads((tmp_path / "r.json").read_text())["envelope"]["ln_ulp"] == 2


def test_operator_envelope_counts_softplus_ln():
    """Softplus issues one Ln per element: with Exp and Div exact, ln_ulp alone widens the envelope, and the
    emulator's output is inside it."""
    from swishgrad_numba.precision import operator_envelope

    x = np.linspace(-20, 25, 200).astype(np.float32)
    kw = dict(exp_ulp=0, div_ulp=0, platform=sg.ASCEND950_PLATFORM, beta=1.0, threshold=20.0, invBeta=1.0)
    exact, loose = operator_envelope("softplus", x, ln_ulp=0, **kw), operator_envelope("softplus", x, ln_ulp=2, **kw)
    assert "Ln" in loose.freed
    assert (exact.count() == 1).all() and loose.count().sum() > x.size
    assert loose.contains(sg.softplus(x)).all()
