"""A DAG node of the kernel's own: a struct whose constructor runs a straight-line
MicroAPI loop over vector registers.

The constructor's first ``LocalTensor&`` is the node's result, the next ones its
tensor inputs, its float parameters its scalars. A register loaded from an
input (``LoadAlign``/``DataCopy`` from ``src.GetPhyAddr()``) *is* that input, so
a node that writes it must be the input's last reader. The register stored to
the result is the node's result. The one loop (over vector lengths) is read
once; a register set before it must not be written in it.
"""
from __future__ import annotations

from dataclasses import dataclass

from .dag_ops import micro_compare, micro_mask
from .erf_inline import micro_erf
from .helpers import VECTOR_REG_WIDTH
from .description import Step
from .instructions import COMPARE_OPS, STEP_KINDS, VECTOR_CALLS
from .machine import Mode, Return_, Tensor, Unknown, refuse
from .objects import Event
from .values import CNum, TypeVal

__all__ = ["MicroMixin"]

_LOADS = ("LoadAlign", "LoadUnAlign", "DataCopy")
_STORES = ("StoreAlign", "StoreUnAlign", "DataCopy")
_RUNTIME = ("UpdateMask", "CreateMask", "CeilDivision", "CeilDiv", "GetVecLen")
#: library constants the MicroAPI loops use
_LIBRARY = {"VECTOR_REG_WIDTH": CNum(VECTOR_REG_WIDTH, "int")}


@dataclass(frozen=True)
class Addr:
    """``t.GetPhyAddr()``, and that address plus any offset."""
    key: str


