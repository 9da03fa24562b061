"""read_kernel (issue 31): each fixture kernel read from its source and run on the walk, bit for bit
against a plain reference written here (NumPy one instruction at a time, the correctly rounded Exp of
tests/reference.py, the narrowing of tests/reference_family.py); its arguments checked; its record's
C layout; its launches kept out of the package's disk cache; the generic surface once registered.
"""
from pathlib import Path

import ml_dtypes
import numpy as np
import pytest

from activation_checks import every16
from reference import SPECIALS, assert_bits_equal, random_inputs, ref_exp_f32
from reference_family import narrow

from swishgrad_numba.ops import OPERATORS, ReadOperator, read_kernel, register
from swishgrad_numba.reader import KernelSourceError

KERNELS = Path(__file__).parent / "fixtures" / "kernels"
F32 = np.float32
DTYPES = {"float32": np.dtype(np.float32), "float16": np.dtype(np.float16),
          "bfloat16": np.dtype(ml_dtypes.bfloat16)}


# ---------------------------------------------------------------- plain references, per fixture source

def ref_swish_back(dy, x, sconf):
    """a2_swish_back: sig = 1 / (exp(-(x * sconf)) + 1); dx = ((1 - sig) * bx + 1) * sig * dy."""
    dtype = x.dtype
    with np.errstate(all="ignore"):
        bx = x.astype(F32) * F32(sconf)
        sig = F32(1.0) / (ref_exp_f32(bx * F32(-1.0)) + F32(1.0))
        work = ((F32(1.0) - sig) * bx + F32(1.0)) * sig
        out = work * dy.astype(F32)
    return out if dtype == np.float32 else narrow(out, dtype, ties_away=False)        # CAST_RINT


SHRINK = F32(0.3 * 0.7)        # the double product, rounded to float once


def ref_scaled_abs(x, scale):
    """a2_scaled_abs: |x| * scale * SHRINK + 1; 16-bit narrowed with CAST_ROUND."""
    with np.errstate(all="ignore"):
        out = np.abs(x.astype(F32)) * F32(scale) * SHRINK + F32(1.0)
    return out if x.dtype == np.float32 else narrow(out, x.dtype, ties_away=True)


def ref_swish_toy(x, beta):
    """dag_swish_toy: 2 * (x / (exp(-(x * beta)) + 1)); 16-bit narrowed with CAST_RINT."""
    with np.errstate(all="ignore"):
        xf = x.astype(F32)
        den = ref_exp_f32(-(xf * F32(beta))) + F32(1.0)
        out = (xf / den) * F32(2.0)
    return out if x.dtype == np.float32 else narrow(out, x.dtype, ties_away=False)


def _inputs(dtype, seed):
    """16-bit: every bit pattern of x (and a shuffled copy as the second input); float32: samples and specials."""
    if dtype == "float32":
        g, x = random_inputs(np.random.default_rng(seed), 60_000, np.float32)
        return g, np.concatenate([x, SPECIALS.astype(F32)]), np.concatenate([g, SPECIALS[::-1].astype(F32)])
    x = every16(dtype)
    g = np.random.default_rng(seed).permutation(x)
    return g, x, g


@pytest.fixture(scope="module")
def ops():
    return {f: read_kernel(KERNELS / f) for f in ("a2_swish_back", "a2_scaled_abs", "dag_swish_toy")}


@pytest.mark.parametrize("dtype", list(DTYPES))
def test_swish_back_bit_for_bit(ops, dtype):
    _, x, dy = _inputs(dtype, 1)
    for sconf in (1.1, -0.75):
        got = ops["a2_swish_back"].run(dy=dy, x=x, sconf=sconf)      # y is never read: left out
        assert_bits_equal(got, ref_swish_back(dy, x, sconf), f"swish_back {dtype} sconf={sconf}")


@pytest.mark.parametrize("dtype", list(DTYPES))
def test_scaled_abs_bit_for_bit(ops, dtype):
    _, x, _ = _inputs(dtype, 2)
    got = ops["a2_scaled_abs"].run(x=x, scale=1.3, unusedAttr=7.0)
    assert_bits_equal(got, ref_scaled_abs(x, 1.3), f"scaled_abs {dtype}")


