"""The A2 class style: an entry that makes a kernel object, ``Init`` and ``Process``;
TPipe, TQue/TBuf buffers, CopyIn / Compute / CopyOut, straight-line vector calls.

:class:`ClassMachine` follows the entry for one dtype (and one choice of the
tiling-key template arguments). Process's one loop is the tile loop: its body
is followed once, its counter unknown, and the tail tile after it must compute the same (other loops,
``break`` and ``continue``: :mod:`.loop_control`). A branch
on a value known only at run time (the big/small core split in Init, ``if (i == tileNum - 1)
len = tailLen;`` in a tile) is followed both ways and the members and locals it sets differently
joined as unknown; its two ways must make the same vector calls. Where the tiles lie is the
schedule's (:mod:`.schedule`), which runs this scalar code per core on a launch's record.
"""
from __future__ import annotations

from .abstract import TilingField
from .calls import CallsMixin
from .helpers import class_scope, registered_struct
from .machine import Machine, Return_, Symbolic, Tensor, Unknown, refuse
from .objects import Buf, GlobalT, GMAddr, Instance, Pipe, Queue
from . import gm_scalars, launch_branch, repeat_params, variant_ways
from .repeat_params import REPEAT_PARAMS
from .tail_branch import guarded_prologue, tail_of_the_loop
from .templates import base_env, bind_function, write_back
from .buf_offsets import get_with_offset
from .select_loop import select_loop
from .syntax import Call, Member, Name
from .scalar_puns import is_scalar_cast, scalar_cast
from .ub_bounds import check_count, record_init
from .fill_loop import fill_loop
from .loop_control import LoopJump, join_changes, scalar_loop, snapshot
from .block_guard import settled
from .launch_scalars import LaunchScalar, refuse_branch
from .byte_views import byte_view, is_raw
from .bitviews import BIT_CTYPES, check_call, check_copy, reinterpret, shift_source
from .mask_words import all_words, mask_view
from .values import CNum, TypeVal, arith, convert, is_int, render

__all__ = ["ClassMachine"]

_QUEUES = ("TQue", "TQueBind")


