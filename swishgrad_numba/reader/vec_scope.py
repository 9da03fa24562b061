"""A ``__VEC_SCOPE__`` block in class-style code (issue 43): the 950's register kernels (arch35) that load a
local tensor into MicroAPI registers, compute on the registers and store one back, one vector length a turn.

The block is read over the whole tile, as the DAG nodes of :mod:`.microapi` are: a register loaded from
``t.GetPhyAddr()`` (plus the turn's offset) *is* ``t``, the calls on registers are the program's steps, and
the register stored to ``u.GetPhyAddr()`` becomes ``u`` (a ``copy`` event, forwarded by :mod:`.local_copy`).
This is exact where every call runs lane by lane under a predicate that holds on every lane it stores:

- ``CreateMask<T>()`` / ``CreateMask<T, MaskPattern::ALL>()``: every lane (asc-devkit's ``MaskPattern``,
  ``ALL`` the default); another pattern (``VL1``, ``H``, ...) is refused, its lanes are not the tile's.
- ``UpdateMask<T>(count)`` in the loop: the lanes left of ``count``, the ones the turn stores; outside the
  loop it is refused.
- a store predicated by ``UpdateMask``'s mask only (an all-lanes store would write past the tile).

A load or store in the loop must address ``t.GetPhyAddr()``'s pointer plus ``i * L`` (or ``L * i``), ``i``
the loop's own counter and ``L`` the lanes of a turn: the register's elements (256 bytes over 4 for float
and an unpacked 16-bit register, over 2 for a packed one), which must also be ``UpdateMask<T>``'s lanes
(256 over ``sizeof(T)``). Any other offset, and any offset outside the loop, is refused: the loop is read
once, at its first turn, so a stride that skipped or repeated lanes would be read wrongly. Not checked: that
the loop's count and ``UpdateMask``'s count cover the tile (the schedule's tile length).

16-bit registers keep their layout: ``LoadAlign<.., DIST_UNPACK_B16>`` puts an element in each 32-bit lane's
low half (``RegLayout::ZERO``), which a widening ``Cast`` with ``RegLayout::ZERO`` reads and a narrowing one
writes, and ``StoreAlign<.., DIST_PACK_B32>`` packs; a packed register (``DIST_NORM``) mixed with an unpacked
one, another load or store dist or layout, and a narrowing ``Cast`` that saturates are refused.
"""
from __future__ import annotations

from dataclasses import dataclass

from .abstract import Mode, Tensor, Unknown, refuse
from .helpers import VECTOR_REG_WIDTH
from .instructions import COMPARE_OPS, VECTOR_CALLS
from .objects import Event
from .syntax import Binary, Decl, Name, Num, Scoped, Unary
from .values import CNum, TypeVal, is_int, render
from .vf_call import VF_CALLS, vf_call

__all__ = ["VecScopeMixin"]

#: MicroAPI's enums, read as modes inside a vector scope
_ENUMS = ("RegLayout", "SatMode", "MaskMergeMode", "LoadDist", "StoreDist", "MaskPattern")
_LOADS = ("LoadAlign", "DataCopy")
_STORES = ("StoreAlign", "DataCopy")
_SIXTEEN = ("float16", "bfloat16")
_SIZEOF = {"float32": 4, "float16": 2, "bfloat16": 2}
_LOAD_DIST = {None: "packed", "DIST_NORM": "packed", "DIST_UNPACK_B16": "unpacked"}
_STORE_DIST = {None: "packed", "DIST_NORM": "packed", "DIST_NORM_B16": "packed", "DIST_NORM_B32": "packed",
               "DIST_PACK_B32": "unpacked"}


@dataclass(frozen=True)
class Addr:
    """``t.GetPhyAddr()`` inside a vector scope, and that address plus any offset."""
    key: str
    dtype: str


@dataclass(frozen=True)
class Pred:
    """A MaskReg's predicate: ``all`` lanes (CreateMask), the ``count`` lanes of the turn (UpdateMask)."""
    lanes: str


