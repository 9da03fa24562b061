"""DAG nodes of opbase's ``Vec::`` comparisons (issue 43): ``Vec::Compare`` into a mask and ``Vec::Select`` by it.

- ``Bind<Vec::Compare<uint8_t, T, mode>, a, b>``: a mask (one 0/1 per element in the program form,
  :data:`swishgrad_numba.program.isa.MASK_DTYPE`), ``a <mode> b``; ``mode`` is AscendC's ``CMPMODE`` by its
  value (asc-devkit ``kernel_utils_mode.h``, ``enum class CMPMODE``: LT 0, GT 1, EQ 2, LE 3, GE 4, NE 5; the
  DAGs name them so: ops-nn ``relu6_grad_dag.h`` ``CMP_MODE_LT = 0``, ``CMP_MODE_GT = 1``,
  ``relu_grad_dag.h`` ``COMPARE_MODE_LE = 3``). A scalar ``b`` (a constant or a ``Placeholder::Var``)
  is a CompareScalar.
- ``Bind<Vec::Select<uint8_t, T, mode>, mask, a, b>``: ``a`` where the mask is set, else ``b``
  (``relu_grad_dag.h``: ``Select(x <= 0, zero, one)`` is "features > 0"); ``mode`` is ``SELMODE`` by its value
  (``kernel_utils_mode.h``: VSEL_CMPMASK_SPR 0, VSEL_TENSOR_SCALAR_MODE 1, VSEL_TENSOR_TENSOR_MODE 2); mode 1
  takes a scalar ``b``, mode 0 (a mask register left by an earlier instruction) is refused.

Both are recorded in the program form's order, as the A2 basic API's (:mod:`.compare`): ``Compare(mask, a,
b, mode)``, ``Select(dst, a, b, mask)`` (``Selects`` with a scalar ``b``).
"""
from __future__ import annotations

from .description import Step
from .machine import refuse
from .objects import Event
from .values import CNum, TypeVal

__all__ = ["vec_compare", "vec_copy", "vec_mask_op"]

_CMP = ("LT", "GT", "EQ", "LE", "GE", "NE")
_SEL_TENSOR_SCALAR, _SEL_TENSOR_TENSOR = 1, 2


def vec_compare(machine, alias, name, kind, targs, args):
    """Record the DAG node ``alias`` (result key ``name``), ``Vec::<kind><targs>`` of ``args``; its key."""
    if len(targs) != 3 or not isinstance(targs[0], TypeVal) or targs[0].cname != "uint8_t" \
            or not isinstance(targs[2], CNum):
        refuse(alias, f"Vec::{kind} with {len(targs)} template arguments",
               f"the reader knows Vec::{kind}<uint8_t, T, mode> (a uint8_t mask, a constant mode)")
    mode = targs[2].value
    tensor = [isinstance(a, str) for a in args]
    if kind == "Compare":
        if len(args) != 2 or not tensor[0]:
            refuse(alias, f"Vec::Compare of {len(args)} inputs", "a Compare takes a tensor and a tensor or scalar")
        if mode not in range(len(_CMP)):
            refuse(alias, f"Vec::Compare mode {mode}", f"not an AscendC CMPMODE value ({', '.join(_CMP)}: 0-5)")
        machine.dtypes[name], machine.names[name] = "uint8", name
        op = "Compare" if tensor[1] else "CompareScalar"
        machine.events.append(Event("step", Step(op, (name, args[0], args[1], _CMP[mode]), alias.at)))
        return name
    if len(args) != 3 or not tensor[0] or not (tensor[1] or tensor[2]):
        refuse(alias, f"Vec::Select of {len(args)} inputs", "a Select takes a mask, a tensor and a tensor or "
               "scalar (either source the scalar)")
    if machine.dtypes.get(args[0]) != "uint8":
        refuse(alias, f"Vec::Select by {machine.names.get(args[0], args[0])}", "its mask is not a Vec::Compare's")
    if not tensor[1] and mode == _SEL_TENSOR_SCALAR:
        # a scalar first source (opbase vec.h's Select(dst, mask, T src0Scalar, src1Local), AscendC's "one of
        # src0/src1 should be scalar": a set bit picks src0): mask ? scalar : tensor, the same bits as
        # Selects(tensor, scalar) by the mask's Not
        machine._tensor_key(alias, name, targs[1])
        flipped = f"{name}_not_mask"
        machine.dtypes[flipped], machine.names[flipped] = "uint8", flipped
        machine.events.append(Event("step", Step("Not", (flipped, args[0]), alias.at)))
        machine.events.append(Event("step", Step("Selects", (name, args[2], args[1], flipped), alias.at)))
        return name
    if mode == _SEL_TENSOR_TENSOR and tensor[2] or mode == _SEL_TENSOR_SCALAR and not tensor[2]:
        machine._tensor_key(alias, name, targs[1])
        op = "Select" if tensor[2] else "Selects"
        machine.events.append(Event("step", Step(op, (name, args[1], args[2], args[0]), alias.at)))
        return name
    refuse(alias, f"Vec::Select mode {mode} with a {'tensor' if tensor[2] else 'scalar'} second source",
           "the reader knows VSEL_TENSOR_TENSOR_MODE (2) with a tensor and VSEL_TENSOR_SCALAR_MODE (1) with a scalar")


