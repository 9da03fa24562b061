"""aclnnThresholdBackward's two kernels on each architecture: ReluGrad where ``|threshold| <= FLT_EPSILON``,
ThresholdGradV2D otherwise (``aclnn_threshold_backward.cpp``: ``IsFloatEqual(thresholdVal_, 0.0)``). The
data for :mod:`.description`; docs/model.md, "Relu and ThresholdBackward", cites every fact here.

- Atlas A2: ``experimental/activation/relu_grad`` and ``experimental/activation/threshold_grad_v2_d``, both
  on SwishGrad's eight-field split (``BLOCK_SIZE`` 256, ``ubDataNumber`` by dtype, key 0), ThresholdGradV2D's
  struct ending in ``float threshold``. The record here is that struct for both: the threshold field picks
  the program as the op_api picks the kernel (ReluGrad's own struct is its first 64 bytes).
- Ascend 950: ``activation/relu_grad`` and ``activation/threshold_grad_v2_d`` (arch35), opbase
  ``BroadcastSch`` over their DAGs, the threshold by ``SetScalar<float>``. The broadcast host here is
  SiluGrad's opbase ``BroadcastTiling`` (:func:`~swishgrad_numba.ops.silu_grad.arch35.broadcast_tiling`)
  with SiluGrad's same-dtype compute parameters: the ones opbase derives from these DAGs are not traced (a
  model choice: it moves no bit, every element reads its own inputs).

The programs are the Computes (``relu_grad.h``, ``threshold_grad_v2_d.h``; ``relu_grad_dag.h``,
``threshold_grad_v2_d_dag.h``); :mod:`.description` models the integer dtypes on the host.
"""
from __future__ import annotations

import numpy as np

from ... import kernel as kernel_pkg
from ... import runtime
from ...dtypes import FLOAT32, DTypeInfo, dtype_info
from ...platform import ARCH_950, ARCH_A2, Platform
from ...program import Attr, compiled
from ...program.elementwise import elementwise
from ...program.form import V
from ...spec import a2 as spec_a2
from ...tiling.findings import finding
from ...tiling.records import checked_record
from ..op_tiling import a2_walk_fields
from ..registry import Kernel, OpTiling, WalkCheck
from ..silu_grad.arch35 import ARCH35_ARRAY_FIELDS, ARCH35_SCALAR_FIELDS, broadcast_tiling, run_record

__all__ = ["NAME", "FLT_EPSILON", "A2_RECORD_DTYPE", "ARCH35_RECORD_DTYPE", "UB_DATA_NUMBER", "variant_of",
           "programs_a2", "programs_arch35", "host_tiling", "shaped_tiling", "shaped_launch", "run", "KERNELS"]

NAME = "threshold_backward"
FLT_EPSILON = float(np.finfo(np.float32).eps)
#: ``ThresholdGradV2DTilingData``: eight uint64 and the float threshold (72 bytes, C layout).
A2_RECORD_DTYPE = np.dtype([(n, "<u8") for n in spec_a2.FIELDS] + [("threshold", "<f4")], align=True)
#: The A2 hosts' ``BLOCK_SIZE`` and ``ubDataNumber`` by dtype (ReluGrad: ``relu_grad_tiling.cpp:29-32``;
#: ThresholdGradV2D: ``threshold_grad_v2_d_tiling.cpp:29-33``).
_BLOCK = 256
UB_DATA_NUMBER = {"relu_grad": {"float32": 7, "float16": 7, "bfloat16": 10},
                  "main": {"float32": 7, "float16": 7, "bfloat16": 10}}
#: The 950 record: opbase's broadcast fields (SiluGrad's layout) and the threshold scalar.
ARCH35_RECORD_DTYPE = np.dtype([(n, "<i8") for n in ARCH35_SCALAR_FIELDS] + [(n, "<i8", (8,)) for n in
                                                                            ARCH35_ARRAY_FIELDS]
                               + [("threshold", "<f4")], align=True)
