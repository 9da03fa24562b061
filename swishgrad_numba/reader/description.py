"""What the reader reads out of a kernel: a neutral description, close to the program form.

A :class:`KernelDescription` holds the entry's GM arguments, the tiling
struct's fields and one :class:`Body` per dtype (and per tiling-key variant,
where the entry picks a different Compute by a template argument). A body's
:class:`Step`\\ s are upstream's vector calls, destination first, with the
trailing count (and MicroAPI mask) left out; operands are tensor names,
:class:`AttrRef` (a tiling-struct field), :class:`Constant` or a round-mode
name, or :class:`ScalarProduct`. Converting a body into
:class:`swishgrad_numba.program.Program` is one renaming: Step -> Instr,
AttrRef -> Attr, Constant -> Const(value, text), ScalarProduct -> Product.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from ..program.form import c_float

__all__ = ["AttrRef", "Constant", "ScalarProduct", "Step", "Body", "TilingStruct", "KernelDescription"]


@dataclass(frozen=True)
class AttrRef:
    """A scalar operand that is a float field of the tiling struct (an operator attribute)."""

    name: str

    def __str__(self):
        return self.name


@dataclass(frozen=True)
class Constant:
    """A float32 scalar operand: ``value`` (already rounded to float32), ``text`` the
    double expression it was written as (evaluated in double, rounded once; "" for a
    plain literal), ``name`` the C++ constant it came from ("" if written inline)."""

    value: float
    text: str = ""
    name: str = field(default="", compare=False)

    def __str__(self):
        return f"(float)({self.text})" if self.text else c_float(self.value)


@dataclass(frozen=True)
class ScalarProduct:
    """A scalar operand computed once on the scalar unit: ``a * b`` of an attribute and a
    float32 constant (or two attributes), rounded to float once (the A2 Swish's
    ``this->scale = -1.0f * scale``)."""

    a: object
    b: object

    def __str__(self):
        return f"({self.a} * {self.b})"


@dataclass(frozen=True)
class Step:
    """One vector instruction: upstream's name and its operands in upstream's order."""

    op: str
    args: tuple
    at: tuple = field(default=("", 0), compare=False)    # (file, line) of the call

    def __str__(self):
        return f"{self.op}({', '.join(str(a) for a in self.args)});"


@dataclass(frozen=True)
class Body:
    """Compute for one dtype: ``inputs`` ((GM name, tensor), ...) that it reads, in the
    entry's GM order; ``output`` (GM name, tensor); ``tensors`` ((name, dtype), ...) in
    order of first use; ``steps``; ``attrs`` (tiling fields read); ``variant`` the
    template condition that selects this body ("" where there is one body per dtype);
    ``dag_wide`` (the DAG style) whether a DAG node's result, a tensor in UB between nodes, is
    float32 (a register inside a MicroAPI node is not one)."""

    dtype: str
    inputs: tuple
    output: tuple
    tensors: tuple
    steps: tuple
    attrs: tuple = ()
    variant: str = ""
    buffer_num: int | None = None
    dag_wide: bool | None = None
    bit_views: tuple = ()       # (view, buffer) names: ReinterpretCast's bit views (issue 43, .bitviews)
    called: tuple = ()          # (op, (file, line)) of every vector call, dead ones too, where a dead call
    #                             reading an unwritten tensor was left out of steps (issue 43, .dead_reads)
    scalars: tuple = ()         # (name, LaunchScalar): scalars computed from attributes per launch (.launch_scalars)
    ways: tuple = ()            # ((file, line, condition), taken): the branches that chose the variant (.variant_ways)
    load_lines: tuple = ()      # (input tensor, ((file, line), ...)): where a split input is copied in (.split_loads)
    outputs: tuple = ()         # ((GM name, tensor), ...) where the kernel stores to several (.byte_tensors)

    def dtype_of(self, tensor: str) -> str:
        return dict(self.tensors)[tensor]

    def __str__(self):
        ins = ", ".join(f"{g}->{t}" for g, t in self.inputs)
        head = f"[{self.dtype}{' ' + self.variant if self.variant else ''}] in({ins}) out({self.output[1]}->" \
               f"{self.output[0]})"
        return "\n".join([head] + ["    " + str(s) for s in self.steps])


@dataclass(frozen=True)
class TilingStruct:
    """The tiling-data struct: its name and fields ((name, C type), ...) in order; ``at`` each
    field's (file, line), where read. ``opbase``: one of opbase's element-wise structs, used as it
    is (not in the folder); its ``fields`` are then only the DAG's ``Placeholder::Var`` scalars it
    carries in ``scalarData`` (``var<i>``, in index order), its layout the host's
    (:data:`swishgrad_numba.reader.host_tiling.OPBASE_STRUCTS`) and ``named_at`` the (file, line) where the
    kernel names it."""

    name: str
    fields: tuple
    at: tuple = field(default=(), compare=False)
    opbase: bool = False
    named_at: tuple = field(default=("", 0), compare=False)

    def float_fields(self) -> tuple:
        return tuple(n for n, t in self.fields if t in ("float", "double"))


@dataclass(frozen=True)
class KernelDescription:
    """A kernel as read: ``name`` (the ``__global__`` function), ``style`` ("a2" class
    style or "dag"), ``entry`` (its file), ``gm_params`` (the ``GM_ADDR`` parameters
    but workspace and tiling), ``tiling`` (:class:`TilingStruct` or None where the
    struct is the scheduler's own), ``bodies``; ``builds``: per dtype, the macros of the build its bodies
    were read with, where the sources test the build's dtype flags (``DTYPE_X``, ``ORIG_DTYPE_X``)."""

    name: str
    style: str
    entry: str
    gm_params: tuple
    tiling: TilingStruct | None
    bodies: tuple
    builds: dict = field(default_factory=dict, compare=False)

    @property
    def dtypes(self) -> tuple:
        return tuple(dict.fromkeys(b.dtype for b in self.bodies))

    def variants(self, dtype: str) -> tuple:
        return tuple(b.variant for b in self.bodies if b.dtype == dtype)

    def body(self, dtype: str, variant: str = "") -> Body:
        for b in self.bodies:
            if b.dtype == dtype and b.variant == variant:
                return b
        raise KeyError(f"{self.name}: no body for {dtype!r}" + (f" variant {variant!r}" if variant else "")
                       + f"; there are {[(b.dtype, b.variant) for b in self.bodies]}")

    @property
    def inputs_read(self) -> tuple:
        """The GM inputs some body reads, in the entry's order (an argument never read may be left out)."""
        read = {g for b in self.bodies for g, _ in b.inputs}
        return tuple(g for g in self.gm_params if g in read)