@pytest.mark.parametrize("dtype", list(DTYPES))
def test_dag_swish_toy_bit_for_bit(ops, dtype):
    _, x, _ = _inputs(dtype, 3)
    got = ops["dag_swish_toy"].run(x=x.reshape(-1, 4) if x.size % 4 == 0 else x, beta=0.6)
    assert got.shape == (x.reshape(-1, 4) if x.size % 4 == 0 else x).shape and got.dtype == x.dtype
    assert_bits_equal(got.reshape(-1), ref_swish_toy(x, 0.6), f"swish_toy {dtype}")


def test_an_unread_input_may_be_given_or_left_out(ops):
    op = ops["a2_swish_back"]
    x = np.linspace(-4, 4, 999, dtype=F32)
    dy = np.full_like(x, 0.5)
    alone = op.run(dy=dy, x=x, sconf=1.1)
    assert_bits_equal(op.run(dy=dy, x=x, y=np.full_like(x, np.nan), sconf=1.1), alone)
    assert op.description.inputs_read == ("dy", "x") and op.inputs == 2


def test_the_program_is_the_one_read(ops):
    op = ops["a2_scaled_abs"]
    text = str(op.program("float16"))
    assert "Cast(calc, xLocal, CAST_NONE);" in text and "Cast(outLocal, calc, CAST_ROUND);" in text
    assert op.program(np.float32).attrs == ("scale",)
    assert op.attributes == ("scale", "unusedAttr")
    with pytest.raises(ValueError, match="platform .* runs the"):
        ops["dag_swish_toy"].program("float32", op.default_platform)


# ---------------------------------------------------------------- arguments refused

@pytest.mark.parametrize("kwargs, error, match", [
    (dict(dy="X", x="X", z="X", sconf=1.0), TypeError, "unknown argument 'z'"),
    (dict(dy="X", x="X", blockLength=3, sconf=1.0), TypeError, "unknown argument 'blockLength'"),   # not a float
    (dict(x="X", sconf=1.0), TypeError, "missing input 'dy'"),
    (dict(dy="X", x="X"), TypeError, "missing attribute 'sconf'"),
    (dict(dy="X", x="X", sconf="1.1"), TypeError, "attribute sconf must be a real number"),
    (dict(dy="X", x="X64", sconf=1.0), ValueError, "x.dtype"),
    (dict(dy="X", x="H", sconf=1.0), ValueError, "x.dtype must be float32"),
    (dict(dy="X", x="short", sconf=1.0), ValueError, "x must have dy's shape"),
    (dict(dy="X", x=[1.0], sconf=1.0), TypeError, "x must be a numpy.ndarray"),
    (dict(dy="X", x="X", sconf=1.0, platform="a2"), TypeError, "platform must be a Platform"),
])
def test_bad_arguments_are_refused_by_name(ops, kwargs, error, match):
    arrays = {"X": np.ones(8, F32), "X64": np.ones(8), "H": np.ones(8, np.float16), "short": np.ones(7, F32)}
    kwargs = {k: arrays.get(v, v) if isinstance(v, str) else v for k, v in kwargs.items()}
    with pytest.raises(error, match=match):
        ops["a2_swish_back"].run(**kwargs)


@pytest.mark.parametrize("folder, line, construct", [
    ("refuse_setvalue_loop", 36, "a loop over SetValue"),
    ("refuse_reinterpret", 36, "ReinterpretCast"),
    ("refuse_ifdef", 36, "#ifdef FAST_SCALE"),
    ("refuse_unknown_call", 37, "AscendC::Erfc"),    # a math-library call not expanded
])
def test_read_kernel_refuses_with_file_line_and_construct(folder, line, construct):
    with pytest.raises(KernelSourceError) as err:
        read_kernel(KERNELS / folder)
    assert (Path(err.value.file).name, err.value.line, err.value.construct) == (f"{folder}.cpp", line, construct)


_MULS = "        AscendC::Muls(yLocal, xLocal, this->scale, this->len);"


