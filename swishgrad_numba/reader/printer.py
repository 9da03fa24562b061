"""Print a kernel description as Ascend C source in the A2 class style (the reader reads it back).

:func:`print_a2` writes the three files of an op_kernel folder: the entry
``.cpp``, the kernel class header and the tiling-data struct. Compute holds one
``if constexpr`` branch per dtype; an input or output tensor is a TQue buffer
of the kernel's dtype, every other tensor a TBuf; attributes are float fields
of the tiling struct copied into members in Init.
"""
from __future__ import annotations

from pathlib import Path

from .description import AttrRef, ScalarProduct
from .instructions import STEP_KINDS

__all__ = ["print_a2", "write_a2"]

_CTYPE = {"float32": "float", "float16": "half", "bfloat16": "bfloat16_t"}


def print_a2(name: str, gm_params: tuple, bodies: dict, attrs: tuple = ()) -> dict:
    """The files (file name -> text) of a kernel ``name`` whose GM arguments are
    ``gm_params`` (inputs, then the output last) and whose Compute for each dtype
    is ``bodies[dtype]`` (a :class:`.description.Body`)."""
    *ins, out = gm_params
    cls, struct = f"Kernel{_camel(name)}", f"{_camel(name)}TilingData"
    fields = "".join(f"    float {a};\n" for a in attrs)
    tiling = (f"#ifndef {name.upper()}_TILING_DATA_H\n#define {name.upper()}_TILING_DATA_H\n"
              f"struct {struct} {{\n    uint32_t tileNum;\n    uint32_t tileLength;\n{fields}}};\n#endif\n")
    entry = (f'#include "{name}.h"\n\n__global__ __aicore__ void {name}('
             + ", ".join(f"GM_ADDR {g}" for g in gm_params) + ", GM_ADDR workspace, GM_ADDR tiling)\n{\n"
             f"    GET_TILING_DATA_WITH_STRUCT({struct}, tilingData, tiling);\n"
             f"    {cls}<DTYPE_{ins[0].upper() if ins else out.upper()}> op;\n"
             f"    op.Init({', '.join(gm_params)}, &tilingData);\n    op.Process();\n}}\n")
    locals_ = sorted({t for b in bodies.values() for t, _ in b.tensors} - _io_names(bodies))
    return {f"{name}.cpp": entry, f"{name}_tiling_data.h": tiling,
            f"{name}.h": _header(name, cls, struct, ins, out, bodies, attrs, locals_)}


