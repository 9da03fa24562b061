"""read_kernel on an operator's folder (issue 43: the folder, the host tiling struct, the op definition):
the samples-style fixtures read with their op_host and run bit for bit against plain references written
here; the struct's record against ctypes' C layout; the A2/950 entry chosen by the platform; each
refusal a KernelSourceError with file and line."""
import ctypes
import shutil
from pathlib import Path

import ml_dtypes
import numpy as np
import pytest

from activation_checks import every16
from reference import SPECIALS, assert_bits_equal, random_inputs
from reference_family import narrow

from swishgrad_numba.ops import read_kernel
from swishgrad_numba.platform import ASCEND950_PLATFORM, REFERENCE_PLATFORM
from swishgrad_numba.reader import KernelSourceError

KERNELS = Path(__file__).parent / "fixtures" / "kernels"
F32 = np.float32


def _x(dtype, seed):
    if dtype == "float32":
        # 20 * 1024 elements: the samples-style kernels' own tiling divides them into whole 32-byte tiles
        x = random_inputs(np.random.default_rng(seed), 20 * 1024 - SPECIALS.size, F32)[1]
        return np.concatenate([x, SPECIALS.astype(F32)])
    return every16(dtype)


def ref_abs_axpy(x, alpha):
    """host_abs_axpy: |x| * alpha + x in float32; 16-bit widened exactly, narrowed with CAST_RINT."""
    with np.errstate(all="ignore"):
        xf = x.astype(F32)
        out = np.abs(xf) * F32(alpha) + xf
    return out if x.dtype == np.float32 else narrow(out, x.dtype, ties_away=False)


@pytest.fixture(scope="module")
def add_op():
    return read_kernel(KERNELS / "host_add_custom")


@pytest.fixture(scope="module")
def axpy_op():
    return read_kernel(KERNELS / "host_abs_axpy")


def test_add_custom_reads_its_struct_from_op_host(add_op):
    x = _x("float32", 1)
    y = np.random.default_rng(2).permutation(x)
    with np.errstate(all="ignore"):
        want = x + y
    assert_bits_equal(add_op.run(x=x, y=y), want, "add_custom float32")
    assert add_op.description.tiling.name == "AddCustomTilingData"


def test_the_host_struct_is_laid_out_as_c(add_op, axpy_op):
    class AddC(ctypes.Structure):
        _fields_ = [("totalLength", ctypes.c_uint32), ("tileNum", ctypes.c_uint16), ("spare", ctypes.c_uint64)]

    class AxpyC(ctypes.Structure):
        _fields_ = [("blockLength", ctypes.c_uint32), ("tileLength", ctypes.c_uint32), ("slope", ctypes.c_float)]

    for op, c in ((add_op, AddC), (axpy_op, AxpyC)):
        dt = op.record_dtype
        assert dt.itemsize == ctypes.sizeof(c)
        assert [dt.fields[n][1] for n, _ in c._fields_] == [getattr(c, n).offset for n, _ in c._fields_]


def test_the_op_definition_is_read(add_op, axpy_op):
    d = add_op.definition
    assert d.name == "AddCustom" and [i[0] for i in d.inputs] == ["x", "y"] and d.outputs[0][0] == "z"
    assert d.dtypes() == ("float32", "float16")
    assert axpy_op.definition.attrs == (("alpha", "float", False, 0.75),)
    assert axpy_op.attribute_names == {"alpha": "slope"} and axpy_op.attribute_defaults == {"slope": 0.75}


def test_a_dtype_the_op_definition_does_not_list_is_refused(add_op):
    x = np.ones(8, dtype=ml_dtypes.bfloat16)       # the kernel reads bfloat16; the op definition lists none
    with pytest.raises(ValueError, match=r"x.dtype must be one of \['float32', 'float16'\]"):
        add_op.run(x=x, y=x)


@pytest.mark.parametrize("dtype", ["float32", "float16", "bfloat16"])
def test_abs_axpy_bit_for_bit_with_the_default_and_the_attribute(axpy_op, dtype):
    x = _x(dtype, 3)
    assert_bits_equal(axpy_op.run(x=x), ref_abs_axpy(x, 0.75), f"abs_axpy {dtype} default")
    assert_bits_equal(axpy_op.run(x=x, alpha=-1.3), ref_abs_axpy(x, -1.3), f"abs_axpy {dtype} alpha")
    assert_bits_equal(axpy_op.run(x=x, slope=2.5), ref_abs_axpy(x, 2.5), f"abs_axpy {dtype} slope")


def test_an_attribute_given_twice_is_refused(axpy_op):
    with pytest.raises(TypeError, match="given twice"):
        axpy_op.run(x=np.ones(4, F32), alpha=1.0, slope=2.0)


