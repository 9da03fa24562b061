"""docs/operators.md is `swishgrad ops table`'s output (ops/table.py), generated from the registry and the
descriptions (issue 40): a stale file fails here; regenerate it with `swishgrad ops table > docs/operators.md`."""
from pathlib import Path

import swishgrad_numba as sg
from swishgrad_numba.cli import main
from swishgrad_numba.ops.registry import every_operator
from swishgrad_numba.ops.table import markdown

DOC = Path(__file__).resolve().parents[1] / "docs" / "operators.md"


def test_the_docs_table_is_the_generated_one():
    assert DOC.read_text() == markdown(), "docs/operators.md is stale: run `swishgrad ops table > docs/operators.md`"


def test_every_registered_operator_has_one_row_naming_its_public_function(capsys):
    assert main(["ops", "table"]) == 0
    rows = [line for line in capsys.readouterr().out.splitlines() if line.startswith("| ") and "---" not in line]
    names = [row.split(" | ")[0][2:] for row in rows[1:]]
    assert names == list(every_operator())   # the row operators too (issue 40: ops.ROWS)
    for row, op in zip(rows[1:], every_operator().values()):
        assert f"`{op.functional}(" in row and callable(getattr(sg, op.functional)), row
        assert op.aclnn[-1] in row, row
