"""The host's tiling function, evaluated over its scalar subset (issue 43) for one launch.

The function ``SetTiling`` names in the op definition (``TilingFunc`` where none) is parsed with the
reader's parser and run by the reader's abstract interpreter (:class:`.machine.Machine`) on concrete
values: the inputs' shapes (``GetInputShape(i)`` / ``GetInputTensor(i)``, ``GetStorageShape`` /
``GetOriginShape``, ``GetShapeSize``, ``GetDimNum``, ``GetDim``), their dtypes (``GetInputDesc(i)->
GetDataType()``, as ``ge::DT_*`` numbers), the attributes (``GetAttrs()->GetAttrPointer<T>(i)``,
``GetFloat``, ``GetInt``, ``GetBool``) and the platform (``PlatformAscendC(...).GetCoreNumAiv()``,
``GetCoreNum()``, ``GetCoreMemSize(CoreMemType::UB, ubSize)``). It records ``SetBlockDim``,
``SetTilingKey``, ``tiling.set_<field>(...)`` (or ``p->field = ...`` on ``p = context->GetTilingData<S>()``)
and ``GetWorkspaceSizes(n)[i] = ...``. What it cannot follow
(a loop, a branch on a value it does not know, a call it does not know) is a KernelSourceError at its line
saying to pass ``tiling=``.
"""
from __future__ import annotations

from dataclasses import dataclass

from .abstract import Return_, Unknown
from .errors import KernelSourceError
from .machine import Machine
from .symbols import Symbols
from .syntax import Index, Member
from .values import CNum, render

__all__ = ["HostTilingResult", "evaluate", "GE_DTYPE_NUMBERS", "PASS_TILING"]

#: ``ge::DataType`` numbers of the dtypes the package runs (graph/types.h: DT_FLOAT 0, DT_FLOAT16 1,
#: DT_BF16 27).
GE_DTYPE_NUMBERS = {"float32": 0, "float16": 1, "bfloat16": 27}
#: ``ge::DataType`` by name (graph/types.h), for a host's comparisons of an input's dtype
GE_DATATYPES = {"DT_FLOAT": 0, "DT_FLOAT16": 1, "DT_INT8": 2, "DT_INT32": 3, "DT_UINT8": 4, "DT_INT16": 6,
                "DT_UINT16": 7, "DT_UINT32": 8, "DT_INT64": 9, "DT_UINT64": 10, "DT_DOUBLE": 11, "DT_BOOL": 12,
                "DT_BF16": 27}
#: bytes of an element by ``ge::DataType`` number (``ge::TypeUtils::GetDataTypeLength``)
DTYPE_BYTES = {0: 4, 1: 2, 27: 2}
_INT_BITS = {"uint8_t": (8, True), "int8_t": (8, False), "uint16_t": (16, True), "int16_t": (16, False),
             "uint32_t": (32, True), "int32_t": (32, False), "int": (32, False), "uint64_t": (64, True),
             "int64_t": (64, False), "bool": (1, True)}
PASS_TILING = "the host's tiling function is evaluated over its scalar subset only: pass tiling= (and block_dim=)"


@dataclass(frozen=True)
class HostTilingResult:
    """One launch's tiling as the host function made it: the struct's ``values`` (field -> number),
    ``block_dim`` (None where not set), ``tiling_key`` and ``workspace`` (bytes in all)."""

    values: dict
    block_dim: int | None
    tiling_key: int
    workspace: int


class _Obj:
    def __init__(self, kind, value=None):
        self.kind, self.value = kind, value


class _Fail(Exception):
    pass