def write_a2(folder, name, gm_params, bodies, attrs=()) -> Path:
    """:func:`print_a2` into ``folder``; the folder."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    for file, text in print_a2(name, gm_params, bodies, attrs).items():
        (folder / file).write_text(text)
    return folder


def _io_names(bodies):
    return {t for b in bodies.values() for t in [t for _, t in b.inputs] + [b.output[1]]}


def _header(name, cls, struct, ins, out, bodies, attrs, locals_):
    one = next(iter(bodies.values()))
    tensor_of = {g: t for g, t in one.inputs}
    tensor_of[out] = one.output[1]
    init = "".join(f"        this->{a} = tiling->{a};\n" for a in attrs)
    init += "".join(f"        {g}Gm.SetGlobalBuffer((__gm__ T*){g});\n" for g in ins + [out])
    init += "".join(f"        pipe.InitBuffer(q_{g}, BUFFER_NUM, this->len * sizeof(T));\n" for g in ins + [out])
    init += "".join(f"        pipe.InitBuffer(b_{t}, this->len * sizeof(float));\n" for t in locals_)
    copy_in = "".join(f"        LocalTensor<T> {tensor_of[g]} = q_{g}.AllocTensor<T>();\n"
                      f"        DataCopy({tensor_of[g]}, {g}Gm[i * this->len], this->len);\n"
                      f"        q_{g}.EnQue({tensor_of[g]});\n" for g in ins)
    branches = []
    for dtype, body in bodies.items():
        lines = [f"            LocalTensor<T> {t} = q_{g}.DeQue<T>();" for g, t in body.inputs]
        lines.append(f"            LocalTensor<T> {body.output[1]} = q_{out}.AllocTensor<T>();")
        io = {t for _, t in body.inputs} | {body.output[1]}
        lines += [f"            LocalTensor<{_CTYPE[dt]}> {t} = b_{t}.Get<{_CTYPE[dt]}>();"
                  for t, dt in body.tensors if t not in io]
        lines += ["            " + _call(s) for s in body.steps]
        lines.append(f"            q_{out}.EnQue({body.output[1]});")
        cond = f"std::is_same_v<T, {_CTYPE[dtype]}>"
        branches.append(f"if constexpr ({cond}) {{\n" + "\n".join(lines) + "\n        }")
    compute = "        " + " else ".join(branches) + "\n"
    members = "".join(f"    float {a};\n" for a in attrs)
    bufs = "".join(f"    TBuf<QuePosition::VECCALC> b_{t};\n" for t in locals_)
    ques = "".join(f"    TQue<QuePosition::VECIN, BUFFER_NUM> q_{g};\n" for g in ins)
    return (f"#ifndef {name.upper()}_H\n#define {name.upper()}_H\n#include \"kernel_operator.h\"\n"
            f"#include \"{name}_tiling_data.h\"\n\nusing namespace AscendC;\nconstexpr int32_t BUFFER_NUM = 2;\n\n"
            f"template <typename T>\nclass {cls} {{\npublic:\n"
            f"    __aicore__ inline void Init({', '.join(f'GM_ADDR {g}' for g in ins + [out])}, "
            f"const {struct}* tiling)\n    {{\n        this->len = tiling->tileLength;\n"
            f"        this->tileNum = tiling->tileNum;\n{init}    }}\n"
            f"    __aicore__ inline void Process()\n    {{\n        for (uint32_t i = 0; i < this->tileNum; i++) {{\n"
            f"            CopyIn(i);\n            Compute();\n            CopyOut(i);\n        }}\n    }}\n\nprivate:\n"
            f"    __aicore__ inline void CopyIn(uint32_t i)\n    {{\n{copy_in}    }}\n"
            f"    __aicore__ inline void Compute()\n    {{\n{compute}    }}\n"
            f"    __aicore__ inline void CopyOut(uint32_t i)\n    {{\n"
            f"        LocalTensor<T> {tensor_of[out]} = q_{out}.DeQue<T>();\n"
            f"        DataCopy({out}Gm[i * this->len], {tensor_of[out]}, this->len);\n"
            f"        q_{out}.FreeTensor({tensor_of[out]});\n    }}\n\n"
            f"    TPipe pipe;\n{ques}    TQue<QuePosition::VECOUT, BUFFER_NUM> q_{out};\n{bufs}"
            f"    GlobalTensor<T> {', '.join(g + 'Gm' for g in ins + [out])};\n"
            f"    uint32_t len;\n    uint32_t tileNum;\n{members}}};\n#endif\n")


def _scalar(arg) -> str:
    if isinstance(arg, AttrRef):
        return f"this->{arg.name}"
    if isinstance(arg, ScalarProduct):
        return f"({_scalar(arg.a)} * {_scalar(arg.b)})"
    return str(arg)   # a Constant: its C++ literal (an infinity as (1.0f / 0.0f))


def _call(step) -> str:
    args = []
    for arg, kind in zip(step.args, STEP_KINDS[step.op]):
        if kind == "k":
            args.append(_scalar(arg))
        elif kind == "m":
            args.append(f"RoundMode::{arg}")
        elif kind == "c":
            args.append(f"CMPMODE::{arg}")
        else:
            args.append(arg)
    if step.op in ("Select", "Selects"):      # the basic API's order: dst, mask, src0, src1, mode
        mode = "VSEL_TENSOR_TENSOR_MODE" if step.op == "Select" else "VSEL_TENSOR_SCALAR_MODE"
        return f"Select({args[0]}, {args[3]}, {args[1]}, {args[2]}, SELMODE::{mode}, this->len);"
    return f"{step.op}({', '.join(args)}, this->len);"


def _camel(name: str) -> str:
    return "".join(p.capitalize() for p in name.split("_"))
