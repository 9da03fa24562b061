"""Per-core schedules of an A2 class-style kernel (issue 43): its scalar code run on a launch's record.

The abstract reading (:mod:`.a2`) follows the entry once, with the tiling fields and the core index
unknown, to learn what a tile computes. :func:`core_schedule` runs the same code again for one core of
one launch with everything scalar known: the record's integer fields, ``GetBlockIdx()`` (the core),
``GetBlockNum()`` (the block dim) and ``TILING_KEY_IS(k)`` (the host's tiling key). Branches on those
(``if (i == tileNum - 1) len = tailLen;``, a bigger first core, a tiling-key switch) are taken the way
the core takes them, loops run their iterations, and each ``DataCopy``/``DataCopyPad`` between GM and
UB is recorded at its element offset and length. A tile is the copies and vector calls up to a copy
to GM; the core's schedule is its tiles' ``(offset, length)``, in order.

Each tile must be one the program computes: its loads and its store at one offset and of one length,
every vector call over at least that length (elementwise, what lies past the copied elements is not
stored), and the vector calls those the abstract reading read (the same instructions at the same
lines). What does not hold is a :class:`.errors.KernelSourceError` at its line: a branch on a value
known only at run time, a ``DataCopy`` of a length that is not whole 32-byte blocks (``DataCopyPad``
copies those), a loop past :data:`MAX_ITERATIONS`. A copy of several blocks (``blockCount`` > 1) and
loads at offsets other than the store's (a GLU's row halves) are read by :mod:`.split_loads`.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from .a2 import ClassMachine
from .vec_scope import VecScopeMixin
from .abstract import Symbolic, Tensor, TilingField, Unknown, refuse
from .errors import KernelSourceError
from .fill_loop import fill_loop
from .gm_scalars import note_binding
from .split_loads import aligned, check_tile, copy_rows, in_place_casts, shares_bytes, splits
from .launch_branch import decided_attribute
from .launch_scalars import refuse_branch
from .loop_control import run_loop
from .mask_words import is_mask_operand, mask_bytes
from .objects import GlobalT, GMAddr, TilingVal
from .tiling_arrays import TilingArray
from .ub_bounds import BYTES as _BYTES, check_count
from .values import DTYPE_OF_CTYPE, CNum, TypeVal, arith, convert, is_int, render
from .variant_ways import compatible, statement_key

__all__ = ["MAX_ITERATIONS", "Tile", "core_schedule"]

#: Loop iterations one core's schedule may take (all loops together).
MAX_ITERATIONS = 1 << 16
_SIZES = {"float": 4, "half": 2, "bfloat16_t": 2, "double": 8, "int8_t": 1, "uint8_t": 1, "bool": 1, "int16_t": 2,
          "uint16_t": 2, "int32_t": 4, "uint32_t": 4, "int": 4, "int64_t": 8, "uint64_t": 8}
_DTYPE_SIZES = {dt: _SIZES[c] for c, dt in DTYPE_OF_CTYPE.items() if c in _SIZES}      # a local tensor's
_PARAMS = ("DataCopyParams", "DataCopyExtParams")
_PARAM_FIELDS = ("blockCount", "blockLen", "srcStride", "dstStride", "rsv")
_BLOCK = 32


@dataclass(frozen=True)
class Tile:
    """One tile of a core: ``length`` elements from element ``offset`` of the flat tensors, computed by
    the Compute ``variant`` (its name in :meth:`.description.KernelDescription.variants`)."""
    offset: int
    length: int
    variant: str = ""
    rows: tuple = ()      # the store's rows ((local, GM, n), ...), each load's (name, GM input, rows, line) and
    loads: tuple = ()     # the store's line (file, line): .split_loads
    at: tuple = ()


@dataclass(frozen=True)
class _GMPtr:
    """A GM address ``byte`` bytes past the argument ``name``, typed as a pointer to ``unit``-byte elements."""
    name: str
    byte: int
    unit: int


@dataclass(frozen=True)
class _GlobalAt:
    """``xGm[offset]``, ``offset`` in elements."""
    glob: GlobalT
    offset: int


@dataclass(eq=False)
class _Params:
    """A ``DataCopyParams`` or ``DataCopyExtParams`` being filled."""
    kind: str
    members: dict = field(default_factory=dict)


class _ScheduleMachine(ClassMachine):
    def __init__(self, symbols, cname, gm, values, core, block_dim, tiling_key, attributes=None):
        super().__init__(symbols, cname, gm, self._template_argument)
        self.values, self.core, self.block_dim, self.tiling_key = values, core, block_dim, tiling_key
        self.attributes = attributes
        self.itemsize = _SIZES[cname]
        self.bases, self.iterations, self.loop_start = {}, 0, None
        self.view_at, self.ranges, self.stores = {}, [], 0     # buffer parts: (buffer, offset, node) by key
        self.ways_taken, self.way_keys = [], {}     # (events before it, statement key, taken): each if decided

    def view(self, node, obj, offset):
        t = super().view(node, obj, offset)
        if t is not obj:
            if not is_int(offset) or offset.value < 0:
                refuse(node, render(node), "an offset into a local buffer not known for the launch")
            self.view_at[t.key] = (obj.key, offset.value, node)
        return t

    def _used(self, key, count, node, op=None):
        """Record that a copy or a vector call of this tile covers ``count`` elements of ``key``."""
        views = getattr(self, "bit_views", {})
        viewed = views.get(key, key)             # a ReinterpretCast's view (of a part): the tensor it views
        base, offset, at = self.view_at.get(viewed, (viewed, 0, node))
        base = views.get(base, base)             # ... and its buffer's bytes
        size, unit = _BYTES.get(self.dtypes.get(viewed), 1), _BYTES.get(self.dtypes.get(key), 1)
        lo = offset * size                       # in bytes: views of other widths meet there (issue 43)
        # views of raw bytes (.byte_views) are tensors of their own; a bit view of one is that one's
        ident = viewed if viewed in getattr(self, "byte_views", {}) else None
        self.ranges.append((self.stores, base, lo, lo + count * unit, at, ident))
        if lo % unit == 0:
            check_count(self, node.at, op or node.fn.last, key, self.dtypes.get(key), count, base, lo // unit)

    def branch_taken(self, stmt, taken):
        key = self.way_keys.get(id(stmt))
        if key is None:
            key = self.way_keys[id(stmt)] = statement_key(stmt)
        self.ways_taken.append((len(self.events), key, taken))

    def _template_argument(self, text):
        raise KernelSourceError("", 0, f"a template argument ({text})", "the schedule takes none")

    # ------------------------------------------------------------ what is known
    def tiling_value(self, struct, at):
        value = super().tiling_value(struct, at)
        if isinstance(value, TilingVal):
            for name, member in value.members.items():
                if isinstance(member, TilingField):
                    value.members[name] = CNum(*self.values.get(name, (0, "int")))
                elif isinstance(member, TilingArray) and name in self.values:     # its elements (.tiling_arrays)
                    elements, ctype = self.values[name]
                    value.members[name] = tuple(CNum(v, ctype) for v in elements)
        return value

    def call(self, node, fn, arg_nodes):
        ident = fn.last
        if ident == "GetBlockIdx":
            return CNum(self.core, "int64_t")
        if ident == "GetBlockNum":
            return CNum(self.block_dim, "int64_t")
        if ident == "TILING_KEY_IS":
            key = self.eval(arg_nodes[0])
            if not isinstance(key, CNum):
                refuse(node, render(node), "a tiling key that is not a constant")
            return CNum(int(self.tiling_key == key.value), "int")
        return super().call(node, fn, arg_nodes)

    def construct(self, node, tval, name, args):
        if tval.cname in _PARAMS:
            p = _Params(tval.cname)
            for k, a in zip(_PARAM_FIELDS, args):
                p.members[k] = a
            return p
        return super().construct(node, tval, name, args)

    def declare(self, decl):
        names = []
        for name, init, ctor in decl.names:       # DataCopyExtParams p{1, n, 0, 0, 0}: a braced initialiser
            if init is not None and type(init).__name__ == "InitList" and self.type_of(decl.type).cname in _PARAMS:
                self.scopes[-1][name] = self.construct(decl, self.type_of(decl.type), name,
                                                       [self.eval(i) for i in init.items])
                continue
            names.append((name, init, ctor))
        if names:
            super().declare(type(decl)(decl.type, tuple(names), decl.at))

    def assign(self, target, value, node):
        if type(target).__name__ == "Member":
            obj = self.eval(target.obj)
            if isinstance(obj, _Params):
                obj.members[target.name] = value
                return
        super().assign(target, value, node)

    def cast(self, node, tval, value, ptr=""):
        if ptr and isinstance(value, (GMAddr, _GMPtr)):
            unit = _SIZES.get(tval.cname)
            if unit is None:
                refuse(node, f"a GM pointer to {tval.cname}", "an element type the schedule does not know")
            return _GMPtr(value.name, getattr(value, "byte", 0), unit)
        return super().cast(node, tval, value, ptr)

    def _combine(self, node, op, a, b):
        if isinstance(a, (GMAddr, _GMPtr)) and op in ("+", "-"):
            if not is_int(b):
                refuse(node, f"a GM address plus {render(node)}", "an offset known only at run time")
            unit = getattr(a, "unit", 1)
            return _GMPtr(a.name, getattr(a, "byte", 0) + (b.value if op == "+" else -b.value) * unit, unit)
        return super()._combine(node, op, a, b)

    def _eval_Unary(self, node):
        if node.op in ("++", "--", "post++", "post--"):
            old = self.eval(node.x)
            if not is_int(old):
                refuse(node, render(node), "a counter known only at run time")
            new = convert(arith("+" if node.op.endswith("++") else "-", old, CNum(1, "int")), old.ctype)
            self.assign(node.x, new, node)
            return old if node.op.startswith("post") else new
        return super()._eval_Unary(node)

    def _eval_Index(self, node):
        obj = self.eval(node.obj)
        if isinstance(obj, GlobalT):
            index = self.eval(node.index)
            if not is_int(index):
                refuse(node, f"{render(node)}", "an offset known only at run time")
            return _GlobalAt(obj, index.value)
        return super()._eval_Index(node)

    def call_method(self, node, obj, name, targs, args):
        if isinstance(obj, GlobalT) and name == "SetGlobalBuffer":
            ptr = args[0] if args else None
            if not isinstance(ptr, (GMAddr, _GMPtr)):
                refuse(node, f"{obj.name}.SetGlobalBuffer", "its address is not a GM_ADDR argument")
            byte, unit = getattr(ptr, "byte", 0), self._unit(obj)
            if byte % unit:
                refuse(node, f"{obj.name}.SetGlobalBuffer at byte {byte}", "not a whole element")
            obj.gm, self.bases[obj.name] = ptr.name, byte // unit
            note_binding(obj, node.args[0])         # where GetValue may read (.gm_scalars)
            return None
        return super().call_method(node, obj, name, targs, args)

    # ------------------------------------------------------------ control flow
    def runtime_branch(self, stmt):
        cond = self.eval(stmt.cond)
        if isinstance(cond, (Symbolic, TilingField)):
            refuse(stmt, f"a branch on {render(stmt.cond)}", "not known for the launch")
        way = decided_attribute(stmt, cond, self.attributes)     # an attribute value (.launch_branch)
        if way is not False:
            self.branch_taken(stmt, way is stmt.then)
            if way is not None:
                self.run(way)
            return
        refuse_branch(stmt, cond)          # (.launch_scalars)
        self._both_ways(stmt)       # a value known only at run time: a guard, or the same vector calls

    def loop(self, stmt):
        if fill_loop(self, stmt):                 # a Duplicate (.fill_loop)
            return
        start = len(self.events)

        def count():
            self.iterations += 1
            if self.iterations > MAX_ITERATIONS:
                refuse(stmt, "a loop", f"more than {MAX_ITERATIONS} iterations on core {self.core}")
        run_loop(self, stmt, count)               # continue and break taken (.loop_control)
        if len(self.events) > start and (self.loop_start is None or start < self.loop_start):
            self.loop_start = start               # the outermost loop that copies or computes: the tiles'

    # ------------------------------------------------------------ what a tile does
    def data_copy(self, node, args):
        dst, src = args[0], args[1]
        pad = node.fn.last == "DataCopyPad"
        if isinstance(dst, Tensor) and isinstance(src, (_GlobalAt, GlobalT)):
            kind, view = "load", src
        elif isinstance(dst, (_GlobalAt, GlobalT)) and isinstance(src, Tensor):
            kind, view = "store", dst
        elif isinstance(dst, Tensor) and isinstance(src, Tensor) and not pad:     # in the UB (.local_copy)
            count = self._count(node, args[2] if len(args) > 2 else None, pad, _DTYPE_SIZES.get(dst.dtype, self.itemsize))
            self._used(dst.key, count, node)
            self._used(src.key, count, node)
            return None
        else:
            refuse(node, node.fn.last, "only GM -> local, local -> GM and local -> local copies are read")
        glob = view.glob if isinstance(view, _GlobalAt) else view
        if glob.gm is None:
            refuse(node, f"GlobalTensor {glob.name}", "never bound to a GM_ADDR by SetGlobalBuffer")
        gm = glob.gm
        offset = self.bases.get(glob.name, 0) + (view.offset if isinstance(view, _GlobalAt) else 0)
        rows = self._rows(node, args[2] if len(args) > 2 else None, pad, kind == "load", offset, self._unit(glob))
        count = max(ub + n for ub, _, n in rows)       # the local elements the copy covers
        key = (dst if kind == "load" else src).key
        self._used(key, count, node)
        self.stores += kind == "store"
        views = getattr(self, "bit_views", {})
        name = self.names.get(views.get(key, key), views.get(key, key))      # its name in the read program
        self.events.append(("copy", kind, key, gm, offset, count, node.at, rows, name))
        return None

    def _rows(self, node, arg, pad, load, offset, itemsize):
        """A GM copy's rows (.split_loads): one for a count, those of its parameter struct's blocks."""
        if isinstance(arg, tuple):         # DataCopyPad(dst, src, {1, bytes, 0, 0, 0}, ...)
            arg = _Params("DataCopyExtParams", dict(zip(_PARAM_FIELDS, arg)))
        if isinstance(arg, _Params):
            return copy_rows(node, arg.members, pad, load, offset, itemsize)
        return ((0, offset, self._count(node, arg, pad, itemsize)),)

    def _unit(self, glob) -> int:
        """A GlobalTensor's element size: its own type's (a ``GlobalTensor<uint8_t>`` beside float ones: issue 43,
        .byte_tensors), else the launch's dtype's."""
        return _SIZES.get(getattr(glob.ctype, "cname", None), self.itemsize)

    def _count(self, node, arg, pad, itemsize):
        name = node.fn.last
        if is_int(arg) and not pad:
            if arg.value * itemsize % _BLOCK:
                refuse(node, f"{name} of {arg.value} elements", f"{arg.value * itemsize} bytes, not whole "
                       f"{_BLOCK}-byte blocks (DataCopyPad copies those)")
            return arg.value
        if isinstance(arg, tuple):         # DataCopyPad(dst, src, {1, bytes, 0, 0, 0}, ...)
            arg = _Params("DataCopyExtParams", dict(zip(_PARAM_FIELDS, arg)))
        if isinstance(arg, _Params):
            values = {k: v.value if isinstance(v, CNum) else None for k, v in arg.members.items()}
            if values.get("blockCount", 1) != 1:
                refuse(node, f"{name} of {values.get('blockCount')} blocks", "a strided copy is not a tile")
            length = values.get("blockLen")
            if isinstance(length, int):
                unit = 1 if pad else _BLOCK              # DataCopyPad: bytes; DataCopy: 32-byte blocks
                if length * unit % itemsize:
                    refuse(node, f"{name} of {length * unit} bytes", "not a whole number of elements")
                return length * unit // itemsize
        refuse(node, f"{name}'s length ({render(node.args[2]) if len(node.args) > 2 else 'none'})",
               "not known for the launch" if arg is not None else "no length given")

    def vector_call(self, node, op, args, trailing, counted=False):
        super().vector_call(node, op, args, trailing, counted=False)
        step = self.events[-1].step
        count = args[-1].value if counted and isinstance(args[-1], CNum) else None
        if count is not None:
            for i, a in enumerate(args):
                if isinstance(a, Tensor):      # a mask holds a bit per element (issue 43, .mask_words)
                    mask = is_mask_operand(step.op, i, self.dtypes.get(a.key, a.dtype))
                    self._used(a.key, mask_bytes(count) if mask else count, node, op)
        keys = tuple(a.key for a in args if isinstance(a, Tensor))
        self.events[-1] = ("step", step.op, tuple(step.at), count, node.at, keys, self.stores)
        return None


class _VecScheduleMachine(VecScopeMixin, _ScheduleMachine):
    """A ``__VEC_SCOPE__``'s schedule (issue 43, .vec_scope): its loop one pass over the tile, its store no copy."""

    def vec_store(self, node, key, src):
        return None


