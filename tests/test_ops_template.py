"""Issue 20's test of the design: a new operator of the template is one new module plus its tests.

The first half of this file is that module: a toy element-wise operator,
``scaled_abs`` (``out = |x| * scale``, one input), written exactly as an
``ops/`` module would be, from the package's building blocks only: its own
tiling structs, host tilings that reuse ``spec.a2`` / ``spec.arch35``, its
``walk_check`` for the validator, its program (``program.elementwise``),
compiled (``program.compiled``) and launched on the engine (``kernel.run_walk``),
and its instructions for the device-time model. A fixture registers it for this module's tests
and removes it from the registry afterwards (other tests enumerate it).

The tests then drive every generic entry point with ``op="scaled_abs"``
and check each result against plain NumPy written here: ``compute_tiling``,
``validate_tiling``, ``run_tiling``, ``devicetime.estimate``, the
``swishgrad tiling/validate/timeline --op`` commands, the demo, and the
family benchmark once the operator has its row there (its PyTorch peer's).
docs/architecture.md ("Adding an operator") points here as the worked example.
"""
from __future__ import annotations

import dataclasses
import json

import numpy as np
import pytest

import swishgrad_numba as sg
from swishgrad_numba import devicetime, kernel
from swishgrad_numba.cli import main
from swishgrad_numba.dtypes import FLOAT32, DTypeInfo, dtype_info
from swishgrad_numba.ops import registry
from swishgrad_numba.ops.registry import Kernel, Operator, OpTiling, WalkCheck
from swishgrad_numba.platform import ARCH_950, ARCH_A2, Platform
from swishgrad_numba.program import Attr, Program, compiled
from swishgrad_numba.program.elementwise import elementwise
from swishgrad_numba.program.form import V
from swishgrad_numba.spec import a2 as spec_a2
from swishgrad_numba.spec import arch35 as spec_arch35
from swishgrad_numba.tiling.findings import finding

# ================================================================ the operator's module

NAME = "scaled_abs"

# ---------------------------------------------------------------- structs

#: ``ScaledAbsTilingData`` (A2): the float ``scale`` first, then the template's
#: eight uint32 split fields (40 bytes: its own layout, not Swish's).
A2_RECORD_DTYPE = np.dtype([("scale", "<f4")] + [(name, "<u4") for name in spec_a2.FIELDS], align=True)
#: ``ScaledAbsTilingData`` (950): the whole ElewiseTilingData as int64, then ``scale``.
ARCH35_RECORD_DTYPE = np.dtype([(name, "<i8") for name in spec_arch35.FIELDS] + [("scale", "<f4")], align=True)
#: One kernel variant per architecture.
A2_TILING_KEY, ARCH35_TILING_KEY = 0, 1


def _record(dtype: np.dtype, values: dict) -> np.void:
    record = np.zeros((), dtype=dtype)
    for name, value in values.items():
        ftype = dtype.fields[name][0]
        if ftype.kind in "iu" and not np.iinfo(ftype).min <= value <= np.iinfo(ftype).max:
            raise ValueError(f"numel is too large: the tiling field {name} = {value} does not fit its C type")
        record[name] = value
    return record[()]

# ---------------------------------------------------------------- buffer plans and host tilings


def a2_buffer_plan(itemsize: int) -> tuple:
    """x and y queues of two buffers each; 16-bit adds one float32 TBuf (x widened)."""
    queues = ((2, itemsize), (2, itemsize))
    return queues if itemsize == 4 else queues + ((1, 4),)


def arch35_slots(itemsize: int) -> tuple:
    """``(BufferNum, MaxDtypeBytes)``: x and y pinged and ponged; 16-bit adds two float32 temporaries."""
    return (4, 4) if itemsize == 4 else (6, 4)


