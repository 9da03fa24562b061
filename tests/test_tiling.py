import numpy as np
import pytest

import swishgrad_numba as sg
from reference import DTYPES, ref_tiling

FIELDS = ["smallCoreDataNum", "bigCoreDataNum", "finalBigTileNum", "finalSmallTileNum",
          "tileDataNum", "smallTailDataNum", "bigTailDataNum", "tailBlockNum"]


# SPEC section 3's table, typed in from the SPEC.
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
