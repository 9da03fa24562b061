"""A generated face's signature, its fast binding and its docstring (:mod:`.functional`, :mod:`.rows`, the torch
faces): ``(*inputs, *attributes=default, *, out=None, platform=None)`` from the operator's description."""
from __future__ import annotations

import inspect

__all__ = ["binder", "dtype_order", "face_docstring", "signature"]


def signature(desc) -> inspect.Signature:
    """``(*inputs, *attributes=default, *, out=None, platform=None)``."""
    kind = inspect.Parameter.POSITIONAL_OR_KEYWORD
    params = [inspect.Parameter(i.name, kind) for i in desc.inputs]
    params += [inspect.Parameter(a.name, kind, default=a.default) for a in desc.attributes]
    params += [inspect.Parameter(n, inspect.Parameter.KEYWORD_ONLY, default=None) for n in ("out", "platform")]
    return inspect.Signature(params)


_LISTED_FIRST = ("float32", "float16", "bfloat16", "float64")


def dtype_order(name: str) -> int:
    """Where a dtype's name comes in a face's lists of dtypes (the float dtypes first, in this order)."""
    return _LISTED_FIRST.index(name) if name in _LISTED_FIRST else len(_LISTED_FIRST)


_PROMOTION_DOCS = {"same": "one dtype", "promote": "two dtypes are cast to their promoted type",
                   "float32": "the kernel in the inputs' dtype where they agree and it takes it, else both Cast to "
                              "float32 and the result Cast to PyTorch's promoted floating dtype of the inputs"}


def face_docstring(desc) -> str:
    """The generated function's docstring: its parameters, their dtypes and rules, what it returns and raises."""
    ins = ", ".join(i.name for i in desc.inputs)
    lines = [f"{desc.summary}: operator ``{desc.name}`` ({desc.aclnn[1]}), generated from its description.", "",
             "Parameters", "----------", f"{ins} : numpy.ndarray",
             f"    dtypes {', '.join(sorted(desc.accepted_dtypes, key=dtype_order))} (the aclnn list; the "
             f"platform's SoC rules; {', '.join(desc.aicpu_dtypes) or 'none'} on the AICPU model, any platform); "
             f"{'shapes that broadcast' if desc.broadcast else 'one shape'}, at most {desc.max_dims} dimensions; "
             f"{_PROMOTION_DOCS[desc.promotion]}."]
    for a in desc.attributes:
        rule = ("rounded once to float32 (ToFloat; a bool is 1.0 or 0.0)" if a.kind == "float" else
                f"one of {a.choices}" if a.kind == "choice" else "a bool")
        kind = {"float": "real number", "choice": "str"}.get(a.kind, "bool")
        lines += [f"{a.name} : {kind}, default {a.default!r}",
                  f"    aclnn's ``{a.acl}``: {rule}."
                  + (f" Also ``{'=``, ``'.join(a.aliases)}=``." if a.aliases else "")]
    lines += ["out : numpy.ndarray, optional", "    Of the result's shape and dtype; any strides.",
              "platform : Platform, optional", "    The operator's default platform by default.", "",
              "Returns", "-------", "numpy.ndarray", "    ``out`` if given, else a new C-contiguous array.", "",
              "Raises", "------", "TypeError, ValueError", "    Naming the argument and the rule.",
              "", "Run ``swishgrad ops show " + desc.name + "`` for the whole description."]
    return "\n".join(lines)


def binder(sig: inspect.Signature):
    """``bind(args, kwargs) -> {name: value}`` in signature order, defaults applied: ``sig.bind`` and
    ``apply_defaults``, with a fast path for a call that binds (any other call gets ``sig.bind``'s error)."""
    params = tuple(sig.parameters.values())
    positional = tuple(p.name for p in params if p.kind is inspect.Parameter.POSITIONAL_OR_KEYWORD)
    names = tuple(p.name for p in params)
    defaults = {p.name: p.default for p in params if p.default is not inspect.Parameter.empty}

    def bind(args, kwargs):
        if len(args) <= len(positional):
            given = dict(zip(positional, args))
            for k, v in kwargs.items():
                if k in given or k not in defaults and k not in positional:
                    break
                given[k] = v
            else:
                try:
                    return {n: given[n] if n in given else defaults[n] for n in names}
                except KeyError:   # a required argument left out
                    pass
        bound = sig.bind(*args, **kwargs)
        bound.apply_defaults()
        return bound.arguments
    return bind
