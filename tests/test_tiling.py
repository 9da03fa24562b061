import copy
import pickle
import struct

import numpy as np
import pytest

import swishgrad_numba as sg
from reference import DTYPES, ref_tiling, ref_tiling_arch35

FIELDS = ["smallCoreDataNum", "bigCoreDataNum", "finalBigTileNum", "finalSmallTileNum",
          "tileDataNum", "smallTailDataNum", "bigTailDataNum", "tailBlockNum"]


# model section 3's table, typed in from docs/model.md.
@pytest.mark.parametrize(
    "n, dtype, block_dim, small, big, tile, fsmall, fbig, stail, btail, tailblocks",
    [
        (6, "float32", 1, 8, 16, 7016, 1, 1, 8, 16, 0),
        (256, "float16", 1, 256, 272, 8192, 1, 1, 256, 272, 0),
        (1048576, "float32", 48, 21840, 21848, 7016, 4, 4, 792, 800, 32),
        (1048576, "float16", 48, 21840, 21856, 8192, 3, 3, 5456, 5472, 16),
    ],
)
def test_spec_table(n, dtype, block_dim, small, big, tile, fsmall, fbig, stail, btail, tailblocks):
    t = sg.compute_tiling(n, dtype)
    d = t.data
    assert t.block_dim == block_dim and t.tiling_key == 0
    assert (d["smallCoreDataNum"], d["bigCoreDataNum"], d["tileDataNum"]) == (small, big, tile)
    assert (d["finalSmallTileNum"], d["finalBigTileNum"]) == (fsmall, fbig)
    assert (d["smallTailDataNum"], d["bigTailDataNum"], d["tailBlockNum"]) == (stail, btail, tailblocks)
    assert t.workspace_size == 16 * 1024 * 1024


def test_struct_layout():
    assert sg.TILING_DTYPE.itemsize == 72
    assert list(sg.TILING_DTYPE.names) == FIELDS + ["sconf"]
    for i, name in enumerate(FIELDS):
        assert sg.TILING_DTYPE.fields[name][1] == 8 * i
        assert sg.TILING_DTYPE.fields[name][0] == np.dtype("<u8")
    assert sg.TILING_DTYPE.fields["sconf"][1] == 64
    assert sg.TILING_DTYPE.fields["sconf"][0] == np.dtype("<f4")


def test_record_bytes_round_trip():
    t = sg.compute_tiling(1048576, "float32", scale=1.1)
    blob = t.tobytes()
    assert len(blob) == 72
    # Hand-packed C struct: eight little-endian uint64, a float32, 4 pad bytes.
    import struct
    expected = struct.pack("<8Qf4x", *[int(t.data[f]) for f in FIELDS], np.float32(1.1))
    assert blob == expected
    back = np.frombuffer(blob, dtype=sg.TILING_DTYPE)[0]
    for f in FIELDS:
        assert back[f] == t.data[f]
    assert back["sconf"] == np.float32(1.1)


def _platforms():
    yield sg.Platform()
    yield sg.Platform(ub_size=65536, core_num=8)
    yield sg.Platform(ub_size=262144, core_num=64, block_size=64)
    yield sg.Platform(ub_size=1024, core_num=3, block_size=32)
    yield sg.Platform(ub_size=196608, core_num=1)
    yield sg.Platform(ub_size=4096, core_num=40, block_size=16)


def _sizes(rng):
    edges = []
    for base in (1, 7016, 8192, 21840, 48 * 7016, 1048576):
        edges += [base - 17, base - 1, base, base + 1, base + 15, base + 16]
    edges += list(rng.integers(1, 5_000_000, size=60))
    edges += [2**k for k in range(0, 27, 3)]
    return [int(n) for n in edges if n > 0]


