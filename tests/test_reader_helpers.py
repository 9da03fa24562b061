"""A kernel's own helpers and the calls around them (issue 43): a method of a CRTP base (``BindCore``), a
call qualified by a base's name (``Base<...>::Init``), the tile loop in a free function template Process
calls (``WalkTiles``), ``DeQue<src, dst, T>``, class-scope ``static constexpr`` constants an alias reads,
``REGISTER_TILING_DEFAULT`` below ``GET_TILING_DATA``, ``ENABLE_PRINTF()``, ``std::numeric_limits``, ops-nn's
``platform::GetVRegSize()`` / ``GetUbBlockSize()``, AscendC's ``DEFAULT_DATA_COPY_STRIDE``, an input
named ``self`` and AscendC's ``LeakyRelu`` (its API page's formula: ``src >= 0 ? src : scalar * src``). The
fixture ``wild_helper_gate`` is written for these tests; the reference is written here, instruction by
instruction; what stays refused is refused at its file and line."""
from pathlib import Path

import ml_dtypes
import numpy as np
import pytest

from activation_checks import every16
from reference import SPECIALS, assert_bits_equal, random_inputs
from reference_family import narrow
from reader_variants import fixture_variant

from swishgrad_numba.ops import read_kernel
from swishgrad_numba.reader import KernelSourceError, read_source

KERNELS = Path(__file__).parent / "fixtures" / "kernels"
GATE = KERNELS / "wild_helper_gate" / "op_kernel"
SOURCE = GATE / "helper_gate.cpp"
CPP = "op_kernel/helper_gate.cpp"
F32 = np.float32
FLT_MAX = F32(np.finfo(F32).max)


def ref_gate(x, slope):
    """LeakyRelu(w, x, slope) as its API page writes it (x where x >= 0, else slope * x, one float32
    product), Mins(w, w, FLT_MAX), Muls(y, w, 2.0f); 16-bit x widened exactly and narrowed with CAST_RINT."""
    with np.errstate(all="ignore"):
        w = x.astype(F32)
        leaky = np.where(w >= 0, w, w * F32(slope))
        y = np.minimum(leaky, FLT_MAX) * F32(2.0)
    return y if x.dtype == F32 else narrow(y, x.dtype, ties_away=False)


