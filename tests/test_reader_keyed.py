"""A Compute chosen per launch by the tiling key (issue 43): ``switch (this->key)``, ``TILING_KEY_IS(k)`` and
``if (this->key == k)`` in Compute, each core's tiles run with the variant its own branches took. The fixture
(keyed_switch) is written for these tests in a cann-ops fork's style; the references are written here
instruction by instruction, and each core's tiles are worked out here from the kernel's C arithmetic."""
import types
from pathlib import Path

import numpy as np
import pytest

from reference import SPECIALS, assert_bits_equal
from reader_variants import fixture_variant

from swishgrad_numba.dtypes import dtype_info
from swishgrad_numba.ops import read_kernel
from swishgrad_numba.reader import KernelSourceError
from swishgrad_numba.reader.launch_plan import schedule

KERNELS = Path(__file__).parent / "fixtures" / "kernels"
F32 = np.float32
_SWITCH = KERNELS / "keyed_switch" / "op_kernel" / "keyed_switch.cpp"


def ref_keyed(x, key):
    """key 1: Abs; 2 or 3: Muls(2.0f) then Adds(1.0f), each rounded to float32; else Muls(-1.0f)."""
    with np.errstate(all="ignore"):
        if key == 1:
            return np.abs(x)
        if key in (2, 3):
            return (x * F32(2.0)) + F32(1.0)
        return x * F32(-1.0)


