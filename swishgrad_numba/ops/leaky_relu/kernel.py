"""The LeakyRelu forward kernel (aclnnLeakyRelu), the Ascend 950's only: its data for :mod:`.description`.

docs/model.md, "LeakyRelu, LeakyReluBackward (950 only)", and docs/activation_tiling.md give the
sources, file and line, of every fact here (ops-nn ``activation/leaky_relu``, arch35):

- host ``leaky_relu_tiling_arch35.cpp``: opbase ``DoTiling24B`` on ``LeakyReluDag<float>`` (float32) or
  ``LeakyReluCastDag<half/bfloat16, float>`` (16-bit: widened with mode 0, narrowed ``CAST_RINT``),
  the slope by ``SetScalar<float>`` into the 24-byte ``EleBaseTilingData24B``'s ``scalarData``;
  key ``GET_TPL_TILING_KEY(schMode, dType)`` with the class member ``schMode = 1``
  (``leaky_relu_tiling_arch35.h``): 3 / 5 / 7 for float16 / bfloat16 / float32; 16 MiB workspace;
- kernel ``leaky_relu_apt.cpp``: ``ElementwiseSchWithScalar`` (the block split done again in the
  kernel, as the Swish 950's) running one MicroAPI loop (``leaky_relu_dag.h``): ``Muls(x, slope)``,
  ``Compare GT`` against a register of zeros, ``Select(x, x * slope)``, all in float32.

No public A2 kernel registers the op type LeakyRelu (``experimental/activation/leakyrelu_v2`` is
LeakyreluV2), so an A2 platform is refused; the 950 has the Inf/NaN overflow mode only. float64 runs
on an AICPU kernel (modelled in :mod:`.description`). Plain Python: :mod:`swishgrad_numba.program` compiles the
programs to the generic walk's pass.
"""
from __future__ import annotations

import numpy as np

from ... import kernel as kernel_pkg
from ...dtypes import FLOAT32, DTypeInfo, dtype_info
from ...platform import ARCH_950, Platform
from ...program import Attr, Program, Tensor, compiled
from ...program.form import V
from ...spec import arch35 as spec_arch35
from ...tiling.findings import finding
from ...tiling.records import checked_record
from ..gelu import arch35_buffer_num
from ..op_tiling import kept_per_tiling
from ..registry import Kernel, OpTiling, WalkCheck

__all__ = ["NAME", "RECORD_DTYPE", "DEFAULT_SLOPE", "NO_A2_KERNEL", "SLOPE", "buffer_num", "host_tiling",
           "walk_fields", "tiling_key", "programs", "launch", "walk_check", "run", "KERNELS"]

NAME = "leaky_relu"
#: aclnnLeakyRelu's usual slope (torch's default), used where a caller gives none (``compute_tiling``).
DEFAULT_SLOPE = 0.01

NO_A2_KERNEL = ("ops-nn registers its op type for the Ascend 950 only (activation/leaky_relu: ascend950; "
                "experimental/activation/leakyrelu_v2 registers another op type, LeakyreluV2), and the kernel a "
                "real A2 runs ships with CANN unpublished: it is not emulated; use an Ascend 950 platform")

#: ``EleBaseTilingData24B`` (opbase ``elewise_base_struct.h:45-50``): int64 ``dim0``, int32 ``coreNum``
#: and ``ubFormer``, 8 bytes of ``scalarData`` whose first four hold the float slope (``SetScalar<float>``);
#: the rest stays zero.
RECORD_DTYPE = np.dtype({"names": ["dim0", "coreNum", "ubFormer", "negativeSlope"],
                         "formats": ["<i8", "<i4", "<i4", "<f4"], "offsets": [0, 8, 12, 16], "itemsize": 24})
_HEAD = ("dim0", "coreNum", "ubFormer")
#: Every DAG node computes in float32 (``MaxDtypeBytes``; 16-bit x widened by ``Vec::Cast``).
_MAX_ITEMSIZE = 4


def buffer_num(itemsize: int) -> int:
    """``BufferNum``: the DAG has Gelu's shape (CopyIn, one computing node, CopyOut; the 16-bit one its
    two Casts), so Gelu's derivation: 4 (float32), 6 (16-bit). Not checked against opbase's count."""
    return arch35_buffer_num(itemsize)


def tiling_key(info: DTypeInfo) -> int:
    """``GET_TPL_TILING_KEY(schMode = 1, dType)``: the same packing as the 950 ElewiseTiling's."""
    return spec_arch35.tiling_key(info.arch35_template)


def host_tiling(numel: int, info: DTypeInfo, slope32, platform: Platform) -> OpTiling:
    """``DoTiling24B`` of ``numel`` (>= 1) elements on a 950 platform, ``slope32`` in ``scalarData``."""
    if platform.architecture != ARCH_950:
        raise ValueError(f"platform (soc_version {platform.soc_version!r}) cannot run {NAME}: {NO_A2_KERNEL}")
    slope32 = np.float32(DEFAULT_SLOPE if slope32 is None else slope32)
    b = info.itemsize
    accepted, block_dim, f = spec_arch35.host_tiling(numel, b, platform.ub_size, platform.core_num,
                                                     buffer_num(b), _MAX_ITEMSIZE)
    if not accepted:
        raise ValueError(f"platform.ub_size ({platform.ub_size} bytes) is too small: the 950 LeakyRelu kernel "
                         f"needs {buffer_num(b)} buffers of at least {spec_arch35.UB_ALIGN_BYTES} bytes")
    data = checked_record(RECORD_DTYPE, {"dim0": f.dim0, "coreNum": f.coreNum, "ubFormer": f.ubFormer,
                                         "negativeSlope": slope32})
    return OpTiling(NAME, ARCH_950, data, int(block_dim), tiling_key(info), spec_arch35.WORKSPACE_SIZE)