def test_the_op_kernel_folder_alone_names_what_is_missing():
    with pytest.raises(KernelSourceError, match=r"add_custom.cpp:\d+: .*op_host was not given"):
        read_kernel(KERNELS / "host_add_custom" / "op_kernel")


def _two_entries(tmp_path, into_arch35=False):
    """An op_kernel folder with an A2 entry (a2_scaled_abs) and a 950 entry (dag_swish_toy)."""
    kern = tmp_path / "op" / "op_kernel"
    shutil.copytree(KERNELS / "a2_scaled_abs", kern)
    shutil.copytree(KERNELS / "dag_swish_toy" / "arch35", kern / "arch35")
    dst = kern / "arch35" if into_arch35 else kern
    shutil.copy(KERNELS / "dag_swish_toy" / "swish_toy_apt.cpp", dst / ("swish_toy.cpp" if into_arch35 else
                                                                           "swish_toy_apt.cpp"))
    return tmp_path / "op"


@pytest.mark.parametrize("into_arch35", [False, True])
def test_the_platform_picks_the_entry(tmp_path, into_arch35):
    folder = _two_entries(tmp_path, into_arch35)
    a2 = read_kernel(folder)
    assert a2.style == "a2" and a2.description.name == "scaled_abs"
    assert read_kernel(folder, platform=REFERENCE_PLATFORM).description.name == "scaled_abs"
    dag = read_kernel(folder, platform=ASCEND950_PLATFORM)
    assert dag.style == "dag" and dag.description.name == "swish_toy"


def test_two_entries_for_one_platform_are_refused(tmp_path):
    kern = tmp_path / "op_kernel"
    shutil.copytree(KERNELS / "a2_scaled_abs", kern)
    shutil.copy(KERNELS / "plain_muls" / "plain_muls.cpp", kern)
    with pytest.raises(KernelSourceError, match="2 entry files.*name one with entry="):
        read_kernel(kern)
    assert read_kernel(kern, entry="plain_muls.cpp").description.name == "plain_muls"


def _host_variant(tmp_path, old, new, file="add_custom_tiling.h"):
    return _host_variant_of(tmp_path, "host_add_custom", old, new, file)


@pytest.mark.parametrize("old, new, match", [
    ("TILING_DATA_FIELD_DEF(uint64_t, spare);", "TILING_DATA_FIELD_DEF_ARR(uint32_t, SPARE_N, spare);",
     "count SPARE_N: not an integer literal"),          # an array field's count must be known (.tiling_arrays)
    ("TILING_DATA_FIELD_DEF(uint64_t, spare);", "TILING_DATA_FIELD_DEF_STRUCT(Other, spare);", "a struct field"),
    ("TILING_DATA_FIELD_DEF(uint64_t, spare);", "TILING_DATA_FIELD_DEF(uint64_t);", r"expected \(type, name\)"),
    ("TILING_DATA_FIELD_DEF(uint64_t, spare);", "uint64_t spare;", "expected TILING_DATA_FIELD_DEF"),
    ("END_TILING_DATA_DEF;", "", "'REGISTER_TILING_DATA_CLASS' in .*: expected .* or END_TILING_DATA_DEF"),
    ("REGISTER_TILING_DATA_CLASS(AddCustom, AddCustomTilingData)",
     "REGISTER_TILING_DATA_CLASS(AddCustom, Missing)", "no BEGIN_TILING_DATA_DEF"),
    ("TILING_DATA_FIELD_DEF(uint64_t, spare);", "TILING_DATA_FIELD_DEF(size_t, spare);", "its type size_t"),
])
def test_host_struct_refusals_name_file_and_line(tmp_path, old, new, match):
    op, path = _host_variant(tmp_path, old, new)
    with pytest.raises(KernelSourceError, match=match) as e:
        read_kernel(op)
    assert e.value.file == path and e.value.line > 0, str(e.value)


def test_a_struct_registered_for_another_op_is_not_guessed(tmp_path):
    op, _ = _host_variant(tmp_path, "END_TILING_DATA_DEF;\n", "END_TILING_DATA_DEF;\nBEGIN_TILING_DATA_DEF(B)\n"
                          "TILING_DATA_FIELD_DEF(uint32_t, n);\nEND_TILING_DATA_DEF;\n"
                          "REGISTER_TILING_DATA_CLASS(Other, B)\n")
    text = (op / "op_host" / "add_custom_tiling.h").read_text()
    (op / "op_host" / "add_custom_tiling.h").write_text(text.replace("(AddCustom, AddCustomTilingData)",
                                                                     "(AddCustomV2, AddCustomTilingData)"))
    with pytest.raises(KernelSourceError, match="nor declared in op_host") as e:
        read_kernel(op)
    assert e.value.file.endswith("add_custom.cpp") and e.value.line > 0


