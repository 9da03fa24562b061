"""swish_backward: shapes, strides, out, errors, invariance, threads."""
import sys
import threading

import numba
import numpy as np
import pytest

import swishgrad_numba as sg
from reference import DTYPES, assert_bits_equal, ref_swish_grad


def _inputs(shape, dtype, seed=0):
    rng = np.random.default_rng(seed)
    g = rng.uniform(-5, 5, shape).astype(np.float32).astype(DTYPES[dtype])
    x = rng.uniform(-5, 5, shape).astype(np.float32).astype(DTYPES[dtype])
    return g, x


@pytest.mark.parametrize("dtype", list(DTYPES))
@pytest.mark.parametrize("shape", [(), (1,), (5, 0), (0,), (3, 4, 5), (2, 1, 3, 1, 2, 1, 2, 3), (70001,)])
def test_shapes(dtype, shape):
    g, x = _inputs(shape, dtype)
    out = sg.swish_backward(g, x, 1.1)
    assert out.shape == shape and out.dtype == DTYPES[dtype]
    assert_bits_equal(out, ref_swish_grad(g, x, 1.1))


@pytest.mark.parametrize("dtype", list(DTYPES))
def test_strided_inputs_and_outputs(dtype):
    g, x = _inputs((64, 48), dtype, seed=1)
    cases = {
        "transposed": (g.T, x.T),
        "sliced": (g[::3, 1::2], x[::3, 1::2]),
        "reversed": (g[::-1], x[::-1]),
        "broadcast": (np.broadcast_to(g[:1], g.shape), x),
    }
    for name, (gg, xx) in cases.items():
        expected = ref_swish_grad(np.ascontiguousarray(gg), np.ascontiguousarray(xx), -1.5)
        assert_bits_equal(sg.swish_backward(gg, xx, -1.5), expected, name)
        # Non-contiguous out: a transposed view of a bigger buffer.
        big = np.zeros((xx.shape[1], xx.shape[0] * 2), dtype=xx.dtype)
        view = big[:, ::2].T
        res = sg.swish_backward(gg, xx, -1.5, out=view)
        assert res is view
        assert_bits_equal(view, expected, name + " out")
        assert not big[:, 1::2].any()  # untouched elements stay untouched


def test_out_contiguous_and_aliasing():
    g, x = _inputs((1000,), "float32", seed=2)
    expected = ref_swish_grad(g, x, 0.7)
    out = np.empty_like(x)
    assert sg.swish_backward(g, x, 0.7, out=out) is out
    assert_bits_equal(out, expected)
    # out aliasing an input (in place) gives the same answer.
    x2 = x.copy()
    sg.swish_backward(g, x2, 0.7, out=x2)
    assert_bits_equal(x2, expected)
    # out overlapping an input shifted by one element (the engine's blocks would read what an earlier block
    # wrote); and out beside it in the same buffer, overlapping nothing: both give the same answer.
    g, x = _inputs((4096,), "float32", seed=4)
    expected = ref_swish_grad(g, x, 0.7)
    for shift in (1, -1, 4096):
        buf = np.zeros(8193, np.float32)
        at, to = (0, 1) if shift == 1 else (1, 0) if shift == -1 else (0, 4096)
        buf[at:at + 4096] = x
        out = buf[to:to + 4096]
        assert sg.swish_backward(g, buf[at:at + 4096], 0.7, out=out) is out
        assert_bits_equal(out, expected, f"out shifted {shift}")


def test_empty_out_returned():
    g, x = _inputs((0, 3), "float16")
    out = np.empty((0, 3), np.float16)
    assert sg.swish_backward(g, x, out=out) is out


@pytest.mark.parametrize("beta", [1, np.float16(1.1), np.int64(3), True, np.float64(2.5), np.array(1.5)])
def test_beta_types(beta):
    g, x = _inputs((50,), "float32", seed=3)
    expected = ref_swish_grad(g, x, np.float32(np.asarray(beta, dtype=np.float64)))
    assert_bits_equal(sg.swish_backward(g, x, beta), expected)


