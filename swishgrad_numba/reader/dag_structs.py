"""Which struct holds a 950 DAG (issue 43): the scheduler's ``Dag<args>::OpDag`` names a member of a DAG
struct of the sources, read by :mod:`.dag`.

- A struct template with specializations (ops-nn ``softsign_dag.h``: ``GraphSoftsignByDtype<U>`` and its
  full specialization for ``float``) is the specialization whose arguments match, a full one before a
  partial one, else the primary template (:func:`.templates.class_value`'s rule).
- A member that names another struct's member, ``using OpDag = typename Other<U, float>::OpDag;``, is that
  struct's DAG, read in its place (the DAG of ``GraphSoftsignByDtype<half>`` is
  ``GraphSoftsignLowPrecision<half, float>``'s).
"""
from __future__ import annotations

from .machine import refuse
from .syntax import Name, Type
from .templates import specialization
from .values import TypeVal

__all__ = ["MAX_FORWARDS", "dag_struct", "forwarded_dag"]

#: How many members naming another struct's member a DAG may go through.
MAX_FORWARDS = 8


def dag_struct(m, node, name, owner_args):
    """The struct ``name<owner_args>``: (its definition, its template parameters bound)."""
    found = specialization(m, node, name, owner_args, f"DAG {name}")
    if found is not None:
        return found[0], dict(found[1])
    cls = m.symbols.classes.get(name)
    if cls is None:
        refuse(node, f"DAG {name}", "only specializations of it, none matching its arguments")
    missing = [tp.name for i, tp in enumerate(cls.tparams) if i >= len(owner_args) and tp.default is None]
    if missing:     # (issue 43 fuzz: a refusal at the scheduler, not one with no line)
        refuse(node, f"DAG {name}", f"no argument for its template parameter {missing[0]}")
    env = {}
    for i, tp in enumerate(cls.tparams):
        env[tp.name] = owner_args[i] if i < len(owner_args) else \
            _in_env(m, dict(env), lambda tp=tp: m.type_or_value(tp.default))
    return cls, env


def forwarded_dag(m, cls, env, member):
    """The DAG (a member type, its owner set) that ``cls``'s ``member`` names where it is another struct's
    member (``typename Other<args>::OpDag``); None where it is a DAG of ``cls``'s own."""
    alias = next((a for a in cls.aliases if a.name == member), None)
    t = alias.type.name if alias is not None and isinstance(alias.type, Type) else getattr(alias, "type", None)
    if not isinstance(t, Name) or len(t.segs) < 2 or t.segs[-2][0] not in _structs(m):
        return None
    inner = _in_env(m, dict(env), lambda: m.type_or_value(alias.type))
    if not isinstance(inner, TypeVal) or not inner.owner:
        refuse(alias, f"DAG member {alias.name}", "names a member of another struct that is not a DAG")
    return inner


def _structs(m):
    return set(m.symbols.classes) | set(m.symbols.specializations)


def _in_env(m, env, thunk):
    """``thunk()`` with the file scope and ``env`` as the machine's scopes."""
    saved, m.scopes = m.scopes, [m.scopes[0], env]
    try:
        return thunk()
    finally:
        m.scopes = saved
