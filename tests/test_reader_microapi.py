"""The 950's register-kernel calls (issue 43, the MicroAPI area): AscendC's ``GetVecLen()``, the vector
register's length in bytes, a ``constexpr`` 256 on the 950 (asc-devkit ``kernel_operator_sys_var_intf.h``).
The kernel is the fixture ``wild_helper_gate`` with its lane count taken from ``GetVecLen()`` instead of
ops-nn's ``platform::GetVRegSize()``; the reference is ``test_reader_helpers``'s, written there."""
import numpy as np
import pytest

from reader_variants import fixture_variant, refusal
from test_reader_helpers import CPP, _record, ref_gate

from swishgrad_numba.ops import read_kernel

F32 = np.float32
LANES = "static constexpr uint32_t LANES = platform::GetVRegSize() / sizeof(float);"


def test_get_vec_len_is_256_bytes(tmp_path):
    # 256 bytes: LANES = 64 floats, so a tile of 96 elements returns before any tile (nothing stored, zeros),
    # one of 192 computes; a length of 0 (the A2's) or any other would fail one of the two
    folder, _ = fixture_variant(tmp_path, "wild_helper_gate", LANES,
                                "static constexpr uint32_t LANES = AscendC::GetVecLen() / sizeof(float);", file=CPP)
    gate = read_kernel(folder / "op_kernel")
    x = np.linspace(-3, 3, 1000).astype(F32)
    assert not np.any(gate.run(self=x, tiling=_record(x.size, tile=96), block_dim=4))
    got = gate.run(self=x, tiling=_record(x.size, tile=192), block_dim=4)
    assert got.view(np.uint32).tolist() == ref_gate(x, 0.25).view(np.uint32).tolist()
    got = gate.run(self=x, tiling=_record(x.size, tile=128), block_dim=4)
    assert got.view(np.uint32).tolist() == ref_gate(x, 0.25).view(np.uint32).tolist()


def test_get_vec_len_with_an_argument_is_refused(tmp_path):
    e, path = refusal(tmp_path, "wild_helper_gate", LANES,
                      "static constexpr uint32_t LANES = AscendC::GetVecLen(4) / sizeof(float);", file=CPP)
    assert "unknown call AscendC::GetVecLen" in e.construct, e
    line = next(i for i, t in enumerate(path.read_text().splitlines(), 1) if "GetVecLen(4)" in t)
    assert e.line == line, e