class MicroMixin:
    micro = None

    def custom_node(self, alias, cls, targs, args):
        ctor = next((m for m in cls.methods if m.name.last == cls.name and m.body is not None), None)
        if ctor is None:
            refuse(alias, f"DAG node {cls.name}", "no constructor body")
        env = {tp.name: targs[i] for i, tp in enumerate(cls.tparams) if i < len(targs)}
        tensors = [p for p in ctor.params if p.type.name.last == "LocalTensor"]
        if not tensors:
            return self._scalar_node(alias, cls, ctor, env, args)
        others = [p for p in ctor.params if p.type.name.last != "LocalTensor"]
        tensor_args = [a for a in args if isinstance(a, str)]
        scalar_args = [a for a in args if not isinstance(a, str)]
        if len(tensors) - 1 != len(tensor_args) or len(scalar_args) > len(others):
            refuse(alias, f"DAG node {cls.name}", f"{len(args)} inputs for its constructor's parameters")
        bind = {tensors[0].name: Tensor(f"{alias.name}/{tensors[0].name}", "")}
        bind.update({p.name: Tensor(k, self.dtypes[k]) for p, k in zip(tensors[1:], tensor_args)})
        bind.update({p.name: a for p, a in zip(others, scalar_args)})
        bind.update({p.name: Unknown(p.name) for p in others[len(scalar_args):]})
        self.micro = {"node": alias.name, "alias": {}, "result": None, "start": len(self.events),
                      "loop": None, "inputs": set(tensor_args), "dst": bind[tensors[0].name].key}
        self._run_constructor(cls, ctor, env, bind)
        micro, self.micro = self.micro, None
        if micro["result"] is None:
            refuse(alias, f"DAG node {cls.name}", f"nothing stored to its result for {targs}")
        self._check_clobber(alias, micro)
        return micro["result"]

    def _run_constructor(self, cls, ctor, env, bind) -> None:
        """Run a DAG node's constructor body: the library's names, its template arguments ``env`` and its
        parameters ``bind`` in scope (``bind`` sees the body's assignments to them)."""
        saved = (self.scopes, self.this)
        self.scopes, self.this = [self.scopes[0], dict(_LIBRARY), env, bind], None
        self.methods.append(cls.name)
        try:
            self.run(ctor.body)
        except Return_:
            pass
        finally:
            self.methods.pop()
            self.scopes, self.this = saved

    def _scalar_node(self, alias, cls, ctor, env, args):
        """A node of scalars (an ``ElemwiseUnaryOP`` whose constructor is ``(U& dst, T& scalar, int count)``, ops-nn
        threshold_v2's ``ToFloatScalar``: ``dst = ToFloat(scalar);``): its body run on the scalar input, the value
        it leaves in ``dst`` its result."""
        if len(args) != 1 or isinstance(args[0], str) or len(ctor.params) < 2:
            refuse(alias, f"DAG node {cls.name}", f"a node of scalars takes one scalar input, got {len(args)}")
        dst, src = ctor.params[0].name, ctor.params[1].name
        bind = {dst: None, src: args[0]}
        bind.update({p.name: Unknown(p.name) for p in ctor.params[2:]})
        self._run_constructor(cls, ctor, env, bind)
        if bind[dst] is None or isinstance(bind[dst], (Tensor, Unknown)):
            refuse(alias, f"DAG node {cls.name}", f"no scalar assigned to its result {dst}")
        return bind[dst]

    def _check_clobber(self, alias, micro):
        """A node that writes a register loaded from an input must be that input's last reader."""
        written = {e.step.args[0] for e in self.events[micro["start"]:] if e.kind == "step"}
        clobbered = written & micro["inputs"]
        for key in clobbered:
            self.dag.clobbered[key] = (alias, len(self.events))

    def check_clobbered(self):
        """Refuse a node that wrote an input another node reads after it."""
        for key, (alias, end) in self.dag.clobbered.items():
            for e in self.events[end:]:
                reads = e.key == key if e.kind == "store" else e.kind == "step" and key in [
                    a for a, k in zip(e.step.args, STEP_KINDS[e.step.op]) if k in "sD"]
                if reads:
                    refuse(alias, f"DAG node {alias.name} writing its input {key}",
                           "a later node reads that input")

    # ------------------------------------------------------------ hooks
    def construct(self, node, tval, name, args):
        if self.micro is not None and tval.cname == "RegTensor":
            key = f"{self.micro['node']}/{name}"
            dtype = tval.args[0].dtype if tval.args and isinstance(tval.args[0], TypeVal) else None
            if dtype is None:
                refuse(node, f"register {name}", "not float, half or bfloat16_t")
            taken = set(self.names.values())
            self.names[key] = name if name not in taken else f"{name}_{self.micro['node']}"
            self.dtypes[key] = dtype
            return Tensor(key, dtype)
        if self.micro is not None and tval.cname == "MaskReg":
            return micro_mask(self, node, name)
        return super().construct(node, tval, name, args)

    def loop(self, stmt):
        if self.micro is None:
            return super().loop(stmt)
        if self.micro["loop"] is not None or self.micro.get("in_loop"):
            refuse(stmt, "a second loop in a DAG node", "one loop over the vector lengths is read")
        before = {e.step.args[0] for e in self.events[self.micro["start"]:] if e.kind == "step"}
        self.scopes.append({})
        if getattr(stmt, "init", None) is not None:      # a for loop's; a while loop has none
            self.run(stmt.init)
        self.micro["in_loop"], start = True, len(self.events)
        self.run(stmt.body)
        self.micro["in_loop"], self.micro["loop"] = False, start
        self.scopes.pop()
        for e in self.events[start:]:
            if e.kind == "step" and e.step.args[0] in before:
                refuse(e.step, f"{e.step.op} into {self.names.get(e.step.args[0])}",
                       "a register set before the loop is written in it")

    def call_method(self, node, obj, name, targs, args):
        if self.micro is not None and isinstance(obj, Tensor) and name == "GetPhyAddr":
            return Addr(obj.key)
        return super().call_method(node, obj, name, targs, args)

    def cast(self, node, tval, value, ptr=""):
        if isinstance(value, Tensor) and tval.cname == "RegTensor":
            if not tval.args or tval.args[0].dtype != value.dtype:
                refuse(node, "a register cast to another type", "a bit trick the program form does not have")
            return value
        return super().cast(node, tval, value, ptr)

    def _eval_Name(self, node):
        if self.micro is not None and len(node.segs) == 1 and node.last in _LIBRARY:
            return _LIBRARY[node.last]
        return super()._eval_Name(node)

    def call(self, node, fn, arg_nodes):
        if self.micro is not None and fn.last == "Erf" and len(fn.segs) <= 2:      # issue 43: .erf_inline
            return micro_erf(self, node, [self.eval(a) for a in arg_nodes])
        if self.micro is None or len(fn.segs) < 2 or fn.segs[-2][0] != "MicroAPI":
            if self.micro is not None and fn.last in _RUNTIME:
                return Unknown(fn.last)
            return super().call(node, fn, arg_nodes)
        ident = fn.last
        if ident in _RUNTIME:
            return Unknown(ident)
        args = [self.eval(a) for a in arg_nodes]
        if ident in _LOADS and isinstance(args[0], Tensor) and isinstance(args[1], Addr):
            self.micro["alias"][args[0].key] = args[1].key
            return None
        if ident in _STORES and isinstance(args[0], Addr) and isinstance(args[1], Tensor):
            if args[0].key != self.micro["dst"]:
                refuse(node, f"MicroAPI::{ident}", "stores to an address other than the node's result")
            self.micro["result"] = self._resolve(args[1].key)
            return None
        if ident == "Cast":
            return self._micro_cast(node, fn, args)
        if ident in ("Compare", "Compares", "CompareScalar", "Select"):        # issue 43: .dag_ops
            return micro_compare(self, node, fn, args)
        if ident in VECTOR_CALLS and ident not in COMPARE_OPS:
            return self.vector_call(node, ident, args, trailing=(0, 1) if ident == "Duplicate" else (1,))
        refuse(node, f"unknown call MicroAPI::{ident}")

    def _micro_cast(self, node, fn, args):
        targs = tuple(self.type_or_value(a) for a in fn.targs or ())
        trait = targs[2] if len(targs) > 2 else None
        mode = next((m.name for m in trait if isinstance(m, Mode)), None) if isinstance(trait, tuple) else None
        dst, src = args[0], args[1]
        widening = dst.dtype == "float32" and src.dtype in ("float16", "bfloat16")
        if mode in ("UNKNOWN", "CAST_NONE") and widening:
            mode = "CAST_NONE"
        elif mode not in ("CAST_RINT", "CAST_ROUND") or widening:
            refuse(node, f"MicroAPI::Cast with {mode}", "the reader knows exact widening and CAST_RINT/CAST_ROUND")
        self.events.append(Event("step", Step("Cast", (self._resolve(dst.key), self._resolve(src.key), mode),
                                              node.at)))
        return None

    def _resolve(self, key):
        return self.micro["alias"].get(key, key) if self.micro else key

    def operand(self, node, op, arg, kind):
        key = super().operand(node, op, arg, kind)
        return self._resolve(key) if kind in "dDs" else key