def _host_tiling(numel: int, info: DTypeInfo, beta32, platform: Platform) -> OpTiling:
    scale = np.float32(1.0) if beta32 is None else np.float32(beta32)
    b = info.itemsize
    if platform.architecture == ARCH_950:
        slots, widest = arch35_slots(b)
        accepted, block_dim, f = spec_arch35.host_tiling(numel, b, platform.ub_size, platform.core_num, slots, widest)
        if not accepted:
            raise ValueError(f"platform.ub_size ({platform.ub_size} bytes) is too small for {slots} UB slots")
        return OpTiling(NAME, ARCH_950, _record(ARCH35_RECORD_DTYPE, {**f._asdict(), "scale": scale}),
                        int(block_dim), ARCH35_TILING_KEY, spec_arch35.WORKSPACE_SIZE)
    units = sum(count * nbytes for count, nbytes in a2_buffer_plan(b)) // b
    tile_block_num = (platform.ub_size // platform.block_size) // units
    if tile_block_num < 1:
        raise ValueError(f"platform.ub_size ({platform.ub_size} bytes) is too small: {units} tile buffers of a block")
    block_dim, f = spec_a2.split_blocks(numel, b, tile_block_num, platform.core_num, platform.block_size)
    return OpTiling(NAME, ARCH_A2, _record(A2_RECORD_DTYPE, {**f._asdict(), "scale": scale}), int(block_dim),
                    A2_TILING_KEY, platform.lib_workspace_size)


def _walk_fields(tiling: OpTiling):
    if tiling.architecture == ARCH_950:
        return spec_arch35.TilingFields(*(int(tiling[name]) for name in spec_arch35.FIELDS))
    return spec_a2.TilingFields(*(int(tiling[name]) for name in spec_a2.FIELDS))


def _key_findings(tiling: OpTiling, expected: int) -> tuple:
    if tiling.tiling_key == expected:
        return ()
    return (finding("TILING_KEY_MISMATCH", f"tiling key {tiling.tiling_key}; {NAME} has one, {expected}."),)


def a2_walk_check(tiling, numel, info, platform) -> WalkCheck:
    fields = _walk_fields(tiling)
    return WalkCheck(fields, a2_buffer_plan(info.itemsize), fields.tileDataNum,
                     _key_findings(tiling, A2_TILING_KEY))


def arch35_walk_check(tiling, numel, info, platform) -> WalkCheck:
    fields = _walk_fields(tiling)
    return WalkCheck(fields, (arch35_slots(info.itemsize),), fields.ubFormer, _key_findings(tiling, ARCH35_TILING_KEY))

# ---------------------------------------------------------------- the program and the launch


def programs(dtype: str, variant: str = "main") -> Program:
    """The Compute: ``|x| * scale`` in float32 (a 16-bit x widened exactly, the result narrowed CAST_RINT)."""
    if variant != "main":
        raise ValueError(f"no {NAME} variant {variant!r}")
    return elementwise("ScaledAbs", (("x", "xf"),), (V.Abs("a", "xf"), V.Muls("y", "a", Attr("scale"))), "y", dtype)


def _run(grad, x, out, tiling: OpTiling) -> None:
    # grad is None (run_tiling checks it from Operator.inputs), the arrays fit, the record is validated
    info = dtype_info(out.dtype, argname="out.dtype")
    launch_plan = kernel.plan_launch(_walk_fields(tiling), tiling.block_dim, kernel.arch_code(tiling.architecture),
                                     out.size)
    xb, ob = (x, out) if info is FLOAT32 else (x.view(np.uint16), out.view(np.uint16))
    params = compiled(NAME, tiling.architecture, info.name).params(scale=tiling["scale"])
    kernel.run_walk(params, (xb,), ob, launch_plan)

# ---------------------------------------------------------------- the registry entry

INSTRUCTIONS = ("Abs", "Muls")


def _device_instructions(tiling, itemsize: int) -> tuple:
    return INSTRUCTIONS if itemsize == 4 else ("Cast",) + INSTRUCTIONS + ("Cast",)


SCALED_ABS = Operator(
    NAME, ("aclnnScaledAbsGetWorkspaceSize", "aclnnScaledAbs"), "ScaledAbs",
    {ARCH_A2: Kernel(ARCH_A2, "(toy)", "ScaledAbsTilingData", A2_RECORD_DTYPE, "CAST_RINT", a2_walk_check, _run,
                     _device_instructions, programs=programs),
     ARCH_950: Kernel(ARCH_950, "(toy, arch35)", "ScaledAbsTilingData", ARCH35_RECORD_DTYPE, "CAST_RINT",
                      arch35_walk_check, _run, _device_instructions, programs=programs)},
    _host_tiling, has_beta=True, inputs=1)

# ================================================================ the tests


@pytest.fixture(scope="module", autouse=True)
def scaled_abs():
    """The operator, registered for this module only (other tests enumerate the registry)."""
    registry.register(SCALED_ABS)
    try:
        yield SCALED_ABS
    finally:
        del registry.OPERATORS[NAME]


PLATFORMS = {"a2": sg.REFERENCE_PLATFORM, "950": sg.ASCEND950_PLATFORM}
DTYPE_NAMES = ("float32", "float16", "bfloat16")
SCALE = 2.5


def ref_scaled_abs(x: np.ndarray, scale) -> np.ndarray:
    """Plain NumPy: |x| * scale in float32 (16-bit widened exactly, narrowed round-to-nearest-even)."""
    with np.errstate(over="ignore", invalid="ignore"):   # inf and NaN are answers too
        y = np.abs(x.astype(np.float32)) * np.float32(scale)
        return y.astype(x.dtype)


def assert_same_bits(got: np.ndarray, want: np.ndarray) -> None:
    """Bit for bit, a NaN equal to any NaN."""
    assert got.dtype == want.dtype and got.shape == want.shape
    u = f"u{got.itemsize}"
    nan = np.isnan(want.astype(np.float32))
    assert np.array_equal(np.isnan(got.astype(np.float32)), nan)
    bad = np.flatnonzero((got.view(u) != want.view(u)) & ~nan)
    assert bad.size == 0, f"{bad.size} elements differ, first at {bad[:5]}: {got[bad[:5]]} != {want[bad[:5]]}"


def f32_inputs(n: int, seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    x = (rng.standard_normal(n) * 10.0 ** rng.integers(-40, 38, n)).astype(np.float32)
    specials = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, -np.nan, 1e-45, -1e-45, 3.4e38, -3.4e38],
                        dtype=np.float32)
    x[:min(n, specials.size)] = specials[:n]
    return x


