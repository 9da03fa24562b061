"""Each tiling-key variant of a read kernel is handed the inputs it reads, by name (issue 43): the fixture
keyed_switch (written for the reader's tests) edited here to read a second input z under key 1 and compute
x - z there; its other keys (2x + 1, -x) do not read z. The references are written here instruction by
instruction."""
import numpy as np
import pytest

from reference import assert_bits_equal
from reader_variants import fixture_edited

from swishgrad_numba.ops import read_kernel

F32 = np.float32
_KERNEL, _HOST = "op_kernel/keyed_switch.cpp", "op_host/keyed_switch.cpp"
#: keyed_switch with the input z, copied in and read under key 1 only.
KEYED_INPUTS = [
    (_KERNEL, "Init(GM_ADDR x, GM_ADDR y,", "Init(GM_ADDR x, GM_ADDR z, GM_ADDR y,"),
    (_KERNEL, "        yGm.SetGlobalBuffer(", "        zGm.SetGlobalBuffer((__gm__ float*)z, totalLength);\n"
              "        yGm.SetGlobalBuffer("),
    (_KERNEL, "        pipe.InitBuffer(outQ,", "        pipe.InitBuffer(zQ, 2, tileLength * sizeof(float));\n"
              "        pipe.InitBuffer(outQ,"),
    (_KERNEL, "        inQ.EnQue(xLocal);\n", "        inQ.EnQue(xLocal);\n        if (this->key == 1) {\n"
              "            LocalTensor<float> zLocal = zQ.AllocTensor<float>();\n"
              "            DataCopyPad(zLocal, zGm[offset], {1, len * 4, 0, 0, 0}, pad);\n"
              "            zQ.EnQue(zLocal);\n        }\n"),
    (_KERNEL, "Abs(yLocal, xLocal, len);", "{ LocalTensor<float> zLocal = zQ.DeQue<float>(); "
              "Sub(yLocal, xLocal, zLocal, len); zQ.FreeTensor(zLocal); }"),
    (_KERNEL, "TQue<TPosition::VECIN, 2> inQ;", "TQue<TPosition::VECIN, 2> inQ, zQ;"),
    (_KERNEL, "GlobalTensor<float> xGm, yGm;", "GlobalTensor<float> xGm, zGm, yGm;"),
    (_KERNEL, "keyed_switch(GM_ADDR x, GM_ADDR y,", "keyed_switch(GM_ADDR x, GM_ADDR z, GM_ADDR y,"),
    (_KERNEL, "op.Init(x, y,", "op.Init(x, z, y,"),
    (_HOST, '        this->Output("y")', '        this->Input("z").ParamType(REQUIRED).DataType({ge::DT_FLOAT});\n'
            '        this->Output("y")'),
]


def ref_keyed_inputs(x, z, key):
    """key 1: Sub(x, z); 2 or 3: Muls(x, 2.0f) then Adds(1.0f); else Muls(x, -1.0f); each rounded to float32."""
    with np.errstate(all="ignore"):
        if key == 1:
            return x - z
        return (x * F32(2.0)) + F32(1.0) if key in (2, 3) else x * F32(-1.0)


@pytest.fixture(scope="module")
def op(tmp_path_factory):
    return read_kernel(fixture_edited(tmp_path_factory.mktemp("k"), "keyed_switch", KEYED_INPUTS))


def _inputs(n):
    x = np.linspace(-9.25, 9.25, n).astype(F32)
    z = np.linspace(4.5, -1.0, n).astype(F32)
    return x, z


def _reads(op):
    return {v: [g for g, _ in op.description.body("float32", v).inputs] for v in op.variants("float32")}


def test_the_variants_read_different_inputs(op):
    assert sorted(_reads(op).values()) == [["x"], ["x"], ["x", "z"]]


@pytest.mark.parametrize("mode, n", [(1, 1000), (0, 1000), (3, 129), (5, 129)])
def test_the_key_s_variant_gets_the_inputs_it_reads(op, mode, n):
    x, z = _inputs(n)
    assert_bits_equal(op.run(x=x, z=z, mode=mode), ref_keyed_inputs(x, z, mode), f"keyed inputs mode={mode}")


@pytest.mark.parametrize("mode", [1, 2, 0])
def test_a_variant_named_gets_the_inputs_it_reads(op, mode):
    x, z = _inputs(300)
    ops = {1: ["Sub"], 2: ["Muls", "Adds"], 0: ["Muls"]}[mode]
    (v,) = [v for v in op.variants("float32") if [s.op for s in op.description.body("float32", v).steps] == ops]
    assert_bits_equal(op.run(x=x, z=z, mode=mode, variant=v), ref_keyed_inputs(x, z, mode), f"variant {v}")


def test_an_input_a_variant_does_not_read_may_be_left_out_only_where_none_reads_it(op):
    x, _ = _inputs(64)
    with pytest.raises(TypeError, match="missing input 'z'"):
        op.run(x=x, mode=0)