def keyed_tiles(n, cores=3, tile=128):
    """Tile t on core t % cores, the last one short (the fixture's Process)."""
    tiles = -(-n // tile)
    return [[(t * tile, tile if t < tiles - 1 else n - t * tile) for t in range(c, tiles, cores)]
            for c in range(cores)]


def _inputs(n):
    x = np.linspace(-7.5, 7.5, n).astype(F32)
    x[: min(n, SPECIALS.size)] = SPECIALS.astype(F32)[: min(n, SPECIALS.size)]
    return x


@pytest.fixture(scope="module")
def keyed_op():
    return read_kernel(KERNELS / "keyed_switch")


def test_the_switch_reads_as_one_variant_per_case_group(keyed_op):
    assert len(keyed_op.variants("float32")) == 3
    ops = [[s.op for s in keyed_op.description.body("float32", v).steps] for v in keyed_op.variants("float32")]
    assert sorted(ops) == sorted([["Abs"], ["Muls", "Adds"], ["Muls"]])


@pytest.mark.parametrize("mode, n", [(1, 1000), (2, 129), (3, 4096), (0, 1000), (7, 5)])
def test_the_launch_runs_the_compute_its_key_picks(keyed_op, mode, n):
    x = _inputs(n)
    assert_bits_equal(keyed_op.run(x=x, mode=mode), ref_keyed(x, mode), f"keyed_switch mode={mode} n={n}")


def test_each_tile_names_the_variant_its_core_chose(keyed_op):
    variants = {v: [s.op for s in keyed_op.description.body("float32", v).steps]
                for v in keyed_op.variants("float32")}
    for key, ops in [(1, ["Abs"]), (3, ["Muls", "Adds"]), (9, ["Muls"])]:
        record = np.zeros((), keyed_op.record_dtype)
        record["totalLength"], record["tileLength"], record["key"] = 1000, 128, key
        got = schedule(keyed_op, types.SimpleNamespace(data=record[()], block_dim=3, tiling_key=key),
                       dtype_info("float32"))
        assert [[(t.offset, t.length) for t in core] for core in got] == keyed_tiles(1000)
        assert {variants[t.variant] == ops for core in got for t in core} == {True}, key


@pytest.mark.parametrize("compute", [
    # the tiling key the host set (SetTilingKey), as the device's TILING_KEY_IS reads it
    "if (TILING_KEY_IS(1)) {\n            Abs(yLocal, xLocal, len);\n"
    "        } else if (TILING_KEY_IS(2) || TILING_KEY_IS(3)) {\n"
    "            Muls(yLocal, xLocal, 2.0f, len);\n            Adds(yLocal, yLocal, 1.0f, len);\n"
    "        } else {\n            Muls(yLocal, xLocal, -1.0f, len);\n        }",
    # the key as a struct field compared in an if
    "if (this->key == 1) {\n            Abs(yLocal, xLocal, len);\n"
    "        } else if (this->key == 2 || this->key == 3) {\n"
    "            Muls(yLocal, xLocal, 2.0f, len);\n            Adds(yLocal, yLocal, 1.0f, len);\n"
    "        } else {\n            Muls(yLocal, xLocal, -1.0f, len);\n        }",
    # the switch with default first and the groups' braces dropped
    "switch (this->key) {\n        default:\n            Muls(yLocal, xLocal, -1.0f, len);\n            break;\n"
    "        case 2: case 3:\n            Muls(yLocal, xLocal, 2.0f, len);\n"
    "            Adds(yLocal, yLocal, 1.0f, len);\n"
    "            break;\n        case 1:\n            Abs(yLocal, xLocal, len);\n        }",
], ids=["TILING_KEY_IS", "if-field", "switch-default-first"])
def test_other_ways_of_writing_the_key_choice(tmp_path, compute):
    text = _SWITCH.read_text()
    start, end = text.index("switch (this->key)"), text.index("outQ.EnQue(yLocal);")
    folder, _ = fixture_variant(tmp_path, "keyed_switch", text[start:end], compute + "\n        ")
    op = read_kernel(folder)
    x = _inputs(777)
    for mode in (1, 2, 3, 5):
        assert_bits_equal(op.run(x=x, mode=mode), ref_keyed(x, mode), f"mode={mode}")


@pytest.mark.parametrize("old, new, line, construct", [
    ("                Abs(yLocal, xLocal, len);\n                break;", "                Abs(yLocal, xLocal, len);",
     46, "falling into the next"),
    ("switch (this->key) {", "switch (this->key++) {", 45, "a switch on an expression with a side effect"),
    ("                Abs(yLocal, xLocal, len);\n                break;",
     "                break;\n                Abs(yLocal, xLocal, len);", 48, "a statement after break"),
    ("        switch (this->key) {\n", "        switch (this->key) {\n            Abs(yLocal, xLocal, len);\n", 46,
     "a statement before the switch's first case label"),
])
def test_a_switch_outside_the_subset_is_refused_at_its_line(tmp_path, old, new, line, construct):
    folder, path = fixture_variant(tmp_path, "keyed_switch", old, new)
    with pytest.raises(KernelSourceError, match=construct) as e:
        read_kernel(folder)
    assert e.value.file == str(path) and e.value.line == line, str(e.value)


def test_variants_making_the_same_calls_are_told_apart_by_their_branches(tmp_path):
    # two keys calling one helper with different scalars: the calls alone cannot tell the tiles apart, the
    # branches each core took do (.variant_ways); a variant given by hand must be the one they chose
    text = _SWITCH.read_text()
    start, end = text.index("switch (this->key)"), text.index("outQ.EnQue(yLocal);")
    compute = ("if (this->key == 1) {\n            Abs(yLocal, xLocal, len);\n        } else if (this->key == 2) {\n"
               "            Scale(yLocal, xLocal, 2.0f, len);\n        } else {\n"
               "            Scale(yLocal, xLocal, -1.0f, len);\n        }\n        ")
    helper = ("    __aicore__ inline void Scale(LocalTensor<float>& y, LocalTensor<float>& x, float s, uint32_t len)\n"
              "    {\n        Muls(y, x, s, len);\n    }\n    __aicore__ inline void CopyOut(")
    folder, path = fixture_variant(tmp_path, "keyed_switch", text[start:end], compute)
    path.write_text(path.read_text().replace("    __aicore__ inline void CopyOut(", helper))
    op = read_kernel(folder)
    x = _inputs(300)
    v = [v for v in op.variants("float32") if v.endswith("key == 2")]
    assert len(v) == 1
    with np.errstate(all="ignore"):
        want, other = x * F32(2.0), x * F32(-1.0)
    assert_bits_equal(op.run(x=x, mode=2), want, "chosen by the branches")
    assert_bits_equal(op.run(x=x, mode=2, variant=v[0]), want, "variant given")
    assert_bits_equal(op.run(x=x, mode=5), other, "the last else")
    with pytest.raises(KernelSourceError, match="not the one given"):
        op.run(x=x, mode=5, variant=v[0])


def _entry_keyed(tmp_path):
    """keyed_switch whose entry runs Process only under TILING_KEY_IS(1) (squared_relu's shape in ops-nn)."""
    folder, _ = fixture_variant(tmp_path, "keyed_switch", "    op.Process();\n}",
                                "    if (TILING_KEY_IS(1)) {\n        op.Process();\n    }\n}")
    return read_kernel(folder)


def test_a_given_record_takes_its_tiling_key(tmp_path):
    op, x = _entry_keyed(tmp_path), _inputs(1000)
    record = {"totalLength": 1000, "tileLength": 128, "key": 1}
    assert_bits_equal(op.run(x=x, tiling=record, block_dim=3, tiling_key=1), ref_keyed(x, 1), "tiling_key=1")
    # without it the record's key is 0 (as the host's is 5 for mode 5): the entry runs nothing, no tile
    # stores, and the output is left 0 (README: an element no tile stores is left 0)
    assert not np.any(op.run(x=x, tiling=record, block_dim=3))
    assert not np.any(op.run(x=x, mode=5))


@pytest.mark.parametrize("bad", [True, -1, 1.5, "1", 2 ** 64])
def test_a_tiling_key_that_is_not_a_key_is_refused(keyed_op, bad):
    with pytest.raises(ValueError, match="tiling_key must be an integer"):
        keyed_op.run(x=_inputs(10), tiling={"totalLength": 10, "tileLength": 128, "key": 1}, block_dim=1,
                     tiling_key=bad)