@pytest.mark.parametrize("new, line, construct", [
    ("        for (int k = 0; k < 2; k++) {\n" + _MULS + "\n        }", 36, "a loop in Compute"),
    ("        uint32_t bits = 0x3f800000;\n        float one = *reinterpret_cast<float*>(&bits);\n"
     "        AscendC::Muls(yLocal, xLocal, one, this->len);", 37, "reinterpret_cast"),
    ("#if defined(FAST)\n" + _MULS + "\n#else\n        AscendC::Abs(yLocal, xLocal, this->len);\n#endif", 36,
     "#if defined(FAST)"),
    ("        yLocal.SetValue(0, 1.0f);\n" + _MULS, 36, "SetValue"),
    ("        float v = xLocal.GetValue(0);\n        AscendC::Muls(yLocal, xLocal, v, this->len);", 36, "GetValue"),
    ("        MyHelper(yLocal, xLocal);\n" + _MULS, 36, "unknown call MyHelper"),
    ("        AscendC::Compare(yLocal, xLocal, xLocal, CMPMODE::LT, this->len);\n" + _MULS, 36,
     "Compare with a mask of float32"),        # issue 43: Compare is read, its mask a uint8_t tensor
])
def test_more_unreadable_constructs_refused_with_their_line(tmp_path, new, line, construct):
    src = (KERNELS / "plain_muls" / "plain_muls.cpp").read_text()
    assert _MULS in src
    (tmp_path / "k.cpp").write_text(src.replace(_MULS, new))
    with pytest.raises(KernelSourceError) as err:
        read_kernel(tmp_path)
    assert (Path(err.value.file).name, err.value.line, err.value.construct) == ("k.cpp", line, construct)


def test_a_step_the_program_form_lacks_is_refused_at_its_line():
    # plain_muls multiplies in the input's dtype: float32 reads; with 16-bit arithmetic refused
    # (sixteen_bit=None), float16 is not in the program form; by default its attribute scalar converted to
    # half is what is refused
    op = read_kernel(KERNELS / "plain_muls", sixteen_bit=None)
    assert str(op.program("float32").body[0]) == "Muls(yLocal, xLocal, scale);"
    with pytest.raises(KernelSourceError, match="computes on float32 tensors only") as err:
        op.program("float16")
    assert (Path(err.value.file).name, err.value.line, err.value.construct) == ("plain_muls.cpp", 36,
                                                                                "Muls on float16")
    with pytest.raises(KernelSourceError, match="Muls on bfloat16"):
        op.run(x=np.ones(4, ml_dtypes.bfloat16), scale=1.0)
    with pytest.raises(KernelSourceError, match="an attribute converted to float16") as err:
        read_kernel(KERNELS / "plain_muls").program("float16")
    assert (Path(err.value.file).name, err.value.line) == ("plain_muls.cpp", 36)


def test_tiling_names_its_attributes(ops):
    op = ops["a2_scaled_abs"]
    t = op.tiling(1000, "float16", scale=1.3, unusedAttr=2.0)
    assert (float(t["scale"]), float(t["unusedAttr"])) == (F32(1.3), 2.0)
    assert op.kernels["a2"].narrowing == "CAST_ROUND" and ops["a2_swish_back"].kernels["a2"].narrowing == "CAST_RINT"
    with pytest.raises(TypeError, match="unknown attribute 'sclae'"):
        op.tiling(1000, "float16", sclae=1.3)


def test_name_must_be_an_identifier():
    with pytest.raises(ValueError, match="name must be an identifier"):
        read_kernel(KERNELS / "plain_muls", name="my op")


# ---------------------------------------------------------------- the struct's C layout

def test_record_layouts_are_the_c_compilers(ops, tmp_path):
    d = ops["a2_scaled_abs"].record_dtype        # three uint64, two float
    assert [d.fields[n][1] for n in d.names] == [0, 8, 16, 24, 28] and d.itemsize == 32
    d = ops["dag_swish_toy"].record_dtype        # EleBaseTilingData (80 bytes), float beta, tail padding
    assert [d.fields[n][1] for n in d.names] == [0, 80] and d.itemsize == 88
    src = (KERNELS / "plain_muls" / "plain_muls.cpp").read_text()
    old = "    uint32_t tileLength;\n    float scale;\n"
    assert old in src
    (tmp_path / "k.cpp").write_text(src.replace(old, "    uint8_t flag;\n    double wide;\n    uint32_t tileLength;\n"
                                                     "    uint16_t half;\n    float scale;\n    int8_t last;\n"))
    d = read_kernel(tmp_path).record_dtype
    assert [d.fields[n][1] for n in d.names] == [0, 8, 16, 20, 24, 28] and d.itemsize == 32
    (tmp_path / "k.cpp").write_text(src.replace(old, old + "    uint8_t tag;\n    uint32_t shape[3];\n"))
    d = read_kernel(tmp_path).record_dtype          # an array field at its element's alignment (.tiling_arrays)
    assert d.fields["shape"][0].shape == (3,) and d.fields["shape"][1] == d.fields["tag"][1] + 4
    (tmp_path / "k.cpp").write_text(src.replace(old, old + "    uint32_t shape[2][2];\n"))
    with pytest.raises(KernelSourceError, match=r"k.cpp:\d+: cannot read tiling struct field shape: an array of "
                       "several dimensions"):
        read_kernel(tmp_path)