def vec_mask_op(machine, alias, name, kind, targs, args):
    """``Bind<Vec::And<uint8_t>, m1, m2>`` / ``Vec::Or``: two Compare masks combined (ops-nn ``relu6_grad_dag.h``
    ``MaskIn``, ``hardtanh_grad_dag.h`` ``OpMaskOr``), the program form's And / Or on masks
    (:data:`swishgrad_numba.program.isa.MASK_BIT_OPS`). On a tensor of numbers opbase's ``Vec::And`` acts on
    its bits; the form's And / Or on float32 bits is not reached from a DAG, and is refused here."""
    masks = len(args) == 2 and all(isinstance(a, str) and machine.dtypes.get(a) == "uint8" for a in args)
    if len(targs) != 1 or not isinstance(targs[0], TypeVal) or targs[0].cname != "uint8_t" or not masks:
        refuse(alias, f"Vec::{kind} of {len(args)} inputs", f"the reader knows Vec::{kind}<uint8_t> of two "
               "Vec::Compare masks")
    machine.dtypes[name], machine.names[name] = "uint8", name
    machine.events.append(Event("step", Step(kind, (name, args[0], args[1]), alias.at)))
    return name


def vec_copy(machine, alias, targs, args):
    """``Bind<Vec::Copy<T>, a>``: a copy of the tensor ``a`` (ops-nn ``softsign_dag.h`` ``OpSaveX``), the same
    values; a DAG's nodes are each written once, so the copy is ``a`` itself (no step)."""
    if len(args) != 1 or not isinstance(args[0], str) or len(targs) != 1 or not isinstance(targs[0], TypeVal) \
            or targs[0].dtype != machine.dtypes.get(args[0]):
        refuse(alias, f"Vec::Copy of {len(args)} inputs", "the reader knows Vec::Copy<T> of one tensor of type T")
    return args[0]


# ---------------------------------------------------------------- MicroAPI, inside a DAG node of the kernel's own

def micro_mask(machine, node, name):
    """``MicroAPI::MaskReg name``: a mask register, one 0/1 per element (a Compare's result) where a Compare
    writes it; a predicate (``UpdateMask``'s) is not a value of the program."""
    from .machine import Tensor

    key = f"{machine.micro['node']}/{name}"
    taken = set(machine.names.values())
    machine.names[key] = name if name not in taken else f"{name}_{machine.micro['node']}"
    machine.dtypes[key] = "uint8"
    return Tensor(key, "uint8")


def micro_compare(machine, node, fn, args):
    """``MicroAPI::Compare<T, CMPMODE::m>(dstMask, a, b, mask)`` and ``Compares`` (``b`` a scalar), as the
    A2's (``kernel_utils_mode.h`` CMPMODE; ops-nn ``p_relu_dag.h:59``:
    ``Compare<T, CMPMODE::GT>(cmpMask, vregInputX, vregInputZero, mask)``); ``MicroAPI::Select<T>(dst, a, b,
    cmpMask)``: ``a`` where the mask is set, else ``b`` (``p_relu_dag.h:60``, the PReLU's x where x > 0)."""
    from .abstract import Mode, Tensor

    ident = fn.last
    if ident == "Select":
        if len(args) != 4 or not all(isinstance(a, Tensor) for a in args):
            refuse(node, f"MicroAPI::Select with {len(args)} arguments", "the reader knows (dst, src0, src1, "
                   "maskReg) of registers")
        if args[3].dtype != "uint8":
            refuse(node, "MicroAPI::Select by a register that is not a MaskReg", "its mask is a Compare's")
        return machine.vector_call(node, "Select", args, trailing=(0,))
    targs = tuple(machine.type_or_value(a) for a in fn.targs or ())
    mode = targs[1] if len(targs) == 2 else None
    if not isinstance(mode, Mode) or mode.kind != "CMPMODE" or mode.name not in _CMP:
        refuse(node, f"MicroAPI::{ident} mode", f"not <T, CMPMODE::m> with m one of {', '.join(_CMP)}")
    if len(args) != 4 or not isinstance(args[0], Tensor) or args[0].dtype != "uint8":
        refuse(node, f"MicroAPI::{ident} with {len(args)} arguments", "the reader knows (dstMask, src0, src1, "
               "mask) into a MaskReg")
    op = "Compare" if ident == "Compare" else "CompareScalar"
    return machine.vector_call(node, op, [args[0], args[1], args[2], mode.name, args[3]], trailing=(1,))
