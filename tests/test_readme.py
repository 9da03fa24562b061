"""The README's Python examples run as written."""
import pathlib
import re

import numpy as np
import pytest

README = pathlib.Path(__file__).resolve().parent.parent / "README.md"
BLOCKS = re.findall(r"```python\n(.*?)```", README.read_text(), flags=re.S)


def test_readme_has_examples():
    assert len(BLOCKS) >= 2


@pytest.mark.parametrize("index", range(len(BLOCKS)))
def test_readme_example_runs(index, capsys):
    namespace = {}
    exec(compile(BLOCKS[index], f"README block {index}", "exec"), namespace)
    if "result" in namespace:  # the aclnn sample: the seed example's six values
        import swishgrad_numba as sg

        expected = sg.swish_backward(np.ones(6, np.float32), np.arange(1, 7, dtype=np.float32), 1.1)
        assert namespace["result"].view(np.uint32).tolist() == expected.view(np.uint32).tolist()