#: SiluGrad's same-dtype ``BroadcastComputeParams`` (extraSize, bufferDivisor), by itemsize: not traced here.
_ARCH35_PARAMS = {4: (0, 192), 2: (0, 192)}
_DTYPE_TEMPLATE = {"float16": 1, "bfloat16": 2, "float32": 3}


def variant_of(threshold32) -> str:
    """The kernel the op_api launches for ``threshold`` (ToFloat): ``"relu_grad"`` where ``|t| <= FLT_EPSILON``
    (a NaN is not), else ``"main"`` (ThresholdGradV2D)."""
    return "relu_grad" if abs(float(threshold32)) <= FLT_EPSILON else "main"

# ---------------------------------------------------------------- the programs (inputs grad "g", self "xf")


_INPUTS = (("grad", "g"), ("x", "xf"))
_T = Attr("threshold")
#: ``threshold_grad_v2_d.h`` Compute: CompareScalar GT, Select(grad, 0) (scalar mode). The A2 float16 path
#: compares in half against ``static_cast<half>(threshold)``: here its float32 meaning on the exact widenings.
_A2_MAIN = {"float16": (V.CompareScalar("m", "xf", Attr("threshold_half"), "GT"), V.Select("r", "g", 0.0, "m"))}
_A2_MAIN["float32"] = _A2_MAIN["bfloat16"] = (V.CompareScalar("m", "xf", _T, "GT"), V.Select("r", "g", 0.0, "m"))
#: ``relu_grad.h`` Compute, float32 and float16 (in half: the same on the exact widenings).
_A2_RELU = (V.CompareScalar("m", "xf", 0.0, "LE"), V.Duplicate("z", 0.0), V.Select("r", "z", "g", "m"))
#: ``relu_grad.h`` Compute, bfloat16: the mask built arithmetically. Its constants ``scalar_bf16_C =
#: 274877906944`` (2^38) and ``scalar_bf16_D = 17592186044416`` (2^44) are declared ``constexpr int``: they
#: wrap to 0 (their low 32 bits), so the result is ``max(min(x, FLT_MIN), 0) * 0 * 0 * 0 * grad``, a signed
#: zero or NaN: the upstream bug, reproduced.
_A2_RELU_BF16 = (
    V.Duplicate("t2", 1.1754943508222875e-38), V.Min("t1", "xf", "t2"),
    V.Duplicate("t2", 0.0), V.Max("t2", "t1", "t2"),
    V.Duplicate("t1", 0.0), V.Mul("t2", "t2", "t1"),          # (float)(int)2^38 = 0
    V.Duplicate("t1", 0.0), V.Mul("t2", "t2", "t1"),          # (float)(int)2^44 = 0
    V.Mul("t2", "t2", "t1"),
    V.Mul("r", "t2", "g"),
)
#: ``ReluGradDag<T>`` (950): Compare LE 0, Select(0, 1), Mul(grad, .), in T itself (a product by 0 or 1:
#: the same on the exact widenings).
_ARCH35_RELU = (V.Duplicate("zero", 0.0), V.Duplicate("one", 1.0), V.Compare("m", "xf", "zero", "LE"),
                V.Select("s", "zero", "one", "m"), V.Mul("r", "g", "s"))
#: ``ThresholdGradV2DDag<U>`` (950): in float32, Compare LE the threshold, Select(0, grad), Cast mode 1.
_ARCH35_MAIN = (V.Duplicate("thr", _T), V.Duplicate("zero", 0.0), V.Compare("m", "xf", "thr", "LE"),
                V.Select("r", "zero", "g", "m"))


def programs_a2(dtype: str, variant: str = "main"):
    if variant == "relu_grad":
        body, masks = (_A2_RELU_BF16, ()) if dtype == "bfloat16" else (_A2_RELU, ("m",))
        return elementwise("ReluGradA2", _INPUTS, body, "r", dtype, "CAST_RINT", masks=masks)
    if variant != "main":
        raise ValueError(f"no A2 ThresholdBackward variant {variant!r}: 'relu_grad' or 'main'")
    return elementwise("ThresholdGradV2DA2", _INPUTS, _A2_MAIN[dtype], "r", dtype, "CAST_RINT", masks=("m",))