def core_schedule(symbols, fn, cname, gm, values, core, block_dim, tiling_key, expected_steps,
                  attributes=None) -> list:
    """The tiles core ``core`` of ``block_dim`` walks, for one launch: ``values`` the record's fields,
    ``expected_steps`` ``(named, {variant: (calls, ways)})``: each variant's vector calls, ``(op, (file,
    line))`` as the abstract reading read them (the steps before Process's loop first), and the branches
    that chose it (:attr:`.description.Body.ways`); each tile is the one variant whose calls it made and
    whose branches it took the same way (a tiling-key switch taken the way this core takes it), which must
    be ``named`` where that is not None (the variant given by hand); ``attributes`` the
    record's float fields, which decide a branch on an attribute (.launch_branch). KernelSourceError
    where the schedule is not one the program computes."""
    m = _VecScheduleMachine(symbols, cname, gm, values, core, block_dim, tiling_key, attributes)
    tbind = {tp.name: TypeVal(cname) for tp in fn.tparams if tp.kind == "type"}
    if len(tbind) != len(fn.tparams):
        raise KernelSourceError(str(fn.at[0]), fn.at[1], f"kernel {fn.name.last}'s template arguments",
                                "the schedule of an entry with non-type template arguments is not followed")
    m.run_entry(fn, tbind)
    _parts_apart(m.ranges, in_place_casts(m.events, m.dtypes))
    start = m.loop_start if m.loop_start is not None else 0
    prologue = [e[1:3] for e in m.events[:start] if e[0] == "step"]
    tiles, pending, steps = [], {}, []
    ways, w = m.ways_taken, 0          # (events before it, key, taken), in order (.variant_ways)
    before = {}                        # the ifs decided before the loop: they hold for every tile
    while w < len(ways) and ways[w][0] <= start:
        before.setdefault(ways[w][1], set()).add(ways[w][2])
        w += 1
    for e in m.events[:start]:              # a tile loaded before the loop (pipelining: the first)
        if e[0] == "copy" and e[1] == "load":
            pending.setdefault(e[2], []).append(e)
        elif e[0] == "copy":
            raise KernelSourceError(e[6][0], e[6][1], "a store to GM before the tile loop",
                                    "a tile outside the loop that computes the tiles is not read")
    stored = set()
    for i, e in enumerate(m.events[start:], start):
        if e[0] == "step":
            steps.append(e)
        elif e[1] == "load":
            pending.setdefault(e[2], []).append(e)
        elif not steps and tiles and e[3] not in stored and (e[4], e[5]) == (tiles[-1].offset, tiles[-1].length):
            stored.add(e[3])        # another output of the tile just stored (.byte_tensors)
        else:           # each queue's oldest load: a tile loaded ahead of the one stored stays (pipelining)
            loads = [fifo.pop(0) for fifo in pending.values() if fifo]
            taken = {k: set(v) for k, v in before.items()}    # and those since the last tile's store
            while w < len(ways) and ways[w][0] <= i:
                taken.setdefault(ways[w][1], set()).add(ways[w][2])
                w += 1
            tiles.append(_tile(e, loads, steps, prologue, expected_steps, core, taken))
            steps, stored = [], {e[3]}
    return tiles