# ---------------------------------------------------------------- never in the package's disk cache

def test_a_read_kernels_launch_is_not_disk_cached(tmp_path):
    from swishgrad_numba.disk_cache import cache_roots

    for f in (KERNELS / "a2_scaled_abs").iterdir():
        text = f.read_text().replace("void scaled_abs(", "void cache_probe_kernel(")
        (tmp_path / f.name.replace("scaled_abs.cpp", "cache_probe_kernel.cpp")).write_text(text)
    op = read_kernel(tmp_path)
    assert op.name == "cache_probe_kernel"
    before = {p: p.stat().st_mtime_ns for root in cache_roots() for p in Path(root).rglob("*") if p.is_file()}
    for dtype in ("float32", "float16"):                  # float16: a 16-bit table built too
        x = np.linspace(-3, 3, 5000).astype(dtype)
        assert_bits_equal(op.run(x=x, scale=0.5), ref_scaled_abs(x, 0.5))
    params = op.compiled("float16").params(scale=0.5)
    assert type(params).__module__ == "swishgrad_read_kernels"
    for root in cache_roots():
        for p in Path(root).rglob("*"):
            if p.is_file() and before.get(p) != p.stat().st_mtime_ns:
                data = p.read_bytes()
                assert b"cache_probe_kernel" not in data and b"swishgrad_read_kernels" not in data, p


# ---------------------------------------------------------------- registered: the generic surface

@pytest.fixture
def registered(ops):
    op = read_kernel(KERNELS / "a2_swish_back", name="read_swish_back")
    assert isinstance(op, ReadOperator)
    register(op)
    yield op
    del OPERATORS[op.name]


