"""``swishgrad ops list`` and ``swishgrad ops show``."""
from __future__ import annotations

import pytest

from swishgrad_numba.cli import main
from swishgrad_numba.ops import OPERATORS


def test_ops_list_names_every_operator_with_its_aclnn_name(capsys):
    assert main(["ops", "list"]) == 0
    out = capsys.readouterr().out
    for name, op in OPERATORS.items():
        line = next(l for l in out.splitlines() if l.split()[0] == name)
        assert op.aclnn[-1] in line and op.kernel_op in line


def test_ops_list_columns_line_up_under_the_header(capsys):
    assert main(["ops", "list"]) == 0
    header, *rows = capsys.readouterr().out.splitlines()
    starts = [header.index(title) for title in ("aclnn", "kernel op", "kernels", "dtypes")]
    from swishgrad_numba.ops.registry import ROWS   # the row operators follow the others (issues 41, 40)

    assert len(rows) == len(OPERATORS) + len(ROWS)
    assert [row.split()[0] for row in rows[len(OPERATORS):]] == list(ROWS)
    for row, (name, op) in zip(rows, OPERATORS.items()):
        assert [row.index(cell, start) for cell, start in
                zip((op.aclnn[-1], op.kernel_op, next(iter(op.kernels)), "float32"), starts)] == starts, row


def test_ops_show_prints_the_kernels_program(capsys):
    assert main(["ops", "show", "swish", "--soc", "Ascend950PR_9599", "--dtype", "float16", "--beta", "0"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[1].startswith("SwishZero(float16 x) -> float16 out")
    assert lines[2:] == ["    Cast(xf, x, CAST_NONE);", "    Muls(y, xf, 0.5f);", "    Cast(out, y, CAST_RINT);"]
    assert main(["ops", "show", "swish"]) == 0   # the A2: its own sequence, CAST_ROUND narrowing at 16 bits
    assert "Muls(t, x, (-1.0f * scale));" in capsys.readouterr().out
    assert main(["ops", "show", "swish", "--dtype", "bfloat16"]) == 0
    assert capsys.readouterr().out.splitlines()[-1] == "    Cast(out, y, CAST_ROUND);"


def test_ops_show_refuses_an_unknown_operator_or_soc(capsys):
    assert main(["ops", "show", "selu"]) == 2
    assert "unknown operator 'selu'" in capsys.readouterr().err
    assert main(["ops", "show", "swish", "--soc", "ascend9999"]) == 2
    assert "--soc" in capsys.readouterr().err


def test_ops_list_and_show_an_operator_with_no_a2_kernel(capsys):
    assert main(["ops", "list"]) == 0
    (line,) = [l for l in capsys.readouterr().out.splitlines() if l.startswith("fast_gelu ")]
    assert "aclnnFastGelu" in line and "arch35*" in line and "a2" not in line
    assert main(["ops", "show", "fast_gelu_grad", "--dtype", "bfloat16"]) == 0   # the 950 by default
    out = capsys.readouterr().out
    assert "(arch35 kernel), bfloat16" in out and "Div(s, one, t);" in out
    assert main(["ops", "show", "fast_gelu", "--soc", "ascend910b"]) == 2
    assert "soc_version 'ascend910b'" in capsys.readouterr().err


def test_ops_list_shows_the_aicpu_dtypes(capsys):
    """issue 38 (6g): the dtypes an aclnn sends to an AICPU kernel, which the package emulates, are listed
    (marked AICPU); each one listed is one the public function computes, the others are refused."""
    import numpy as np
    import swishgrad_numba as sg

    assert main(["ops", "list"]) == 0
    rows = {line.split()[0]: line for line in capsys.readouterr().out.splitlines()[1:]}
    assert rows["elu"].endswith("float32, float16, bfloat16, float64 (AICPU)")
    assert rows["leaky_relu"].endswith("float64 (AICPU)") and rows["leaky_relu_grad"].endswith("float64 (AICPU)")
    assert rows["sigmoid_grad"].endswith("float64 (AICPU), complex64 (AICPU), complex128 (AICPU)")
    assert rows["swish"].endswith("float32, float16, bfloat16") and "AICPU" not in rows["sigmoid"]
    x = np.array([-1.5, 0.0, 2.0])
    computed = {"elu": lambda d: sg.elu(x.astype(d)),
                "leaky_relu": lambda d: sg.leaky_relu(x.astype(d)),
                "leaky_relu_grad": lambda d: sg.leaky_relu_backward(x.astype(d), x.astype(d)),
                "sigmoid_grad": lambda d: sg.sigmoid_backward(x.astype(d), x.astype(d)),
                "sigmoid": lambda d: sg.sigmoid(x.astype(d)),
                "elu_grad": lambda d: sg.elu_backward(x.astype(d), x.astype(d))}
    for name, f in computed.items():
        for d in ("float64", "complex64", "complex128"):
            if f"{d} (AICPU)" in rows[name]:
                assert f(d).dtype == np.dtype(d), (name, d)
            else:
                with pytest.raises((TypeError, ValueError)):
                    f(d)
