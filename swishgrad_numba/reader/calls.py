"""Free calls in class-style code: the tiling macros, DataCopy between GM and local
tensors, the vector instructions, and calls of the kernel's own functions."""
from __future__ import annotations

import re

from .description import AttrRef, ScalarProduct, Step
from .launch_scalars import LaunchScalar
from .instructions import IGNORED_CALLS, SPELLINGS, VECTOR_CALLS
from .helpers import PLATFORM_QUERIES, library_constant, nested_field, numeric_limit, qualified_method
from .divs import divs
from .lambdas import Closure, call_closure, closure
from .leaky_relu import leaky_relu
from .function_specs import pick_function
from .tiling_arrays import TilingArray, array_ctype, array_element, split_ctype
from .scalar_lib import is_scalar_helper, scalar_helper
from . import local_copy
from .level0 import is_level0, level0_call
from .mathlib import EXPANDED, NOT_EXPANDED, expand
from .abstract import TilingField
from .byte_views import byte_index
from .compare import compare_call
from .mask_words import WORD_OPS, word_call
from .constant_tile import covers_the_tile, note_copy
from . import copy_tiling
from .machine import Mode, Symbolic, Tensor, Unknown, refuse
from .objects import Event, GlobalT, GlobalView, Pipe, TilingVal
from .errors import KernelSourceError
from .syntax import Member, Name
from .values import CNum, TypeVal, as_constant, render

__all__ = ["CallsMixin"]

_TILING_MACROS = ("GET_TILING_DATA_WITH_STRUCT", "GET_TILING_DATA", "GET_TILING_DATA_PTR_WITH_STRUCT")