def test_registered_read_kernel_tiles_validates_runs_and_estimates(registered):
    from swishgrad_numba import compute_tiling, run_tiling, validate_tiling
    from swishgrad_numba.devicetime import estimate

    n = 100_003
    x = np.linspace(-6, 6, n).astype(np.float16)
    dy = np.linspace(2, -2, n).astype(np.float16)
    tiling = compute_tiling(n, np.float16, beta=1.1, op="read_swish_back")
    assert tiling.data.dtype == registered.record_dtype and float(tiling["sconf"]) == F32(1.1)
    # the A2 split with the kernel's UB plan: dy, x, dx queues of 2 float16 buffers (12 bytes an element) and
    # four float32 TBufs (xf, dyf, sig, work: 16 bytes), 14 float16 units; 196,608-byte UB of 32-byte blocks
    assert tiling.walk.tileDataNum == (196608 // 32 // 14) * 32 // 2
    report = validate_tiling(tiling, n, np.float16)
    assert report.ok, report.errors
    out = np.empty_like(x)
    run_tiling(dy, x, out, tiling)
    assert_bits_equal(out, ref_swish_back(dy, x, 1.1))
    est = estimate(tiling, n, np.float16, op="read_swish_back")
    assert est.duration_us > 0
    # a record whose cores do not cover the tensor is refused before it runs
    short = type(tiling)(tiling.op, tiling.architecture, tiling.data, tiling.block_dim, 0, 0,
                         tiling.walk._replace(tailBlockNum=0, bigCoreDataNum=16, finalBigTileNum=1,
                                              bigTailDataNum=16))
    assert not validate_tiling(short, n, np.float16).ok


# ---------------------------------------------------------------- the saturation overflow mode (A2)

def _sat32(v):
    """Saturation mode: a float32 result +-inf is +-FLT_MAX, NaN is +0."""
    fmax = np.finfo(F32).max
    return np.where(np.isnan(v), F32(0.0), np.clip(v, -fmax, fmax)).astype(F32)


@pytest.mark.parametrize("dtype", list(DTYPES))
def test_scaled_abs_in_the_saturation_mode(ops, dtype):
    from swishgrad_numba.platform import Platform

    _, x, _ = _inputs(dtype, 4)
    with np.errstate(all="ignore"):
        v = _sat32(np.abs(x.astype(F32)))
        v = _sat32(_sat32(v * F32(3e38)) * SHRINK)
        v = _sat32(v + F32(1.0))
    if dtype != "float32":
        n = narrow(v, DTYPES[dtype], ties_away=True).astype(F32)
        big = F32(65504.0 if dtype == "float16" else (2 - 2.0 ** -7) * 2.0 ** 127)
        v = np.clip(n, -big, big).astype(DTYPES[dtype])       # past the largest finite: the largest finite
    got = ops["a2_scaled_abs"].run(x=x, scale=3e38, platform=Platform(overflow_mode="saturation"))
    assert_bits_equal(got, v, f"scaled_abs saturation {dtype}")
    assert np.isinf(ops["a2_scaled_abs"].run(x=x, scale=3e38).astype(F32)).any()    # and not in infnan


def test_registered_dag_kernel_on_the_950(ops):
    from swishgrad_numba import compute_tiling, run_tiling, validate_tiling
    from swishgrad_numba.devicetime import estimate
    from swishgrad_numba.platform import ASCEND950_PLATFORM

    op = register(read_kernel(KERNELS / "dag_swish_toy", name="read_swish_toy"))
    try:
        n = 300_001
        x = np.linspace(-9, 9, n).astype(ml_dtypes.bfloat16)
        tiling = compute_tiling(n, x.dtype, beta=0.6, platform=ASCEND950_PLATFORM, op="read_swish_toy")
        assert tiling.architecture == "arch35" and float(tiling["beta"]) == F32(0.6)
        base = tiling["baseTiling"]
        assert int(base["dim0"]) == n and int(base["blockNum"]) == tiling.block_dim
        assert validate_tiling(tiling, n, x.dtype).ok
        out = np.empty_like(x)
        run_tiling(None, x, out, tiling)
        assert_bits_equal(out, ref_swish_toy(x, 0.6))
        assert estimate(tiling, n, x.dtype, op="read_swish_toy").duration_us > 0
        with pytest.raises(ValueError, match="does not run the 950 DAG kernel"):
            op.tiling(n, x.dtype, op.default_platform.__class__(soc_version="ascend910b"), beta=0.6)
    finally:
        del OPERATORS["read_swish_toy"]


# ---------------------------------------------------------------- opbase's structs used as they are

def ref_gate(x, gain, mode):
    """dag_gate_32b: linear x * gain + 0.25; soft x / (exp(x * gain) + 2); 16-bit narrowed with CAST_RINT."""
    with np.errstate(all="ignore"):
        xf = x.astype(F32)
        if mode == "linear":
            out = xf * F32(gain) + F32(0.25)
        else:
            out = xf / (ref_exp_f32(xf * F32(gain)) + F32(2.0))
    return out if x.dtype == np.float32 else narrow(out, x.dtype, ties_away=False)


def ref_halfexp(x):
    """dag_v2_halfexp: exp(x) * 0.5 + x; 16-bit narrowed with CAST_RINT."""
    with np.errstate(all="ignore"):
        xf = x.astype(F32)
        out = ref_exp_f32(xf) * F32(0.5) + xf
    return out if x.dtype == np.float32 else narrow(out, x.dtype, ties_away=False)


@pytest.fixture(scope="module")
def opbase_ops():
    return {f: read_kernel(KERNELS / f) for f in ("dag_gate_32b", "dag_v2_halfexp")}


GATE_VARIANTS = {"linear": "gateMode == 1", "soft": "!(gateMode == 1)"}


@pytest.mark.parametrize("dtype", list(DTYPES))
def test_gate_on_elebasetilingdata32b_bit_for_bit(opbase_ops, dtype):
    op = opbase_ops["dag_gate_32b"]
    assert op.variants(dtype) == tuple(GATE_VARIANTS.values())
    _, x, _ = _inputs(dtype, 5)
    for mode, variant in GATE_VARIANTS.items():
        for gain in (0.7, -1.5):
            got = op.run(x=x, var0=gain, variant=variant)
            assert_bits_equal(got, ref_gate(x, gain, mode), f"gate {mode} {dtype} gain={gain}")


@pytest.mark.parametrize("dtype", list(DTYPES))
def test_halfexp_on_elebasetilingdatav2_bit_for_bit(opbase_ops, dtype):
    _, x, _ = _inputs(dtype, 6)
    assert_bits_equal(opbase_ops["dag_v2_halfexp"].run(x=x), ref_halfexp(x), f"halfexp {dtype}")


def test_opbase_struct_records(opbase_ops):
    from swishgrad_numba.ops.swish.host import ARCH35_RECORD_DTYPE
    from swishgrad_numba.platform import ASCEND950_PLATFORM

    gate = opbase_ops["dag_gate_32b"]
    d = gate.record_dtype          # dim0, coreNum, ubFormer, then scalarData: the gain its first float
    assert gate.description.tiling.opbase and gate.attributes == ("var0",)
    assert d.names == ("dim0", "coreNum", "ubFormer", "var0") and d.itemsize == 32
    assert [d.fields[n][1] for n in d.names] == [ARCH35_RECORD_DTYPE.fields[n][1] for n in ARCH35_RECORD_DTYPE.names]
    n = 200_003
    t = gate.tiling(n, np.float16, ASCEND950_PLATFORM, var0=0.7, variant=GATE_VARIANTS["soft"])
    assert int(t["dim0"]) == n and float(t["var0"]) == F32(0.7) and t.data.tobytes()[20:] == bytes(12)
    with pytest.raises(ValueError, match="variant must be given"):
        gate.tiling(n, np.float16, ASCEND950_PLATFORM, var0=0.7)
    halfexp = opbase_ops["dag_v2_halfexp"]
    assert halfexp.record_dtype.itemsize == 80 and halfexp.attributes == ()
    t = halfexp.tiling(n, np.float32, ASCEND950_PLATFORM)
    assert int(t["dim0"]) == n and int(t["blockNum"]) == t.block_dim


def test_registered_v2_kernel_tiles_validates_runs_and_estimates(opbase_ops):
    from swishgrad_numba import compute_tiling, run_tiling, validate_tiling
    from swishgrad_numba.devicetime import estimate
    from swishgrad_numba.platform import ASCEND950_PLATFORM

    register(read_kernel(KERNELS / "dag_v2_halfexp", name="read_halfexp"))
    try:
        n = 123_457
        x = np.linspace(-9, 9, n).astype(np.float16)
        tiling = compute_tiling(n, x.dtype, platform=ASCEND950_PLATFORM, op="read_halfexp")
        assert validate_tiling(tiling, n, x.dtype).ok
        out = np.empty_like(x)
        run_tiling(None, x, out, tiling)
        assert_bits_equal(out, ref_halfexp(x))
        assert estimate(tiling, n, x.dtype, op="read_halfexp").duration_us > 0
    finally:
        del OPERATORS["read_halfexp"]


def ref_ratio(x):
    """dag_ratio_16b: x / (x * x + 1); 16-bit narrowed with CAST_RINT."""
    with np.errstate(all="ignore"):
        xf = x.astype(F32)
        out = xf / (xf * xf + F32(1.0))
    return out if x.dtype == np.float32 else narrow(out, x.dtype, ties_away=False)


@pytest.mark.parametrize("dtype", list(DTYPES))
def test_ratio_on_elebasetilingdata16b_bit_for_bit(dtype):
    op = read_kernel(KERNELS / "dag_ratio_16b")
    _, x, _ = _inputs(dtype, 7)
    assert_bits_equal(op.run(x=x), ref_ratio(x), f"ratio {dtype}")


def test_elebasetilingdata16b_record_and_walk():
    from swishgrad_numba import validate_tiling
    from swishgrad_numba.dtypes import dtype_info
    from swishgrad_numba.ops import gelu
    from swishgrad_numba.platform import ASCEND950_PLATFORM

    op = read_kernel(KERNELS / "dag_ratio_16b", name="read_ratio")
    assert op.description.tiling.opbase and op.attributes == ()
    assert op.record_dtype == gelu.ARCH35_RECORD_DTYPE and op.record_dtype.itemsize == 16
    register(op)
    try:       # the 950 Gelu's DAG has the same buffers (one input, widened): the same 16 bytes, the same launch
        for n, dtype in ((1, np.float32), (300_001, np.float16), (5_000_000, np.float32)):
            t = op.tiling(n, dtype, ASCEND950_PLATFORM)
            g = gelu.host_tiling(n, dtype_info(dtype), ASCEND950_PLATFORM)
            assert t.data.tobytes() == g.data.tobytes() and t.block_dim == g.block_dim and int(t["dim0"]) == n
            assert validate_tiling(t, n, dtype).ok
            x = np.linspace(-40, 40, n).astype(dtype)
            out = np.empty_like(x)
            op._registry_run(None, x, out, t)
            assert_bits_equal(out, ref_ratio(x), f"ratio n={n}")
    finally:
        del OPERATORS["read_ratio"]


def _gate_copy(tmp_path, old, new):
    src = KERNELS / "dag_gate_32b"
    (tmp_path / "arch35").mkdir(parents=True)
    for f in src.rglob("*.*"):
        text = f.read_text()
        (tmp_path / f.relative_to(src)).write_text(text.replace(old, new) if old in text else text)
    return tmp_path


def test_opbase_struct_refusals(tmp_path):
    folder = _gate_copy(tmp_path / "a", "EleBaseTilingData32B", "EleBaseTilingData48B")
    with pytest.raises(KernelSourceError, match=r"gate_apt\.cpp:18: cannot read tiling struct EleBaseTilingData48B: "
                                                r"it was not found in the kernel's folder, nor is it one of opbase's"):
        read_kernel(folder)
    folder = _gate_copy(tmp_path / "c", "EleBaseTilingData32B", "EleBaseTilingData16B")
    with pytest.raises(KernelSourceError, match=r"gate_apt\.cpp:18: cannot read tiling struct EleBaseTilingData16B: "
                                                r"it has no scalarData"):
        read_kernel(folder)
    folder = _gate_copy(tmp_path / "b", "Placeholder::Var<float, 0>>;\n    using Quarter",
                        "Placeholder::Var<half, 0>>;\n    using Quarter")
    with pytest.raises(KernelSourceError, match=r"gate_dag\.h:\d+: .*Placeholder::Var<half, 0>"):
        read_kernel(folder)


def test_setvar_on_the_scalar_scheduler_is_refused(tmp_path):
    old = "            gateTiling);\n        sch.Init(x, y);\n        sch.Process();\n    } else"
    new = old.replace("sch.Init", "sch.template SetVar<float, 0>(1.0f);\n        sch.Init")
    folder = _gate_copy(tmp_path, old, new)
    with pytest.raises(KernelSourceError, match=r"gate_apt\.cpp:24: cannot read SetVar on an ElementwiseSchWithScalar"):
        read_kernel(folder)


def test_the_reader_modules_old_import_paths_still_work():
    # issue 43 moved ops/read_kernel.py, read_host.py and read_schedule.py into reader/; the old paths re-export
    import swishgrad_numba.reader as reader
    from swishgrad_numba.ops.read_host import OPBASE_STRUCTS, record_dtype
    from swishgrad_numba.ops.read_kernel import READ_MODULE
    from swishgrad_numba.ops.read_schedule import schedule
    from swishgrad_numba.reader import host_tiling, launch_plan, operator

    assert (OPBASE_STRUCTS, record_dtype) == (host_tiling.OPBASE_STRUCTS, host_tiling.record_dtype)
    assert READ_MODULE == operator.READ_MODULE and schedule is launch_plan.schedule
    assert reader.read_kernel is read_kernel is operator.read_kernel and reader.ReadOperator is ReadOperator
    import swishgrad_numba.ops as ops        # the package's name is the function, not the old module

    assert ops.read_kernel is operator.read_kernel
    with pytest.raises(AttributeError, match="no attribute 'nope'"):
        reader.nope