def test_errors_name_the_argument():
    g, x = _inputs((4,), "float32")
    cases = [
        (lambda: sg.swish_backward([1.0], x), TypeError, "grad_output"),
        (lambda: sg.swish_backward(g, 3.0), TypeError, "x"),
        (lambda: sg.swish_backward(g.astype(np.float64), x.astype(np.float64)), ValueError, "grad_output.dtype"),
        (lambda: sg.swish_backward(g, x.astype(np.int32)), ValueError, "x.dtype"),
        (lambda: sg.swish_backward(g, x.astype(np.float16)), TypeError, "same dtype"),
        (lambda: sg.swish_backward(g, x[:3]), ValueError, "same shape"),
        (lambda: sg.swish_backward(g, x, 1j), TypeError, "beta"),
        (lambda: sg.swish_backward(g, x, "1"), TypeError, "beta"),
        (lambda: sg.swish_backward(g, x, out=[0.0] * 4), TypeError, "out"),
        (lambda: sg.swish_backward(g, x, out=np.empty(4, np.float16)), TypeError, "out"),
        (lambda: sg.swish_backward(g, x, out=np.empty(5, np.float32)), ValueError, "out"),
        (lambda: sg.swish_backward(g, x, platform="ascend910b"), TypeError, "platform"),
    ]
    ro = np.empty(4, np.float32)
    ro.flags.writeable = False
    cases.append((lambda: sg.swish_backward(g, x, out=ro), ValueError, "out"))
    for call, exc, word in cases:
        with pytest.raises(exc, match=word):
            call()


def test_non_native_byte_order_is_refused_with_a_clear_message():
    g, x = _inputs((4,), "float32")
    swapped = "<" if sys.byteorder == "big" else ">"
    xs = x.astype(np.dtype(np.float32).newbyteorder(swapped))
    message = r"x\.dtype must be in the machine's byte order; got (big|little)-endian float32"
    with pytest.raises(ValueError, match=message):
        sg.swish_backward(g, xs)
    with pytest.raises(ValueError, match="byte order"):
        sg.swish_backward(g.astype(g.dtype.newbyteorder(swapped)), x)


@pytest.mark.parametrize("where", ["grad_output", "x", "out"])
def test_masked_arrays_are_refused(where):
    # The kernel has no mask: a masked input would be computed as if unmasked.
    g, x = _inputs((4,), "float16")
    arrays = {"grad_output": g, "x": x, "out": np.empty_like(x)}
    arrays[where] = np.ma.masked_array(arrays[where], mask=[0, 1, 0, 0])
    with pytest.raises(TypeError, match=f"{where} must be a plain numpy.ndarray, not a masked array"):
        sg.swish_backward(arrays["grad_output"], arrays["x"], out=arrays["out"])


PLATFORMS = [sg.Platform(core_num=c) for c in (1, 2, 3, 7, 16, 48, 64)] + [
    sg.Platform(ub_size=u, core_num=c, block_size=b)
    for u, c, b in ((1024, 5, 32), (8192, 9, 32), (65536, 24, 64), (262144, 40, 16), (768, 64, 64))
]


@pytest.mark.parametrize("dtype", list(DTYPES))
def test_same_bits_for_every_platform_and_thread_count(dtype):
    g, x = _inputs((300_007,), dtype, seed=4)
    expected = sg.swish_backward(g, x, 1.1)
    assert_bits_equal(expected[:5000], ref_swish_grad(g[:5000], x[:5000], 1.1))
    saved = numba.get_num_threads()
    try:
        for threads in sorted({1, min(2, numba.config.NUMBA_NUM_THREADS)}):
            numba.set_num_threads(threads)
            for core_num in range(1, 65):
                got = sg.swish_backward(g[:40_000], x[:40_000], 1.1, platform=sg.Platform(core_num=core_num))
                assert_bits_equal(got, expected[:40_000], f"core_num={core_num} threads={threads}")
            for platform in PLATFORMS:
                assert_bits_equal(sg.swish_backward(g, x, 1.1, platform=platform), expected, repr(platform))
    finally:
        numba.set_num_threads(saved)


