"""72-byte tiling binaries: layout against struct.pack, round trips, errors."""
import struct
from fractions import Fraction

import numpy as np
import pytest

import swishgrad_numba as sg
from swishgrad_numba import TILING_DTYPE, compute_tiling
from swishgrad_numba.dtypes import to_float32
from swishgrad_numba.tiling.io import as_tiling_record, read_tiling_bin, record_from_fields, write_tiling_bin

# The C struct, written straight from model section 3: eight little-endian
# uint64, one float32, 4 bytes of tail padding.
C_LAYOUT = struct.Struct("<8Qf4x")
NAMES = ("smallCoreDataNum", "bigCoreDataNum", "finalBigTileNum", "finalSmallTileNum",
         "tileDataNum", "smallTailDataNum", "bigTailDataNum", "tailBlockNum")


def test_layout_is_72_bytes():
    assert C_LAYOUT.size == 72


def test_written_bytes_match_c_layout(tmp_path):
    tiling = compute_tiling(1048576, np.float32, scale=1.5)
    path = tmp_path / "t.bin"
    write_tiling_bin(path, tiling)
    data = path.read_bytes()
    # model section 3 table row: n=1048576 float32
    expected = C_LAYOUT.pack(21840, 21848, 4, 4, 7016, 792, 800, 32, 1.5)
    assert data == expected


def test_read_from_bytes_and_file(tmp_path):
    values = (5, 7, (1 << 64) - 1, 0, 123456789012345, 1, 2, 3)
    data = C_LAYOUT.pack(*values, -2.25)
    rec = read_tiling_bin(data)
    assert rec.dtype == TILING_DTYPE
    assert tuple(int(rec[n]) for n in NAMES) == values
    assert np.float32(rec["sconf"]).view(np.uint32) == np.float32(-2.25).view(np.uint32)
    path = tmp_path / "x.bin"
    path.write_bytes(data)
    rec2 = read_tiling_bin(str(path))
    assert rec2.tobytes() == rec.tobytes()
    assert read_tiling_bin(bytearray(data)).tobytes() == data
    assert read_tiling_bin(memoryview(data)).tobytes() == data


def test_round_trip_keeps_nan_sconf_bits(tmp_path):
    data = C_LAYOUT.pack(*range(8), 0.0)
    data = data[:64] + struct.pack("<I", 0x7FC12345) + data[68:]
    rec = read_tiling_bin(data)
    path = tmp_path / "n.bin"
    write_tiling_bin(path, rec)
    assert path.read_bytes() == data


def test_padding_bytes_ignored_and_written_as_zero(tmp_path):
    data = C_LAYOUT.pack(*range(1, 9), 1.0)
    dirty = data[:68] + b"\xff\xee\xdd\xcc"
    rec = read_tiling_bin(dirty)
    assert tuple(int(rec[n]) for n in NAMES) == tuple(range(1, 9))
    path = tmp_path / "d.bin"
    write_tiling_bin(path, rec)
    assert path.read_bytes() == data


@pytest.mark.parametrize("length", [0, 1, 64, 71, 73, 144])
def test_wrong_length_is_a_clear_error(tmp_path, length):
    with pytest.raises(ValueError, match=f"exactly 72 bytes.*got {length} bytes"):
        read_tiling_bin(b"\0" * length)
    path = tmp_path / "bad.bin"
    path.write_bytes(b"\0" * length)
    with pytest.raises(ValueError, match="72 bytes"):
        read_tiling_bin(path)


def test_bad_argument_types():
    with pytest.raises(TypeError, match="path_or_bytes"):
        read_tiling_bin(72)
    with pytest.raises(TypeError, match="path"):
        write_tiling_bin(3, compute_tiling(6, np.float32))


def test_record_from_fields_rules():
    fields = dict(zip(NAMES, range(8)))
    rec = record_from_fields(fields)
    assert rec.tobytes() == C_LAYOUT.pack(*range(8), 1.0)
    with pytest.raises(ValueError, match="missing.*tailBlockNum"):
        record_from_fields({k: v for k, v in fields.items() if k != "tailBlockNum"})
    with pytest.raises(ValueError, match="unknown.*tileNum"):
        record_from_fields({**fields, "tileNum": 1})
    with pytest.raises(ValueError, match="tileDataNum.*2\\*\\*64"):
        record_from_fields({**fields, "tileDataNum": -1})
    with pytest.raises(ValueError, match="tileDataNum.*2\\*\\*64"):
        record_from_fields({**fields, "tileDataNum": 1 << 64})
    with pytest.raises(TypeError, match="tileDataNum.*integer"):
        record_from_fields({**fields, "tileDataNum": 1.5})


def test_as_tiling_record_block_dim():
    tiling = compute_tiling(1048576, np.float16)
    rec, bd, key = as_tiling_record(tiling)
    assert (bd, key) == (48, 0)
    assert rec.tobytes() == tiling.tobytes()
    assert as_tiling_record(tiling, block_dim=3)[1] == 3
    assert as_tiling_record(tiling.tobytes(), block_dim=7)[1] == 7
    # (padding bytes of a NumPy copy are unspecified: compare the 68 meaningful ones)
    assert as_tiling_record(np.array([tiling.data]), block_dim=7)[0].tobytes()[:68] == tiling.tobytes()[:68]
    with pytest.raises(TypeError, match="block_dim is required"):
        as_tiling_record(tiling.data)
    with pytest.raises(ValueError, match="block_dim"):
        as_tiling_record(tiling.data, block_dim=-1)
    with pytest.raises(TypeError, match="TILING_DTYPE"):
        as_tiling_record(np.zeros(3), block_dim=1)
    with pytest.raises(ValueError, match="single record"):
        as_tiling_record(np.zeros(2, dtype=TILING_DTYPE), block_dim=1)


def test_mapping_beta_follows_the_rule_of_every_beta_argument():
    # One rule (dtypes.to_float32): a bool converts as a C cast, as swish_backward's beta does, and a Fraction
    # is rounded once from its value.
    fields = {name: 1 for name in NAMES}
    for beta in (True, False, Fraction(1) + Fraction(1, 2**24) + Fraction(1, 2**60), np.int64(2**60 + 2**36 + 1)):
        for key in ("sconf", "beta"):
            record = record_from_fields({**fields, key: beta})
            assert record["sconf"].view(np.uint32) == to_float32(beta).view(np.uint32), (key, beta)
    arch35 = dict(compute_tiling(4096, "float32", platform=sg.ASCEND950_PLATFORM).as_dict(), scale=True)
    assert as_tiling_record(arch35)[0]["scale"] == np.float32(1.0)
    g = x = np.ones(4, np.float32)
    assert sg.swish_backward(g, x, True).tobytes() == sg.swish_backward(g, x, 1.0).tobytes()
    with pytest.raises(TypeError, match=r"tiling\['scale'\] must be a real number"):
        as_tiling_record(dict(arch35, scale="1.0"))
