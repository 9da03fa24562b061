"""Emulate your own kernel (issue 31): :func:`read_kernel` reads an op_kernel folder into an :class:`Operator`.

The source is read by :mod:`swishgrad_numba.reader` (no compiler, no CANN); each dtype's Compute becomes a
program (:func:`swishgrad_numba.reader.to_program.to_program`), compiled once per process and run on the
engine. The host side is the template's (:mod:`.host_tiling`). ``register(op)`` then makes ``compute_tiling``,
``validate_tiling``, ``run_tiling`` and ``devicetime.estimate`` work on it as on the package's operators.

A read kernel's program is not the package's: its classes live in :data:`READ_MODULE` (outside the package),
and nothing of it is written to (or loaded from) the package's disk cache, whose source stamp does not cover
the folder read.
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace

import numpy as np

from .. import kernel as kernel_pkg
from ..dtypes import dtype_info, to_float32
from ..platform import ARCH_950, ARCH_A2, Platform
from . import host_tiling
from .folders import host_attributes, kernel_folders
from ..ops.registry import Kernel, Operator, OpTiling

__all__ = ["READ_MODULE", "ReadOperator", "read_kernel"]

#: The module a read kernel's pass classes are placed in: not the package's, so never disk-cached.
READ_MODULE = "swishgrad_read_kernels"
_OPTIONS = ("platform", "variant")


@dataclass(frozen=True)
class ReadOperator(Operator):
    """An operator read from its source: the :class:`Operator` surface plus :meth:`run` and :meth:`tiling`.

    ``description`` is what the reader read (:class:`swishgrad_numba.reader.KernelDescription`),
    ``record_dtype`` the tiling struct's C layout, ``attributes`` its float fields (the operator's
    attributes, by their C names), ``style`` "a2" or "dag", ``arch`` the architecture whose kernel it is
    (a class-style kernel of a 950 entry is the 950's; "" : the style's), ``folder`` where it was read from;
    from ``op_host``, where the operator's folder was read: ``definition`` (the op definition,
    :class:`swishgrad_numba.reader.host.OpDefinition`), ``attribute_names`` (an op attribute's name ->
    the tiling field carrying it), ``attribute_defaults`` (tiling field -> the op definition's default)
    and ``host_side`` (:class:`swishgrad_numba.reader.host.HostSide`), whose tiling function an A2
    kernel's :meth:`run` and :meth:`tiling` evaluate (:mod:`swishgrad_numba.reader.host_eval`).
    """

    description: object = None
    record_dtype: np.dtype = None
    attributes: tuple = ()
    style: str = "a2"
    folder: str = ""
    definition: object = None
    attribute_names: dict = field(default_factory=dict)
    attribute_defaults: dict = field(default_factory=dict)
    host_side: object = None
    source_args: tuple = ()
    sixteen_bit: object = "rint"
    arch: str = ""
    _compiled: dict = field(default_factory=dict, compare=False, repr=False)

    @property
    def architecture(self) -> str:
        return self.arch or (ARCH_950 if self.style == "dag" else ARCH_A2)

    def variants(self, dtype) -> tuple:
        """The tiling-key variants of ``dtype``'s Compute ("" where there is one)."""
        return self.description.variants(dtype_info(dtype).name)

    def program(self, dtype, platform=None, beta=None, *, variant=None):
        """The program read from the source for ``dtype`` (and ``variant``, where the source has several);
        ``platform``, if given, must run this kernel's architecture; ``beta`` is not used (the attributes
        are the program's own)."""
        from .to_program import to_program

        info = dtype_info(dtype)
        if platform is not None and platform.architecture != self.architecture:
            raise ValueError(f"platform (soc_version {platform.soc_version!r}) runs the {platform.architecture} "
                             f"kernel; {self.name} is a {self.architecture} kernel ({self.style} style)")
        variants = self.description.variants(info.name)
        if not variants:
            raise ValueError(f"dtype {info.name}: kernel {self.name} computes no {info.name} "
                             f"(it reads {', '.join(self.description.dtypes)})")
        if variant is None:
            if len(variants) > 1:
                raise ValueError(f"variant must be given: kernel {self.name}'s {info.name} Compute has the "
                                 f"variants {list(variants)}")
            variant = variants[0]
        if variant not in variants:
            raise ValueError(f"variant must be one of {list(variants)}, got {variant!r}")
        body = self.description.body(info.name, variant)
        try:
            return to_program(body, self.name, self.sixteen_bit)
        except ValueError as exc:         # a step the program form does not have: refused where it is written
            from . import KernelSourceError

            if isinstance(exc, KernelSourceError):      # refused at its step already (16-bit arithmetic)
                raise
            step = next((s for s in body.steps if f": {s}" in str(exc)), None)
            file, line = step.at if step is not None else (self.description.entry, 0)
            raise KernelSourceError(file, line, f"{step.op} on {info.name}" if step else f"the {info.name} Compute",
                                    str(exc)) from None

    def compiled(self, dtype, variant=None, saturation: bool = False, cast_rules: tuple = ()):
        """The program compiled to the walk's pass, once per process (never into the disk cache), by ``cast_rules``."""
        from ..program.passes import compile_program

        program = self.program(dtype, variant=variant)
        key = (dtype_info(dtype).name, str(program), bool(saturation), tuple(cast_rules))
        if key not in self._compiled:
            self._compiled[key] = compile_program(program, key[0], key[2], module=READ_MODULE, **dict(cast_rules))
        return self._compiled[key]

    def tiling(self, numel: int, dtype, platform: Platform | None = None, *, variant=None, **attributes) -> OpTiling:
        """The template's host tiling of ``numel`` elements of ``dtype``, the attributes (by the struct's
        field names; 0 where not given) in the record; ``variant`` where the source has several."""
        from ..tiling.host import check_numel

        info = dtype_info(dtype, argname="dtype")
        attributes = self._translated(attributes)
        for name in attributes:
            if name not in self.attributes:
                raise TypeError(f"{self.name}: unknown attribute {name!r}; its attributes are {list(self.attributes)}")
        platform = self.default_platform if platform is None else platform
        if not isinstance(platform, Platform):
            raise TypeError(f"platform must be a Platform, got {type(platform).__name__}")
        program = self.program(info, variant=variant)
        base = host_tiling.host_tiling(self.name, (self.style, self.architecture), self.record_dtype, program, check_numel(numel), info,
                                     platform, self._attribute_values(attributes, ()), self._buffer_num(info),
                                     self._dag_wide(info, variant))
        return self._own_tiling(base, (numel,), info, platform, attributes, program=program)

    def run(self, /, **inputs_and_attributes) -> np.ndarray:
        """Run the kernel on the emulated walk: inputs by the kernel's ``GM_ADDR`` names (one shape, one of
        float32, float16, bfloat16; an input the kernel never reads may be left out), attributes by the
        tiling struct's field names; ``platform=`` (default: the reference platform of the kernel's
        architecture) and ``variant=`` (where the source has several; an A2 kernel on its own record
        runs, without it, each tile with the Compute its core's branches chose). An A2 kernel read with its
        ``op_host`` runs on the record its host's tiling function makes for these inputs (attributes by the
        op definition's names, its defaults where not given; the walk is the template's split over the
        block dim it sets); ``tiling=`` (a dict of the struct's fields, or a record of
        :attr:`record_dtype`), ``block_dim=`` and ``tiling_key=`` (what ``TILING_KEY_IS`` reads)
        override it (an element no tile stores is left 0: a given record's key is 0 unless
        ``tiling_key=`` says otherwise). Returns the output, of the inputs' shape and dtype (a 1-byte output: its
        own dtype, uint8 or int8; a kernel of several outputs: a tuple of them, in GM order, :mod:`.byte_tensors`)."""
        from . import gm_scalars, run_inputs

        outputs = self.description.bodies[0].outputs
        if outputs:         # several outputs: each output's program over the same tiles (.byte_tensors)
            return tuple(self._for_output(g).run(**inputs_and_attributes) for g, _ in outputs)
        kw = dict(inputs_and_attributes)
        platform = kw.pop("platform", None)
        variant = kw.pop("variant", None)
        given, block_dim = kw.pop("tiling", None), kw.pop("block_dim", None)
        tiling_key = kw.pop("tiling_key", None)
        kw, arrays, info, byte, own_shape = run_inputs.checked(self, kw)
        read = self.description.inputs_read
        platform = self.default_platform if platform is None else platform
        if not isinstance(platform, Platform):
            raise TypeError(f"platform must be a Platform, got {type(platform).__name__}")
        own = given is None and self._host_function() is not None and self.style == "a2"
        own_record = self.style == "a2" and (own or given is not None)    # run on the kernel's own schedule
        variants = self.description.variants(info.name)
        keyed = own_record and variant is None and len(variants) > 1      # each tile's variant by its core
        program = self.program(info, platform, variant=variants[0] if keyed else variant)
        from .launch_scalars import fields_read

        attrs = self._attribute_values(kw, () if own or given is not None else
                                       fields_read(self.description, program.attrs))     # (.launch_scalars)
        shape = arrays[read[0]].shape
        out = (np.zeros if own_record else np.empty)(shape, dtype=info.numpy)
        if out.size == 0:
            return out if byte is None else byte.narrowed(out)
        tiling = host_tiling.host_tiling(self.name, (self.style, self.architecture), self.record_dtype, program, out.size, info, platform,
                                       attrs, self._buffer_num(info), self._dag_wide(info, variant))
        tiling = self._own_tiling(tiling, shape, info, platform, kw, given, block_dim, program,
                                  {n: np.shape(arrays[n]) for n in own_shape if n in arrays}, own_record)
        if tiling_key is not None:          # what TILING_KEY_IS reads on a given record (the host's SetTilingKey)
            if not own_record:
                raise TypeError("tiling_key= applies to a kernel run on its own record (tiling= or its host's "
                                "tiling function, an A2-style kernel)")
            if isinstance(tiling_key, bool) or not isinstance(tiling_key, (int, np.integer)) or not \
                    0 <= int(tiling_key) < 2 ** 64:
                raise ValueError(f"tiling_key must be an integer in [0, 2**64), got {tiling_key!r}")
            tiling = replace(tiling, tiling_key=int(tiling_key))
        flat = {n: np.ascontiguousarray(arrays[n]).reshape(-1) for n in read}     # each variant's, by name
        running = self._running_variants(info, variant, tiling, keyed)     # only what they read is needed
        needed = self._gm_scalar_inputs(info.name, running)
        with gm_scalars.reading(gm_scalars.checked_inputs(needed, arrays, self.name)):
            from .split_loads import output_shape, split_inputs

            if own_record and any(split_inputs(b) for b in self.description.bodies if b.dtype == info.name):
                from .launch_plan import schedule      # a GLU's output: the last dimension halved (.split_loads)
                out = np.zeros(output_shape(schedule(self, tiling, info, None if keyed else variant), shape),
                               dtype=info.numpy)
            self._launch(flat, out.reshape(-1), tiling, info, program, platform, variant, platform.saturation,
                         own_record)
        return out if byte is None else byte.narrowed(out)

    # ------------------------------------------------------------ internals

    def _running_variants(self, info, variant, tiling, keyed) -> tuple:
        """The variants of ``info``'s Compute a launch runs: the one given (or the only one), or where each
        core's branches choose (``keyed``), those its schedule's tiles ran."""
        if keyed:
            from .launch_plan import schedule

            return tuple({t.variant for tiles in schedule(self, tiling, info) for t in tiles})
        return (variant if variant is not None else self.description.variants(info.name)[0],)

    def _gm_scalar_inputs(self, dtype=None, variants=None) -> dict:
        """:func:`.gm_scalars.inputs_of` the description (never changed: kept per dtype and variants)."""
        from .gm_scalars import inputs_of

        key = ("gm_scalar_inputs", dtype, None if variants is None else tuple(sorted(variants)))
        if key not in self._compiled:
            self._compiled[key] = inputs_of(self.description, dtype, variants)
        return self._compiled[key]

    def _for_output(self, gm: str) -> "ReadOperator":
        """This operator computing its output ``gm`` only (a kernel of several outputs), made once."""
        from .byte_tensors import for_output

        kept = self._compiled.setdefault("outputs", {})
        if gm not in kept:
            kept[gm] = replace(self, description=for_output(self.description, gm), _compiled={})
        return kept[gm]

    def _host_function(self):
        side = self.host_side
        if side is None or not side.function:
            return None
        if "host_fn" not in self._compiled:
            found = side.tiling_function()
            t = self.description.tiling
            if found is not None and t.name and t.name not in found[1].classes:
                # the struct declared on the kernel's side, filled by GetTilingData<T>() (issue 43)
                from .host import struct_items
                found[1].add(struct_items(t.name, tuple((n, c, at) for (n, c), at in zip(t.fields, t.at)),
                                          t.at[0] if t.at else ("", 0)))
            self._compiled["host_fn"] = found
        return self._compiled["host_fn"]

    def _own_tiling(self, base, shape, info, platform, kw, given=None, block_dim=None, program=None, shapes=None,
                    own_schedule=False):
        """The template's tiling ``base`` replaced by the kernel's own: the host's tiling function evaluated
        (A2 style, where op_host has one), or ``given`` (a record of :attr:`record_dtype`, or a dict of its
        fields); ``block_dim`` over either. An A2 walk is then the template's split over the host's (or
        the given) block dim, at most one core per block. With ``own_schedule`` (a run on the kernel's own
        schedule) the block dim stays the host's (or the given) one: the record's fields were computed for
        that many cores, and the device launches every one of them however few elements each holds."""
        from ..tiling.records import checked_record

        if given is not None:
            if isinstance(given, dict):
                unknown = [n for n in given if n not in self.record_dtype.names]
                if unknown:
                    raise TypeError(f"tiling: {unknown[0]!r} is not a field of {self.record_dtype.names}")
                data = checked_record(self.record_dtype, given, argname="tiling")
            elif isinstance(given, (np.void, np.ndarray)) and given.dtype == self.record_dtype and given.size == 1:
                data = np.asarray(given).reshape(())[()]
            else:
                raise TypeError(f"tiling must be a dict of the fields of {self.description.tiling.name} or a "
                                f"record of its dtype, got {type(given).__name__}")
            base = replace(base, data=data)
        elif self.style == "a2" and self._host_function() is not None:
            from .host_eval import GE_DTYPE_NUMBERS, evaluate

            fn, symbols = self._host_function()
            d, n = self.definition, max(1, len(self.description.inputs_read))
            n = len(d.inputs) if d is not None and d.inputs else n
            attrs = []
            for name, kind, _, default in (d.attrs if d is not None else ()):
                value = kw.get(self.attribute_names.get(name, name), default)
                ctype = {"float": "float", "int": "int64_t", "bool": "int"}.get(kind, "int64_t")
                attrs.append(None if value is None else (float(value) if kind == "float" else int(value), ctype))
            names = [i[0] for i in d.inputs] if d is not None and d.inputs else self.description.gm_params[:n]
            result = evaluate(fn, symbols, self.description.tiling.name,
                              [tuple((shapes or {}).get(g, shape)) for g in names][:n],      # (.gm_scalars)
                              [GE_DTYPE_NUMBERS[info.name]] * n, attrs, platform,
                              [a[0] for a in (d.attrs if d is not None else ())])
            extra = {k: v for k, v in kw.items() if k in self.attributes and k not in result.values}
            data = checked_record(self.record_dtype, {**result.values, **extra}, argname="the host's tiling")
            bd = result.block_dim if result.block_dim is not None else base.block_dim
            base = replace(base, data=data, block_dim=int(bd), tiling_key=result.tiling_key,
                           workspace_size=base.workspace_size + result.workspace, walk=None)
        if block_dim is not None:
            if isinstance(block_dim, bool) or not isinstance(block_dim, (int, np.integer)) or block_dim < 1:
                raise ValueError(f"block_dim must be an int >= 1, got {block_dim!r}")
            base = replace(base, block_dim=int(block_dim), walk=None if self.style == "a2" else base.walk)
        if self.style == "a2" and base.walk is None:
            numel = int(np.prod(shape))
            cores, walk = host_tiling.split_for_cores(program, numel, info, platform, self._buffer_num(info),
                                                    base.block_dim)
            base = replace(base, block_dim=base.block_dim if own_schedule else cores, walk=walk)
        return base

    def _translated(self, kw: dict) -> dict:
        """Attributes by the op definition's names renamed to their tiling fields; the op definition's
        defaults where a field is not given."""
        out = {}
        for name, value in kw.items():
            key = self.attribute_names.get(name, name)
            if key in out:
                raise TypeError(f"{self.name}(): attribute {key!r} given twice (as {name!r} too)")
            out[key] = value
        return {**{k: v for k, v in self.attribute_defaults.items() if k not in out}, **out}

    def _attribute_values(self, kw: dict, needed: tuple) -> dict:
        values = {}
        for name in self.attributes:
            if name not in kw:
                if name in needed:
                    raise TypeError(f"{self.name}() missing attribute {name!r} (the kernel reads it from its "
                                    f"tiling struct)")
                continue
            # a float or double field of the struct, refused by the rule of every float attribute (a bool
            # is 1.0 or 0.0); kept as given, so that a double field is not rounded to float32 first
            to_float32(kw[name], argname=f"attribute {name}")
            values[name] = kw[name]
        return values

    def _buffer_num(self, info) -> int:
        bodies = [b for b in self.description.bodies if b.dtype == info.name]
        return (bodies[0].buffer_num if bodies else None) or 2

    def _dag_wide(self, info, variant=None):
        """The DAG body's ``Body.dag_wide`` (None for the A2 style)."""
        vs = self.description.variants(info.name)
        v = vs[0] if variant is None and len(vs) == 1 else variant
        return self.description.body(info.name, v).dag_wide if v in vs else None

    def _launch(self, ins, out, tiling, info, program, platform, variant, saturation, own_record=False):
        from .launch_plan import run_equal_shapes, run_own_schedule, run_plan, variant_inputs
        keyed = own_record and variant is None and len(self.description.variants(info.name)) > 1
        ins = ins if keyed else variant_inputs(self, info, variant, ins)      # the inputs its Compute reads
        if run_equal_shapes(self, ins, out, tiling, info, program, variant, saturation):
            return          # a BroadcastSch kernel of other than two inputs (issue 43)
        if host_tiling.broadcast_launch(self, ins, out, tiling, info, variant, saturation):
            return          # a BroadcastSch kernel on the broadcast walk (issue 43)
        overflow = () if platform is None else platform.cast_rules   # the Casts' options (issue 43)
        if own_record:        # the tiles the kernel's scalar code gives each core on its own record
            return run_own_schedule(self, ins, out, tiling, info, program, variant, saturation, overflow)
        from .split_loads import split_inputs

        if any(split_inputs(b) for b in self.description.bodies if b.dtype == info.name):
            raise ValueError(f"{self.name} reads a GM input at offsets of its own (a row's two halves): it runs on "
                             "its own schedule only, pass tiling= (or read it with its op_host's tiling function)")
        fields = host_tiling.walk_fields(tiling, program, out.size, info, platform, self._buffer_num(info))
        form = ARCH_A2 if self.style == "a2" else tiling.architecture        # the walk's form is the style's
        plan = kernel_pkg.plan_launch(fields, tiling.block_dim, kernel_pkg.arch_code(form), out.size)
        run_plan(self, ins, out, tiling, info, program, variant, saturation, plan, overflow)

    def _registry_run(self, grad, x, out, tiling, saturation=False):
        """``Kernel.run`` for ``run_tiling``: ``grad`` the first input, ``x`` the second (or the only one)."""
        read = self.description.inputs_read
        ins = [x] if grad is None else [grad, x]
        if len(ins) != len(read):
            raise ValueError(f"{self.name} reads {len(read)} inputs {list(read)}; run_tiling passes at most two "
                             f"(grad, x): use the operator's run()")
        info = dtype_info(out.dtype, argname="out.dtype")
        program = self.program(info)
        self._launch(ins, out, tiling, info, program, None, None, saturation)


def read_kernel(folder, *, platform=None, name: str | None = None, entry: str | None = None,
                defines: dict | None = None, sixteen_bit="rint") -> ReadOperator:
    """Read the element-wise Ascend C kernel in ``folder`` into an operator (no compiler).

    ``folder`` is the op_kernel folder, or the operator's folder holding ``op_kernel/`` and ``op_host/``
    (whose tiling struct, op definition and attribute fields are then read: :mod:`swishgrad_numba.reader.host`).
    Where op_kernel holds an A2 entry and a 950 entry (``sigmoid.cpp`` and ``sigmoid_apt.cpp``, or an
    entry in ``arch35/``), ``platform`` (a :class:`~swishgrad_numba.platform.Platform`; default: the A2)
    picks one: the 950's is the ``*_apt.cpp`` one or the one in ``arch35/``, the A2's the other.
    ``name`` is the operator's registry name (default: the ``__global__`` function's); ``entry`` the entry
    file (relative to op_kernel) where the folder holds several; ``defines`` the macros of the build, name
    -> value or None (not defined), over the device build's
    (:data:`swishgrad_numba.reader.preprocess.DEVICE_DEFINES`); ``sixteen_bit`` the model of arithmetic
    on half and bfloat16 tensors: "rint" (each instruction's exact result rounded once to the dtype, to
    nearest even), "round" (ties away from zero) or None (refused; :mod:`swishgrad_numba.reader.to_program`). Raises
    :class:`swishgrad_numba.reader.KernelSourceError` (file, line, construct; a ValueError) for what cannot
    be read, a tiling struct that cannot be laid out included.
    """
    from . import read_source

    if name is not None and (not isinstance(name, str) or not name.isidentifier()):
        raise ValueError(f"name must be an identifier, got {name!r}")
    if platform is not None and not isinstance(platform, Platform):
        raise TypeError(f"platform must be a Platform or None, got {type(platform).__name__}")
    from .to_program import SIXTEEN_BIT

    if not isinstance(sixteen_bit, (str, type(None))) or sixteen_bit not in SIXTEEN_BIT:
        raise ValueError(f"sixteen_bit must be one of {list(SIXTEEN_BIT)}, got {sixteen_bit!r}")
    arch = ARCH_A2 if platform is None else platform.architecture
    kernel_dir, side, entry, entry_950 = kernel_folders(folder, arch, entry)
    d = read_source(kernel_dir, entry=entry, defines=defines, host=side)
    # the architecture is the entry's (a 950 entry of the class style is the 950's kernel), else the style's
    read_arch = ARCH_950 if d.style == "dag" or entry_950 else ARCH_A2
    if platform is not None and read_arch != arch:
        raise ValueError(f"platform (soc_version {platform.soc_version!r}) runs the {arch} kernel; {d.entry} is "
                         f"a {read_arch} kernel ({d.style} style)")
    if d.tiling is None:
        from . import KernelSourceError

        raise KernelSourceError(d.entry, 0, "the tiling struct", "not found in the kernel's folder: its record "
                                "cannot be laid out")
    op_name = name or d.name
    dtype = host_tiling.record_dtype(d.tiling, d.style)
    attributes = tuple(n for n in d.tiling.float_fields())
    arch = read_arch
    holder: dict = {}

    def programs(dtype_name, variant):
        return holder["op"].program(dtype_name, variant=None if variant == "main" else variant)

    def program_of(dtype_name):
        return holder["op"].program(dtype_name)

    def device_instructions(tiling, itemsize):
        return program_of("float32" if itemsize == 4 else "float16").instructions()

    def run(grad, x, out, tiling, saturation=False):
        holder["op"]._registry_run(grad, x, out, tiling, saturation)

    def host(numel, info, beta32, platform):
        attrs = {} if beta32 is None else {attributes[0]: beta32}
        return holder["op"].tiling(numel, info, platform, **attrs)

    def walk_check(tiling, numel, info, platform):
        return host_tiling.walk_check(program_of, holder["op"]._buffer_num(info), tiling, numel, info, platform,
                                    holder["op"]._dag_wide(info))

    # how 16-bit results are narrowed: the round mode of a 16-bit body's last Cast
    casts = [b.steps[-1].args[2] for b in d.bodies if b.dtype != "float32" and b.steps and b.steps[-1].op == "Cast"]
    kern = Kernel(arch, str(folder), d.tiling.name, dtype, casts[0] if casts else "CAST_RINT", walk_check, run,
                  device_instructions, programs=programs)
    names, defaults = host_attributes(side, attributes)
    op = ReadOperator(op_name, (), d.name, {arch: kern}, host, has_beta=len(attributes) == 1,
                      inputs=len(d.inputs_read), saturation=arch == ARCH_A2, description=d, record_dtype=dtype,
                      attributes=attributes, style=d.style, folder=str(folder),
                      definition=side.definition if side is not None else None, attribute_names=names,
                      attribute_defaults=defaults, host_side=side, source_args=(kernel_dir, entry, defines, side),
                      sixteen_bit=sixteen_bit, arch=arch)
    holder["op"] = op
    return op