def test_concurrent_calls_from_threads():
    inputs = [_inputs((50_000 + 977 * i,), list(DTYPES)[i % 3], seed=10 + i) for i in range(8)]
    betas = [1.0, 1.1, -2.0, 0.5, 3.0, -0.25, 7.5, 1.0]
    expected = [ref_swish_grad(g, x, b) for (g, x), b in zip(inputs, betas)]
    results = [None] * 8
    errors = []
    barrier = threading.Barrier(8)

    def work(i):
        try:
            barrier.wait()
            for _ in range(3):
                results[i] = sg.swish_backward(*inputs[i], betas[i])
        except Exception as exc:  # pragma: no cover - reported below
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(i,)) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors
    for got, want in zip(results, expected):
        assert_bits_equal(got, want)


def _guarded(n, dtype, fill):
    """A flat array of n elements inside a buffer with guard zones on both sides."""
    buf = np.full(n + 2 * 4096, fill, dtype=dtype)
    return buf, buf[4096:4096 + n]


@pytest.mark.parametrize("dtype", list(DTYPES))
def test_run_tiling_with_broken_tilings_never_touches_foreign_memory(dtype):
    """Any record either runs inside the arrays or is refused with a clear error."""
    from swishgrad_numba.faces.swish_grad import run_tiling

    dt = DTYPES[dtype]
    rng = np.random.default_rng(5)
    fields = ["smallCoreDataNum", "bigCoreDataNum", "finalBigTileNum", "finalSmallTileNum",
              "tileDataNum", "smallTailDataNum", "bigTailDataNum", "tailBlockNum"]
    for n in (1, 7, 1000, 50_001):
        good = sg.compute_tiling(n, dt, scale=1.1)
        g = rng.uniform(-5, 5, n).astype(np.float32).astype(dt)
        x = rng.uniform(-5, 5, n).astype(np.float32).astype(dt)
        for trial in range(40):
            rec = good.data.copy()
            name = fields[trial % len(fields)]
            rec[name] = [0, 1, int(rec[name]) * 7 + 3, 2**40, 2**62, n + 3][trial % 6]
            block_dim = [good.block_dim, 0, 1, 200, 2**41][trial % 5]
            tiling = sg.Tiling(data=rec, block_dim=block_dim)
            out_buf, out = _guarded(n, dt, 7)
            g_buf, gg = _guarded(n, dt, 3)
            x_buf, xx = _guarded(n, dt, 3)
            gg[:] = g
            xx[:] = x
            try:
                run_tiling(gg, xx, out, tiling)
            except ValueError as exc:
                assert "tiling" in str(exc)
            for buf, fill in ((out_buf, 7), (g_buf, 3), (x_buf, 3)):
                assert (buf[:4096] == fill).all() and (buf[-4096:] == fill).all()
            assert (gg == g).all() and (xx == x).all()


def _record(fields, sconf=1.1):
    rec = np.zeros((), dtype=sg.TILING_DTYPE)
    for name, value in fields.items():
        rec[name] = value
    rec["sconf"] = sconf
    return rec[()]


def test_run_tiling_refuses_a_launch_whose_work_grows_with_the_square_of_numel():
    """Every core recomputes the whole tensor: (numel + 65536) * numel elements moved."""
    from swishgrad_numba.faces.swish_grad import run_tiling

    n = 4096
    rec = _record(dict(smallCoreDataNum=0, bigCoreDataNum=0, finalBigTileNum=1, finalSmallTileNum=1,
                       tileDataNum=n, smallTailDataNum=n, bigTailDataNum=n, tailBlockNum=0))
    g, x = _inputs((n,), "float32", seed=6)
    out = np.full(n, 7, np.float32)
    with pytest.raises(ValueError, match=r"walk would transfer up to \d+ elements"):
        run_tiling(g, x, out, sg.Tiling(data=rec, block_dim=n + 65536))
    assert (out == 7).all()
    # the same record on few cores is cheap: it runs, and every core writes the same values
    run_tiling(g, x, out, sg.Tiling(data=rec, block_dim=3))
    assert_bits_equal(out, ref_swish_grad(g, x, np.float32(1.1)))