# ---------------------------------------------------------------- the host's tiling function, evaluated

def test_the_host_tiling_function_makes_the_record(add_op, axpy_op):
    t = add_op.tiling(1000, "float32")
    assert (int(t.data["totalLength"]), int(t.data["tileNum"]), t.block_dim) == (1000, 8, 8)   # CORES, TILES
    t = axpy_op.tiling(1000, "float16", alpha=2.0)
    assert (int(t.data["blockLength"]), int(t.data["tileLength"]), t.block_dim) == (250, 62, 4)
    assert float(t.data["slope"]) == 2.0


def test_the_attribute_reaches_the_kernel_through_the_host_function(tmp_path):
    op, _ = _host_variant_of(tmp_path, "host_abs_axpy", "tiling.set_slope(*alphaPtr);",
                             "tiling.set_slope(*alphaPtr * 2.0f);", "abs_axpy.cpp")
    read = read_kernel(op)
    assert read.attribute_names == {}           # not a plain set_slope(*alphaPtr): only evaluation finds it
    x = _x("float16", 4)
    assert_bits_equal(read.run(x=x, alpha=1.25), ref_abs_axpy(x, 2.5), "abs_axpy alpha doubled by the host")
    assert_bits_equal(read.run(x=x), ref_abs_axpy(x, 1.5), "abs_axpy default doubled by the host")


def test_tiling_and_block_dim_override_the_host(axpy_op):
    x = _x("float32", 5)
    # 3 cores of 6,848 elements (4 tiles of 1,712 each): the last core's end lies past the 20,480
    got = axpy_op.run(x=x, alpha=9.0, tiling={"blockLength": 6848, "tileLength": 1712, "slope": -0.5}, block_dim=3)
    assert_bits_equal(got, ref_abs_axpy(x, -0.5), "abs_axpy tiling=")
    with pytest.raises(ValueError, match="block_dim must be an int >= 1"):
        axpy_op.run(x=x, block_dim=0)
    with pytest.raises(TypeError, match="'nope' is not a field"):
        axpy_op.run(x=x, tiling={"nope": 1})


@pytest.mark.parametrize("old, new, what, line", [
    ("context->SetBlockDim(4);", "for (int i = 0; i < 2; i++) { context->SetBlockDim(4); }", "a loop.*pass tiling=",
     12),
    ("context->SetBlockDim(4);", "context->SetBlockDim(Helper(context));", "call Helper.*pass tiling=", 12),
    ("context->SetBlockDim(4);", "context->SetBlockDim(context->GetSomethingElse());", "GetSomethingElse", 12),
    ("tiling.set_slope(*alphaPtr);", "tiling.set_nope(*alphaPtr);", "AbsAxpyTilingData has no field nope", 15),
    ("tiling.set_blockLength(total / 4);", "tiling.set_blockLength(0 - 1);", "does not fit .* uint32_t", 13),
])
def test_a_host_function_it_cannot_evaluate_is_refused_at_its_line(tmp_path, old, new, what, line):
    op, path = _host_variant_of(tmp_path, "host_abs_axpy", old, new, "abs_axpy.cpp")
    read = read_kernel(op)
    x = np.linspace(-2, 2, 256, dtype=F32)
    with pytest.raises(KernelSourceError, match=what) as e:
        read.run(x=x)
    assert e.value.file == path and e.value.line == line
    given = {"blockLength": 64, "tileLength": 16, "slope": 0.75}
    assert_bits_equal(read.run(x=x, tiling=given, block_dim=4), ref_abs_axpy(x, 0.75), "tiling= instead")


def _host_variant_of(tmp_path, fixture, old, new, file):
    op = tmp_path / "op"
    shutil.copytree(KERNELS / fixture, op)
    path = op / "op_host" / file
    text = path.read_text()
    assert old in text
    path.write_text(text.replace(old, new))
    return op, str(path)


def test_registered_it_tiles_with_its_host_validates_and_runs():
    from swishgrad_numba import compute_tiling, run_tiling, validate_tiling
    from swishgrad_numba.ops import OPERATORS, register

    op = register(read_kernel(KERNELS / "host_abs_axpy", name="read_abs_axpy"))
    try:
        for n, cores in ((1_000_003, 4), (40, 3)):        # the host's 4 cores; 40 float16 fill 3 blocks
            tiling = compute_tiling(n, np.float16, beta=1.5, op="read_abs_axpy")
            assert tiling.block_dim == cores and int(tiling["blockLength"]) == n // 4
            assert validate_tiling(tiling, n, np.float16).ok
        assert float(tiling["slope"]) == 1.5
        n = 100_007
        x = np.linspace(-3, 3, n).astype(np.float16)
        tiling = compute_tiling(n, np.float16, beta=1.5, op="read_abs_axpy")
        report = validate_tiling(tiling, n, np.float16)
        assert report.ok, report.errors
        out = np.empty_like(x)
        run_tiling(None, x, out, tiling)
        assert_bits_equal(out, ref_abs_axpy(x, 1.5), "registered abs_axpy")
    finally:
        del OPERATORS[op.name]


