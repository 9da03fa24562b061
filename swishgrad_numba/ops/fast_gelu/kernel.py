"""The FastGelu and FastGeluGrad kernels (aclnnFastGelu, aclnnFastGeluBackward): Ascend 950 only; their
data for :mod:`.description` and :mod:`swishgrad_numba.ops.fast_gelu_grad.description`.

docs/model.md, "FastGelu and FastGeluBackward (Ascend 950 only)", and
docs/activation_tiling.md give the sources, file and line, of every fact here.

- Both run opbase's ``ElewiseTiling`` and ``ElementwiseSch`` on the full
  80-byte ``EleBaseTilingData`` (SwishGrad's 950 struct without its
  ``scale``), key ``GET_TPL_TILING_KEY(scheMode, dType)`` (3/5/7), 16 MiB of
  workspace; the DAG's ``BufferNum``: 4 (float32) / 6 (16-bit) for FastGelu,
  6 / 9 for FastGeluGrad, every node float32 (16-bit widened by ``Cast``,
  narrowed with CAST_RINT).
- FastGelu: ``y = x / (exp(-1.702 x) + 1)``; FastGeluGrad, inputs ``(dy, x)``:
  ``s = 1 / (exp(m) + 1)``, ``m = -1.702 x``, ``dx = dy * (((s - 1) * m + 1) * s)``.
- No public A2 kernel: both op definitions register ``ascend950`` only, so
  an A2 platform is refused (``Operator.no_kernel``); the 950 has the
  Inf/NaN overflow mode only, so neither computes in the saturation mode.

Plain Python: the structs, the host tiling, the programs (compiled by
:mod:`swishgrad_numba.program` to the generic walk's pass) and the launch; :data:`KERNELS` and
:func:`registry_host_tiling` are what the two descriptions register.
"""
from __future__ import annotations

import functools

import numpy as np

from ... import kernel as kernel_pkg
from ...dtypes import FLOAT32, DTypeInfo, dtype_info
from ...platform import ARCH_950, Platform
from ...program import Program, Tensor, compiled
from ...program.form import V
from ...spec import arch35 as spec_arch35
from ...tiling.findings import finding
from ...tiling.records import checked_record
from ..op_tiling import arch35_walk_fields
from ..registry import Kernel, OpTiling, WalkCheck

__all__ = ["FORWARD", "BACKWARD", "RECORD_DTYPE", "BUFFER_NUM", "SCALE", "NO_A2_KERNEL", "buffer_num",
           "host_tiling", "programs", "walk_fields", "walk_check", "run", "KERNELS", "registry_host_tiling"]

FORWARD, BACKWARD = "fast_gelu", "fast_gelu_grad"

#: ``EleBaseTilingData`` (``elewise_base_struct.h:26-38``): SwishGrad's 950 struct without ``scale``, 80 bytes.
RECORD_DTYPE = np.dtype([(name, spec_arch35.ELE_BASE_TILING_DTYPE.fields[name][0]) for name in spec_arch35.FIELDS], align=True)
assert RECORD_DTYPE.itemsize == 80

#: The DAG's ``BufferNum`` by operator and input itemsize (float32 4; 16-bit 2, with the Casts' temporaries);
#: the UT's ubFormer pins FastGeluGrad's 6 and 9 (docs/activation_tiling.md).
BUFFER_NUM = {FORWARD: {4: 4, 2: 6}, BACKWARD: {4: 6, 2: 9}}
#: Every node computes in float32 (``MaxDtypeBytes``).
_MAX_ITEMSIZE = 4

#: ``T value1 = -1.702;`` (a double stored in a float; ``fast_gelu_dag.h:29``, ``fast_gelu_grad_dag.h:31``).
SCALE = "-1.702"

NO_A2_KERNEL = ("ops-nn registers it for the Ascend 950 only (op definition: ascend950; no "
                "experimental/activation kernel), and the kernel a real A2 runs ships with CANN unpublished: "
                "its instructions are not public, so it is not emulated; use an Ascend 950 platform")


def buffer_num(op: str, itemsize: int) -> int:
    return BUFFER_NUM[op][itemsize]

# ---------------------------------------------------------------- the host tiling


def host_tiling(op: str, numel: int, info: DTypeInfo, platform: Platform) -> OpTiling:
    """``ElewiseBaseTiling::DoTiling<Dag>`` of ``numel`` (>= 1) elements on a 950 platform
    (``fast_gelu_tiling_arch35.cpp:113-138``, ``fast_gelu_grad_tiling_arch35.cpp:146-169``)."""
    if platform.architecture != ARCH_950:
        raise ValueError(f"platform (soc_version {platform.soc_version!r}) cannot run {op}: {NO_A2_KERNEL}")
    b = info.itemsize
    accepted, block_dim, f = spec_arch35.host_tiling(numel, b, platform.ub_size, platform.core_num,
                                                     buffer_num(op, b), _MAX_ITEMSIZE)
    if not accepted:
        raise ValueError(f"platform.ub_size ({platform.ub_size} bytes) is too small: the 950 {op} kernel needs "
                         f"{buffer_num(op, b)} buffers of at least {spec_arch35.UB_ALIGN_BYTES} bytes")
    data = checked_record(RECORD_DTYPE, f._asdict())
    return OpTiling(op, ARCH_950, data, int(block_dim), spec_arch35.tiling_key(info.arch35_template),
                    spec_arch35.WORKSPACE_SIZE)


