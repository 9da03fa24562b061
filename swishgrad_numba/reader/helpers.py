"""The kernel's own helper functions as the class style reads them (issue 43): a method a base class
defines (``InitBlockGm`` of a CRTP base), a call qualified by a base's name
(``GeluQuantBase::ParseTilingData(...)``, ``Base<Derived, T>::Init(...)``), each inlined as the reader
inlines ``Init``, ``Process`` and ``Compute``; class-scope constants, the struct ``REGISTER_TILING_DEFAULT``
names wherever it stands, a nested tiling field; and the names a kernel takes from outside its folder:
``std::numeric_limits``, ops-nn's ``platform::GetVRegSize()`` / ``GetUbBlockSize()``, AscendC's
``DEFAULT_DATA_COPY_STRIDE`` and a few other library constants."""
from __future__ import annotations

import numpy as np

from ..platform import REFERENCE_PLATFORM
from .abstract import TilingField, Unknown, refuse
from .values import CNum, INT_TYPES
from .syntax import Call, ExprStmt, Name

__all__ = ["LIBRARY_CONSTANTS", "PLATFORM_QUERIES", "library_constant", "base_chain", "class_scope", "qualified_method",
           "nested_field", "registered_struct", "numeric_limit"]

#: How deep a class's bases are followed (a cycle in the sources ends there).
_MAX_BASES = 16


def base_chain(symbols, cls, target: str, depth=0):
    """The classes from ``cls`` down to its base named ``target`` (``cls`` included), or None."""
    if cls.name == target:
        return [cls]
    if depth >= _MAX_BASES:
        return None
    for base in cls.bases:
        name = base.name.last
        if name in symbols.classes:
            chain = base_chain(symbols, symbols.classes[name], target, depth + 1)
            if chain is not None:
                return [cls] + chain
    return None


def qualified_method(machine, node, fn, args):
    """``Base::Method(args)`` called on ``this``: ``Base`` must be ``this``'s class or one of its bases."""
    owner = fn.segs[-2][0]
    this = machine.this
    if this is None or base_chain(machine.symbols, this.cls, owner) is None:
        where = f"class {this.cls.name}" if this is not None else "a free function"
        refuse(node, f"call {fn.text()}", f"{owner} is not {where} nor a base of it")
    method = machine.symbols.method(machine.symbols.classes[owner], fn.last, node.at)
    return machine.invoke(node, method, this, args, this.env)


def nested_field(obj, name):
    """``tilingData.baseTiling.blockNum``: a field of a struct-typed field of the tiling struct, a run-time
    value (a branch on it is followed both ways, a guard such as ``if (... == 0) return;`` read as one);
    None where ``obj`` is not such a field. A float in it is no attribute: used as a scalar, it is refused."""
    if isinstance(obj, TilingField):
        return Unknown(f"{obj.name}.{name}")
    return None


def registered_struct(body):
    """The struct ``REGISTER_TILING_DEFAULT(S)`` names among the entry's statements wherever it stands (the
    build reads it before the body: ``GET_TILING_DATA`` above it gives that struct too), or None."""
    for stmt in getattr(body, "stmts", ()):
        x = stmt.x if isinstance(stmt, ExprStmt) else None
        if isinstance(x, Call) and isinstance(x.fn, Name) and x.fn.last == "REGISTER_TILING_DEFAULT" \
                and len(x.args) == 1 and isinstance(x.args[0], Name):
            return x.args[0].last, x.at
    return None


def class_scope(cls) -> list:
    """A class's aliases and its ``static constexpr`` / ``static const`` constants with an initialiser, in
    source order (issue 43: ``static constexpr int NEED_UPCAST = ...; using COMPUTE_T =
    std::conditional<NEED_UPCAST == 1, float, T>::type;``): each is in scope for the ones after it."""
    consts = [d for d in cls.fields if "static" in d.type.quals and
              ("constexpr" in d.type.quals or "const" in d.type.quals) and all(i is not None for _, i, _ in d.names)]
    return sorted(list(cls.aliases) + consts, key=lambda item: tuple(item.at[1:2]))


_F32 = np.finfo(np.float32)
_F64 = np.finfo(np.float64)
#: ``std::numeric_limits<T>::name()`` of the float types, C++17's values (<limits>); a NaN is no constant the
#: program form writes, so ``quiet_NaN`` and ``signaling_NaN`` stay refused.
_FLOAT_LIMITS = {
    "float": {"infinity": np.inf, "max": float(_F32.max), "lowest": -float(_F32.max),
              "min": float(_F32.smallest_normal), "epsilon": float(_F32.eps), "denorm_min": 2.0 ** -149},
    "double": {"infinity": np.inf, "max": float(_F64.max), "lowest": -float(_F64.max),
               "min": float(_F64.smallest_normal), "epsilon": float(_F64.eps), "denorm_min": 2.0 ** -1074},
}


