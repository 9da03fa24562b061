"""The file-level names of a kernel's sources: classes, aliases, functions, constants, enums.

Namespaces are flattened (kernels do not reuse a name across their own
namespaces); a name is looked up by its last segment.
"""
from __future__ import annotations

from .errors import KernelSourceError
from .syntax import Alias, ClassDef, Decl, Enum, Function, Namespace

__all__ = ["Symbols"]


class Symbols:
    def __init__(self):
        self.classes, self.aliases, self.functions, self.constants, self.enums = {}, {}, {}, {}, {}
        self.methods = {}     # (class, method) -> Function defined outside its class
        self.default_tiling = None    # (struct, (file, line)) op_host registers for the kernel's op
        self.host_given = False       # whether op_host was read
        self.variables = {}           # variable templates (issue 43): name -> Decl
        self.specializations = {}     # class template specializations (issue 43): name -> [ClassDef]
        self.function_specs = {}      # explicit specializations of function templates: name -> [Function]
        self.member_specs = {}        # template <> void C<bfloat16_t>::f(): (class, method) -> [Function]

    def add(self, items):
        for item in items:
            if isinstance(item, Namespace):
                self.add(item.items)
            elif isinstance(item, ClassDef) and item.spec is not None:     # read by .templates.class_value
                self.specializations.setdefault(item.name, []).append(item)
            elif isinstance(item, ClassDef):
                self.classes[item.name] = item
            elif isinstance(item, Alias):
                self.aliases[item.name] = item
            elif isinstance(item, Enum):
                self.enums[item.name] = item
            elif isinstance(item, Decl) and item.tparams:      # a variable template: .templates
                for name, _, _ in item.names:
                    self.variables[name] = item
            elif isinstance(item, Decl):
                for name, init, _ in item.names:
                    self.constants[name] = (item.type, init, item.at)
            elif isinstance(item, Function) and item.body is not None:
                if len(item.name.segs) >= 2 and item.name.segs[-2][1] and not item.tparams:
                    self.member_specs.setdefault((item.name.segs[-2][0], item.name.last), []).append(item)
                elif len(item.name.segs) >= 2:
                    self.methods[(item.name.segs[-2][0], item.name.last)] = item
                elif item.name.segs[-1][1] is not None and not item.tparams:     # template <> f<X>(...)
                    self.function_specs.setdefault(item.name.last, []).append(item)     # (.scalar_puns)
                else:
                    self.functions[item.name.last] = item

    def method(self, cls: ClassDef, name: str, at, env=None) -> Function:
        """The body of ``cls``'s method ``name`` (defined in the class or outside it); with ``env`` (the
        instance's template arguments) an explicit specialization for them (``template <> void
        C<bfloat16_t>::f()``) where the sources have one."""
        for spec in self.member_specs.get((cls.name, name), ()) if env is not None else ():
            targs = spec.name.segs[-2][1]
            bound = [env.get(tp.name) for tp in cls.tparams]
            if len(targs) == len(bound) and all(getattr(b, "cname", None) == getattr(getattr(t, "name", None), "last",
                                                                                    None)
                                                for t, b in zip(targs, bound)):
                return spec
        for m in cls.methods:
            if m.name.last == name and m.body is not None:
                return m
        if (cls.name, name) in self.methods:
            return self.methods[(cls.name, name)]
        for base in cls.bases:
            if base.name.last in self.classes:
                return self.method(self.classes[base.name.last], name, at)
        raise KernelSourceError(at[0], at[1], f"call {cls.name}::{name}", "no body for it in the kernel's sources")

    def entries(self) -> tuple:
        """The ``__global__`` functions."""
        return tuple(f for f in self.functions.values() if "__global__" in f.specs)