def programs_arch35(dtype: str, variant: str = "main"):
    if variant not in ("relu_grad", "main"):
        raise ValueError(f"no 950 ThresholdBackward variant {variant!r}: 'relu_grad' or 'main'")
    relu = variant == "relu_grad"
    return elementwise("ReluGrad950" if relu else "ThresholdGradV2D950", _INPUTS,
                       _ARCH35_RELU if relu else _ARCH35_MAIN, "r", dtype, "CAST_RINT", masks=("m",))


def _attrs(tiling: OpTiling, info: DTypeInfo) -> dict:
    t = np.float32(tiling.data["threshold"])
    if tiling.architecture == ARCH_A2 and info.name == "float16" and variant_of(t) == "main":
        with np.errstate(over="ignore"):
            return {"threshold_half": np.float32(np.float16(t))}   # static_cast<half>: to nearest even
    return {} if variant_of(t) == "relu_grad" else {"threshold": t}

# ---------------------------------------------------------------- host tilings


def _a2_tiling(numel: int, info: DTypeInfo, t32, platform: Platform) -> OpTiling:
    units = UB_DATA_NUMBER[variant_of(t32)][info.name]
    tile_blocks = (platform.ub_size // _BLOCK) // units
    if tile_blocks < 1:
        raise ValueError(f"platform.ub_size ({platform.ub_size} bytes) is too small: the A2 kernel's host needs "
                         f"{units} blocks of {_BLOCK} bytes per tile")
    cores, f = spec_a2.split_blocks(numel, info.itemsize, tile_blocks, platform.core_num, _BLOCK)
    data = checked_record(A2_RECORD_DTYPE, dict(f._asdict(), threshold=np.float32(t32)))
    return OpTiling(NAME, ARCH_A2, data, int(cores), 0, 0)


def shaped_tiling(shapes, info: DTypeInfo, t32, platform: Platform) -> OpTiling:
    """The host tiling of inputs of ``shapes`` (grad's, self's), broadcast on the 950; the A2 kernels take one
    length for both inputs and do not broadcast (refused)."""
    t32 = np.float32(0.0 if t32 is None else t32)
    if platform.architecture == ARCH_A2:
        if len(set(map(tuple, shapes))) > 1:
            raise ValueError(f"the A2 {'ReluGrad' if variant_of(t32) == 'relu_grad' else 'ThresholdGradV2D'} kernel "
                             f"reads both inputs over one length and does not broadcast: shapes {shapes[0]} and "
                             f"{shapes[1]} are not modelled there; use an Ascend 950 platform")
        return _a2_tiling(int(np.prod(shapes[0], dtype=np.int64)), info, t32, platform)
    extra, divisor = _ARCH35_PARAMS[info.itemsize]
    record, blocks, schedule, _out = broadcast_tiling(shapes[0], shapes[1], 8 * info.itemsize, extra, divisor,
                                                      platform)
    data = np.zeros((), dtype=ARCH35_RECORD_DTYPE)
    for n in ARCH35_SCALAR_FIELDS + ARCH35_ARRAY_FIELDS:
        data[n] = record[n]
    data["threshold"] = t32
    return OpTiling(NAME, ARCH_950, data[()], int(blocks), int(schedule) * 10 + _DTYPE_TEMPLATE[info.name], 32)


def host_tiling(numel: int, info: DTypeInfo, t32, platform: Platform) -> OpTiling:
    """The registry's: inputs of one shape, ``numel`` (>= 1) elements, ``t32`` the threshold (None: 0)."""
    return shaped_tiling(((numel,), (numel,)), info, t32, platform)

# ---------------------------------------------------------------- launch, check


def _bits(a: np.ndarray, info: DTypeInfo) -> np.ndarray:
    return a if info is FLOAT32 else a.view(np.uint16)


def shaped_launch(arrays, out: np.ndarray, tiling: OpTiling, info: DTypeInfo, saturation: bool = False) -> None:
    """Run the record's kernel on C-contiguous (grad, self) of their own shapes into ``out`` (their broadcast)."""
    grad, x = arrays
    variant = variant_of(tiling.data["threshold"])
    params = compiled(NAME, tiling.architecture, info.name, variant, saturation).params(**_attrs(tiling, info))
    if tiling.architecture == ARCH_A2:
        plan = kernel_pkg.plan_launch(a2_walk_fields(tiling), tiling.block_dim, kernel_pkg.ARCH_A2, out.size)
        kernel_pkg.run_walk(params, (_bits(grad.reshape(-1), info), _bits(x.reshape(-1), info)),
                            _bits(out.reshape(-1), info), plan)
        return
    if saturation:
        raise ValueError("overflow_mode 'saturation' is not supported by the Ascend 950 kernels (Inf/NaN mode only)")
    r = tiling.data
    with runtime.launch_guard():
        run_record(params, _bits(grad.reshape(-1), info), _bits(x.reshape(-1), info), _bits(out.reshape(-1), info),
                   tiling.block_dim, r)


def run(grad, x: np.ndarray, out: np.ndarray, tiling: OpTiling, saturation: bool = False) -> None:
    """The kernel with a checked record over flat contiguous ``grad``, ``x`` and ``out`` of one dtype."""
    if grad is None:
        raise ValueError(f"grad must be an array for {NAME!r} (its gradOutput)")
    shaped_launch((grad, x), out, tiling, dtype_info(out.dtype, argname="out.dtype"), saturation)


def _a2_walk_check(tiling: OpTiling, numel: int, info: DTypeInfo, platform: Platform) -> WalkCheck:
    own = () if tiling.tiling_key == 0 else (finding(
        "TILING_KEY_MISMATCH", f"tiling key {tiling.tiling_key}; both A2 hosts give 0."),)
    fields = spec_a2.TilingFields(*(int(tiling.data[n]) for n in spec_a2.FIELDS))
    relu = variant_of(tiling.data["threshold"]) == "relu_grad"
    # Init: the uint8 mask (float32, float16; ThresholdGradV2D's bfloat16 too, with a float32 buffer), or
    # ReluGrad bfloat16's two float32 buffers
    scratch = ((1, 1),) if info.name != "bfloat16" else (((2, 4),) if relu else ((1, 1), (1, 4)))
    return WalkCheck(fields, ((2, info.itemsize),) * 3 + scratch, fields.tileDataNum, own)


def _arch35_walk_check(tiling: OpTiling, numel: int, info: DTypeInfo, platform: Platform) -> WalkCheck:
    d = {n: int(tiling.data[n]) for n in ARCH35_SCALAR_FIELDS}
    own = tuple(finding("FIELD_RANGE", f"{n}={d[n]}: the kernel needs it >= 1.")
                for n in ("blockFormer", "ubFormer", "ubOuter", "ubTail", "blockTail", "shapeLen", "elemNum")
                if d[n] < 1)
    if tiling.tiling_key % 10 != _DTYPE_TEMPLATE[info.name]:
        own += (finding("TILING_KEY_MISMATCH", f"tiling key {tiling.tiling_key}: dType {tiling.tiling_key % 10}, "
                                               f"{info.name} is {_DTYPE_TEMPLATE[info.name]}."),)
    return WalkCheck(None, ((2, info.itemsize),) * 3, max(d["elemNum"], 0), own)


def _instructions(programs):
    return lambda tiling, itemsize: programs("float32" if itemsize == 4 else "float16",
                                             variant_of(tiling.data["threshold"])).instructions()


KERNELS = {
    ARCH_A2: Kernel(ARCH_A2, "experimental/activation/relu_grad, experimental/activation/threshold_grad_v2_d",
                    "ThresholdGradV2DTilingData", A2_RECORD_DTYPE, "CAST_RINT", _a2_walk_check, run,
                    _instructions(programs_a2), lambda tiling: 2, programs=programs_a2),
    ARCH_950: Kernel(ARCH_950, "activation/relu_grad, activation/threshold_grad_v2_d (arch35)",
                     "BroadcastBaseTilingData + threshold", ARCH35_RECORD_DTYPE, "CAST_RINT", _arch35_walk_check,
                     run, _instructions(programs_arch35), programs=programs_arch35, walk="broadcast"),
}