class CallsMixin:
    def call(self, node, fn, arg_nodes):
        ident = fn.last
        if len(fn.segs) == 1 and fn.targs is None and isinstance(self.local(ident), Closure):    # issue 43
            return call_closure(self, node, self.local(ident), [self.eval(a) for a in arg_nodes])
        if ident in ("SetMaskCount", "SetMaskNorm"):       # the mask mode a level-0 call runs in (.level0)
            self.mask_counter = ident == "SetMaskCount"
        if ident in IGNORED_CALLS:
            if ident == "REGISTER_TILING_DEFAULT":
                self.tiling_struct = arg_nodes[0].last if isinstance(arg_nodes[0], Name) else None
                self.tiling_struct_at = node.at
            if ident == "REGISTER_TILING_FOR_TILINGKEY":     # (condition, struct): a struct per tiling key
                named = arg_nodes[-1].last if arg_nodes and isinstance(arg_nodes[-1], Name) else None
                self.__dict__.setdefault("keyed_structs", {})[named] = node.at
            return Unknown(ident)
        if ident == "GetTPipePtr" and not arg_nodes:        # the kernel's one TPipe (issue 43)
            return Pipe()
        if ident in ("GetBlockIdx", "GetBlockNum", "GetSubBlockIdx", "GetTaskRation"):
            return Unknown(ident)
        if ident == "TILING_KEY_IS":        # the host's tiling key: each key is a variant
            key = self.eval(arg_nodes[0])
            return Symbolic(f"tilingKey == {key.value}" if isinstance(key, CNum) else render(node))
        if ident in _TILING_MACROS:
            return self.tiling_data(node, ident, arg_nodes)
        args = [self.eval(a) for a in arg_nodes]
        if ident == "ToFloat" and len(args) == 1:          # AscendC's scalar widening to float (issue 43)
            return self.cast(node, TypeVal("float"), args[0])
        if ident in ("DataCopy", "DataCopyPad"):
            return self.data_copy(node, args)
        if ident in ("Compare", "CompareScalar", "Compares", "Select") and len(fn.segs) <= 2:
            return compare_call(self, node, ident, args)
        if ident == "LeakyRelu" and len(fn.segs) <= 2:         # the basic API's vlrelu (issue 43, .leaky_relu)
            return leaky_relu(self, node, args)
        if ident == "Divs" and len(fn.segs) <= 2:              # Duplicate then Div (issue 43, .divs)
            return divs(self, node, args)
        if len(fn.segs) == 1 and self.this is not None and _has_method(self.symbols, self.this.cls, ident):
            # a member hides AscendC's function of its name (the class's own Min(a, b): C++ class scope first)
            method = self.symbols.method(self.this.cls, ident, node.at, self.this.env)
            return self.invoke(node, method, self.this, args, self.this.env)
        if ident in WORD_OPS and len(fn.segs) <= 2:            # a mask's 16-bit words (issue 43, .mask_words)
            args = word_call(node, ident, args) or args
        if ident in VECTOR_CALLS and len(fn.segs) <= 2 and is_level0(ident, VECTOR_CALLS[ident], args):
            return level0_call(self, node, ident, VECTOR_CALLS[ident], args)
        if ident in VECTOR_CALLS and len(fn.segs) <= 2:
            return self.vector_call(node, ident, args, trailing=(1,), counted=True)
        if len(fn.segs) >= 2 and fn.segs[-2][0] == "numeric_limits" and not arg_nodes:
            return numeric_limit(self, node, fn)                  # std::numeric_limits<float>::infinity()
        if len(fn.segs) >= 2 and fn.segs[-2][0] in self.symbols.classes and self.this is not None:
            return qualified_method(self, node, fn, args)       # Base::Init(...) on this (issue 43)
        if ident in self.symbols.functions and copy_tiling.copied_struct(self.symbols, self.symbols.functions[ident]):
            return copy_tiling.bind(self, node, copy_tiling.copied_struct(self.symbols, self.symbols.functions[ident]),
                                    arg_nodes)                     # the samples' CopyTiling (.copy_tiling)
        if ident in self.symbols.functions or ident in self.symbols.function_specs:
            f, env = pick_function(self, node, fn)             # template <> f<X>: its own (.function_specs)
            return self.invoke(node, f, None, args, env)
        if is_scalar_helper(fn, args):                       # CeilDivision, AlignUp, std::min (.scalar_lib)
            return scalar_helper(node, ident, args)
        if ident in PLATFORM_QUERIES and not arg_nodes:       # platform::GetVRegSize() (issue 43, .helpers)
            return PLATFORM_QUERIES[ident]
        if ident in EXPANDED or ident in NOT_EXPANDED:       # AscendC's math library
            return expand(self, node, ident, args, fn.targs)
        refuse(node, f"unknown call {fn.text()}")

    def local(self, name):
        """What a name is bound to in the scopes (None where it is bound to nothing)."""
        try:
            return self.lookup(name)
        except KeyError:
            return None

    def _eval_Lambda(self, node):
        return closure(self, node)

    def tiling_data(self, node, macro, arg_nodes):
        names = 1 if macro == "GET_TILING_DATA" else 2          # (struct,) variable, then the tiling address
        if len(arg_nodes) != names + 1 or not all(isinstance(a, Name) for a in arg_nodes[:names]):
            refuse(node, f"{macro}({', '.join(render(a) for a in arg_nodes)})",
                   "expected (struct, variable, tiling), or (variable, tiling) for GET_TILING_DATA")
        struct = arg_nodes[0].last if macro != "GET_TILING_DATA" else self.tiling_struct
        keyed = [k for k in getattr(self, "keyed_structs", {}) if k != struct]
        if macro == "GET_TILING_DATA" and keyed:
            refuse(node, f"GET_TILING_DATA under REGISTER_TILING_FOR_TILINGKEY of {keyed[0]}", "which struct a "
                   "tiling key gives is not read: name it (GET_TILING_DATA_WITH_STRUCT)")
        self.scopes[-1][arg_nodes[1 if macro != "GET_TILING_DATA" else 0].last] = self.tiling_value(struct, node.at)
        return None

    def tiling_value(self, struct, at):
        """The tiling struct ``struct`` as the kernel reads it (its fields the record's), named the
        kernel's tiling struct from ``at`` on."""
        if struct != self.tiling_struct or self.tiling_struct_at is None:
            self.tiling_struct_at = at
        self.tiling_struct = struct
        cls = self.symbols.classes.get(struct)
        value = TilingVal(cls, name=struct or "")
        for decl in (cls.fields if cls else ()):
            for k, (name, _, _) in enumerate(decl.names):
                floats = decl.type.name.last in ("float", "double") and not decl.type.ptr
                value.members[name] = AttrRef(name) if floats else TilingField(name)
                if decl.dims and decl.dims[k]:          # an array field (.tiling_arrays)
                    base, count = split_ctype(array_ctype(self.symbols, decl, k))
                    value.members[name] = TilingArray(name, count, base)
        return value

    def data_copy(self, node, args):
        dst, src = (GlobalView(a) if isinstance(a, GlobalT) else a for a in args[:2])   # xGm: xGm[0] (issue 43)
        if isinstance(dst, Tensor) and isinstance(src, GlobalView):
            self.events.append(Event("load", key=dst.key, gm=self._gm(node, src)))
            self.__dict__.setdefault("load_lines", {}).setdefault(dst.key, set()).add(tuple(node.at))  # .split_loads
            note_copy(self, node, True, args[2] if len(args) > 2 else None)
        elif isinstance(dst, GlobalView) and isinstance(src, Tensor):
            self.events.append(Event("store", key=src.key, gm=self._gm(node, dst)))
            note_copy(self, node, False, args[2] if len(args) > 2 else None)
        elif isinstance(dst, Tensor) and isinstance(src, Tensor) and node.fn.last == "DataCopy":
            local_copy.record(self, node, dst, src, args[2] if len(args) > 2 else None)   # issue 43
        else:
            refuse(node, "DataCopy", "only GM -> local, local -> GM and local -> local copies are read")
        return None

    def _gm(self, node, view):
        if view.glob.gm is None:
            refuse(node, f"GlobalTensor {view.glob.name}", "never bound to a GM_ADDR by SetGlobalBuffer")
        return view.glob.gm

    def _eval_Name(self, node):
        known = library_constant(self, node)          # AscendC's DEFAULT_DATA_COPY_STRIDE, ... (issue 43)
        return known if known is not None else super()._eval_Name(node)

    def _eval_Member(self, node):
        try:
            return super()._eval_Member(node)
        except KernelSourceError:
            if not isinstance(node.obj, (Name, Member)):      # evaluated again below: names only, no calls
                raise
            nested = nested_field(self.eval(node.obj), node.name)   # tilingData.baseTiling.blockNum (issue 43)
            if nested is None:
                raise
            return nested

    def _eval_Index(self, node):
        obj = self.eval(node.obj)
        if isinstance(obj, GlobalT):
            return GlobalView(obj)
        if isinstance(obj, tuple):            # an array read from its initialiser
            return self.element(node, obj)
        if isinstance(obj, TilingArray):      # t->dims[i]: known at launch (.tiling_arrays)
            return array_element(self, node, obj, self.eval(node.index))
        if isinstance(obj, Tensor) and obj.key in getattr(self, "byte_views", {}):    # issue 43: .byte_views
            return byte_index(self, node, obj, self.eval(node.index))
        if isinstance(obj, Tensor) and obj.key not in getattr(self, "views", {}):
            return self.view(node, obj, self.eval(node.index))
        refuse(node, f"a local tensor at an offset ({render(node)})", "the program form reads whole tensors "
               "(an offset into a buffer's own part is read: not one into a part)")

    def view(self, node, obj, offset):
        """``buf[offset]``: the part of a local buffer from element ``offset``, a tensor of its own (issue 43;
        at 0 the buffer itself). The schedule checks that the parts a core uses do not overlap."""
        if isinstance(offset, CNum) and offset.value == 0:
            return obj
        key = f"{obj.key}_at_{re.sub(r'[^0-9A-Za-z]+', '_', render(node.index)).strip('_')}"
        self.__dict__.setdefault("views", {})[key] = (obj.key, node)
        self.dtypes.setdefault(key, obj.dtype)
        return Tensor(key, obj.dtype)

    def vector_call(self, node, op, args, trailing, counted=False):
        """Record one vector call; ``trailing`` operands (count or mask) close it. ``counted``:
        the last is the element count, which must be the tile's length, not a constant."""
        kinds = VECTOR_CALLS[op]
        if len(args) - len(kinds) not in trailing:
            refuse(node, f"{op} with {len(args)} arguments",
                   f"the reader knows {op} with operands {kinds!r} and {' or '.join(map(str, trailing))} more")
        if counted and isinstance(args[-1], CNum) and not covers_the_tile(self, args[-1]):
            refuse(node, f"{op} over {args[-1].value} elements", "a constant count covers part of a tile")
        operands = []
        for arg, kind in zip(args, kinds):
            operands.append(self.operand(node, op, arg, kind))
        self.events.append(Event("step", Step(SPELLINGS.get(op, op), tuple(operands), node.at)))
        return None

    def operand(self, node, op, arg, kind):
        if kind in "dDs":
            if not isinstance(arg, Tensor):
                refuse(node, f"{op} operand {arg!r}", "not a local tensor")
            return arg.key
        if kind == "k":
            if isinstance(arg, (AttrRef, ScalarProduct, LaunchScalar)):
                return arg
            if isinstance(arg, CNum):
                return as_constant(arg)
            refuse(node, f"{op} scalar {render(node)}", "neither a constant nor a float tiling field")
        if kind == "c":               # a CMPMODE, checked by .compare
            return arg
        if not isinstance(arg, Mode) or arg.kind != "RoundMode":
            refuse(node, f"{op} round mode", "not an AscendC::RoundMode")
        return arg.name


def _has_method(symbols, cls, name, depth=0) -> bool:
    """Whether ``cls`` or a base of it in the sources has a method ``name`` (issue 43: a helper such as
    ``InitBlockGm`` a CRTP base defines and its derived class's ``Init`` calls)."""
    if any(m.name.last == name for m in cls.methods) or (cls.name, name) in symbols.methods:
        return True
    return depth < 16 and any(_has_method(symbols, symbols.classes[b.name.last], name, depth + 1)
                              for b in cls.bases if b.name.last in symbols.classes)
