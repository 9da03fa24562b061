"""Execute the notebooks in notebooks/ top to bottom, with tiny sizes.

Each notebook runs in a fresh Jupyter kernel on this interpreter (a kernel
spec written to a temporary JUPYTER_PATH, so nothing is installed globally)
with ``SWISHGRAD_NB_SMALL=1`` and ``MPLBACKEND=Agg``. Execution happens in
memory: the ``.ipynb`` files are never written. Each notebook's source is its
jupytext percent-format ``.py`` file; the committed ``.ipynb`` must hold the
same cells, without outputs.
"""
from __future__ import annotations

import asyncio
import json
import math
import os
import re
import sys
from pathlib import Path

import pytest

nbformat = pytest.importorskip("nbformat")
nbclient = pytest.importorskip("nbclient")
kernelspec = pytest.importorskip("ipykernel.kernelspec")
jupytext = pytest.importorskip("jupytext")
pytest.importorskip("matplotlib")

REPO = Path(__file__).resolve().parent.parent
NB_DIR = REPO / "notebooks"
# every notebook is a pair: NN_name.py (the source) and NN_name.ipynb
NOTEBOOKS = tuple(sorted(p.with_suffix(".ipynb").name for p in NB_DIR.glob("[0-9][0-9]_*.py")))
KERNEL = "swishgrad-notebook-test"
CELL_TIMEOUT = 300  # seconds per cell; the cells take a few seconds with tiny sizes


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    """Every notebook executed once with tiny sizes, plus 04 on a ``swishgrad bench --json`` file.

    The kernels run concurrently (one event loop, one kernel process each):
    most of a run is kernel start-up and imports, which overlap well. Returns
    ``{run id: executed notebook, or the exception it raised}``.
    """
    root = tmp_path_factory.mktemp("jupyter")
    # a private kernel spec for this interpreter: nothing is installed globally
    kernelspec.write_kernel_spec(path=str(root / "kernels" / KERNEL))
    bench_json = root / "bench.json"
    env = dict(os.environ, SWISHGRAD_NB_SMALL="1", MPLBACKEND="Agg")
    env.pop("SWISHGRAD_NB_BENCH_JSON", None)
    # the kernels import the package from this checkout even when it is not installed
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")]))
    plan = {name.split(".")[0]: (name, env) for name in NOTEBOOKS}

    async def execute(name, kernel_env):
        nb = nbformat.read(NB_DIR / name, as_version=4)
        client = nbclient.NotebookClient(nb, kernel_name=KERNEL, timeout=CELL_TIMEOUT,
                                         resources={"metadata": {"path": str(NB_DIR)}})
        await client.async_execute(env=kernel_env)  # raises CellExecutionError on the first error
        return nb

    async def bench_then_execute():
        # the JSON comes from the real `swishgrad bench --json`, run as a user would
        proc = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "swishgrad_numba", "bench", "--quick", "--no-torch", "--no-progress",
            "--dtypes", "float32,bfloat16", "--threads", "1", "--repeat", "1", "--json", str(bench_json),
            env=env, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.STDOUT)
        out, _ = await proc.communicate()
        if proc.returncode != 0:
            raise RuntimeError(f"swishgrad bench failed ({proc.returncode}):\n{out.decode()}")
        return await execute("04_throughput.ipynb", dict(env, SWISHGRAD_NB_BENCH_JSON=str(bench_json)))

    async def execute_all():
        jobs = [execute(*args) for args in plan.values()] + [bench_then_execute()]
        results = await asyncio.gather(*jobs, return_exceptions=True)
        return dict(zip([*plan, "04_throughput_json"], results))

    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("JUPYTER_PATH", str(root))
        before = {name: (NB_DIR / name).read_bytes() for name in NOTEBOOKS}
        results = asyncio.run(execute_all())
        results["files unchanged"] = all((NB_DIR / name).read_bytes() == data for name, data in before.items())
    results["bench payload"] = json.loads(bench_json.read_text()) if bench_json.exists() else None
    results["bench path"] = str(bench_json)
    return results


def _executed(runs, key):
    result = runs[key]
    if isinstance(result, BaseException):
        raise result
    return result


def _outputs(nb):
    return [out for cell in nb.cells if cell.cell_type == "code" for out in cell.outputs]


def _stdout(nb) -> str:
    return "".join(o.text for o in _outputs(nb) if o.output_type == "stream" and o.name == "stdout")


def _check_clean_run(nb, name: str):
    outputs = _outputs(nb)
    images = [o for o in outputs if o.output_type in ("display_data", "execute_result") and "image/png" in o.data]
    assert images, f"{name} produced no image"
    assert not [o for o in outputs if o.output_type == "error"], f"{name} has an error output"
    noisy = [o.text for o in outputs if o.output_type == "stream" and o.name == "stderr"
             and ("Warning" in o.text or "Traceback" in o.text)]
    assert not noisy, f"{name} printed warnings: {noisy}"


def test_each_notebook_is_its_py_file_without_outputs():
    assert len(NOTEBOOKS) >= 4
    for name in NOTEBOOKS:
        nb = nbformat.read(NB_DIR / name, as_version=4)
        nbformat.validate(nb)
        source = jupytext.read(NB_DIR / name.replace(".ipynb", ".py"))
        cells = [(c.cell_type, c.source) for c in nb.cells]
        assert cells == [(c.cell_type, c.source) for c in source.cells], (
            f"{name} differs from its .py: run `jupytext --sync notebooks/*.py`")
        code = [c for c in nb.cells if c.cell_type == "code"]
        assert code and all(c.outputs == [] and c.execution_count is None for c in code), name


@pytest.mark.parametrize("name", NOTEBOOKS, ids=[n.split(".")[0] for n in NOTEBOOKS])
def test_notebook_runs_top_to_bottom(runs, name):
    nb = _executed(runs, name.split(".")[0])
    _check_clean_run(nb, name)
    text = _stdout(nb)
    if name.startswith("01"):
        # the notebook's own checks against the model's seed values and between the two APIs
        assert "equal to the model's seed values: True" in text
        assert "same bits as swish_backward: True" in text
        assert "161001 = ACLNN_ERR_PARAM_NULLPTR" in text
    elif name.startswith("02"):
        assert "OK (0 error(s)" in text
    elif name.startswith("03"):
        assert "emulator vs float64" in text
        # the zero of s' it marks solves 1 + z / (1 + e^z) = 0, i.e. z = -1 - e^z
        z0 = float(re.search(r"zero of s': z0 = (-?[0-9.]+)", text).group(1))
        assert abs(z0 - (-1.0 - math.exp(z0))) < 1e-5
    elif name.startswith("04"):
        assert "measured in this notebook" in text
    elif name.startswith("06"):
        # every registered activation with a truth in the notebook is shown, and the kernels compared
        shown = re.search(r"activations shown: (.*)", text).group(1).split(", ")
        assert {"silu", "silu_backward", "sigmoid_backward"} <= set(shown)
        assert "sigmoid_backward     float32   the kernels differ on" in text


def test_throughput_notebook_plots_a_bench_json(runs):
    """04 reads `swishgrad bench --json` output when SWISHGRAD_NB_BENCH_JSON names it."""
    nb = _executed(runs, "04_throughput_json")
    _check_clean_run(nb, "04_throughput.ipynb")
    text = _stdout(nb)
    assert f"{len(runs['bench payload']['results'])} rows read from {runs['bench path']}" in text
    assert "dtypes ['float32', 'bfloat16'], threads [1]" in text
    assert "no scaling to plot" in text


def test_executing_does_not_write_the_notebooks(runs):
    assert runs["files unchanged"]