@pytest.mark.parametrize("platform", list(_platforms()), ids=lambda p: f"ub{p.ub_size}-c{p.core_num}-b{p.block_size}")
@pytest.mark.parametrize("dtype", list(DTYPES))
def test_matches_reference_and_covers(platform, dtype):
    rng = np.random.default_rng(1234)
    b = DTYPES[dtype].itemsize
    for n in _sizes(rng):
        t = sg.compute_tiling(n, dtype, platform=platform)
        fields, block_dim = ref_tiling(n, b, platform.ub_size, platform.core_num, platform.block_size)
        got = {f: int(t.data[f]) for f in FIELDS}
        assert got == fields, (n, dtype)
        assert t.block_dim == block_dim
        d = fields
        aligned_elems = -(-n * b // platform.block_size) * platform.block_size // b
        # Core ranges tile [0, alignedBytes / b) exactly, big cores first.
        pos = 0
        for core in range(block_dim):
            big = core < d["tailBlockNum"]
            count = d["bigCoreDataNum"] if big else d["smallCoreDataNum"]
            tiles = d["finalBigTileNum"] if big else d["finalSmallTileNum"]
            tail = d["bigTailDataNum"] if big else d["smallTailDataNum"]
            if big:
                start = d["bigCoreDataNum"] * core
            else:
                start = d["bigCoreDataNum"] * core - (d["bigCoreDataNum"] - d["smallCoreDataNum"]) * (core - d["tailBlockNum"])
            assert start == pos
            # Tile counts consistent with the core's share.
            assert (tiles - 1) * d["tileDataNum"] + tail == count
            assert 0 < tail <= d["tileDataNum"]
            pos += count
        assert pos == aligned_elems
        assert d["bigCoreDataNum"] - d["smallCoreDataNum"] == platform.block_size // b
        assert 1 <= block_dim <= platform.core_num


def test_sconf_is_beta_as_float32():
    assert sg.compute_tiling(10, "float16", scale=1.1).data["sconf"] == np.float32(1.1)
    assert np.isinf(sg.compute_tiling(10, "float16", scale=1e300).data["sconf"])


@pytest.mark.parametrize("numel, exc, word", [
    (0, ValueError, "numel"), (-3, ValueError, "numel"), (2.5, TypeError, "numel"), ("7", TypeError, "numel"),
])
def test_bad_numel(numel, exc, word):
    with pytest.raises(exc, match=word):
        sg.compute_tiling(numel, "float32")


@pytest.mark.parametrize("dtype", ["float64", np.int32, "complex64", "nonsense"])
def test_bad_dtype(dtype):
    with pytest.raises((ValueError, TypeError), match="dtype"):
        sg.compute_tiling(8, dtype)


def test_bad_platforms():
    for kwargs in ({"ub_size": 0}, {"core_num": -1}, {"block_size": 0}, {"lib_workspace_size": 0},
                   {"ub_size": 1.5}, {"core_num": True}):
        with pytest.raises((ValueError, TypeError), match=next(iter(kwargs))):
            sg.Platform(**kwargs)
    with pytest.raises(ValueError, match="ub_size"):
        sg.compute_tiling(100, "float32", platform=sg.Platform(ub_size=64))
    with pytest.raises(ValueError, match="block_size"):
        sg.compute_tiling(100, "float32", platform=sg.Platform(block_size=6))
    with pytest.raises(TypeError, match="platform"):
        sg.compute_tiling(100, "float32", platform="910b")
    with pytest.raises(TypeError, match="scale"):
        sg.compute_tiling(100, "float32", scale=1j)


# ----------------------------------------------------------------------------
# The Ascend 950 host tiling (model section 9)

ARCH35_FIELDS = ["dim0", "coreNum", "ubFormer", "blockFormer", "blockNum", "ubLoopOfFormerBlock",
                 "ubLoopOfTailBlock", "ubTailOfFormerBlock", "ubTailOfTailBlock", "elemNum", "scheMode"]


def _arch35(ub_size=None, core_num=None):
    return sg.Platform(soc_version="ascend950", ub_size=ub_size, core_num=core_num)


# Worked by hand from the ElewiseTiling algorithm on 64 vector cores (docs: 950 facts, examples A-D), with
# the usable UB of 253952 bytes and the 245760 of the operator's unit test:
#   A: float32 n=1048576: ceil(n*32/32768) = 1024 cores -> 64; ceil(n/64) = 16384 (a multiple of 512);
#      64 blocks; ubFormer floor(253952*8/192) = 10581 -> 165*64 = 10560; 2 loops, tail 16384-10560 = 5824.
#   B: float16 n=33: 1 core, blockFormer 512, 1 block of 33; ubFormer floor(253952*8/96) = 21162 -> 21120.
#   C: bfloat16 n=100000: ceil(48.83) = 49 cores; ceil(100000/49) = 2041 -> 2048; 49 blocks, the last
#      100000 - 48*2048 = 1696.
#   D: float32 n=65600: 65 cores -> 64; ceil(65600/64) = 1025 -> 1536; 43 blocks (fewer than coreNum),
#      the last 65600 - 42*1536 = 1088.
WORKED_950 = [
    # n, dtype, UB, coreNum, blockFormer, blockNum, ubFormer, loops former/tail, tails former/tail, key
    (1048576, "float32", 253952, 64, 16384, 64, 10560, 2, 2, 5824, 5824, 7),
    (1048576, "float32", 245760, 64, 16384, 64, 10240, 2, 2, 6144, 6144, 7),
    (33, "float16", 253952, 1, 512, 1, 21120, 1, 1, 512, 33, 3),
    (33, "float16", 245760, 1, 512, 1, 20480, 1, 1, 512, 33, 3),
    (100000, "bfloat16", 253952, 49, 2048, 49, 21120, 1, 1, 2048, 1696, 5),
    (65600, "float32", 253952, 64, 1536, 43, 10560, 1, 1, 1536, 1088, 7),
]


@pytest.mark.parametrize("n, dtype, ub, cores, former, blocks, ub_former, lf, lt, tf, tt, key", WORKED_950)
def test_arch35_worked_examples(n, dtype, ub, cores, former, blocks, ub_former, lf, lt, tf, tt, key):
    t = sg.compute_tiling(n, dtype, platform=_arch35(ub_size=ub))
    assert t.architecture == "arch35" and t.data.dtype == sg.ARCH35_TILING_DTYPE
    got = {name: int(t.data[name]) for name in ARCH35_FIELDS}
    assert got == dict(dim0=n, coreNum=cores, ubFormer=ub_former, blockFormer=former, blockNum=blocks,
                       ubLoopOfFormerBlock=lf, ubLoopOfTailBlock=lt, ubTailOfFormerBlock=tf,
                       ubTailOfTailBlock=tt, elemNum=ub_former, scheMode=1)
    assert (t.block_dim, t.tiling_key, t.workspace_size) == (blocks, key, 16 * 1024 * 1024)
    report = sg.validate_tiling(t, n, dtype, _arch35(ub_size=ub), checked=True)
    assert report.ok and not report.findings, report.format()


def test_arch35_struct_bytes_example_a():
    # words: dim0 | (ubFormer << 32 | coreNum) | blockFormer | blockNum | loops | tails | elemNum | scheMode | scale
    t = sg.compute_tiling(1048576, "float32", beta=1.5, platform=_arch35())
    expected = struct.pack("<qiiqqqqqqqQf4x", 1048576, 64, 10560, 16384, 64, 2, 2, 5824, 5824, 10560, 1, 1.5)
    assert len(expected) == 88 and t.tobytes() == expected
    assert struct.unpack_from("<Q", expected, 8)[0] == (10560 << 32) | 64


def _arch35_platforms():
    yield _arch35()
    yield _arch35(ub_size=245760)
    yield _arch35(core_num=1)
    yield _arch35(ub_size=65536, core_num=7)
    yield _arch35(ub_size=262144, core_num=72)
    yield _arch35(ub_size=8192, core_num=3)
    yield _arch35(ub_size=1536, core_num=5)     # one 256-byte slot per buffer for float32 ... and 16-bit
    yield _arch35(ub_size=1535, core_num=5)     # less: refused


def _arch35_sizes(rng):
    edges = []
    for base in (512, 1024, 2048, 4096, 8192, 10560, 21120, 64 * 512, 64 * 1024, 64 * 2048, 64 * 10560,
                 1048576, 65600):
        edges += [base - 1, base, base + 1, 3 * base + 7]
    edges += list(rng.integers(1, 50_000_000, size=60)) + [2**k for k in range(0, 41, 5)] + [(1 << 40) + 3]
    return sorted({int(n) for n in edges if n > 0})


@pytest.mark.parametrize("platform", list(_arch35_platforms()), ids=lambda p: f"ub{p.ub_size}-c{p.core_num}")
@pytest.mark.parametrize("dtype", list(DTYPES))
def test_arch35_matches_reference_and_covers(platform, dtype):
    rng = np.random.default_rng(950)
    for n in _arch35_sizes(rng):
        ref = ref_tiling_arch35(n, dtype, platform.ub_size, platform.core_num)
        if ref is None:
            with pytest.raises(ValueError, match="ub_size"):
                sg.compute_tiling(n, dtype, platform=platform)
            continue
        fields, block_dim, key = ref
        t = sg.compute_tiling(n, dtype, platform=platform)
        assert {f: int(t.data[f]) for f in ARCH35_FIELDS} == fields, (n, dtype)
        assert (t.block_dim, t.tiling_key) == (block_dim, key)
        # ElementwiseSch: block i starts at i*blockFormer and runs loops-1 UB loops of ubFormer elements,
        # then its tail; the last block runs the tail block's loops. The blocks tile [0, n) exactly.
        d, ranges = fields, []
        for block in range(block_dim):
            last = block == block_dim - 1
            loops = d["ubLoopOfTailBlock"] if last else d["ubLoopOfFormerBlock"]
            tail = d["ubTailOfTailBlock"] if last else d["ubTailOfFormerBlock"]
            assert 1 <= tail <= d["ubFormer"] and loops >= 1
            start = block * d["blockFormer"]
            ranges.append((start, start + (loops - 1) * d["ubFormer"] + tail))
        assert ranges[0][0] == 0 and ranges[-1][1] == n
        assert all(a[1] == b[0] for a, b in zip(ranges, ranges[1:]))
        assert 1 <= block_dim <= d["coreNum"] <= platform.core_num
        assert 6 * d["ubFormer"] * DTYPES[dtype].itemsize <= platform.ub_size


@pytest.mark.parametrize("platform, field", [
    (sg.Platform(soc_version="ascend950", ub_size=2**40), "ubFormer"),
    (sg.Platform(ub_size=2**80), "tileDataNum"),
], ids=["950", "a2"])
def test_a_huge_ub_size_is_named_as_the_cause(platform, field):
    # A 10-element tensor: numel is not what is too large, the UB is.
    with pytest.raises(ValueError, match=rf"^platform\.ub_size \({platform.ub_size} bytes\) is too large: "
                                         rf"the tiling field {field} ") as err:
        sg.compute_tiling(10, "float32", platform=platform)
    assert "numel" not in str(err.value)
    ones = np.ones(10, np.float32)
    with pytest.raises(ValueError, match=r"^platform\.ub_size .* is too large"):
        sg.swish_backward(ones, ones, platform=platform)


def test_a_huge_numel_is_still_named_as_the_cause():
    with pytest.raises(ValueError, match=r"^numel \(\d+\) is too large: the tiling field"):
        sg.compute_tiling(2**80, "float32")


@pytest.mark.parametrize("soc", ["ascend910b", "ascend950"])
def test_tiling_hands_out_read_only_views(soc):
    tiling = sg.compute_tiling(1000, "float32", 1.5, platform=sg.Platform(soc_version=soc))
    before = tiling.tobytes()
    beta_field = tiling.layout.beta_field
    for view in (np.array(tiling.data), np.asarray(tiling.data), np.array(tiling.data, copy=False)):
        with pytest.raises(ValueError, match="read-only"):
            view[beta_field] = 5.0
    with pytest.raises(ValueError, match="read-only"):
        tiling.data[beta_field] = 5.0
    assert memoryview(tiling.data).readonly
    assert tiling.tobytes() == before and tiling.beta == np.float32(1.5)
    for other in (pickle.loads(pickle.dumps(tiling)), copy.deepcopy(tiling), copy.copy(tiling)):
        assert other == tiling and other.tobytes() == before
        with pytest.raises(ValueError, match="read-only"):
            np.asarray(other.data)[beta_field] = 5.0


def test_tiling_keeps_its_own_copy_of_the_record():
    source = np.zeros((), dtype=sg.TILING_DTYPE)
    source["tileDataNum"] = 7
    tiling = sg.Tiling(data=source[()], block_dim=1)
    source["tileDataNum"] = 9   # the caller's record changes later
    assert tiling["tileDataNum"] == 7