@kept_per_tiling
def walk_fields(tiling: OpTiling):
    """``ElementwiseSchWithScalar``'s own block split of ``dim0``, ``coreNum``, ``ubFormer``."""
    return spec_arch35.kernel_fields_32b(*(int(tiling[n]) for n in _HEAD))

# ---------------------------------------------------------------- the program

#: The scalar the program reads (``Placeholder::Var<float, 0>``).
SLOPE = Attr("negative_slope")
#: ``LeakyReluCustom`` (``leaky_relu_dag.h:43-50``), float32 ``x`` -> ``y``.
_BODY = (V.Duplicate("zero", 0.0), V.Muls("neg", "x", SLOPE), V.Compare("pos", "x", "zero", "GT"),
         V.Select("y", "x", "neg", "pos"))


def _renamed(body, names):
    return tuple(type(i)(i.op, tuple(names.get(a, a) if isinstance(a, str) else a for a in i.args)) for i in body)


def programs(dtype: str, variant: str = "main") -> Program:
    """The Compute for ``dtype``: ``LeakyReluDag<float>`` as is; ``LeakyReluCastDag`` widens x (CAST_NONE)
    first and narrows the result with CAST_RINT last."""
    if variant != "main":
        raise ValueError(f"no LeakyRelu variant {variant!r}")
    local = (Tensor("zero"), Tensor("neg"), Tensor("pos", "uint8"))
    if dtype == "float32":
        return Program("LeakyRelu", (Tensor("x"),), Tensor("out"), local, _renamed(_BODY, {"y": "out"}),
                       (SLOPE.name,))
    return Program("LeakyReluCast", (Tensor("x", dtype),), Tensor("out", dtype), local + (Tensor("xf"), Tensor("y")),
                   (V.Cast("xf", "x", "CAST_NONE"),) + _renamed(_BODY, {"x": "xf"})
                   + (V.Cast("out", "y", "CAST_RINT"),), (SLOPE.name,))

# ---------------------------------------------------------------- launch, check, run


def _bits(a: np.ndarray, info: DTypeInfo) -> np.ndarray:
    return a if info is FLOAT32 else a.view(np.uint16)


def launch(x: np.ndarray, out: np.ndarray, tiling: OpTiling, info: DTypeInfo, threads: int | None = None) -> None:
    """Flat C-contiguous ``x`` and ``out`` of ``info``'s dtype, the slope from the record."""
    args = () if threads is None else (threads,)
    plan = kernel_pkg.plan_launch(walk_fields(tiling), tiling.block_dim, kernel_pkg.arch_code(ARCH_950), out.size,
                                  *args)
    params = compiled(NAME, ARCH_950, info.name).params(negative_slope=np.float32(tiling["negativeSlope"]))
    kernel_pkg.run_walk(params, (_bits(x, info),), _bits(out, info), plan)


def walk_check(tiling: OpTiling, numel: int, info: DTypeInfo, platform: Platform) -> WalkCheck:
    """The record for the validator: the kernel's own split of its three fields, the DAG's buffers, the key."""
    expected = tiling_key(info)
    own = () if tiling.tiling_key == expected else (finding(
        "TILING_KEY_MISMATCH", f"tiling key {tiling.tiling_key}; the LeakyRelu host gives {expected} for "
                               f"{info.name} (schMode 1, dType {info.arch35_template})."),)
    plan = ((buffer_num(info.itemsize), _MAX_ITEMSIZE),)
    bad = [n for n in _HEAD if int(tiling[n]) < 1]
    if bad:
        return WalkCheck(None, plan, 0, own + tuple(
            finding("FIELD_RANGE", f"{n}={int(tiling[n])}: the kernel divides by it and needs it >= 1.") for n in bad))
    fields = walk_fields(tiling)
    return WalkCheck(fields, plan, fields.ubFormer, own)


def run(grad, x: np.ndarray, out: np.ndarray, tiling: OpTiling) -> None:
    """The kernel with a checked record over flat contiguous ``x`` and ``out`` (``grad`` None)."""
    if grad is not None:
        raise ValueError(f"grad must be None for the forward operator {NAME!r} (it reads x only)")
    launch(x, out, tiling, dtype_info(out.dtype, argname="out.dtype"))


def _device_instructions(tiling: OpTiling, itemsize: int) -> tuple:
    return programs("float32" if itemsize == 4 else "float16").instructions()


#: The kernels by architecture (the 950's only).
KERNELS = {ARCH_950: Kernel(ARCH_950, "activation/leaky_relu (arch35)", "EleBaseTilingData24B", RECORD_DTYPE,
                            "CAST_RINT", walk_check, run, _device_instructions, programs=programs)}
