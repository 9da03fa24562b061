"""The Gelu kernels (aclnnGelu): their structs, host tilings, tiling keys and programs, the data of
:mod:`.description` (:data:`KERNELS`, :func:`registry_host_tiling`).

docs/model.md, "Gelu (aclnnGelu)", and docs/activation_tiling.md give the
sources, file and line, of every fact here. The two kernels compute
different functions:

- Atlas A2 (ops-nn ``experimental/activation/gelu``): ``GeluTilingData``
  (eight uint64, SwishGrad's field names); its own host tiling
  (``ubDataNumber`` 12 float32 / 14 16-bit, ``tileBlockNum`` down to a
  multiple of 16, cores ``ceil(n / 1024)``); key 0. Its cubic coefficient is
  0.0455399241 where its comment quotes the tanh GELU's 0.044715.
- Ascend 950 (``activation/gelu``, arch35): ``ElementwiseSch16B`` on the
  16-byte ``EleBaseTilingData16B``; the tanh GELU with one ``Axpy``, whose
  rounding is :attr:`Platform.axpy_rounding`; key ``GET_TPL_TILING_KEY(1, dType)``.

Both narrow 16-bit results with CAST_RINT. Plain Python only: the programs
are compiled by :mod:`swishgrad_numba.program` and run on the generic walk.
"""
from __future__ import annotations

import functools

import numpy as np

from ... import kernel as kernel_pkg
from ...dtypes import FLOAT32, DTypeInfo, dtype_info
from ...platform import ARCH_950, ARCH_A2, Platform
from ...program import Const, Program, Tensor, compiled
from ...program.form import V
from ...spec import a2 as spec_a2
from ...spec import arch35 as spec_arch35
from ...spec.arith import ceil_div
from ...tiling.findings import finding
from ...tiling.records import checked_record
from ..op_tiling import kept_per_tiling
from ..registry import Kernel, OpTiling, WalkCheck

__all__ = ["NAME", "A2_RECORD_DTYPE", "ARCH35_RECORD_DTYPE", "A2_UB_DATA_NUMBER", "A2_ELEMENTS_PER_CORE",
           "DTYPE_TEMPLATE", "a2_host_tiling", "a2_buffer_plan", "arch35_buffer_num", "arch35_host_tiling",
           "tiling_key", "host_tiling", "walk_fields", "A2_CUBIC", "A2_SCALE", "ARCH35_LINEAR", "ARCH35_SCALE",
           "programs", "launch", "run", "KERNELS", "registry_host_tiling"]

NAME = "gelu"

# ---------------------------------------------------------------- structs

#: ``GeluTilingData`` (A2, ``gelu_tiling_data.h:17-26``): eight uint64, SwishGrad's fields in its order.
A2_RECORD_DTYPE = np.dtype([(name, "<u8") for name in spec_a2.FIELDS])
#: The 950's: opbase's ``EleBaseTilingData16B`` as it is.
ARCH35_RECORD_DTYPE = spec_arch35.ELE_BASE_TILING_16B_DTYPE
assert A2_RECORD_DTYPE.itemsize == 64

# ---------------------------------------------------------------- A2 host tiling (op_host/gelu_tiling.cpp)

#: ``ubDataNumber`` by itemsize (:32-33, :86-87).
A2_UB_DATA_NUMBER = {4: 12, 2: 14}
#: The host's elements per core (:141-150): one core up to 1,024 elements, else ``ceil(n / 1024)``.
A2_ELEMENTS_PER_CORE = 1024