def all_16bit(name: str) -> np.ndarray:
    return np.arange(1 << 16, dtype=np.uint32).astype(np.uint16).view(dtype_info(name).numpy)


def test_registered_in_the_registry_for_this_module(scaled_abs):
    assert registry.get_operator(NAME) is scaled_abs
    with pytest.raises(ValueError, match="registered already"):
        registry.register(scaled_abs)


@pytest.mark.parametrize("soc", PLATFORMS)
@pytest.mark.parametrize("dtype", DTYPE_NAMES)
def test_compute_tiling_returns_the_operators_record(dtype, soc):
    platform = PLATFORMS[soc]
    tiling = sg.compute_tiling(100003, dtype, SCALE, platform, op=NAME)
    assert isinstance(tiling, OpTiling) and tiling.op == NAME and tiling.architecture == platform.architecture
    kern = SCALED_ABS.kernels[platform.architecture]
    assert tiling.data.dtype == kern.record_dtype and tiling["scale"] == np.float32(SCALE)
    assert tiling.as_dict() == _host_tiling(100003, dtype_info(dtype), np.float32(SCALE), platform).as_dict()
    # the walk the record describes covers the tensor once: worked from the fields here
    f = _walk_fields(tiling)
    if soc == "950":
        assert f.dim0 == 100003 and (f.blockNum - 1) * f.blockFormer < 100003 <= f.blockNum * f.blockFormer
    else:
        per_core = f.bigCoreDataNum * f.tailBlockNum + f.smallCoreDataNum * (tiling.block_dim - f.tailBlockNum)
        assert per_core * dtype_info(dtype).itemsize == -(-100003 * dtype_info(dtype).itemsize // 32) * 32
    # beta is the operator's scale; its default is 1.0
    assert sg.compute_tiling(10, dtype, platform=platform, op=NAME)["scale"] == 1.0


def test_compute_tiling_checks_its_arguments():
    with pytest.raises(ValueError, match="numel"):
        sg.compute_tiling(0, "float32", op=NAME)
    with pytest.raises(ValueError, match="op must be one of"):
        sg.compute_tiling(10, "float32", op="scaled_abz")
    small = Platform(ub_size=64)
    with pytest.raises(ValueError, match="ub_size"):
        sg.compute_tiling(10, "float32", platform=small, op=NAME)


@pytest.mark.parametrize("soc", PLATFORMS)
@pytest.mark.parametrize("dtype", DTYPE_NAMES)
@pytest.mark.parametrize("numel", [1, 4097, 1000003])
def test_validate_tiling_accepts_the_host_record(numel, dtype, soc):
    tiling = sg.compute_tiling(numel, dtype, SCALE, PLATFORMS[soc], op=NAME)
    report = sg.validate_tiling(tiling, numel, dtype, checked=numel < 5000)
    assert report.ok, report.format()
    assert report.balance is not None


_BROKEN_FIELD = {ARCH_A2: "finalSmallTileNum", ARCH_950: "ubTailOfTailBlock"}


def _broken(tiling: OpTiling) -> OpTiling:
    """The record with one tile too few (A2) or a tail block's last UB loop one element short (950):
    a gap in the tensor."""
    data = tiling.data.copy()
    data[_BROKEN_FIELD[tiling.architecture]] -= 1
    return dataclasses.replace(tiling, data=data)


@pytest.mark.parametrize("soc", PLATFORMS)
def test_validate_tiling_rejects_a_broken_record(soc):
    numel = 1000003
    tiling = sg.compute_tiling(numel, "float32", SCALE, PLATFORMS[soc], op=NAME)
    assert tiling[_BROKEN_FIELD[tiling.architecture]] >= 2
    codes = {f.code for f in sg.validate_tiling(_broken(tiling), numel, "float32").errors}
    assert "COVERAGE_GAP" in codes
    codes = {f.code for f in sg.validate_tiling(dataclasses.replace(tiling, tiling_key=7), numel,
                                                "float32").errors}
    assert codes == {"TILING_KEY_MISMATCH"}
    # a tile larger than the unified buffer
    data = tiling.data.copy()
    data["ubFormer" if soc == "950" else "tileDataNum"] *= 4
    codes = {f.code for f in sg.validate_tiling(dataclasses.replace(tiling, data=data), numel, "float32").errors}
    assert "UB_OVERFLOW" in codes


def _run_and_check(x: np.ndarray, platform, scale=SCALE) -> None:
    tiling = sg.compute_tiling(x.size, x.dtype, scale, platform, op=NAME)
    out = np.full_like(x, 7)
    assert sg.run_tiling(None, x, out, tiling) is out
    assert_same_bits(out, ref_scaled_abs(x, scale))


@pytest.mark.parametrize("soc", PLATFORMS)
@pytest.mark.parametrize("numel", [1, 10, 4099, 30011])
def test_run_tiling_float32_bit_exact(numel, soc):
    # below kernel.SERIAL_BELOW: tests/test_kernel_walk.py runs an outside pass's parallel launch
    _run_and_check(f32_inputs(numel, seed=numel), PLATFORMS[soc])


@pytest.mark.parametrize("soc", PLATFORMS)
@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_run_tiling_16bit_exhaustive(dtype, soc):
    # in three launches, each small enough to run serially (as above)
    for x in np.array_split(all_16bit(dtype), 3):
        assert x.size < kernel.SERIAL_BELOW
        for scale in (SCALE, 1e-3, 3e4, -1.0):   # rounding, underflow to subnormals, overflow to inf, sign
            _run_and_check(x, PLATFORMS[soc], scale)


@pytest.mark.parametrize("soc", PLATFORMS)
def test_run_tiling_refuses_a_broken_record_and_bad_arguments(soc):
    x = f32_inputs(30011)
    tiling = sg.compute_tiling(x.size, "float32", SCALE, PLATFORMS[soc], op=NAME)
    out = np.zeros_like(x)
    with pytest.raises(ValueError, match="COVERAGE_GAP"):
        sg.run_tiling(None, x, out, _broken(tiling))
    assert not out.any()                     # refused before anything ran
    with pytest.raises(ValueError, match="grad must be None"):
        sg.run_tiling(x, x, out, tiling)
    with pytest.raises(ValueError, match="out's size"):
        sg.run_tiling(None, x[:-1], out, tiling)


def _core_tiles_a2(f) -> list:
    """Per core, its tile lengths, from the A2 fields (big cores first)."""
    def tiles(count, last):
        return [f.tileDataNum] * (count - 1) + [last]
    return [tiles(f.finalBigTileNum, f.bigTailDataNum)] * f.tailBlockNum, tiles(f.finalSmallTileNum,
                                                                                f.smallTailDataNum)


def test_devicetime_estimate_models_the_operators_tiles_and_instructions():
    numel = 1 << 20    # a whole number of blocks: every core's tiles are the record's
    tiling = sg.compute_tiling(numel, "float32", SCALE, op=NAME)
    est = devicetime.estimate(tiling, numel, "float32", op=NAME)
    assert est.valid and est.duration_us > 0
    big, small = _core_tiles_a2(_walk_fields(tiling))
    tiles = big + [small] * (tiling.block_dim - len(big))
    custom = devicetime.estimate_custom(dtype="float32", inputs=1, outputs=1, instructions=list(INSTRUCTIONS),
                                        core_tiles=tiles, buffer_num=2)
    assert est.duration_us == pytest.approx(custom.duration_us, rel=1e-12)
    # the comparison can fail: another instruction list (compute bound) or a second input costs more
    for inputs, instructions in ((1, ["Exp"] * 40), (2, list(INSTRUCTIONS))):
        other = devicetime.estimate_custom(dtype="float32", inputs=inputs, outputs=1, instructions=instructions,
                                           core_tiles=tiles, buffer_num=2)
        assert other.duration_us > est.duration_us * 1.01
    for soc, dtype in (("950", "float16"), ("a2", "bfloat16")):
        assert devicetime.estimate(None, 100003, dtype, op=NAME, platform=PLATFORMS[soc]).valid
    with pytest.raises(ValueError, match="validator rejects"):
        devicetime.estimate(_broken(tiling), numel, "float32", op=NAME)


@pytest.mark.parametrize("soc", [None, "ascend950"])
def test_cli_tiling_op(soc, tmp_path, capsys):
    platform = sg.ASCEND950_PLATFORM if soc else sg.REFERENCE_PLATFORM
    path = tmp_path / "scaled_abs.bin"
    args = ["tiling", "--op", NAME, "--numel", "100003", "--dtype", "float16", "--beta", str(SCALE), "--json",
            "--write", str(path)] + (["--soc", soc] if soc else [])
    assert main(args) == 0
    doc = json.loads(capsys.readouterr().out)
    host = sg.compute_tiling(100003, "float16", SCALE, platform, op=NAME)
    assert doc["op"] == NAME and doc["struct"] == "ScaledAbsTilingData" and doc["balance"] is not None
    assert {k: doc["tiling"][k] for k in host.as_dict()} == host.as_dict()
    assert path.read_bytes() == host.tobytes()
    v = ["validate", "--op", NAME, "--numel", "100003", "--dtype", "float16", "--beta", str(SCALE)] + \
        (["--soc", soc] if soc else [])
    assert main(v + ["--file", str(path), "--block-dim", str(host.block_dim)]) == 0
    assert f"{NAME} " in capsys.readouterr().out
    broken = _broken(sg.compute_tiling(1000003, "float16", SCALE, platform, op=NAME))
    field = _BROKEN_FIELD[platform.architecture]
    v[4] = "1000003"
    assert main(v + ["--set", f"{field}={int(broken[field])}", "--json"]) == 1
    doc = json.loads(capsys.readouterr().out)
    assert doc["op"] == NAME and not doc["ok"] and "COVERAGE_GAP" in {f["code"] for f in doc["findings"]}


def test_cli_timeline_op(capsys):
    assert main(["timeline", "--op", NAME, "--numel", "100003", "--dtype", "float32"]) == 0
    assert NAME in capsys.readouterr().out


def test_demo_has_a_line_for_the_new_operator(capsys):
    assert main(["demo"]) == 0
    (line,) = [l for l in capsys.readouterr().out.splitlines() if l.startswith(f"[{NAME}] ")]
    assert "aclnnScaledAbs" in line
    x = np.arange(1, 7, dtype=np.float32)
    printed = np.array(line.split(":", 1)[1].split(), dtype=np.float64).astype(np.float32)
    assert printed.view(np.uint32).tolist() == ref_scaled_abs(x, 1.1).view(np.uint32).tolist()


def test_benchmark_family_takes_the_operator_given_its_row(monkeypatch):
    # The family benchmark times each operator against its PyTorch peer: a row of
    # OP_BENCHES per operator, by design (a peer is the operator's own). Without torch:
    from swishgrad_numba.benchmark import family

    def emulator(g, x, out, beta, platform):
        return sg.run_tiling(None, x, out, sg.compute_tiling(x.size, x.dtype, beta, platform, op=NAME))

    monkeypatch.setitem(family.OP_BENCHES, NAME, family.OpBench(1, SCALE, emulator, None, "(none)"))
    rows = family.run_op_comparison(NAME, [4096], ["float32"], threads=[1], repeat=1, min_time=0.001,
                                    use_torch=False)
    emu, peer = rows
    assert emu["op"] == NAME and emu["impl"] == "emulator" and emu["seconds"] is not None
    assert peer["skipped"] == "disabled"
    g, x = np.ones(8, np.float32), f32_inputs(8)
    out = np.empty_like(x)
    run, torch_run = family.op_calls(NAME, g, x, out, use_torch=False)
    run()
    assert torch_run is None
    assert_same_bits(out, ref_scaled_abs(x, SCALE))
