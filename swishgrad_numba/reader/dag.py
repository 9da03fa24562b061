"""The 950 DAG style: ``ElementwiseSch<mode, Dag<T>::OpDag>`` in the entry, the DAG a
struct of ``using N = Bind<Vec::Op<T>, inputs...>`` lines.

A DAG is read from its outputs back, each ``Bind`` once, inputs in order: the
node's alias names its result. ``Vec::CopyIn`` of ``Placeholder::In<k>`` loads the
scheduler's k-th GM input, ``Vec::CopyOut`` stores; ``Vec::Cast<R, T, mode>``
and the ``Vec::`` vector ops are one step each; ``MAKE_CONST`` is a constant,
``Placeholder::Var<float, i>`` the attribute set by ``SetVar<float, i>`` (``var<i>``
where the scheduler takes it from its own struct), ``Placeholder::In<k><T, ScalarAttr<1>>`` as an op's scalar
the first element of GM input k (a launch scalar, :mod:`.gm_scalars`). A same-type ``Vec::Cast`` is
removed, as the scheduler does. A
node of the kernel's own (a struct with a MicroAPI loop) is :mod:`.microapi`'s.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field, replace

from .a2 import ClassMachine
from .broadcast_sch import BROADCAST_STRUCT
from .dag_ops import vec_compare, vec_copy, vec_mask_op
from .dag_structs import MAX_FORWARDS, dag_struct, forwarded_dag
from .erf_inline import inline_erf
from ..program.erf import SUBSECTION
from .description import AttrRef, Step
from .instructions import COMPARE_OPS, ROUND_MODES, SPELLINGS, VECTOR_CALLS
from .machine import refuse
from .microapi import MicroMixin
from .vec_scope import VecScopeMixin
from .objects import Event
from .syntax import Call, Name, Type
from .values import CNum, TypeVal, as_constant, render

__all__ = ["DagMachine"]

_SCHEDULERS = ("ElementwiseSch", "ElementwiseSchWithScalar", "ElementwiseSch16B", "BroadcastSch")
_PLACEHOLDER = re.compile(r"^(In|Out)(\d+)$")


@dataclass(eq=False)
class Sched:
    """An elementwise scheduler object: its DAG (owner class, arguments, alias), vars and GM arguments."""
    dag: TypeVal
    vars: dict = field(default_factory=dict)
    gm: tuple = ()
    kind: str = ""


class DagMachine(MicroMixin, VecScopeMixin, ClassMachine):
    scheduled = False

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.struct_vars = set()        # the Placeholder::Var indices no SetVar sets
        self.node_dtypes = set()        # the dtypes of the DAG nodes' results (UB tensors)

    def construct(self, node, tval, name, args):
        if tval.cname in _SCHEDULERS:
            dags = [a for a in tval.args if isinstance(a, TypeVal) and a.owner]
            if len(dags) != 1:
                refuse(node, f"{tval.cname} {name}", "its DAG is not a member type of a DAG struct")
            if tval.cname == "BroadcastSch" and not self.tiling_struct:   # its record: .broadcast_sch
                self.tiling_struct, self.tiling_struct_at = BROADCAST_STRUCT, node.at
            return Sched(dags[0], kind=tval.cname)
        if tval.cname.endswith("Sch") or "Sch<" in tval.cname:
            refuse(node, f"{tval.cname} {name}", f"the reader knows the element-wise schedulers {_SCHEDULERS}")
        return super().construct(node, tval, name, args)

    def call_method(self, node, obj, name, targs, args):
        if not isinstance(obj, Sched):
            return super().call_method(node, obj, name, targs, args)
        if name == "SetVar":
            if obj.kind == "ElementwiseSchWithScalar":
                # its Init fills every Var from the struct's scalarData (opbase elewise_sch_with_scalar.h:62)
                refuse(node, "SetVar on an ElementwiseSchWithScalar",
                       "its Vars are the struct's scalarData, which Init reads over any SetVar before it")
            obj.vars[targs[1].value] = args[0]
        elif name == "Init":
            obj.gm = tuple(a.name if hasattr(a, "name") else None for a in args)
        elif name == "Process":
            if obj.kind == "BroadcastSch":      # Process(inputs..., outputs...): no Init (relu_grad_apt.cpp:34)
                obj.gm = tuple(a.name if hasattr(a, "name") else None for a in args)
            self.scheduled = True
            try:
                self.run_dag(node, obj)
            except _OtherDtype:         # the path computes an integer dtype: none of the dtypes read
                self.events.clear()
        else:
            refuse(node, f"scheduler call {name}")
        return None

    # ------------------------------------------------------------ the DAG
    def run_dag(self, node, sched, depth=0):
        cls_name, owner_args = sched.dag.owner
        cls, env = dag_struct(self, node, cls_name, owner_args)
        inner = forwarded_dag(self, cls, env, sched.dag.cname)
        if inner is not None:           # using OpDag = typename Other<U, float>::OpDag: that struct's DAG
            if depth >= MAX_FORWARDS:
                refuse(node, f"DAG {cls_name}", f"more than {MAX_FORWARDS} DAG members naming another's")
            return self.run_dag(node, replace(sched, dag=inner), depth + 1)
        self.dag = _Dag(cls, env, sched, {a.name: a for a in cls.aliases}, {})
        for decl in cls.fields:         # the struct's own constants (constexpr static int CAST_MODE_RINT = 1)
            for fname, init, _ in decl.names:
                if init is not None:
                    env[fname] = self._in_env(lambda init=init: self.eval(init))
        for a in cls.aliases:
            self._scan_placeholders(a.type)
        outputs = self._alias(node, sched.dag.cname)
        top = _unwrap(outputs.type)
        if not isinstance(top, Name) or top.last not in ("DAGSch", "Elems"):
            refuse(outputs, f"DAG member {outputs.name}", "the scheduler's DAG is a DAGSch<Outputs, ...> (or Elems<...>)")
        n_in = len({k for k in self.dag.placeholders if k[0] == "In"})
        self.dag.gm_in, self.dag.gm_out = sched.gm[:n_in], sched.gm[n_in:]
        self._visit(outputs)
        self.check_clobbered()

    def _alias(self, node, name):
        alias = self.dag.aliases.get(name)
        if alias is None:
            refuse(node, f"DAG member {name}", f"not a using-declaration of {self.dag.cls.name}")
        return alias

    def _scan_placeholders(self, node):
        text = render(node)
        for kind, k in re.findall(r"Placeholder::(In|Out)(\d+)", text):
            self.dag.placeholders.add((kind, int(k)))

    def _visit(self, alias):
        """Emit the node ``alias`` (after its inputs); its result tensor's key (a node of a form the
        reader does not read is refused at its using-declaration)."""
        try:
            return self._visit_node(alias)
        except (IndexError, AttributeError, TypeError, KeyError) as exc:
            refuse(alias, f"DAG node {alias.name}", f"not in a form the reader reads ({type(exc).__name__})")

    def _visit_node(self, alias):
        dag = self.dag
        if alias.name in dag.done:
            return dag.done[alias.name]
        t = _unwrap(alias.type)
        head = t.last if isinstance(t, Name) else None
        if head in ("DAGSch", "Elems"):
            outs = t.targs[:1] if head == "DAGSch" else t.targs      # DAGSch<Outputs, void, MemCfg>
            keys = [self._visit(self._alias(alias, _unwrap(a).last)) for a in outs]
            dag.done[alias.name] = keys
            return keys
        if head != "Bind":
            refuse(alias, f"DAG node {render(alias.type)}", "a DAG node is Bind<op, inputs...>")
        op, *inputs = t.targs
        opname = _unwrap(op)
        args = [self._input(alias, a) for a in inputs]
        key = self._node(alias, opname, args)
        self.node_dtypes.add(self.dtypes.get(key))
        dag.done[alias.name] = key
        return key

    def _input(self, alias, node):
        """A Bind input: a tensor key, a scalar, or a placeholder."""
        n = _unwrap(node)
        if isinstance(n, Call) and isinstance(n.fn, Name) and n.fn.last == "MAKE_CONST":
            return as_constant(self._in_env(lambda: self.eval(n.args[1])))
        if isinstance(n, Name) and len(n.segs) >= 2 and n.segs[-2][0] == "Placeholder":
            m = _PLACEHOLDER.match(n.last)
            if m:
                return (m.group(1), int(m.group(2)))
            if n.last == "Var":
                i = self._in_env(lambda: self.type_or_value(n.targs[1])).value
                if i not in self.dag.sched.vars:
                    # taken from the struct by the scheduler (ElementwiseSchWithScalar's scalarData)
                    vtype = self._in_env(lambda: self.type_or_value(n.targs[0]))
                    if getattr(vtype, "cname", None) != "float":
                        refuse(alias, f"Placeholder::Var<{render(n.targs[0])}, {i}>",
                               "a scalar the scheduler takes from its struct is read as a float only")
                    self.struct_vars.add(i)
                    return AttrRef(f"var{i}")
                value = self.dag.sched.vars[i]
                if not isinstance(value, (AttrRef, CNum)):
                    refuse(alias, f"Placeholder::Var<{i}>", "its SetVar value is not a tiling field")
                return value if isinstance(value, AttrRef) else as_constant(value)
            refuse(alias, f"placeholder {n.last}")
        if isinstance(n, Name) and n.last in self.dag.aliases and len(n.segs) == 1:
            inner = self.dag.aliases[n.last]
            if _is_const(inner.type):
                return self._input(inner, inner.type)
            if "ScalarAttr" in render(inner.type):       # ops-nn threshold_v2: In1<T, Placeholder::ScalarAttr<1>>
                return self._gm_scalar(inner)
            return self._visit(self._alias(alias, n.last))
        refuse(alias, f"DAG input {render(node)}")

    def _gm_scalar(self, alias):
        """``Placeholder::In<k><T, Placeholder::ScalarAttr<1>>`` bound as an op's scalar: element 0 of GM input k
        as a ``T``, which opbase's scheduler reads by ``GetValue(0)`` (``atvoss/elewise/elewise_sch.h``,
        ``GetScalar``, lines 287-291); a launch scalar, read from that input when the kernel runs (.gm_scalars)."""
        from .gm_scalars import GMValue, check_dtype
        from .launch_scalars import LaunchScalar

        n = _unwrap(alias.type)
        m = _PLACEHOLDER.match(getattr(n, "last", ""))
        attr = render(n.targs[1]) if getattr(n, "targs", None) and len(n.targs) == 2 else ""
        if not m or m.group(1) != "In" or attr.replace(" ", "") != "Placeholder::ScalarAttr<1>":
            refuse(alias, f"DAG input {render(alias.type)}", "a scalar input is In<k><T, Placeholder::ScalarAttr<1>>")
        k = int(m.group(2))
        tval = self._in_env(lambda: self.type_or_value(n.targs[0]))
        dtype = check_dtype(alias, f"DAG input {render(alias.type)}", tval)
        return LaunchScalar("gm", (GMValue(self.dag.gm_in[k], 0, dtype, tval.cname),))

    def _in_env(self, fn):
        saved = self.scopes
        self.scopes = [self.scopes[0], dict(self.dag.env)]
        try:
            return fn()
        finally:
            self.scopes = saved

    def _node(self, alias, op: Name, args):
        dag, name = self.dag, alias.name
        targs = self._in_env(lambda: tuple(self.type_or_value(a) for a in op.targs or ()))
        kind = op.last
        if kind in ("CopyIn", "CopyInBrc") and len(op.segs) >= 2 and op.segs[-2][0] == "Vec":
            if getattr(targs[0], "cname", None) in _OTHER_DTYPES:
                raise _OtherDtype()         # an integer dtype's path (relu_apt.cpp:44, key 104: int8_t)
            self._tensor_key(alias, name, targs[0])
            self.events.append(Event("load", key=name, gm=dag.gm_in[args[0][1]]))
            return name
        if kind == "CopyOut" and len(op.segs) >= 2 and op.segs[-2][0] == "Vec":
            self.events.append(Event("store", key=args[1], gm=dag.gm_out[args[0][1]]))
            return args[1]
        if kind == "Cast" and len(op.segs) >= 2 and op.segs[-2][0] == "Vec":
            if targs[0] == targs[1]:
                # a same-type Cast is a no-op that the DAG scheduler removes (opbase atvoss/util/dag.h,
                # docs/model.md on the 950 SwishZero): the node's result is its input
                return args[0]
            mode = ROUND_MODES.get(targs[2].value)
            if mode is None:
                refuse(alias, f"Vec::Cast round mode {targs[2].value}", f"the reader knows {ROUND_MODES}")
            self._tensor_key(alias, name, targs[0])
            self.events.append(Event("step", Step("Cast", (name, args[0], mode), alias.at)))
            return name
        if kind == "Copy" and len(op.segs) >= 2 and op.segs[-2][0] == "Vec":
            return vec_copy(self, alias, targs, args)       # the same values: its input's (.dag_ops)
        if kind in ("Compare", "Select") and len(op.segs) >= 2 and op.segs[-2][0] == "Vec":
            return vec_compare(self, alias, name, kind, targs, args)
        if kind in ("And", "Or") and len(op.segs) >= 2 and op.segs[-2][0] == "Vec":
            return vec_mask_op(self, alias, name, kind, targs, args)       # of two masks: .dag_ops
        if kind == "FusedMulDstAdd" and len(op.segs) >= 2 and op.segs[-2][0] == "Vec":
            refuse(alias, f"DAG op Vec::{kind}", "not a Vec:: op the reader knows")
        if kind == "Erf" and len(op.segs) >= 2 and op.segs[-2][0] == "Vec" and len(args) == 1:
            self._tensor_key(alias, name, targs[0])        # opbase's Vec::Erf: the subsection routine
            inline_erf(self, alias, SUBSECTION, name, args[0])
            return name
        if len(op.segs) >= 2 and op.segs[-2][0] == "Vec" and VECTOR_CALLS.get(kind, "D")[0] == "d" \
                and kind not in COMPARE_OPS:
            kinds = VECTOR_CALLS[kind]
            if len(args) != len(kinds) - 1:
                refuse(alias, f"Vec::{kind} with {len(args)} inputs")
            self._tensor_key(alias, name, targs[0])
            self.events.append(Event("step", Step(SPELLINGS.get(kind, kind), (name, *args), alias.at)))
            return name
        if kind in self.symbols.classes:
            return self.custom_node(alias, self.symbols.classes[kind], targs, args)
        refuse(alias, f"DAG op {render(op)}", "not a Vec:: op the reader knows, nor a node of the sources")

    def _tensor_key(self, alias, key, tval):
        if not isinstance(tval, TypeVal) or tval.dtype is None:
            refuse(alias, f"{key} of type {tval}", "not float, half or bfloat16_t")
        self.dtypes[key] = tval.dtype
        self.names[key] = key


#: GM element types of the paths a kernel takes for its integer dtypes (issue 43): such a path is left out,
#: as a path computing another float dtype is (:func:`.read._read` keeps a dtype's own).
_OTHER_DTYPES = frozenset(("int8_t", "int16_t", "int32_t", "int64_t", "uint16_t", "uint32_t", "uint64_t"))


class _OtherDtype(Exception):
    """A DAG that copies in an integer tensor: another dtype's path."""


@dataclass
class _Dag:
    cls: object
    env: dict
    sched: Sched
    aliases: dict
    done: dict
    placeholders: set = field(default_factory=set)
    clobbered: dict = field(default_factory=dict)
    gm_in: tuple = ()
    gm_out: tuple = ()


def _unwrap(node):
    return node.name if isinstance(node, Type) else node


def _is_const(node):
    n = _unwrap(node)
    return isinstance(n, Call) and isinstance(n.fn, Name) and n.fn.last == "MAKE_CONST"