def test_run_tiling_stops_each_walk_at_the_tensor_end():
    # Core 0 covers the tensor with its first tile; its other 59999 tiles lie past the end and write
    # nothing. The walk stops after the last tile that starts inside the tensor, so the launch is
    # cheap and runs, with the right bits.
    from swishgrad_numba.faces.swish_grad import run_tiling

    n = 4096
    rec = _record(dict(smallCoreDataNum=0, bigCoreDataNum=0, finalBigTileNum=0, finalSmallTileNum=60_000,
                       tileDataNum=n, smallTailDataNum=n, bigTailDataNum=0, tailBlockNum=0))
    g, x = _inputs((n,), "float32", seed=7)
    out = run_tiling(g, x, np.empty(n, np.float32), sg.Tiling(data=rec, block_dim=1))
    assert_bits_equal(out, ref_swish_grad(g, x, np.float32(1.1)))
    from swishgrad_numba import kernel

    plan = kernel.plan_launch(sg.tiling.tiling_fields(rec), 1, kernel.ARCH_A2, n)
    assert plan.pieces["passes"].tolist() == [1] and plan.elements == n


def _fields_of(rec):
    return {name: int(rec[name]) for name in sg.TILING_DTYPE.names if name != "sconf"}


def test_run_tiling_unused_class_with_uint64_fields_past_int64():
    """Issue 12 B: 2**63 in a field of the big class that no core belongs to."""
    from swishgrad_numba.faces.swish_grad import run_tiling
    from swishgrad_numba.tiling import validate_tiling

    for dtype in DTYPES:
        n = 1000
        host = sg.compute_tiling(n, DTYPES[dtype], scale=1.1)
        assert host.block_dim == 1 and int(host.data["tailBlockNum"]) == 0
        g, x = _inputs((n,), dtype, seed=8)
        expected = sg.swish_backward(g, x, 1.1)
        for name in ("bigCoreDataNum", "finalBigTileNum", "bigTailDataNum"):
            for value in (1 << 63, (1 << 64) - 1):
                rec = _record(dict(_fields_of(host.data), **{name: value}))
                assert validate_tiling(rec, n, DTYPES[dtype], block_dim=1).ok
                out = run_tiling(g, x, np.empty(n, DTYPES[dtype]), sg.Tiling(data=rec, block_dim=1))
                assert_bits_equal(out, expected, f"{dtype} {name}={value}")


def _pick(rng, values):
    return values[int(rng.integers(len(values)))]