class ClassMachine(CallsMixin, Machine):
    """Follows a class-style entry; ``events`` is what it records, ``decide`` answers
    branches on the entry's non-type template arguments (the fork driver's)."""

    def __init__(self, symbols, dtype_cname, gm_params, decide):
        macros = {f"DTYPE_{g.upper()}": TypeVal(dtype_cname) for g in gm_params}
        super().__init__(symbols, macros)
        self.decide = decide
        self.events, self.names, self.dtypes = [], {}, {}
        self.tile, self.in_tile, self.methods = None, False, []
        self.tile_start, self.inner = 0, None         # the tile loop's first event; a nested tile loop's events
        self.buffer_num, self.tiling_struct, self.tiling_struct_at = None, None, None
        if symbols.default_tiling is not None:        # REGISTER_TILING_DATA_CLASS in op_host
            self.tiling_struct, self.tiling_struct_at = symbols.default_tiling

    # ------------------------------------------------------------ the entry
    def run_entry(self, fn, tbind):
        self.scopes[0].update(tbind)
        self.scopes.append({p.name: (GMAddr(p.name) if p.type.name.last == "GM_ADDR" else Unknown(p.name))
                            for p in fn.params})
        for p in fn.params:      # the samples' kernel launch: the tiling struct by value (issue 43)
            if p.type.name.last in self.symbols.classes and p.type.ptr in ("", "&"):
                self.scopes[-1][p.name] = self.tiling_value(p.type.name.last, p.type.at)
        self.methods.append(fn.name.last)
        registered = registered_struct(fn.body)       # REGISTER_TILING_DEFAULT below GET_TILING_DATA (issue 43)
        if registered is not None and self.tiling_struct is None:
            self.tiling_struct, self.tiling_struct_at = registered
        try:
            self.run(fn.body)
        except Return_:
            pass

    def runtime_branch(self, stmt):
        cond = self.eval(stmt.cond)
        if launch_branch.attribute_way(self, stmt, cond):   # an attribute value: a variant per way
            return
        refuse_branch(stmt, cond)                          # (.launch_scalars)
        if isinstance(cond, TilingField):                  # if (this->flag): a variant
            cond = Symbolic(cond.name)
        if isinstance(cond, Symbolic):
            variant_ways.asked(self, stmt, cond.text)     # the way a core takes it picks the variant
            branch = stmt.then if self.decide(cond.text) else stmt.other
            if branch is not None:
                self.run(branch)
            return
        fixed = settled(self, stmt.cond)                   # GetBlockIdx() >= F where F == 0 (.block_guard)
        if fixed is not None:
            branch = stmt.then if fixed else stmt.other
            if branch is not None:
                self.run(branch)
            return
        self._both_ways(stmt)

    def _both_ways(self, stmt):
        """Outside the tile: follow both branches; members set differently become run-time values.
        A branch that only returns (``if (workspace == nullptr) return;``) is a guard: the kernel
        computes on the other one."""
        members, n = dict(self.this.members) if self.this else {}, len(self.events)
        scopes = [dict(s) for s in self.scopes]
        at = launch_branch.mark(self)
        self.runtime_branches = getattr(self, "runtime_branches", 0) + 1       # (.loop_control)
        tile, inner = self.tile, self.inner
        then_returned = self._guard(stmt.then, n)
        then_members, then_events = (dict(self.this.members) if self.this else {}), self.events[n:]
        then_scopes = [dict(s) for s in self.scopes]
        then_tile, self.tile, self.inner = (self.tile, self.inner), tile, inner      # each way may hold the loop
        if self.this:
            self.this.members = dict(members)
        for scope, saved in zip(self.scopes, scopes):
            scope.clear()
            scope.update(saved)
        del self.events[n:]
        else_returned = stmt.other is not None and self._guard(stmt.other, n)
        if self.tile is None and self.inner is None:
            self.tile, self.inner = then_tile
        if then_returned or else_returned:
            if then_returned and else_returned:
                raise then_returned
            if else_returned:           # the then-branch is the one that computes
                if self.this:
                    self.this.members = then_members
                self.events[n:] = then_events
            return
        tail = tail_of_the_loop(self, n, then_events, self.events[n:]) if self.events[n:] != then_events else None
        tail = tail if tail is not None or self.events[n:] == then_events else \
            guarded_prologue(self, then_events, self.events[n:])      # if (len > 0) Duplicate(...) before it
        if tail is not None:                       # issue 43: if (rest > 0) Step(...) after the tile loop
            self.events[n:] = tail
        elif self.events[n:] != then_events:
            if launch_branch.follow_one_way(self, stmt, at, (members, scopes, n, (tile, inner))):
                return                             # each way a path of its own (issue 43)
            if self.in_tile:
                refuse(stmt, f"a runtime branch in {self.methods[-1]}", f"if ({render(stmt.cond)}): its two "
                       "ways make different vector calls")
            refuse(stmt, "vector calls under a runtime branch", f"if ({render(stmt.cond)}) in {self.methods[-1]}")
        for scope, then in zip(self.scopes, then_scopes):
            for k, v in then.items():
                if k in scope and scope[k] != v:
                    scope[k] = Unknown(f"{k} (set by a runtime branch)")
        if self.this:
            for k, v in then_members.items():
                if self.this.members.get(k) != v:
                    self.this.members[k] = Unknown(f"{k} (set by a runtime branch)")

    def _guard(self, branch, n):
        """Run ``branch``; the return, ``continue`` or ``break`` it left by having done nothing (a guard),
        else None."""
        try:
            self.run(branch)
        except (Return_, LoopJump) as left:
            if len(self.events) == n:
                return left
            raise
        return None

    def jump(self, stmt):
        if not getattr(self, "loop_depth", 0):
            refuse(stmt, f"{stmt.kind}", "outside a loop the reader follows")
        raise LoopJump(stmt)

    def loop(self, stmt):
        if fill_loop(self, stmt):                 # t.SetValue(i, v) over the tile: a Duplicate (issue 43)
            return
        if select_loop(self, stmt):               # t.SetValue(i, f > c || f != f ? b[i] : z) (.select_loop)
            return
        if any(_calls(stmt, "SetValue")):
            refuse(stmt, "a loop over SetValue", "element-by-element code is not a vector program")
        process = self.methods[-1].startswith("Process") or len(self.methods) == 1   # issue 43: or the entry's own
        helper = not process and any(m.startswith("Process") for m in self.methods[:-1])   # RunTileLoop(op, ...)
        outer = self.tile is None and not self.in_tile and (process or helper)
        nested = self.in_tile and self.inner is None and len(self.events) == self.tile_start   # rows, then chunks
        if not (outer or nested):
            scalar_loop(self, stmt, self.methods[-1])       # offsets, buffers: no vector call (.loop_control)
            return
        before = snapshot(self)
        self.scopes.append({})
        self.loop_depth = getattr(self, "loop_depth", 0) + 1
        start = len(self.events)
        try:
            if getattr(stmt, "init", None) is not None:      # a for loop's; a while loop has none
                self.run(stmt.init)
                for k in self.scopes[-1]:                     # the counter: a different value in each tile
                    self.scopes[-1][k] = Unknown(k)
            if outer:
                self.in_tile, self.tile_start, self.inner = True, start, None
            try:
                self.run(stmt.body)
            except LoopJump:                                  # an unconditional one: the body ends there
                pass
        finally:
            self.loop_depth -= 1
            self.scopes.pop()
        if len(self.events) == start:                         # it computes nothing: a scalar loop
            join_changes(self, before, "set in a loop")
            if outer:
                self.in_tile = False
            return
        if nested:
            self.inner = (start, len(self.events))
            return
        if self.inner is not None and self.inner[1] != len(self.events):
            refuse(stmt, f"a loop in {self.methods[-1]}", "vector calls or copies after its inner tile loop")
        if helper and not any(e.kind == "store" for e in self.events[start:]):
            refuse(stmt, f"a loop in {self.methods[-1]}", "a loop in a function Process calls is read as the tile "
                   "loop only where each iteration stores its tile to GM")
        self.in_tile, self.tile = False, (start, len(self.events))

    def _eval_Unary(self, node):
        if node.op == "*":                                 # *((__gm__ T*)scalar): a GM scalar (.gm_scalars)
            value = gm_scalars.deref(self, node)
            if value is not None:
                return LaunchScalar("gm", (value,))
        if node.op in ("++", "--", "post++", "post--"):    # a known counter counts (a loop run when read)
            old = self.eval(node.x)
            if is_int(old):
                new = convert(arith("+" if node.op.endswith("++") else "-", old, CNum(1, "int")), old.ctype)
                self.assign(node.x, new, node)
                return old if node.op.startswith("post") else new
        return super()._eval_Unary(node)

    def name_value(self, node, value, name):
        if isinstance(value, Tensor) and value.key not in self.names:
            taken = set(self.names.values())
            self.names[value.key] = name if name not in taken else f"{name}_{len(taken)}"
        return value

    # ------------------------------------------------------------ objects
    def construct(self, node, tval, name, args):
        if tval.cname in self.symbols.classes:
            return self.instance(node, self.symbols.classes[tval.cname], tval.args)
        if tval.cname in _QUEUES:
            return Queue(name, tval.args[-1] if tval.args else None)
        if tval.cname == "TBuf":
            return Buf(name)
        if tval.cname == "TPipe":
            return Pipe()
        if tval.cname == "GlobalTensor":
            return GlobalT(name, None, tval.args[0] if tval.args and isinstance(tval.args[0], TypeVal) else None)
        if tval.cname in REPEAT_PARAMS:            # issue 43: a level-0 call's named repeat parameters
            return repeat_params.construct(node, tval.cname, args)
        return Unknown(f"{tval.cname} {name}")

    def assign(self, target, value, node):
        member = target.name if isinstance(target, Member) and self.eval(target.obj) is self.this else \
            target.last if isinstance(target, Name) and len(target.segs) == 1 and self.local(target.last) is None \
            else None
        ctype = self.this.ctypes.get(member, "") if self.this is not None and member else ""
        if is_scalar_cast(value, ctype, "") and ctype in ("half", "bfloat16_t"):
            value = scalar_cast(node, ctype, value)    # T alpha; alpha = tiling.alpha: C's conversion (issue 43)
        if not repeat_params.set_member(self, target, value, node):
            super().assign(target, value, node)

    def instance(self, node, cls, targs):
        env = {}
        for i, tp in enumerate(cls.tparams):
            env[tp.name] = targs[i] if i < len(targs) else (self.eval(tp.default) if tp.default else None)
        inst = Instance(cls, env)
        saved = self.scopes
        self.scopes = [self.scopes[0], env]
        try:          # restored on a refusal too: the caller's blocks pop their own scopes
            self._members(cls, env, inst)
        finally:
            self.scopes = saved
        return inst

    def _members(self, cls, env, inst):
        for item in class_scope(cls):     # using T = TYPE_X; static constexpr int N = ...; in source order
            if hasattr(item, "names"):
                for name, init, _ in item.names:
                    env[name] = self.eval(init)
            else:
                env[item.name] = self.type_or_value(item.type)
        for decl in _fields(self.symbols, cls):
            tval = self.type_of(decl.type)
            for name, init, _ in decl.names:
                inst.ctypes[name] = tval.cname if not decl.type.ptr else ""
                inst.members[name] = self.eval(init) if init is not None else \
                    Unknown(name) if decl.type.ptr else self.construct(decl, tval, name, [])

    def invoke(self, node, fn, this, args, env):
        env = bind_function(self, node, fn, args, base_env(self, this, fn, env))    # templates (issue 43)
        saved = (self.scopes, self.this)
        params = {p.name: a for p, a in zip(fn.params, args)}
        self.scopes = [self.scopes[0], dict(env), params]
        self.this = this
        self.methods.append(fn.name.last)
        try:
            self.run(fn.body)
            result = None
        except Return_ as r:
            result = r.value
        finally:
            self.methods.pop()
            self.scopes, self.this = saved
        write_back(self, node, fn, params, args)      # what the callee set through a reference (issue 43)
        return result

    def call_method(self, node, obj, name, targs, args):
        if isinstance(obj, Instance):
            return self.invoke(node, self.symbols.method(obj.cls, name, node.at, obj.env), obj, args, obj.env)
        if name == "ReinterpretCast" and isinstance(obj, Tensor) and len(targs) == 1 \
                and isinstance(targs[0], TypeVal) and targs[0].dtype == obj.dtype:
            return obj            # to its own type (a T_COMPUTE that is T): the same tensor (issue 43)
        if name == "ReinterpretCast" and isinstance(obj, Tensor) and len(targs) == 1 and isinstance(
                targs[0], TypeVal) and is_raw(self, obj, targs[0].dtype or targs[0].cname):
            return byte_view(self, node, obj, targs[0].dtype or targs[0].cname)   # of raw bytes: .byte_views
        if name == "ReinterpretCast" and len(targs) == 1 and isinstance(targs[0], TypeVal) \
                and mask_view(self, obj, targs[0].cname) is not None:    # a mask's words (issue 43, .mask_words)
            return mask_view(self, obj, targs[0].cname)
        if name == "ReinterpretCast" and isinstance(obj, Tensor):     # a bit view (issue 43)
            return reinterpret(self, node, obj, targs)
        if name in ("ReinterpretCast",):
            refuse(node, "ReinterpretCast", "a bit trick the program form does not have (to another type)")
        if isinstance(obj, GlobalT) and name == "GetValue":      # a scalar from an input per launch (.gm_scalars)
            return LaunchScalar("gm", (gm_scalars.get_value(self, node, obj, args),))
        if name in ("SetValue", "GetValue"):
            refuse(node, name, "element-by-element access is not a vector program")
        if isinstance(obj, Pipe) and name in ("FetchEventID", "AllocEventID", "ReleaseEventID"):
            return Unknown(name)             # an event id: synchronisation only (issue 43)
        if isinstance(obj, Pipe) and name == "InitBuffer":
            record_init(self, node, args)             # the buffer's bytes (.ub_bounds)
            if isinstance(args[0], Queue) and len(args) == 3:
                num = args[1]
                if isinstance(num, CNum) and (not is_int(num) or num.value < 1):
                    refuse(node, f"InitBuffer of {args[0].name} with {render(node.args[1])} buffers",
                           "a queue's buffer count (BUFFER_NUM) is a whole number >= 1")
                self.buffer_num = num.value if isinstance(num, CNum) else None
            return None
        if isinstance(obj, Queue) and name == "AllocTensor":
            return self.tensor(node, self.allocate(obj.name), targs)
        if isinstance(obj, Buf) and name == "AllocTensor":
            # issue 43: TBuf inherits TQueBind's AllocTensor (asc-devkit's kernel_tpipe.h declares it in
            # TBuf); InitBuffer(buf, len) gives a TBuf one buffer, so it is the buffer Get<T>() gives
            return self.tensor(node, obj.name, targs)
        if isinstance(obj, Buf) and name == "GetWithOffset":      # a part of the buffer (issue 43, .buf_offsets)
            return get_with_offset(self, node, obj, targs, args)
        if isinstance(obj, (Queue, Buf)) and name in ("DeQue", "Get"):
            if name == "DeQue" and len(targs) == 3:      # DeQue<srcPos, dstPos, T>: the type is the last
                targs = targs[2:]
            return self.tensor(node, obj.name, targs)
        if isinstance(obj, (Queue, Buf)) and name in ("EnQue", "FreeTensor"):
            self.release(node, obj, name, args)
            return None
        if isinstance(obj, GlobalT) and name == "SetL2CacheHint":     # a cache policy: the same values
            return None
        if isinstance(obj, GlobalT) and name == "SetGlobalBuffer":
            if not isinstance(args[0], GMAddr):
                refuse(node, f"{obj.name}.SetGlobalBuffer", "its address is not a GM_ADDR argument")
            obj.gm = args[0].name
            gm_scalars.note_binding(obj, node.args[0])       # at the input's start or moved (.gm_scalars)
            return None
        if isinstance(obj, Unknown):
            return Unknown(f"{obj.why}.{name}")
        refuse(node, f"unknown call {render(node.fn)}")

    def vector_call(self, node, op, args, trailing, counted=False):
        if not all_words(args):                         # a mask's words: .mask_words
            check_call(node, op, args, getattr(self, "unsigned16", frozenset()))   # int16: .bitviews
        args = shift_source(self, op, args)             # ShiftRight of a uint32_t view: .bitviews
        return super().vector_call(node, op, args, trailing, counted)

    def data_copy(self, node, args):
        """A copy of a constant count checked against its buffer's constant size when the kernel is read."""
        check_copy(self, node, args)                      # into a view: .bitviews
        local = next((a for a in args[:2] if isinstance(a, Tensor)), None)
        if local is not None and len(args) > 2 and is_int(args[2]):
            check_count(self, node.at, node.fn.last, local.key, local.dtype, args[2].value)
        return super().data_copy(node, args)

    # A queue's tensors: the one its DeQue gives is the queue's own (its name); a second AllocTensor while
    # the first is neither enqueued nor freed is another of the queue's buffers, a tensor of its own
    # ("inQ@1"), which may be freed but not enqueued (the FIFO order of two is not modelled).
    def allocate(self, queue: str) -> str:
        live = self.__dict__.setdefault("live_allocations", {}).setdefault(queue, [])
        key = queue if not live else f"{queue}@{len(live)}"
        live.append(key)
        return key

    def release(self, node, obj, name, args) -> None:
        live = self.__dict__.setdefault("live_allocations", {}).setdefault(obj.name, [])
        key = args[0].key if args and isinstance(args[0], Tensor) else None
        if name == "EnQue" and key is not None and key != obj.name:
            refuse(node, f"{obj.name}.EnQue of a second buffer of the queue",
                   "two tensors of one queue in its FIFO at once are not modelled")
        if key in live:
            live.remove(key)

    def tensor(self, node, key, targs):
        if len(targs) == 3 and all(isinstance(a, TypeVal) and a.dtype is None for a in targs[:2]):
            targs = targs[2:]           # DeQue<QuePosition::GM, QuePosition::VECIN, T>: TQueBind's positions
        dtype = (targs[0].dtype or BIT_CTYPES.get(targs[0].cname)) if targs and isinstance(targs[0], TypeVal) \
            else None
        if dtype is None:
            refuse(node, f"a local tensor of type {render(node.fn)}",
                   "not float, half, bfloat16_t, uint8_t, int8_t, int16_t, uint16_t or int32_t")
        if targs[0].cname == "uint16_t":      # a bit pattern only: no Cast reads it (.bitviews.check_call)
            self.__dict__.setdefault("unsigned16", set()).add(key)
        if self.dtypes.setdefault(key, dtype) != dtype:
            refuse(node, f"buffer {key} as {dtype}", f"it is used as {self.dtypes[key]} too")
        return Tensor(key, dtype)


def _calls(node, name):
    """Whether ``name`` is called anywhere under ``node``."""
    if isinstance(node, Call):
        fn = node.fn
        if getattr(fn, "name", None) == name or isinstance(fn, Name) and fn.last == name:
            yield True
    if isinstance(node, (tuple, list)):
        for x in node:
            yield from _calls(x, name)
    elif hasattr(node, "__dataclass_fields__"):
        for f in node.__dataclass_fields__:
            if f != "at":
                yield from _calls(getattr(node, f), name)


def _fields(symbols, cls) -> list:
    """The fields of ``cls`` and of its bases in the sources, bases first."""
    out = []
    for base in cls.bases:
        if base.name.last in symbols.classes:
            out += _fields(symbols, symbols.classes[base.name.last])
    return out + list(cls.fields)