def _record(n, cores=4, tile=256, slope=0.25):
    """The struct's fields for ``n`` elements over ``cores``: the first n % cores cores one element longer."""
    return dict(longCores=n % cores, longLength=n // cores + 1, shortLength=n // cores, tile=tile, slope=slope)


@pytest.fixture(scope="module")
def gate():
    return read_kernel(GATE)


@pytest.mark.parametrize("dtype", ["float32", "float16", "bfloat16"])
def test_helpers_read_and_run_bit_for_bit(gate, dtype):
    if dtype == "float32":
        x = np.concatenate([random_inputs(np.random.default_rng(10), 5_000, F32)[1], SPECIALS.astype(F32),
                            np.array([3.0e38, -3.0e38], F32)])
    else:
        x = every16(dtype)
    for slope in (0.25, -1.5):
        got = gate.run(self=x, tiling=_record(x.size, slope=slope), block_dim=4)
        assert_bits_equal(got, ref_gate(x, slope), f"helper_gate {dtype} slope {slope}")


def test_platform_queries_are_the_platforms(gate):
    # platform::GetVRegSize() is 256 bytes: LANES = 64 floats, so a tile of 96 elements returns before any tile
    # (nothing stored: zeros here), one of 192 computes; GetUbBlockSize() (32) rounds the queue's bytes
    x = np.linspace(-3, 3, 1000).astype(F32)
    assert not np.any(gate.run(self=x, tiling=_record(x.size, tile=96), block_dim=4))
    assert_bits_equal(gate.run(self=x, tiling=_record(x.size, tile=192), block_dim=4), ref_gate(x, 0.25), "tile 192")


def test_leaky_relu_is_its_three_steps_at_its_line(gate):
    steps = gate.description.body("float32").steps
    line = next(i for i, t in enumerate(SOURCE.read_text().splitlines(), 1) if "LeakyRelu(w, v" in t)
    assert [(s.op, s.at[1]) for s in steps[:3]] == [("Muls", line), ("CompareScalar", line), ("Select", line)]
    assert steps[3].op == "Mins" and steps[3].args[2].value == float(FLT_MAX)      # numeric_limits<float>::max()
    assert gate.description.inputs_read == ("self",) and gate.attributes == ("slope",)


def _refused(tmp_path, old, new, construct, line_of):
    folder, source = fixture_variant(tmp_path, "wild_helper_gate", old, new, file=CPP)
    with pytest.raises(KernelSourceError) as err:
        read_source(folder / "op_kernel")
    e = err.value
    assert construct in e.construct, e
    line = next(i for i, t in enumerate(Path(e.file).read_text().splitlines(), 1) if line_of in t)
    assert Path(e.file).name == "helper_gate.cpp" and e.line == line, e
    return e


def test_leaky_relu_on_bfloat16_is_refused(tmp_path):
    # asc-devkit's LeakyRelu takes half and float only: a bfloat16 tensor has no such instruction
    _refused(tmp_path, "LeakyRelu(w, w, slope_, n);", "LeakyRelu(v, v, static_cast<T>(slope_), n);",
             "LeakyRelu on bfloat16", "LeakyRelu(v, v")


def test_a_helper_loop_that_stores_nothing_is_refused(tmp_path):
    e = _refused(tmp_path, "        k.CopyOut(i, n);\n    }\n", "    }\n    k.CopyOut(0, length);\n",
                 "a loop in WalkTiles", "for (int64_t i = 0")
    assert "stores its tile" in e.detail


def test_a_qualified_call_of_a_class_that_is_no_base_is_refused(tmp_path):
    e = _refused(tmp_path, "GateBase<GateKernel<T>, T>::Init(self, y, t);", "HelperGateTiling::Init(self, y, t);",
                 "call HelperGateTiling::Init", "HelperGateTiling::Init")
    assert "not class GateKernel nor a base of it" in e.detail


def test_a_nan_limit_is_refused(tmp_path):
    _refused(tmp_path, "std::numeric_limits<float>::max(), n);\n            Muls(w, w",
             "std::numeric_limits<float>::quiet_NaN(), n);\n            Muls(w, w",
             "std::numeric_limits<float>::quiet_NaN", "quiet_NaN")


def test_the_struct_registered_below_is_the_one_get_tiling_data_gives(tmp_path):
    # without the REGISTER_TILING_DEFAULT below it, GET_TILING_DATA names no struct
    folder, _ = fixture_variant(tmp_path, "wild_helper_gate", "    REGISTER_TILING_DEFAULT(HelperGateTiling);\n", "",
                                file=CPP)
    with pytest.raises(KernelSourceError, match="no tiling struct was found"):
        read_source(folder / "op_kernel")


def test_a_nested_tiling_field_is_a_run_time_value(tmp_path):
    # a guard on a field of a struct-typed field reads as a guard: both ways, the one that returns computes nothing
    guard = "    if (td.meta.count == 0) {\n        return;\n    }\n"
    folder, _ = fixture_variant(tmp_path, "wild_helper_gate", "    GateKernel<DTYPE_SELF> op;\n",
                                guard + "    GateKernel<DTYPE_SELF> op;\n", file=CPP)
    header = folder / "op_kernel" / "helper_gate_tiling.h"
    meta = "struct GateMeta {\n    int64_t count;\n};\nstruct HelperGateTiling {\n    GateMeta meta;"
    header.write_text(header.read_text().replace("struct HelperGateTiling {", meta))
    got = read_source(folder / "op_kernel").body("float32").steps
    assert [str(s) for s in got] == [str(s) for s in read_source(GATE).body("float32").steps]


def test_a_dtype_op_host_does_not_list_is_left_out_where_it_does_not_read(tmp_path):
    # half_native's op_host lists float16 and bfloat16: a float32 path the reader refuses (Erfc) is not
    # compiled, so it is left out, not a refusal of the whole kernel
    maxs = "Maxs(zLocal, zLocal, static_cast<T>(-2.5f), this->tileLength);"
    folder, _ = fixture_variant(tmp_path, "half_native", maxs, "if constexpr (std::is_same_v<T, float>) {\n"
                                "            Erfc(zLocal, zLocal, this->tileLength);\n        }\n        " + maxs)
    assert [b.dtype for b in read_kernel(folder).description.bodies] == ["float16", "bfloat16"]
    host = folder / "op_host" / "half_native.cpp"             # float32 listed too: its path is read, and refused
    host.write_text(host.read_text().replace("{ge::DT_FLOAT16, ge::DT_BF16}",
                                             "{ge::DT_FLOAT, ge::DT_FLOAT16, ge::DT_BF16}"))
    with pytest.raises(KernelSourceError, match="AscendC::Erfc"):
        read_kernel(folder)