class HostMachine(Machine):
    def __init__(self, symbols, shapes, dtypes, attrs, platform, struct, attr_names=()):
        super().__init__(symbols)
        self.attr_names = tuple(attr_names) + ("",) * (len(attrs) - len(attr_names))
        self.shapes, self.dtypes, self.attrs, self.platform = shapes, dtypes, attrs, platform
        self.struct, self.values, self.block_dim, self.key, self.workspace = struct, {}, None, 0, {}

    def _refuse(self, node, what):
        raise KernelSourceError(node.at[0], node.at[1], what, PASS_TILING)

    def call(self, node, fn, arg_nodes):
        ident = fn.last
        if ident in self.symbols.functions:
            self._refuse(node, f"call {ident}")
        if ident in ("OP_LOGD", "OP_LOGI", "OP_LOGW", "OP_LOGE", "OPS_LOG_D", "OPS_LOG_I"):
            return Unknown(ident)
        if ident == "PlatformAscendC":         # auto p = platform_ascendc::PlatformAscendC(...): the object
            return _Obj("platform")
        if ident == "GetDataTypeLength" and len(arg_nodes) == 2:      # ge::TypeUtils's (dtype, out length)
            dt = self.eval(arg_nodes[0])
            size = DTYPE_BYTES.get(dt.value) if isinstance(dt, CNum) else None
            if size is not None:
                self.assign(arg_nodes[1], CNum(size, "uint32_t"), node)
                return CNum(1, "bool")
        self._refuse(node, f"call {fn.text()}")

    def _eval_Name(self, node):
        """``ge::DT_FLOAT`` and the other ``ge::DataType`` names (graph/types.h), as GetDataType gives them."""
        if node.last in GE_DATATYPES and len(node.segs) <= 2 and (len(node.segs) == 1 or node.segs[0][0] == "ge"):
            return CNum(GE_DATATYPES[node.last], "int")
        return super()._eval_Name(node)

    def construct(self, node, tval, name, args):
        if tval.cname == self.struct:
            return _Obj("tiling")
        if tval.cname == "PlatformAscendC":
            return _Obj("platform")
        return Unknown(f"{tval.cname} {name}")

    def loop(self, stmt):
        self._refuse(stmt, "a loop in the host's tiling function")

    def runtime_branch(self, stmt):
        self._refuse(stmt, "a branch on a value the reader does not know")

    def assign(self, target, value, node):
        if isinstance(target, Member) and target.arrow and isinstance(value, CNum):
            obj = self.eval(target.obj)      # tiling->field = v through GetTilingData<T>() (issue 43)
            if isinstance(obj, _Obj) and obj.kind == "tiling":
                self._set(node, target.name, value.value)
                return
        if isinstance(target, Index):
            obj, i = self.eval(target.obj), self.eval(target.index)
            if isinstance(obj, _Obj) and obj.kind == "workspace" and isinstance(i, CNum) and isinstance(value, CNum):
                self.workspace[i.value] = value.value
                return
        super().assign(target, value, node)

    def _eval_Member(self, node):
        obj = self.eval(node.obj)
        if isinstance(obj, _Obj) and obj.kind == "tiling":        # a field the function set before
            if node.name not in self.values:
                self._refuse(node, f"{render(node)} read before it is set")
            return CNum(self.values[node.name], self._field_types().get(node.name, "int64_t"))
        return super()._eval_Member(node)

    def _field_types(self):
        cls = self.symbols.classes.get(self.struct)
        return {n: d.type.name.last for d in (cls.fields if cls else ()) for n, _, _ in d.names}

    def _eval_Index(self, node):
        obj = self.eval(node.obj)
        if isinstance(obj, _Obj) and obj.kind == "workspace":
            return CNum(self.workspace.get(self.eval(node.index).value, 0), "uint64_t")
        self._refuse(node, "indexing")

    def _set(self, node, name, value):
        ctypes = self._field_types()
        if name not in ctypes:
            raise KernelSourceError(node.at[0], node.at[1], f"tiling.set_{name}", f"{self.struct} has no field {name}")
        bits = _INT_BITS.get(ctypes[name])
        if bits is not None:
            lo, hi = (0, 2 ** bits[0] - 1) if bits[1] else (-2 ** (bits[0] - 1), 2 ** (bits[0] - 1) - 1)
            if not lo <= value <= hi:
                raise KernelSourceError(node.at[0], node.at[1], f"tiling.set_{name}({value})",
                                        f"the value does not fit its field's type {ctypes[name]}")
        self.values[name] = value

    def call_method(self, node, obj, name, targs, args):
        nums = [a.value if isinstance(a, CNum) else None for a in args]
        kind = obj.kind if isinstance(obj, _Obj) else None
        if kind == "tiling":
            if name.startswith("set_") and len(args) == 1 and nums[0] is not None:
                self._set(node, name[4:], nums[0])
                return None
            if name in ("SaveToBuffer", "GetDataSize", "SetDataSize"):
                return CNum(0, "uint64_t")
        elif kind == "context":
            if name in ("GetInputShape", "GetInputTensor") and nums and nums[0] in range(len(self.shapes)):
                return _Obj("shapes", self.shapes[nums[0]])
            if name == "GetInputDesc" and nums and nums[0] in range(len(self.dtypes)):
                return _Obj("desc", self.dtypes[nums[0]])
            if name == "GetAttrs":
                return _Obj("attrs")
            if name == "SetBlockDim" and nums and nums[0] is not None:
                self.block_dim = nums[0]
                return None
            if name == "SetTilingKey" and nums and nums[0] is not None:
                self.key = nums[0]
                return None
            if name == "GetWorkspaceSizes":
                return _Obj("workspace")
            if name == "GetTilingData" and targs and getattr(targs[0], "cname", None) == self.struct:
                return _Obj("tiling")          # the newer style: the struct by pointer (issue 43)
            if name in ("GetPlatformInfo", "GetRawTilingData", "GetNodeName"):
                return _Obj("opaque")
        elif kind == "opaque" and name in ("GetData", "GetCapacity", "SetDataSize"):
            return Unknown(name)
        elif kind == "shapes" and name in ("GetStorageShape", "GetOriginShape", "GetShape"):
            return _Obj("shape", obj.value)
        elif kind == "shapes" and name == "GetShapeSize":         # gert::Tensor's own (GetInputTensor(i))
            return self.call_method(node, _Obj("shape", obj.value), name, targs, args)
        elif kind == "shape":
            dims = obj.value
            if name == "GetShapeSize":
                size = 1
                for d in dims:
                    size *= d
                return CNum(size, "int64_t")
            if name == "GetDimNum":
                return CNum(len(dims), "uint64_t")
            if name == "GetDim" and nums and nums[0] in range(len(dims)):
                return CNum(dims[nums[0]], "int64_t")
        elif kind == "desc" and name == "GetDataType":
            return CNum(obj.value, "int")
        elif kind == "attrs" and name in ("GetAttrPointer", "GetFloat", "GetInt", "GetBool") and nums and \
                nums[0] in range(len(self.attrs)):
            if self.attrs[nums[0]] is None:
                raise KernelSourceError(node.at[0], node.at[1], f"attribute {nums[0]} ({self.attr_names[nums[0]]})",
                                        "not given, and the op definition gives it no default the reader "
                                        "evaluates: pass it")
            value, ctype = self.attrs[nums[0]]
            return CNum(value, ctype)
        elif kind == "platform":
            if name in ("GetCoreNumAiv", "GetCoreNum"):
                return CNum(self.platform.core_num, "uint32_t")
            if name == "GetCoreMemSize" and len(node.args) == 2:
                self.assign(node.args[1], CNum(self.platform.ub_size, "uint64_t"), node)
                return None
        self._refuse(node, f"call .{name}")


def evaluate(fn, symbols: Symbols, struct: str, shapes, dtypes, attrs, platform, attr_names=()) -> HostTilingResult:
    """Run the tiling function ``fn`` for one launch: ``shapes`` the inputs' (tuples), ``dtypes`` their
    ``ge::DataType`` numbers, ``attrs`` per attribute index (value, C type) or None (not given)."""
    m = HostMachine(symbols, shapes, dtypes, attrs, platform, struct, attr_names)
    m.scopes.append({p.name: _Obj("context") for p in fn.params})
    try:
        m.run(fn.body)
    except Return_:
        pass
    total = sum(int(v) for v in m.workspace.values())
    return HostTilingResult(dict(m.values), m.block_dim, int(m.key), total)
