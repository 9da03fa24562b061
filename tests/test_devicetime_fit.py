"""Calibration: fit recovers known parameters from synthetic msprof op CSVs; unreadable CSVs are refused."""
import csv
import math

import pytest

from swishgrad_numba import devicetime as dt
from swishgrad_numba.devicetime.search import template_tiling
from swishgrad_numba.platform import REFERENCE_PLATFORM

TRUE = dt.default_params().replace(core_read_bytes_per_cycle=21.0, core_write_bytes_per_cycle=47.0,
                                   aggregate_gbps=900.0, datacopy_cycles=130.0, issue_cycles=22.0, head_us=3.7)

# Launches that constrain every free parameter: small and large tiles (fixed cost vs bandwidth), few cores
# (per-core rates; one core alone, where even a fast core's rate shows against the aggregate) and all cores on
# a large tensor (the aggregate), float32 and float16.
CASES = [(200_000, "float32", 2048, 4), (200_000, "float32", 512, 4), (3_000_000, "float16", None, None),
         (50_000_000, "float32", None, None), (20_000, "float16", 256, 2), (60_000, "float32", 4096, 1)]


def write_msprof(folder, est):
    """msprof op's two files, written plainly from an estimate's figures (the synthetic measurement)."""
    folder.mkdir()
    with open(folder / "OpBasicInfo.csv", "w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["Op Name", "Op Type", "Task Duration(us)", "Block Dim", "Mix Block Dim", "Device ID"])
        w.writerow(["SwishGrad_0", "SwishGrad", repr(est.duration_us), est.n_cores, 0, 0])
    rows = est.pipe_utilization()
    cols = ["block_id", "sub_block_id", "aiv_time(us)", "aiv_vec_time(us)", "aiv_vec_ratio", "aiv_mte2_time(us)",
            "aiv_mte2_ratio", "aiv_mte3_time(us)", "aiv_mte3_ratio"]
    with open(folder / "PipeUtilization.csv", "w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(cols)
        for r in rows:
            w.writerow([r["block_id"], 0] + [repr(r[c]) for c in cols[2:]])


def launches(tmp_path, params):
    out = []
    for i, (numel, dtype, tile, cores) in enumerate(CASES):
        tiling = None if tile is None else template_tiling(numel, dtype, REFERENCE_PLATFORM, tile=tile, cores=cores)
        est = dt.estimate(tiling, numel, dtype, params=params)
        write_msprof(tmp_path / f"OPPROF_{i}", est)
        out.append({"tiling": tiling, "numel": numel, "dtype": dtype, "msprof": str(tmp_path / f"OPPROF_{i}")})
    return out


def test_fit_recovers_known_parameters(tmp_path):
    data = launches(tmp_path, TRUE)
    assert any(dt.estimate(None, 50_000_000, "float32", params=TRUE).bottleneck == "aggregate bandwidth" for _ in [0])
    result = dt.fit(data)            # starts from the public figures
    assert result.undetermined == ()
    for name in dt.FREE_PARAMETERS:
        assert result.fitted[name] == pytest.approx(getattr(TRUE, name), rel=1e-4), name
    for r in result.residuals:
        assert abs(r["relative_error"]) < 1e-6
    path = tmp_path / "fitted.toml"
    dt.save_params(result.params, path)
    assert dt.load_params(path) == result.params
    assert "fitted:" in str(result)


def test_fit_reports_a_parameter_the_measurements_do_not_constrain(tmp_path):
    """No launch reaches the aggregate bandwidth: it cannot be fitted, and says so."""
    small = TRUE.replace(aggregate_gbps=1e6)
    data = launches(tmp_path, small)[:2]
    result = dt.fit(data, params=small.replace(head_us=1.0),
                    free=("core_read_bytes_per_cycle", "aggregate_gbps", "head_us"))
    assert result.undetermined == ("aggregate_gbps",)
    assert result.fitted["head_us"] == pytest.approx(TRUE.head_us, rel=1e-6)


def test_unreadable_csvs_are_refused(tmp_path):
    with pytest.raises(ValueError, match=r"launches\[0\].msprof: cannot read .*OpBasicInfo.csv"):
        dt.fit([{"numel": 100, "dtype": "float32", "msprof": str(tmp_path)}])
    (tmp_path / "OpBasicInfo.csv").write_text("Op Name,Block Dim\nx,1\n")
    with pytest.raises(ValueError, match=r"no column 'Task Duration\(us\)'"):
        dt.read_msprof(tmp_path)
    (tmp_path / "OpBasicInfo.csv").write_text("Task Duration(us),Block Dim\nabc,1\n")
    with pytest.raises(ValueError, match="not a number"):
        dt.read_msprof(tmp_path)
    (tmp_path / "OpBasicInfo.csv").write_text("Task Duration(us),Block Dim\n")
    with pytest.raises(ValueError, match="no data rows"):
        dt.read_msprof(tmp_path)
    (tmp_path / "OpBasicInfo.csv").write_bytes(b"Task Duration(us)\n\xff\xfe\n")
    with pytest.raises(ValueError, match="cannot read"):
        dt.read_msprof(tmp_path)
    (tmp_path / "OpBasicInfo.csv").write_text("Task Duration(us),Block Dim\n5.0,1\n")
    (tmp_path / "PipeUtilization.csv").write_text("block_id,aiv_vec_time(us)\n0,1.0\n")
    with pytest.raises(ValueError, match=r"PipeUtilization.csv' has no column 'aiv_mte2_time\(us\)'"):
        dt.read_msprof(tmp_path)


def test_fit_bad_arguments():
    with pytest.raises(ValueError, match="at least one"):
        dt.fit([])
    with pytest.raises(TypeError, match=r"launches\[0\] must be a dict"):
        dt.fit([3])
    with pytest.raises(ValueError, match="free: unknown parameter"):
        dt.fit([{"numel": 1, "dtype": "float32", "msprof": dt.Measurement(3.0, 1, ())}], free=("clock_mhz",))


def test_fit_on_another_kernel(tmp_path):
    """Launches of a custom kernel (estimate_custom's arguments) fit like SwishGrad's."""
    true = TRUE.replace(aggregate_gbps=1e6)
    data = []
    for i, (tile, tiles, cores) in enumerate([(4096, 8, 4), (512, 40, 2), (16384, 3, 8)]):
        custom = dict(dtype="float16", inputs=2, outputs=1, instructions=["Add"], core_tiles=[[tile] * tiles] * cores)
        write_msprof(tmp_path / f"P{i}", dt.estimate_custom(**custom, params=true))
        data.append({"custom": custom, "msprof": str(tmp_path / f"P{i}")})
    result = dt.fit(data, params=true.replace(head_us=1.0, datacopy_cycles=10.0, issue_cycles=3.0),
                    free=("core_read_bytes_per_cycle", "core_write_bytes_per_cycle", "datacopy_cycles",
                          "issue_cycles", "head_us"))
    for name, value in result.fitted.items():
        assert value == pytest.approx(getattr(true, name), rel=1e-4), name
    with pytest.raises(TypeError, match=r"launches\[0\].custom must be a dict"):
        dt.fit([{"custom": [1], "msprof": dt.Measurement(1.0, 1, ())}])


# ------------------------------------------------------------------ issue 32: a fit you can trust

def _true_params(factors):
    """The public figures scaled parameter by parameter (issue_cycles, 0 by default, set outright)."""
    base = dt.default_params()
    changes = {k: getattr(base, k) * f for k, f in zip(dt.FREE_PARAMETERS, factors) if k != "issue_cycles"}
    return base.replace(issue_cycles=7.0 * factors[dt.FREE_PARAMETERS.index("issue_cycles")], **changes)


@pytest.mark.parametrize("factors", [(0.2, 5.0, 1.5, 3.0, 5.0, 0.2, 3.0), (5.0, 0.2, 3.0, 0.2, 1.5, 5.0, 0.2)],
                         ids=["mixed", "reversed"])
def test_fit_recovers_parameters_from_a_fifth_to_five_times_the_defaults(tmp_path, factors):
    true = _true_params(factors)
    result = dt.fit(launches(tmp_path, true))          # starts from the public figures
    assert result.converged and result.undetermined == ()
    for name in dt.FREE_PARAMETERS:
        assert result.fitted[name] == pytest.approx(getattr(true, name), rel=1e-4), name


def test_fit_on_one_launch_lists_what_it_cannot_fix_and_leaves_it_alone(tmp_path):
    """One launch on 48 cores: one head for one block count cannot split into head_us and head_per_block_us, and
    the cores' own rates do not show on a saturated GM. What the launch does fix is recovered exactly."""
    start = dt.default_params()
    # the head stays at its start value: a head the launch cannot split would be made up for by the others
    true = start.replace(datacopy_cycles=90.0, issue_cycles=12.0, aggregate_gbps=1100.0)
    est = dt.estimate(None, 1 << 24, "float32", params=true)
    write_msprof(tmp_path / "one", est)
    result = dt.fit([{"numel": 1 << 24, "dtype": "float32", "msprof": str(tmp_path / "one")}])
    assert {"head_us", "head_per_block_us", "core_read_bytes_per_cycle", "core_write_bytes_per_cycle"} \
        <= set(result.undetermined)
    for name in dt.FREE_PARAMETERS:
        if name in result.undetermined:
            assert result.fitted[name] == getattr(start, name), name       # left at its start value
        else:
            assert result.fitted[name] == pytest.approx(getattr(true, name), rel=1e-4), name
    assert "not determined" in str(result)


def test_fit_says_when_it_did_not_converge(tmp_path):
    data = launches(tmp_path, _true_params((0.2, 5.0, 1.5, 3.0, 5.0, 0.2, 3.0)))
    result = dt.fit(data, max_iterations=1)
    assert not result.converged and "DID NOT CONVERGE" in str(result)


def test_fit_of_a_launch_faster_than_the_defaults_does_not_crash():
    """A launch far faster than the defaults predict drove a rate to infinity ('must be finite'); now the
    parameters stay bounded and the fit reports its best."""
    est = dt.estimate(None, 1 << 22, "float16")
    fast = dt.Measurement(est.duration_us / 50.0, est.n_cores, ())
    result = dt.fit([{"numel": 1 << 22, "dtype": "float16", "msprof": fast}])
    assert all(math.isfinite(v) for v in result.fitted.values())
    assert math.isfinite(result.rms)


def test_fit_estimates_on_its_platforms_kernel(tmp_path):
    """fit(platform=950) estimates each launch that names no platform on the 950's host tiling and kernel."""
    from swishgrad_numba.platform import ASCEND950_PLATFORM

    true = dt.default_params(ASCEND950_PLATFORM).replace(issue_cycles=9.0)
    data = []
    for i, numel in enumerate((3_000_000, 40_000)):
        write_msprof(tmp_path / f"p{i}", dt.estimate(None, numel, "float16", platform=ASCEND950_PLATFORM, params=true))
        data.append({"numel": numel, "dtype": "float16", "msprof": str(tmp_path / f"p{i}")})
    result = dt.fit(data, platform=ASCEND950_PLATFORM, free=("issue_cycles",))
    assert result.fitted["issue_cycles"] == pytest.approx(9.0, rel=1e-6)


def _folder(tmp_path, basic, pipe=None):
    folder = tmp_path / "OPPROF_x"
    folder.mkdir(exist_ok=True)
    (folder / "OpBasicInfo.csv").write_text(basic)
    (folder / "PipeUtilization.csv").write_text(pipe or "block_id,aiv_vec_time(us),aiv_mte2_time(us),"
                                                        "aiv_mte3_time(us)\n0,1.0,2.0,3.0\n")
    return folder


@pytest.mark.parametrize("basic,pipe,match", [
    ("Task Duration(us),Block Dim\n0,1\n", None, r"Task Duration\(us\)' holds 0.0, not a number > 0"),
    ("Task Duration(us),Block Dim,Task Duration(us)\n5,1,7\n", None, r"more than once"),
    ("Task Duration(us),Block Dim\n5,1\n6,1\n", None, "has 2 launches"),
    ("Task Duration(us),Block Dim\n5,1.5\n", None, "not a whole number"),
    ("Task Duration(us),Block Dim\n5,1\n", "block_id,aiv_vec_time(us),aiv_mte2_time(us),aiv_mte3_time(us),"
     "aiv_vec_time(us)\n0,1,2,3,4\n", "more than once"),
])
def test_msprof_files_that_cannot_be_read_plainly_are_refused(tmp_path, basic, pipe, match):
    with pytest.raises(ValueError, match=match):
        dt.read_msprof(_folder(tmp_path, basic, pipe))


def test_a_measurement_must_describe_the_modelled_launch(tmp_path):
    est = dt.estimate(None, 1 << 20, "float32")
    write_msprof(tmp_path / "ok", est)
    item = {"numel": 1 << 20, "dtype": "float32"}
    wrong_dim = dt.Measurement(est.duration_us, est.n_cores - 1, ())
    with pytest.raises(ValueError, match=r"launches\[0\].msprof: Block Dim 47 but the model launches 48"):
        dt.fit([dict(item, msprof=wrong_dim)])
    extra_rows = dt.Measurement(est.duration_us, est.n_cores, ((1.0, 1.0, 1.0),) * (est.n_cores + 2))
    with pytest.raises(ValueError, match="50 core rows but the model launches 48"):
        dt.fit([dict(item, msprof=extra_rows)])
    for bad in (float("nan"), 0.0, -1.0, float("inf")):
        with pytest.raises(ValueError, match="duration_us must be a finite time > 0"):
            dt.Measurement(bad, 1, ())
    with pytest.raises(ValueError, match="finite times >= 0"):
        dt.Measurement(5.0, 1, ((1.0, float("nan"), 0.0),))


def test_the_checked_in_calibration_is_what_the_bench_script_fits():
    """params.CALIBRATED is reproducible: bench/fit_devicetime.py fits the same values from the public copies."""
    import importlib.util
    import pathlib

    path = pathlib.Path(__file__).resolve().parents[1] / "bench" / "fit_devicetime.py"
    spec = importlib.util.spec_from_file_location("fit_devicetime", path)
    script = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(script)
    fitted = script.calibrate()
    from swishgrad_numba.devicetime.params import CALIBRATED
    assert fitted.keys() == CALIBRATED.keys()
    for family, values in fitted.items():
        assert values == pytest.approx(CALIBRATED[family], rel=1e-3), family


def test_the_docs_validation_table_and_the_readme_quote_what_the_model_predicts():
    """docs/devicetime.md's table is the bench script's, row for row, under the checked-in calibration; the
    README and the docs quote its worst factor per SoC."""
    import importlib.util
    import pathlib

    root = pathlib.Path(__file__).resolve().parents[1]
    spec = importlib.util.spec_from_file_location("fit_devicetime", root / "bench" / "fit_devicetime.py")
    script = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(script)
    from swishgrad_numba.devicetime.params import CALIBRATED
    rows = script.validation_rows(CALIBRATED)
    docs = (root / "docs" / "devicetime.md").read_text()
    readme = " ".join((root / "README.md").read_text().split())
    assert script.markdown(rows) in docs
    worst = script.worst(rows)
    assert f"**Atlas A2 {worst['Atlas A2']:.2f}x**" in docs and f"**Ascend 950 {worst['Ascend 950']:.2f}x**" in docs
    assert f"{worst['Atlas A2']:.2f}x on the Atlas A2" in readme and f"{worst['Ascend 950']:.2f}x on the Ascend 950" \
        in readme


def test_the_model_ranks_the_measured_tilings_in_their_measured_order():
    """Issue 32's goal: wherever two measured launches of one kernel on one SoC differ by more than 5 %, the
    model puts them in the same order (the copies' tile sizes, the Add's tile sizes and buffers)."""
    import importlib.util
    import pathlib

    root = pathlib.Path(__file__).resolve().parents[1]
    spec = importlib.util.spec_from_file_location("fit_devicetime", root / "bench" / "fit_devicetime.py")
    script = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(script)
    from swishgrad_numba.devicetime.params import CALIBRATED
    rows = [r for r in script.validation_rows(CALIBRATED) if not isinstance(r[2], tuple)]
    groups = {}
    for soc, label, measured, predicted, _role, _source in rows:
        if label.startswith("empty kernel"):
            continue                       # block counts, not tilings
        kernel = label.split()[0]          # "copy" or "Add"
        figure = "aiv_mte2_time" if "aiv_mte2_time" in label else "Task Duration"
        groups.setdefault((soc, kernel, figure), []).append((measured, predicted, label))
    compared = 0
    for (soc, _kernel, _figure), launches in groups.items():
        for m1, p1, l1 in launches:
            for m2, p2, l2 in launches:
                if m1 > 1.05 * m2:
                    compared += 1
                    assert p1 > p2, (soc, l1, l2)
    assert compared >= 6