class VecScopeMixin:
    vec = None

    def _run(self, stmt):
        if isinstance(stmt, Scoped) and stmt.name == "__VEC_SCOPE__" and self.vec is None \
                and getattr(self, "micro", None) is None:
            self.vec = {"alias": {}, "layout": {}, "loop": None, "in_loop": False, "start": len(self.events),
                        "n": self.__dict__.setdefault("vec_scopes", [0])}
            self.vec["n"][0] += 1
            try:
                self.run(stmt.body)
            finally:
                self.vec = None
            return
        super()._run(stmt)

    def construct(self, node, tval, name, args):
        if self.vec is not None and tval.cname == "RegTensor":
            dtype = tval.args[0].dtype if tval.args and isinstance(tval.args[0], TypeVal) else None
            if dtype not in ("float32",) + _SIXTEEN:
                refuse(node, f"register {name}", "not float, half or bfloat16_t")
            key = f"vec{self.vec['n'][0]}/{name}"
            taken = set(self.names.values())
            if key not in self.names:            # a vector function's registers, again (.vf_call)
                self.names[key] = name if name not in taken else f"{name}_{self.vec['n'][0]}"
            self.dtypes[key] = dtype
            return Tensor(key, dtype)
        if self.vec is not None and tval.cname == "MaskReg":
            return Unknown(f"MaskReg {name} (no predicate yet)")
        return super().construct(node, tval, name, args)

    def _eval_Name(self, node):
        if self.vec is not None and len(node.segs) >= 2 and node.segs[-2][0] in _ENUMS:
            return Mode(node.last, node.segs[-2][0])
        if self.vec is not None and node.last == "VECTOR_REG_WIDTH" and node.segs[0][0] in ("AscendC", node.last):
            return CNum(VECTOR_REG_WIDTH, "int")
        return super()._eval_Name(node)

    def call_method(self, node, obj, name, targs, args):
        if self.vec is not None and isinstance(obj, Tensor) and name == "GetPhyAddr":
            return Addr(obj.key, obj.dtype)
        return super().call_method(node, obj, name, targs, args)

    def loop(self, stmt):
        if self.vec is None:
            return super().loop(stmt)
        if self.vec["loop"] is not None or self.vec["in_loop"]:
            refuse(stmt, "a second loop in a __VEC_SCOPE__", "one loop over the vector lengths is read")
        before = _written(self.events[self.vec["start"]:])
        self.scopes.append({})
        if getattr(stmt, "init", None) is not None:
            self.run(stmt.init)
        self.vec["counter"] = _counter(stmt)
        self.vec["in_loop"], start = True, len(self.events)
        try:
            self.run(stmt.body)
        finally:
            self.vec["in_loop"], self.vec["loop"] = False, start
            self.scopes.pop()
        again = _written(self.events[start:]) & before
        if again:
            refuse(stmt, f"a write into {self.names.get(min(again))} in the loop",
                   "a register set before the loop is written in it")

    def call(self, node, fn, arg_nodes):
        if fn.last in VF_CALLS and len(fn.segs) <= 2:      # asc_vf_call<F<T>>(...): a scope around F (.vf_call)
            return vf_call(self, node, fn, arg_nodes)
        if self.vec is None or len(fn.segs) < 2 or fn.segs[-2][0] not in ("MicroAPI", "Reg"):
            return super().call(node, fn, arg_nodes)
        ident, targs = fn.last, tuple(self.type_or_value(a) for a in fn.targs or ())
        if ident == "CreateMask":
            pattern = targs[1] if len(targs) > 1 else None
            if pattern is not None and not (isinstance(pattern, Mode) and pattern.name == "ALL") or arg_nodes:
                refuse(node, f"MicroAPI::CreateMask with {fn.text()}", "the reader knows the all-lanes "
                       "pattern (MaskPattern::ALL, the default) only")
            return Pred("all")
        if ident == "UpdateMask":
            if not self.vec["in_loop"]:
                refuse(node, "MicroAPI::UpdateMask outside the loop", "its lanes are a turn's")
            size = _SIZEOF.get(targs[0].dtype) if targs and isinstance(targs[0], TypeVal) else None
            if size is None:
                refuse(node, f"MicroAPI::UpdateMask with {fn.text()}", "of float, half or bfloat16_t")
            self.vec["mask_lanes"] = VECTOR_REG_WIDTH // size
            return Pred("count")
        args = [self.eval(a) for a in arg_nodes]
        dist = targs[1].name if len(targs) > 1 and isinstance(targs[1], Mode) else None
        if ident in _LOADS and len(args) == 2 and isinstance(args[0], Tensor) and isinstance(args[1], Addr):
            loaded = self._load(node, ident, dist, *args)
            self._check_stride(node, ident, arg_nodes[1], args[0])
            return loaded
        if ident in _STORES and len(args) == 3 and isinstance(args[0], Addr) and isinstance(args[1], Tensor):
            self._check_stride(node, ident, arg_nodes[0], args[1])
            return self._store(node, ident, dist, *args)
        if ident == "Cast":
            return self._cast(node, targs, args)
        if ident in VECTOR_CALLS and ident not in COMPARE_OPS and ident not in ("Select", "Cast"):
            regs = self._masked(node, ident, args)
            layouts = {self.vec["layout"].get(r.key, "packed") for r in regs[1:] if r.dtype in _SIXTEEN}
            if len(layouts) > 1:
                refuse(node, f"MicroAPI::{ident} of a packed and an unpacked register", "their lanes differ")
            self.vec["layout"][args[0].key] = layouts.pop() if layouts else "packed"
            return self.vector_call(node, ident, args, trailing=(1,))
        refuse(node, f"unknown call MicroAPI::{ident}", "in a __VEC_SCOPE__")

    def _masked(self, node, ident, args):
        """The call's registers; its last argument must be a CreateMask or UpdateMask predicate."""
        if not args or not isinstance(args[-1], Pred):
            refuse(node, f"MicroAPI::{ident} without a CreateMask or UpdateMask predicate",
                   "the reader reads calls predicated by all lanes or by the turn's")
        regs = [a for a in args[:-1] if isinstance(a, Tensor)]
        if not regs or any(r.key not in self.dtypes or not r.key.startswith("vec") for r in regs[:1]):
            refuse(node, f"MicroAPI::{ident} into something that is not a register")
        return regs

    def _check_stride(self, node, ident, addr_node, reg):
        """The address of a load or store: the pointer alone outside the loop; in it, the pointer plus the
        loop's counter times the lanes of a turn (the register's, which are UpdateMask's)."""
        offset = addr_node.b if isinstance(addr_node, Binary) and addr_node.op == "+" else None
        if not self.vec["in_loop"]:
            if offset is not None:
                refuse(node, f"MicroAPI::{ident} at an offset outside the loop", "the reader reads a turn's "
                       "address as the loop's counter times its lanes")
            return
        lanes = VECTOR_REG_WIDTH // (4 if reg.dtype == "float32" or self.vec["layout"].get(reg.key) == "unpacked"
                                 else 2)
        counter, step = self.vec.get("counter"), None
        if isinstance(offset, Binary) and offset.op == "*" and counter is not None:
            for a, b in ((offset.a, offset.b), (offset.b, offset.a)):
                if isinstance(a, Name) and len(a.segs) == 1 and a.last == counter:
                    value = self.eval(b)
                    step = value.value if is_int(value) else None
        if step != lanes or self.vec.get("mask_lanes") not in (None, lanes):     # (no UpdateMask: _store refuses)
            refuse(node, f"MicroAPI::{ident} at {render(addr_node)}", f"a turn's address is the pointer plus "
                   f"the loop's counter times its {lanes} lanes, which UpdateMask's type must count too")

    def _load(self, node, ident, dist, reg, addr):
        if dist not in _LOAD_DIST or (_LOAD_DIST[dist] == "unpacked" and reg.dtype not in _SIXTEEN):
            refuse(node, f"MicroAPI::{ident} with {dist}", f"the reader knows {', '.join(filter(None, _LOAD_DIST))}")
        if reg.dtype != addr.dtype:
            refuse(node, f"MicroAPI::{ident} of {addr.dtype} into a {reg.dtype} register", "bytes of one dtype "
                   "read as another")
        self.vec["alias"][reg.key] = addr.key
        self.vec["layout"][reg.key] = _LOAD_DIST[dist]
        return None

    def _store(self, node, ident, dist, addr, reg, pred):
        if not isinstance(pred, Pred) or pred.lanes != "count":
            refuse(node, f"MicroAPI::{ident} predicated by all lanes", "a store of the turn's lanes "
                   "(UpdateMask's) is read: one of all lanes writes past the tile")
        layout = self.vec["layout"].get(reg.key, "packed") if reg.dtype in _SIXTEEN else "packed"
        if dist not in _STORE_DIST or _STORE_DIST[dist] != layout:
            refuse(node, f"MicroAPI::{ident} with {dist} of a {layout} {reg.dtype} register",
                   "a packed register stores with DIST_NORM, an unpacked 16-bit one with DIST_PACK_B32")
        if reg.dtype != addr.dtype:
            refuse(node, f"MicroAPI::{ident} of a {reg.dtype} register to {addr.dtype}", "bytes of one dtype "
                   "read as another")
        return self.vec_store(node, addr.key, self._vresolve(reg.key))

    def vec_store(self, node, key, src):
        """The register ``src`` stored to the local tensor ``key``: a copy, forwarded (.local_copy)."""
        self.events.append(Event("copy", step=node.at, key=key, gm=src))

    def _cast(self, node, targs, args):
        trait = targs[2] if len(targs) > 2 else None
        modes = _cast_trait(trait)
        pred = args[2] if len(args) == 3 else None
        if len(args) != 3 or not isinstance(pred, Pred) or not all(isinstance(a, Tensor) for a in args[:2]):
            refuse(node, "MicroAPI::Cast", "the reader knows (dst, src, mask) of registers")
        dst, src = args[0], args[1]
        widening = dst.dtype == "float32" and src.dtype in _SIXTEEN
        narrowing = src.dtype == "float32" and dst.dtype in _SIXTEEN
        layout, rnd, sat = modes.get("RegLayout"), modes.get("RoundMode"), modes.get("SatMode")
        if widening and layout == "ZERO" and rnd in ("UNKNOWN", "CAST_NONE") \
                and self.vec["layout"].get(src.key) == "unpacked":
            mode, out = "CAST_NONE", "packed"
        elif narrowing and layout == "ZERO" and rnd in ("CAST_RINT", "CAST_ROUND") and sat == "NO_SAT":
            mode, out = rnd, "unpacked"
        else:
            refuse(node, f"MicroAPI::Cast from {src.dtype} to {dst.dtype} with {modes or trait}",
                   "the reader knows an exact widening of an unpacked (DIST_UNPACK_B16) register and a CAST_RINT "
                   "or CAST_ROUND narrowing without saturation, both RegLayout::ZERO")
        self.vec["layout"][dst.key] = out
        return self.vector_call(node, "Cast", [dst, src, Mode(mode)], trailing=(0,))

    def _vresolve(self, key):
        return self.vec["alias"].get(key, key)

    def operand(self, node, op, arg, kind):
        key = super().operand(node, op, arg, kind)
        return self.vec["alias"].get(key, key) if self.vec is not None and kind in "dDs" else key