def _valid_variants(n, itemsize, rng, core_num=48, block=32):
    """Tilings of n elements built like the host's but with a random tile and core count, some with
    idle cores in front or behind, and junk in every field no launched core reads."""
    per_block = block // itemsize
    blocks = -(-n // per_block)
    junk = [0, 1, 3, 1 << 40, 1 << 62, 1 << 63, (1 << 64) - 1]
    max_tile_blocks = 6144 // (7 if itemsize == 4 else 12)
    for _ in range(6):
        k = int(rng.integers(1, min(blocks, core_num) + 1))
        tile_blocks = int(rng.integers(1, max_tile_blocks + 1))
        every, tbn = divmod(blocks, k)
        f = {"tileDataNum": tile_blocks * per_block, "tailBlockNum": tbn}
        for cls, e in (("small", every), ("big", every + 1)):
            whole, part = divmod(e, tile_blocks)
            f[cls + "CoreDataNum"] = e * per_block
            f["final" + cls.title() + "TileNum"] = whole + (part > 0)
            f[cls + "TailDataNum"] = (part or tile_blocks) * per_block
        if tbn == 0:  # no big core: its fields are junk
            for name in ("bigCoreDataNum", "finalBigTileNum", "bigTailDataNum"):
                f[name] = _pick(rng, junk)
        yield "host-like", f, k
        if tbn == 0 and rng.random() < 0.5:
            # the same launch written with every core big, the small fields junk
            g = dict(f, bigCoreDataNum=f["smallCoreDataNum"], finalBigTileNum=f["finalSmallTileNum"],
                     bigTailDataNum=f["smallTailDataNum"], tailBlockNum=_pick(rng, [k, k + 5, (1 << 64) - 1]))
            for name in ("smallCoreDataNum", "finalSmallTileNum", "smallTailDataNum"):
                g[name] = _pick(rng, junk)
            yield "all big", g, k
        if tbn == 0 and k < core_num:
            # idle big cores in front of the small ones (count 0, no tile, any tail)
            m = int(rng.integers(1, core_num - k + 1))
            g = dict(f, tailBlockNum=m, bigCoreDataNum=0, finalBigTileNum=0, bigTailDataNum=_pick(rng, junk))
            yield "idle big cores in front", g, m + k
        if tbn == 0 and k < core_num:
            # idle small cores behind: the busy ones are written as big cores
            g = dict(f, bigCoreDataNum=f["smallCoreDataNum"], finalBigTileNum=f["finalSmallTileNum"],
                     bigTailDataNum=f["smallTailDataNum"], tailBlockNum=k, smallCoreDataNum=0,
                     finalSmallTileNum=0, smallTailDataNum=_pick(rng, junk))
            yield "idle small cores behind", g, int(rng.integers(k + 1, core_num + 1))


@pytest.mark.parametrize("dtype", list(DTYPES))
def test_run_tiling_runs_every_tiling_the_validator_accepts(dtype):
    """Property: for tilings validate_tiling reports ok, run_tiling runs and gives the bits of
    swish_backward (which uses the host tiling; the result does not depend on the tiling)."""
    from swishgrad_numba.faces.swish_grad import run_tiling
    from swishgrad_numba.tiling import validate_tiling

    dt = DTYPES[dtype]
    rng = np.random.default_rng(9)
    seen = set()
    checked = 0
    for n in (1, 7, 16, 17, 300, 4097, 20_011):
        g, x = _inputs((n,), dtype, seed=n)
        expected = sg.swish_backward(g, x, 1.1)
        for label, f, block_dim in _valid_variants(n, dt.itemsize, rng):
            rec = _record(f)
            report = validate_tiling(rec, n, dt, block_dim=block_dim)
            assert report.ok, (label, n, f, block_dim, report.format())
            out = np.full(n, 7, dt)
            run_tiling(g, x, out, sg.Tiling(data=rec, block_dim=block_dim))
            assert_bits_equal(out, expected, f"{label} n={n} block_dim={block_dim} {f}")
            seen.add(label)
            checked += 1
    assert checked >= 40
    assert seen == {"host-like", "all big", "idle big cores in front", "idle small cores behind"}


def test_run_tiling_validator_accepted_launch_on_a_billion_idle_cores():
    from swishgrad_numba.faces.swish_grad import run_tiling
    from swishgrad_numba.tiling import validate_tiling

    n = 1000
    platform = sg.Platform(core_num=10**9)
    host = _fields_of(sg.compute_tiling(n, np.float32).data)
    g, x = _inputs((n,), "float32", seed=10)
    expected = ref_swish_grad(g, x, np.float32(1.1))
    behind = dict(host, bigCoreDataNum=host["smallCoreDataNum"], finalBigTileNum=host["finalSmallTileNum"],
                  bigTailDataNum=host["smallTailDataNum"], tailBlockNum=1, smallCoreDataNum=0,
                  finalSmallTileNum=0, smallTailDataNum=(1 << 64) - 1)
    in_front = dict(host, tailBlockNum=10**9 - 1, bigCoreDataNum=0, finalBigTileNum=0, bigTailDataNum=5)
    for f in (behind, in_front):
        rec = _record(f)
        report = validate_tiling(rec, n, np.float32, platform, 10**9)
        assert report.ok and "IDLE_CORE" in report.codes()
        out = run_tiling(g, x, np.empty(n, np.float32), sg.Tiling(data=rec, block_dim=10**9))
        assert_bits_equal(out, expected)


def test_run_tiling_keeps_uncovered_elements_and_refuses_block_dim_zero():
    from swishgrad_numba.faces.swish_grad import run_tiling

    n = 100
    host = sg.compute_tiling(n, np.float32, scale=1.1)
    g, x = _inputs((n,), "float32", seed=11)
    with pytest.raises(ValueError, match="block_dim"):
        run_tiling(g, x, np.empty(n, np.float32), sg.Tiling(data=host.data, block_dim=0))
    # no core runs a tile: nothing is written
    rec = _record(dict(_fields_of(host.data), finalSmallTileNum=0))
    out = np.full(n, 7, np.float32)
    run_tiling(g, x, out, sg.Tiling(data=rec, block_dim=1))
    assert (out == 7).all()
    # idle big cores in front whose last end is past the tensor: the small cores write nothing
    rec = _record(dict(_fields_of(host.data), tailBlockNum=2, bigCoreDataNum=n, finalBigTileNum=0))
    run_tiling(g, x, out, sg.Tiling(data=rec, block_dim=3))
    assert (out == 7).all()
    # only the first 64 elements covered (one core of 64): the rest keep their value
    rec = _record(dict(_fields_of(host.data), smallCoreDataNum=64, smallTailDataNum=64))
    run_tiling(g, x, out, sg.Tiling(data=rec, block_dim=1))
    assert_bits_equal(out[:64], ref_swish_grad(g[:64], x[:64], np.float32(1.1)))
    assert (out[64:] == 7).all()


def _record_950(**fields):
    rec = np.zeros((), dtype=sg.ARCH35_TILING_DTYPE)
    for name, value in fields.items():
        rec[name] = value
    return rec[()]


def test_run_tiling_memory_does_not_grow_with_the_launched_cores():
    """Issue 22 item 4: 2**20 blocks of one element each; the launch plan groups them, so the
    launch allocates (NumPy and Python objects) far less than one byte per core."""
    import tracemalloc

    from swishgrad_numba.faces.swish_grad import run_tiling

    n = 1 << 20
    rec = _record_950(dim0=n, coreNum=n, ubFormer=64, blockFormer=1, blockNum=n, ubLoopOfFormerBlock=1,
                      ubLoopOfTailBlock=1, ubTailOfFormerBlock=1, ubTailOfTailBlock=1, elemNum=64, scheMode=1,
                      scale=1.1)
    g, x = _inputs((n,), "float16", seed=12)
    out = np.empty(n, np.float16)
    run_tiling(g, x, out, sg.Tiling(data=rec, block_dim=1000))   # compiled and the table built before tracing
    tracemalloc.start()
    try:
        run_tiling(g, x, out, sg.Tiling(data=rec, block_dim=n))
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < n // 4, peak
    from reference import ref_swish_grad_950
    # every 97th element and the last ones (the plain reference takes ~40 s for all 2**20)
    sample = np.r_[0:n:97, n - 300:n]
    assert_bits_equal(out[sample], ref_swish_grad_950(g[sample], x[sample], np.float32(1.1)))


def test_run_tiling_refuses_a_negative_950_field_a_block_reads_and_names_it():
    """Issue 22 item 7: a ValueError naming the field, not a NumPy error or a silent run."""
    from swishgrad_numba.faces.swish_grad import run_tiling

    n = 65600
    host = sg.compute_tiling(n, np.float32, platform=sg.ASCEND950_PLATFORM)
    g, x = _inputs((n,), "float32", seed=13)
    for name, value in (("blockFormer", -1536), ("blockFormer", -1), ("ubFormer", -64), ("ubLoopOfTailBlock", -1),
                        ("ubTailOfFormerBlock", -7)):
        rec = host.data.copy()
        rec[name] = value
        out = np.full(n, 7, np.float32)
        with pytest.raises(ValueError, match=rf"tiling: {name} must be >= 0, got {value}"):
            run_tiling(g, x, out, sg.Tiling(data=rec, block_dim=host.block_dim))
        assert (out == 7).all()
    # a field no launched block reads may be anything: one block runs, the tail block
    small = sg.compute_tiling(1000, np.float32, platform=sg.ASCEND950_PLATFORM, scale=1.1)
    rec = small.data.copy()
    rec["ubLoopOfFormerBlock"] = -1
    out = run_tiling(g[:1000], x[:1000], np.empty(1000, np.float32), sg.Tiling(data=rec, block_dim=1))
    assert_bits_equal(out, sg.swish_backward(g[:1000], x[:1000], 1.1, platform=sg.ASCEND950_PLATFORM))
