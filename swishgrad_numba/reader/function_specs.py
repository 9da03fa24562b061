"""Which definition a call of a function template runs (issue 43): an explicit specialization
(``template <> bfloat16_t FloatToT<bfloat16_t>(float v)``) where the call's template arguments are its
own, else the primary template with its parameters bound. A call whose arguments C would deduce, of a
function with specializations, is refused (the reader does not deduce template arguments)."""
from __future__ import annotations

from .abstract import refuse

__all__ = ["pick_function"]


def pick_function(m, node, fn):
    """(Function, template environment) for the call ``fn(...)`` of the kernel's own function ``fn.last``."""
    name = fn.last
    targs = tuple(m.type_or_value(a) for a in fn.targs or ())
    specs = m.symbols.function_specs.get(name, ())
    if specs and fn.targs is None:
        refuse(node, f"a call of {name} without template arguments", "it has explicit specializations, and which "
               "one C would deduce is not read: name the template arguments")
    for spec in specs:
        if tuple(m.type_or_value(a) for a in spec.name.segs[-1][1]) == targs:
            return spec, {}
    if name not in m.symbols.functions:
        refuse(node, f"unknown call {fn.text()}", f"no specialization of {name} for these template arguments, "
               "and no primary template in the sources")
    f = m.symbols.functions[name]
    return f, {tp.name: a for tp, a in zip(f.tparams, targs)}