def _cast_trait(trait) -> dict:
    """A ``CastTrait`` initialiser's fields by name (asc-devkit's order: layout, saturation, merge, rounding);
    {} where it is not a four-field list of enum values."""
    if not isinstance(trait, tuple) or len(trait) != 4:
        return {}
    names = [t.name if isinstance(t, Mode) else t.cname if isinstance(t, TypeVal) and not t.args else None
             for t in trait]
    return {} if None in names else dict(zip(("RegLayout", "SatMode", "MaskMergeMode", "RoundMode"), names))


def _counter(stmt):
    """The name of a ``for (T i = 0; ...; i++)`` loop's counter (``++i``, ``i += 1`` too), else None."""
    init, steps = getattr(stmt, "init", None), getattr(stmt, "step", None) or ()
    step = steps[0] if isinstance(steps, tuple) and len(steps) == 1 else None
    if not isinstance(init, Decl) or len(init.names) != 1:
        return None
    name, first, _ = init.names[0]
    if not (isinstance(first, Num) and first.text == "0"):
        return None
    counted = (isinstance(step, Unary) and step.op in ("++", "post++") and isinstance(step.x, Name)
               and step.x.last == name)
    added = (isinstance(step, Binary) and step.op == "+=" and isinstance(step.a, Name) and step.a.last == name
             and isinstance(step.b, Num) and step.b.text == "1")
    return name if counted or added else None


def _written(events) -> set:
    """The tensors the step events write (the schedule's events are tuples: none)."""
    return {e.step.args[0] for e in events if getattr(e, "kind", None) == "step"}