def test_an_attribute_default_written_as_an_expression(tmp_path):
    op, _ = _host_variant_of(tmp_path, "host_abs_axpy", ".Float(0.75);", ".Float(QUARTER * 3.0);", "abs_axpy.cpp")
    path = op / "op_host" / "abs_axpy.cpp"
    path.write_text(path.read_text().replace("namespace ops {", "namespace ops {\nconst float QUARTER = 0.25f;"))
    read = read_kernel(op)
    assert read.definition.attrs == (("alpha", "float", False, 0.75),)
    x = np.linspace(-2, 2, 256, dtype=F32)    # 4 cores of 4 whole-block tiles
    assert_bits_equal(read.run(x=x), ref_abs_axpy(x, 0.75), "abs_axpy default from an expression")
    path.write_text(path.read_text().replace("QUARTER * 3.0", "Unknown()"))      # not evaluated: must be given
    read = read_kernel(op)
    assert read.definition.attrs == (("alpha", "float", False, None),)
    with pytest.raises(KernelSourceError, match=r"attribute 0 \(alpha\).*no default.*pass it"):
        read.run(x=x)
    assert_bits_equal(read.run(x=x, alpha=0.5), ref_abs_axpy(x, 0.5), "abs_axpy alpha given")


def test_the_host_reads_dims_int_and_bool_attributes_and_workspace(tmp_path, axpy_op):
    # issue 43's host subset: GetDimNum/GetDim of an origin shape, GetFloat/GetBool/GetInt by index, a block dim
    # from an attribute, a workspace size (added to the library's)
    op = tmp_path / "op"
    shutil.copytree(KERNELS / "host_abs_axpy", op)
    path = op / "op_host" / "abs_axpy.cpp"
    text = path.read_text()
    for old, new in [
        ("    const float* alphaPtr = attrs->GetAttrPointer<float>(0);\n"
         "    uint32_t total = context->GetInputShape(0)->GetStorageShape().GetShapeSize();\n"
         "    context->SetBlockDim(4);\n    tiling.set_blockLength(total / 4);\n"
         "    tiling.set_tileLength(total / 16);\n    tiling.set_slope(*alphaPtr);",
         "    const float* alphaPtr = attrs->GetFloat(0);\n    const bool* twice = attrs->GetBool(1);\n"
         "    const int64_t* cores = attrs->GetInt(2);\n"
         "    auto shape = context->GetInputShape(0)->GetOriginShape();\n"
         "    uint32_t total = shape.GetDimNum() == 2 ? shape.GetDim(0) * shape.GetDim(1) : 0;\n"
         "    context->SetBlockDim(*cores);\n    tiling.set_blockLength(total / *cores);\n"
         "    tiling.set_tileLength(total / *cores / 4);\n"
         "    tiling.set_slope(*twice ? *alphaPtr * 2.0f : *alphaPtr);\n"
         "    size_t* workspaces = context->GetWorkspaceSizes(1);\n    workspaces[0] = 4096;"),
        ('        this->Attr("alpha").AttrType(OPTIONAL).Float(0.75);',
         '        this->Attr("alpha").AttrType(OPTIONAL).Float(0.75);\n'
         '        this->Attr("twice").AttrType(OPTIONAL).Bool(false);\n'
         '        this->Attr("cores").AttrType(OPTIONAL).Int(4);')]:
        assert old in text
        text = text.replace(old, new)
    path.write_text(text)
    read = read_kernel(op)
    x = _x("float32", 6)[:64 * 48].reshape(64, 48)
    assert_bits_equal(read.run(x=x, alpha=1.5, twice=True, cores=3), ref_abs_axpy(x, 3.0), "twice, 3 cores")
    assert_bits_equal(read.run(x=x), ref_abs_axpy(x, 0.75), "the defaults")
    t = read.tiling(x.size, "float32")
    assert t.block_dim == 4 and t.workspace_size == axpy_op.tiling(x.size, "float32").workspace_size + 4096
    with pytest.raises(KernelSourceError, match="division by zero"):       # a 1-D x: total 0, as the host computes
        read.run(x=x.reshape(-1))