def _parts_apart(ranges, in_place=None):
    """Refuse where, within one tile, two parts of a local buffer (``buf`` and ``buf[n]``) that the kernel
    uses overlap: the program form holds them as separate tensors (but a view Cast in place from the float
    view at its byte: ``in_place``, .split_loads.in_place_casts)."""
    spans, in_place = {}, in_place or {}
    for tile, base, lo, hi, at, ident in ranges:      # two byte views from one byte are two tensors
        part = spans.setdefault((tile, base), {}).setdefault((lo, ident), [lo, hi, at, ident])
        part[1] = max(part[1], hi)
    for (tile, _), parts in spans.items():
        ordered = sorted(parts.values(), key=lambda p: p[0])
        for (lo, hi, _, a), (lo2, hi2, at, b) in zip(ordered, ordered[1:]):
            if hi > lo2 and not shares_bytes(in_place.get(tile, {}), (lo, hi, a), (lo2, hi2, b)):
                refuse(at, f"a local buffer's part from byte {lo2}", f"it overlaps the part from byte {lo} "
                       f"(to {hi}): the parts of a buffer are read as separate tensors")


def _tile(store, loads, steps, prologue, expected, core, taken) -> Tile:
    _, _, _, _, offset, length, at, rows, _ = store
    loaded = tuple((load[8], load[3], load[7], tuple(load[6])) for load in loads)
    tile = Tile(offset, length, "", rows, loaded)
    if not aligned(tile) and not splits(tile):
        for load in loads:
            if (load[4], load[5]) != (offset, length):
                raise KernelSourceError(load[6][0], load[6][1], f"a copy of {load[5]} elements at {load[4]}",
                                        f"core {core}'s tile stores {length} elements at {offset}: a tile's copies "
                                        "are one range")
    if not aligned(tile):        # a GM input's two halves, or copies of rows (.split_loads)
        length = check_tile(rows, [(ld[2], ld[8], ld[3], ld[7], ld[6]) for ld in loads], at, core)
    got = prologue + [s[1:3] for s in steps]
    where = steps[0][4] if steps else at
    named, variants = expected
    same_calls = [v for v, (calls, _) in variants.items() if got == list(calls)]
    chosen = [v for v in same_calls if compatible(variants[v][1], taken)]
    what = f"core {core}'s tile at element {offset}"
    if same_calls and not chosen:           # a branch went another way than on every path read with these calls
        (file, line, cond), way = next((k, c) for v in same_calls for k, c in variants[v][1]
                                       if k in taken and c not in taken[k])
        raise KernelSourceError(file, line, what, f"this core takes `if ({cond})` {'false' if way else 'true'}, "
                                f"on no path read with its calls{f' (the variant given: {named!r})' if named else ''}: "
                                "the path it takes was not read")
    if not chosen:
        raise KernelSourceError(where[0], where[1], what, "it computes other vector calls than the tile read (a "
                                "branch known for the launch chose them)" + (f", or its branches are not those "
                                f"of the variant given ({named!r})" if named is not None else ""))
    if len(chosen) > 1:             # the variant given by hand or not: one the core's branches may not have run
        raise KernelSourceError(where[0], where[1], what, f"the variants {chosen} make the same vector calls "
                                "and the branches this core took do not tell them apart")
    if named is not None and chosen != [named]:
        raise KernelSourceError(where[0], where[1], what, f"this core's branches chose the variant {chosen[0]!r}, "
                                f"not the one given ({named!r})")
    for s in steps:
        if s[3] is not None and s[3] < length:
            raise KernelSourceError(s[4][0], s[4][1], f"{s[1]} over {s[3]} elements",
                                    f"core {core}'s tile copies {length}: the rest would be stored uncomputed")
    if offset < 0 or length < 0:
        raise KernelSourceError(at[0], at[1], f"a copy of {length} elements at {offset}", "outside the tensor")
    return Tile(offset, tile.length, chosen[0], rows, loaded, tuple(at))