def a2_host_tiling(numel: int, itemsize: int, platform: Platform):
    """``(accepted, block_dim, fields)``: ``tileBlockNum = (U / B) / ubDataNumber``, down to a multiple of
    16 when above 16 (:88-89); cores by the element count, then the big/small split
    (:func:`spec.a2.split_over`). ``accepted`` false where ``tileBlockNum`` is 0."""
    tile_block_num = (platform.ub_size // platform.block_size) // A2_UB_DATA_NUMBER[itemsize]
    if tile_block_num > 16:
        tile_block_num = tile_block_num // 16 * 16
    cores = 1 if numel <= A2_ELEMENTS_PER_CORE else min(platform.core_num, ceil_div(numel, A2_ELEMENTS_PER_CORE))
    fields = spec_a2.split_over(numel, itemsize, max(tile_block_num, 1), cores, platform.block_size)
    return tile_block_num > 0, cores, fields


def a2_buffer_plan(itemsize: int) -> tuple:
    """``gelu.h:84-90``: the x and y queues of two slots, four float32 scratch tiles."""
    return ((2, itemsize), (2, itemsize), (4, 4))

# ---------------------------------------------------------------- 950 host tiling (ElewiseTiling, 16B struct)

#: ``dType`` of the tiling-key template (``gelu_struct.h:21-36``).
DTYPE_TEMPLATE = {"float16": 1, "bfloat16": 2, "float32": 3}


def arch35_buffer_num(itemsize: int) -> int:
    """``BufferNum`` of ``GeluDAG``: copy-in and copy-out pinged and ponged (4), and for 16-bit the widened
    x and the node's float32 result live at once (6). Derived as the Swish DAGs' (docs/activation_tiling.md:
    not checked against opbase's ``GetBufferNumLevel2``)."""
    return 4 if itemsize == 4 else 6


def arch35_host_tiling(numel: int, itemsize: int, platform: Platform):
    """``(accepted, block_dim, fields)``: opbase ElewiseTiling with ``bufferDivisor = BufferNum * 32``."""
    return spec_arch35.host_tiling(numel, itemsize, platform.ub_size, platform.core_num, arch35_buffer_num(itemsize),
                                   4)


def tiling_key(architecture: str, dtype: str) -> int:
    """A2 0 (:172); 950 ``GET_TPL_TILING_KEY(1, dType)``: schMode 1 in bit 0, dType above it."""
    return 0 if architecture == ARCH_A2 else 1 | (DTYPE_TEMPLATE[dtype] << 1)

# ---------------------------------------------------------------- the host tiling, checked


def host_tiling(numel: int, info: DTypeInfo, platform: Platform) -> OpTiling:
    """The host tiling of ``numel`` (>= 1) elements for the kernel ``platform``'s SoC runs; ValueError where
    the UB holds no tile."""
    b = info.itemsize
    if platform.architecture == ARCH_950:
        accepted, block_dim, f = arch35_host_tiling(numel, b, platform)
        if not accepted:
            raise ValueError(f"platform.ub_size ({platform.ub_size} bytes) is too small: the 950 Gelu kernel needs "
                             f"{arch35_buffer_num(b)} buffers of at least {spec_arch35.UB_ALIGN_BYTES} bytes")
        data = checked_record(ARCH35_RECORD_DTYPE, {"dim0": f.dim0, "coreNum": f.coreNum, "ubFormer": f.ubFormer})
        return OpTiling(NAME, ARCH_950, data, int(block_dim), tiling_key(ARCH_950, info.name),
                        spec_arch35.WORKSPACE_SIZE)
    accepted, block_dim, f = a2_host_tiling(numel, b, platform)
    if not accepted:
        need = A2_UB_DATA_NUMBER[b] * platform.block_size
        raise ValueError(f"platform.ub_size ({platform.ub_size} bytes) is too small: the A2 Gelu {info.name} "
                         f"kernel needs at least {need} bytes (one block per tile unit)")
    data = checked_record(A2_RECORD_DTYPE, f._asdict())
    return OpTiling(NAME, ARCH_A2, data, int(block_dim), tiling_key(ARCH_A2, info.name), platform.lib_workspace_size)


@kept_per_tiling
def walk_fields(tiling: OpTiling):
    """The fields the kernel walks by: the A2 record's own; the 950's derived from its 16 bytes (opbase
    ``ElementwiseSch16B`` splits the blocks again as the 32-byte schedule does)."""
    d = tiling.data
    if tiling.architecture == ARCH_950:
        return spec_arch35.kernel_fields_32b(int(d["dim0"]), int(d["coreNum"]), int(d["ubFormer"]))
    return spec_a2.TilingFields(*(int(d[name]) for name in spec_a2.FIELDS))

# ---------------------------------------------------------------- the programs

#: The constants as the sources write them: float literals (A2 ``gelu.h:31-32``), double expressions
#: rounded to float once (950 ``gelu_dag.h:25-26``).
A2_CUBIC, A2_SCALE = Const.of(0.0455399241), Const.of(-1.595769122)
ARCH35_LINEAR, ARCH35_SCALE = Const.of("1 / 0.044715"), Const.of("-1.595769121 * 0.044715")
#: The float32 Compute, ``x`` -> ``y``.
_BODIES = {
    ARCH_A2: (V.Mul("t", "x", "x"), V.Mul("t", "t", "x"), V.Muls("t", "t", A2_CUBIC),        # gelu.h:139-146
              V.Add("t", "t", "x"), V.Muls("t", "t", A2_SCALE), V.Exp("e", "t"), V.Adds("e", "e", 1.0),
              V.Div("y", "x", "e")),
    ARCH_950: (V.Mul("t", "x", "x"), V.Mul("e", "t", "x"),                                  # gelu_dag.h:56-62
               V.Axpy("e", "x", ARCH35_LINEAR), V.Muls("e", "e", ARCH35_SCALE),
               V.Exp("e", "e"), V.Adds("e", "e", 1.0), V.Div("y", "x", "e")),
}

_NAMES = {ARCH_A2: "Gelu", ARCH_950: "GeluArch35"}


def _renamed(body, names: dict) -> tuple:
    return tuple(type(i)(i.op, tuple(names.get(a, a) if isinstance(a, str) else a for a in i.args)) for i in body)


def programs(architecture: str, dtype: str, variant: str = "main") -> Program:
    """The Compute for ``dtype``: 16-bit x widened first (CAST_NONE), the result narrowed last (CAST_RINT)."""
    if variant != "main":
        raise ValueError(f"no Gelu variant {variant!r}")
    body, name = _BODIES[architecture], _NAMES[architecture]
    if dtype == "float32":
        return Program(name, (Tensor("x"),), Tensor("out"), (Tensor("t"), Tensor("e")),
                       _renamed(body, {"y": "out"}))
    return Program(name, (Tensor("x", dtype),), Tensor("out", dtype), (Tensor("xf"), Tensor("t"), Tensor("e"),
                   Tensor("y")), (V.Cast("xf", "x", "CAST_NONE"),) + _renamed(body, {"x": "xf"})
                   + (V.Cast("out", "y", "CAST_RINT"),))

# ---------------------------------------------------------------- launch, check, run


def launch(x: np.ndarray, out: np.ndarray, launch_plan, info: DTypeInfo, architecture: str,
           saturation: bool = False, axpy_rounding: str = "fused") -> None:
    """Run a planned launch over flat C-contiguous ``x`` and ``out`` of ``info``'s dtype."""
    params = compiled(NAME, architecture, info.name, saturation=saturation, axpy_rounding=axpy_rounding).params()
    raw = (lambda a: a) if info is FLOAT32 else (lambda a: a.view(np.uint16))
    kernel_pkg.run_walk(params, (raw(x),), raw(out), launch_plan)


def _walk_check(tiling: OpTiling, numel: int, info: DTypeInfo, platform: Platform) -> WalkCheck:
    """A record for the validator: its walk, the kernel's UB plan and tiling key."""
    expected = tiling_key(tiling.architecture, info.name)
    own = () if tiling.tiling_key == expected else (finding(
        "TILING_KEY_MISMATCH", f"tiling key {tiling.tiling_key}; the Gelu host gives {expected} for {info.name}."),)
    if tiling.architecture == ARCH_950:
        plan = ((arch35_buffer_num(info.itemsize), 4),)
        bad = [n for n in ("dim0", "coreNum", "ubFormer") if int(tiling[n]) < 1]
        if bad:
            return WalkCheck(None, plan, 0, own + tuple(
                finding("FIELD_RANGE", f"{n}={int(tiling[n])}: the kernel divides by it and needs it >= 1.")
                for n in bad))
        fields = walk_fields(tiling)
        return WalkCheck(fields, plan, fields.ubFormer, own)
    fields = walk_fields(tiling)
    return WalkCheck(fields, a2_buffer_plan(info.itemsize), fields.tileDataNum, own)


def run(grad, x: np.ndarray, out: np.ndarray, tiling: OpTiling, saturation: bool = False,
        axpy_rounding: str = "fused") -> None:
    """The kernel with a checked record over flat contiguous ``x`` and ``out`` (``grad`` None); the 950's
    Axpy rounds as ``axpy_rounding`` (:attr:`Platform.axpy_rounding`)."""
    if grad is not None:
        raise ValueError("grad must be None for the forward operator 'gelu' (it reads x only)")
    info = dtype_info(out.dtype, argname="out.dtype")
    launch_plan = kernel_pkg.plan_launch(walk_fields(tiling), tiling.block_dim,
                                         kernel_pkg.arch_code(tiling.architecture), out.size)
    launch(x, out, launch_plan, info, tiling.architecture, saturation, axpy_rounding)


KERNELS = {
    ARCH_A2: Kernel(ARCH_A2, "experimental/activation/gelu", "GeluTilingData", A2_RECORD_DTYPE, "CAST_RINT",
                    _walk_check, run, programs=functools.partial(programs, ARCH_A2)),
    ARCH_950: Kernel(ARCH_950, "activation/gelu (arch35)", "EleBaseTilingData16B", ARCH35_RECORD_DTYPE,
                     "CAST_RINT", _walk_check, run, programs=functools.partial(programs, ARCH_950)),
}



def registry_host_tiling(numel: int, info: DTypeInfo, attrs, platform: Platform) -> OpTiling:
    """The registry's host tiling (no attributes: ``attrs`` None)."""
    return host_tiling(numel, info, platform)
