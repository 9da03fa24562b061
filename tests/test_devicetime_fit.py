"""Calibration: fit recovers known parameters from synthetic msprof op CSVs; unreadable CSVs are refused."""
import csv

import pytest

from swishgrad_numba import devicetime as dt
from swishgrad_numba.devicetime.search import template_tiling
from swishgrad_numba.platform import REFERENCE_PLATFORM

TRUE = dt.default_params().replace(core_read_bytes_per_cycle=21.0, core_write_bytes_per_cycle=47.0,
                                   aggregate_gbps=900.0, datacopy_cycles=130.0, issue_cycles=22.0, head_us=3.7)

# Launches that constrain every free parameter: small and large tiles (fixed cost vs bandwidth), few cores
# (per-core rates) and all cores on a large tensor (the aggregate), float32 and float16.
CASES = [(200_000, "float32", 2048, 4), (200_000, "float32", 512, 4), (3_000_000, "float16", None, None),
         (50_000_000, "float32", None, None), (20_000, "float16", 256, 2)]


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