#: The record's base fields as the walk's ``spec.arch35.TilingFields``, kept per tiling.
walk_fields = arch35_walk_fields

# ---------------------------------------------------------------- the programs

#: The float32 Compute, inputs ``x`` (and ``dy``), result ``y``.
_BODIES = {
    FORWARD: (V.Muls("d", "x", SCALE), V.Exp("d", "d"), V.Adds("d", "d", 1.0),
              V.Div("y", "x", "d")),                                                  # fast_gelu_dag.h:47-51
    BACKWARD: (V.Duplicate("one", 1.0),                                               # fast_gelu_grad_dag.h:56-67
               V.Muls("m", "x", SCALE), V.Exp("t", "m"), V.Adds("t", "t", 1.0), V.Div("s", "one", "t"),
               V.Adds("u", "s", -1.0), V.Mul("u", "u", "m"), V.Adds("u", "u", 1.0), V.Mul("s", "u", "s"),
               V.Mul("y", "dy", "s")),
}
_INPUTS = {FORWARD: ("x",), BACKWARD: ("dy", "x")}
_NAMES = {FORWARD: "FastGelu", BACKWARD: "FastGeluGrad"}


def _renamed(body, names):
    return tuple(type(i)(i.op, tuple(names.get(a, a) if isinstance(a, str) else a for a in i.args)) for i in body)


def programs(op: str, dtype: str, variant: str = "main") -> Program:
    """The 950 kernel's Compute for ``dtype``: float32 as is (``FastGeluNoCast``); 16-bit inputs widened
    (CAST_NONE) first and the result narrowed with CAST_RINT last (``FastGeluNeedCast``)."""
    body, inputs = _BODIES[op], _INPUTS[op]
    written = sorted({i.args[0] for i in body} - {"y"})
    if dtype == "float32":
        return Program(_NAMES[op], tuple(Tensor(n) for n in inputs), Tensor("out"),
                       tuple(Tensor(n) for n in written), _renamed(body, {"y": "out"}))
    wide = {n: n + "f" for n in inputs}
    return Program(_NAMES[op], tuple(Tensor(n, dtype) for n in inputs), Tensor("out", dtype),
                   tuple(Tensor(n) for n in written + [*wide.values(), "y"]),
                   tuple(V.Cast(w, n, "CAST_NONE") for n, w in wide.items()) + _renamed(body, wide)
                   + (V.Cast("out", "y", "CAST_RINT"),))

# ---------------------------------------------------------------- a record, checked and run


def walk_check(op: str, tiling: OpTiling, numel: int, info: DTypeInfo, platform: Platform) -> WalkCheck:
    """The record for the validator: ElementwiseSch's walk of its fields, the DAG's buffers, the key."""
    expected = spec_arch35.tiling_key(info.arch35_template)
    keys = () if tiling.tiling_key == expected else (finding(
        "TILING_KEY_MISMATCH", f"tiling key {tiling.tiling_key}; the {op} host gives {expected} for {info.name} "
                               f"(scheMode {spec_arch35.SCHE_MODE}, dType {info.arch35_template})."),)
    fields = walk_fields(tiling)
    return WalkCheck(fields, ((buffer_num(op, info.itemsize), _MAX_ITEMSIZE),), fields.ubFormer, keys)


def _bits(a: np.ndarray, info: DTypeInfo) -> np.ndarray:
    return a if info is FLOAT32 else a.view(np.uint16)


def run(grad, x: np.ndarray, out: np.ndarray, tiling: OpTiling) -> None:
    """The kernel with a checked record over flat contiguous arrays of one dtype and size (``grad`` None
    for FastGelu, the ``dy`` array for FastGeluGrad)."""
    if (grad is None) != (tiling.op == FORWARD):
        raise ValueError(f"grad must be {'None' if tiling.op == FORWARD else 'an array'} for {tiling.op}")
    info = dtype_info(out.dtype, argname="out.dtype")
    plan = kernel_pkg.plan_launch(walk_fields(tiling), tiling.block_dim, kernel_pkg.arch_code(ARCH_950), out.size)
    ins = (x,) if grad is None else (grad, x)
    kernel_pkg.run_walk(compiled(tiling.op, ARCH_950, info.name).params(), tuple(_bits(a, info) for a in ins),
                        _bits(out, info), plan)

# ---------------------------------------------------------------- the registry's data


def _device_instructions(op: str, tiling: OpTiling, itemsize: int) -> tuple:
    return programs(op, "float32" if itemsize == 4 else "float16").instructions()


def _kernel(op: str) -> Kernel:
    return Kernel(ARCH_950, f"activation/{op} (arch35)", "EleBaseTilingData", RECORD_DTYPE, "CAST_RINT",
                  functools.partial(walk_check, op), run, functools.partial(_device_instructions, op),
                  programs=functools.partial(programs, op))


#: Each operator's kernels: the 950's only (an A2 is refused with :data:`NO_A2_KERNEL`).
KERNELS = {op: {ARCH_950: _kernel(op)} for op in (FORWARD, BACKWARD)}


def registry_host_tiling(op: str):
    """The registry's host tiling of ``op``: ``(numel, info, attrs, platform)``, no attributes (None)."""
    def tiling(numel: int, info: DTypeInfo, attrs, platform: Platform) -> OpTiling:
        return host_tiling(op, numel, info, platform)

    return tiling
