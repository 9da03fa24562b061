"""Attribute aliases (issue 40): an attribute the functional face takes under other keyword names too
(``Attribute(..., aliases=("scale", "sconf"))``: SwishGrad's beta, also named as the operators' record fields).
The aliases are keyword-only, after ``platform``, None by default, and the attribute's own default is None
(an optional attribute: None is its default); at most one spelling may be given, and a refused value is
named by the spelling given."""
from __future__ import annotations

import inspect

__all__ = ["aliased_signature", "resolve_aliases"]


def aliased_signature(desc, sig: inspect.Signature) -> inspect.Signature:
    """``sig`` with each aliased attribute defaulting to None and its aliases added, keyword-only."""
    aliased = {a.name: a.aliases for a in desc.attributes if a.aliases}
    if not aliased:
        return sig
    params = [p.replace(default=None) if p.name in aliased else p for p in sig.parameters.values()]
    params += [inspect.Parameter(alias, inspect.Parameter.KEYWORD_ONLY, default=None)
               for aliases in aliased.values() for alias in aliases]
    return sig.replace(parameters=params)


def resolve_aliases(desc, values: dict) -> dict:
    """Moves an alias's value to its attribute in ``values`` (by functional name); returns the spellings used
    (attribute name -> the keyword given), for the error messages. TypeError where two spellings are given."""
    names = {}
    for a in desc.attributes:
        if not a.aliases:
            continue
        given = [n for n in (a.name, *a.aliases) if values.get(n) is not None]
        if len(given) > 1:
            raise TypeError(f"{a.name} was given more than once (as {', '.join(given)}); use {a.name}")
        if given:
            values[a.name] = values[given[0]]
            names[a.name] = given[0]
    return names
