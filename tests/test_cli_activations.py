"""The command line with the first-tier operators that run on both kernels (Sigmoid, SigmoidGrad, Gelu,
GeluGrad): ``tiling``, ``validate --host`` and ``timeline --op`` on ascend910b and ascend950, the printed
records and core counts against the hand-worked tilings of tests/reference_activation_tiling.py."""
from __future__ import annotations

import json

import pytest

import reference_activation_tiling as rt
from swishgrad_numba.cli import main

NUMEL, DTYPE, ITEMSIZE = 100_000, "float16", 2
#: the registry's names -> the hand-worked tilings' names
REFERENCE_NAME = {"sigmoid": "sigmoid", "sigmoid_grad": "sigmoid_backward", "gelu": "gelu",
                  "gelu_grad": "gelu_backward"}
SOCS = ("ascend910b", "ascend950")


def _args(op, soc):
    return ["--op", op, "--numel", str(NUMEL), "--dtype", DTYPE, "--soc", soc]


def _by_hand(op, soc):
    """``(fields, block_dim, tiling_key)`` worked by hand; None for the 950 GeluGrad (a broadcast tiling)."""
    if soc == "ascend910b":
        return rt.a2_tiling(REFERENCE_NAME[op], NUMEL, ITEMSIZE)[:3]
    if op == "gelu_grad":
        return None
    return rt.arch35_tiling(REFERENCE_NAME[op], NUMEL, DTYPE)


@pytest.mark.parametrize("soc", SOCS)
@pytest.mark.parametrize("op", list(REFERENCE_NAME))
def test_tiling_prints_the_hand_worked_record(op, soc, capsys):
    assert main(["tiling", "--json"] + _args(op, soc)) == 0
    printed = json.loads(capsys.readouterr().out)
    assert (printed["op"], printed["kernel"]) == (op, "a2" if soc == "ascend910b" else "arch35")
    record = printed["tiling"]
    hand = _by_hand(op, soc)
    if hand is None:                                   # the 950 GeluGrad: opbase's broadcast split
        assert printed["struct"].startswith("BroadcastBaseTiling") and record["blockDim"] >= 1
        return
    fields, block_dim, key = hand
    shared = set(fields) & set(record)
    assert len(shared) >= 3, shared
    assert {k: record[k] for k in shared} == {k: fields[k] for k in shared}
    assert (record["blockDim"], record["tilingKey"]) == (block_dim, key)


@pytest.mark.parametrize("soc", SOCS)
@pytest.mark.parametrize("op", list(REFERENCE_NAME))
def test_validate_host(op, soc, capsys):
    assert main(["validate", "--host"] + _args(op, soc)) == 0
    out = capsys.readouterr().out
    assert "OK (0 error(s)" in out
    hand = _by_hand(op, soc)
    if hand is not None:
        assert f"block_dim={hand[1]} " in out
    # another key: refused, except by the A2 SigmoidGrad, whose kernel ignores it (sigmoid_grad.cpp:18-26)
    ignored = (op, soc) == ("sigmoid_grad", "ascend910b")
    assert main(["validate", "--host", "--tiling-key", "7"] + _args(op, soc)) == (0 if ignored else 1)
    assert ("TILING_KEY_MISMATCH" in capsys.readouterr().out) != ignored


@pytest.mark.parametrize("soc", SOCS)
@pytest.mark.parametrize("op", list(REFERENCE_NAME))
def test_timeline(op, soc, capsys):
    assert main(["timeline"] + _args(op, soc)) == 0
    out = capsys.readouterr().out
    if (op, soc) == ("gelu_grad", "ascend950"):
        # the 950 GeluGrad runs on the broadcast walk: estimated on its UB loops (issue 38, 6d)
        assert main(["tiling", "--json"] + _args(op, soc)) == 0
        block_dim = json.loads(capsys.readouterr().out)["tiling"]["blockDim"]
        assert f"{op} {DTYPE} numel={NUMEL} on {soc} ({block_dim} cores, broadcast walk)" in out
    else:
        assert f"{op} {DTYPE} numel={NUMEL} on {soc} ({_by_hand(op, soc)[1]} cores)" in out
    assert "launch time" in out