def numeric_limit(machine, node, fn):
    """``std::numeric_limits<T>::infinity()`` and the other limits of a float or integer type ``T``, a
    compile-time number of type ``T`` (issue 43: the 950 SoftplusV2 Duplicates an infinity)."""
    targs = fn.segs[-2][1] or ()
    what = fn.last
    if len(targs) != 1:
        refuse(node, f"std::numeric_limits::{what}", "expected one type argument")
    cname = machine.type_of(targs[0]).cname
    if cname in _FLOAT_LIMITS and what in _FLOAT_LIMITS[cname]:
        return CNum(float(_FLOAT_LIMITS[cname][what]), cname)
    if cname in INT_TYPES and what in ("max", "min", "lowest"):
        bits, unsigned = INT_TYPES[cname]
        low, high = (0, (1 << bits) - 1) if unsigned else (-(1 << (bits - 1)), (1 << (bits - 1)) - 1)
        return CNum(high if what == "max" else low, cname)
    refuse(node, f"std::numeric_limits<{cname}>::{what}", "a limit the reader does not know (float and double: "
           f"{', '.join(_FLOAT_LIMITS['float'])}; the integer types: max, min, lowest)")


#: ops-nn's kernel-side platform queries (``common/inc/op_kernel/platform.h``, namespace ``platform``, lines 46-58,
#: outside a kernel's folder; opbase spells them ``Ops::Base::``): ``GetUbBlockSize()`` the UB block, 32 bytes
#: (the Platform's ``block_size``, the same on the A2 and the 950); ``GetVRegSize()`` 256 bytes on the A2 and,
#: as asc-devkit's ``VECTOR_REG_WIDTH`` (``impl/basic_api/utils/kernel_utils_constants.h:118``), on the 950.
#: AscendC's ``GetVecLen()`` (asc-devkit ``include/basic_api/kernel_operator_sys_var_intf.h`` at 7932167: a
#: ``constexpr`` that returns ``VECTOR_REG_WIDTH`` where ``__NPU_ARCH__`` is 3510, the 950's, and 0 on the A2) is
#: 256: the register kernels that call it are the 950's (arch35). A kernel's own function of the name is called
#: instead.
VECTOR_REG_WIDTH = 256          # bytes: the vector register, as cited above (the reader's one copy of it)
PLATFORM_QUERIES = {"GetUbBlockSize": CNum(REFERENCE_PLATFORM.block_size, "uint32_t"),
                    "GetVRegSize": CNum(VECTOR_REG_WIDTH, "uint32_t"), "GetVecLen": CNum(VECTOR_REG_WIDTH, "uint32_t")}

#: AscendC's constants a kernel uses without defining (asc-devkit ``impl/basic_api/utils/kernel_utils_constants.h``
#: at 0da921b9, by line): each with its C type.
LIBRARY_CONSTANTS = {"DEFAULT_BLK_NUM": CNum(8, "int32_t"),              # line 28
                     "DEFAULT_BLK_STRIDE": CNum(1, "int32_t"),           # 32
                     "DEFAULT_REPEAT_STRIDE": CNum(8, "uint8_t"),        # 33
                     "ONE_BLK_SIZE": CNum(32, "uint16_t"),               # 197
                     "DEFAULT_DATA_COPY_STRIDE": CNum(0, "uint8_t"),     # 226
                     "ONE_REPEAT_BYTE_SIZE": CNum(256, "int32_t")}       # 243


def library_constant(machine, node):
    """``DEFAULT_DATA_COPY_STRIDE`` (or ``AscendC::...``) where the kernel's own scopes, members and constants
    do not name it: AscendC's value (:data:`LIBRARY_CONSTANTS`); None otherwise."""
    name = node.last
    if name not in LIBRARY_CONSTANTS or node.targs is not None or len(node.segs) > 2 or \
            len(node.segs) == 2 and node.segs[0][0] != "AscendC" or name in machine.symbols.constants:
        return None
    try:
        machine.lookup(name)
        return None
    except KeyError:
        pass
    if machine.this is not None and name in machine.this.members:
        return None
    return LIBRARY_CONSTANTS[name]
