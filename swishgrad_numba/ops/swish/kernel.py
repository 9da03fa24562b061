"""The Swish forward kernels (aclnnSwish; aclnnSilu is the same kernel with scale 1.0): their data for
:mod:`.description`.

docs/model.md section "Swish and Silu (forward)" gives the sources, file
and line, of every fact here. Two kernels:

- Atlas A2 (ops-nn ``experimental/activation/swish``): ``SwishTilingData``
  (eight uint32 and the float ``scale``, 36 bytes); its own host tiling
  (two UB words per element for float32, four for 16-bit); in float32
  registers ``Muls(x, -scale)``, ``Exp``, ``Adds(1)``, ``Div(x, .)``; 16-bit
  results narrowed with ``CAST_ROUND`` (ties away from zero).
- Ascend 950 (mainline ``activation/swish``, arch35): atvoss ElewiseTiling
  on the 32-byte ``EleBaseTilingData32B`` with ``scale`` in its scalar data;
  the host picks one of three DAGs by beta (opbase ``IsFloatEqual``), each
  narrowing with ``CAST_RINT``.

Plain Python only: the facts and the host tilings (:mod:`.host`), the
programs (:func:`_programs`), which :mod:`swishgrad_numba.program` compiles and
the engine runs (:mod:`swishgrad_numba.engine`); a 16-bit program is all one
table of outputs, built by the engine.
"""
from __future__ import annotations

import functools

import numpy as np

from ... import kernel as kernel_pkg
from ...dtypes import FLOAT32, DTypeInfo, dtype_info
from ...platform import ARCH_950, ARCH_A2, Platform
from ...spec import a2 as spec_a2
from ...spec import arch35 as spec_arch35
from ...tiling.findings import finding
from ...program import Attr, Product, Program, compiled
from ...program.elementwise import elementwise
from ...program.form import V
from ..registry import Kernel, OpTiling, WalkCheck
from .host import (A2_FIELDS, A2_RECORD_DTYPE, ARCH35_FIELDS, ARCH35_RECORD_DTYPE, ATTR_NEG_ONE,  # noqa: F401
                         ATTR_OTHER, ATTR_ZERO, DAGS, SCH_MODE, V_950_NEG_ONE, V_950_OTHER, V_950_ZERO, V_A2, Dag,
                         a2_attr, a2_buffer_plan, a2_host_tiling, a2_ub_bytes, arch35_attr, arch35_dag,
                         arch35_host_tiling, arch35_ub_bytes, host_tiling, is_float_equal, tiling_key, variant_of,
                         walk_fields)

__all__ = [
    "A2_RECORD_DTYPE", "ARCH35_RECORD_DTYPE", "A2_FIELDS", "ARCH35_FIELDS", "ATTR_NEG_ONE", "ATTR_ZERO",
    "ATTR_OTHER", "V_A2", "V_950_NEG_ONE", "V_950_ZERO", "V_950_OTHER", "Dag", "DAGS", "a2_attr", "arch35_attr",
    "is_float_equal", "tiling_key", "a2_buffer_plan", "a2_ub_bytes", "a2_host_tiling", "arch35_dag",
    "arch35_host_tiling", "arch35_ub_bytes", "host_tiling", "walk_fields", "variant_of", "VARIANT_NAMES", "launch",
    "a2_walk_check", "arch35_walk_check", "run", "KERNELS", "swish_host_tiling", "silu_host_tiling",
]

# ---------------------------------------------------------------- the programs

_SCALE = Attr("scale")
#: The program variant of each kernel variant code.
VARIANT_NAMES = {V_A2: "main", V_950_NEG_ONE: "neg_one", V_950_ZERO: "zero", V_950_OTHER: "other"}
#: The float32 Compute of each variant, ``x`` -> ``y`` (docs/model.md "Swish and Silu", lines cited there).
_BODIES = {
    "main": (V.Muls("t", "xf", Product(-1.0, _SCALE)), V.Exp("t", "t"), V.Adds("t", "t", 1.0), V.Div("y", "xf", "t")),
    "neg_one": (V.Exp("t", "xf"), V.Adds("t", "t", 1.0), V.Div("y", "xf", "t")),
    "zero": (V.Muls("y", "xf", 0.5),),
    "other": (V.Muls("t", "xf", -1.0), V.Muls("t", "t", _SCALE), V.Exp("t", "t"), V.Adds("t", "t", 1.0),
              V.Div("y", "xf", "t")),
}
_NAMES = {"main": "Swish", "neg_one": "SwishNegOne", "zero": "SwishZero", "other": "SwishOther"}


def _programs(architecture: str, dtype: str, variant: str) -> Program:
    """The Compute of kernel ``architecture``'s ``variant`` (the A2's ``main``, a 950 DAG's) for ``dtype``:
    16-bit x widened first (CAST_NONE), the result narrowed last (A2 CAST_ROUND, 950 CAST_RINT)."""
    if (architecture == ARCH_A2) != (variant == "main"):
        raise ValueError(f"no Swish variant {variant!r} on kernel {architecture!r}")
    narrowing = "CAST_ROUND" if architecture == ARCH_A2 else "CAST_RINT"
    return elementwise(_NAMES[variant], (("x", "xf"),), _BODIES[variant], "y", dtype, narrowing)

# ---------------------------------------------------------------- the launch (the walk is kernel.walk's)


def launch(x: np.ndarray, out: np.ndarray, launch_plan, scale32, info: DTypeInfo, variant: int,
           saturation: bool = False) -> None:
    """Run a planned launch over flat C-contiguous ``x`` and ``out`` of ``info``'s dtype: the variant's
    program, compiled; ``saturation``: the device's saturation overflow mode."""
    architecture = ARCH_A2 if variant == V_A2 else ARCH_950
    params = compiled("swish", architecture, info.name, VARIANT_NAMES[variant], saturation).params(scale=scale32)
    raw = (lambda a: a) if info is FLOAT32 else (lambda a: a.view(np.uint16))
    kernel_pkg.run_walk(params, (raw(x),), raw(out), launch_plan)


# ---------------------------------------------------------------- a record, checked and run


def _key_findings(tiling: OpTiling, attr: int) -> tuple:
    expected = tiling_key(attr)
    if tiling.tiling_key == expected:
        return ()
    return (finding("TILING_KEY_MISMATCH", f"tiling key {tiling.tiling_key}; the Swish host gives {expected} for "
                                           f"scale={float(tiling['scale'])!r} (schMode {SCH_MODE}, attrWork "
                                           f"{attr})."),)


def a2_walk_check(tiling: OpTiling, numel: int, info: DTypeInfo, platform: Platform) -> WalkCheck:
    """The A2 record for the validator: SwishGrad's A2 walk (the same eight
    integer fields), this kernel's UB plan and tiling key."""
    fields = spec_a2.TilingFields(*(int(tiling[name]) for name in spec_a2.FIELDS))
    return WalkCheck(fields, a2_buffer_plan(info.itemsize), fields.tileDataNum,
                     _key_findings(tiling, a2_attr(tiling["scale"])))


def arch35_walk_check(tiling: OpTiling, numel: int, info: DTypeInfo, platform: Platform) -> WalkCheck:
    """The 950 record for the validator: the ElewiseTiling walk the kernel
    derives from ``dim0``, ``coreNum`` and ``ubFormer``, the DAG's buffer."""
    dag = arch35_dag(tiling["scale"])
    plan = ((dag.buffer_num(info.itemsize), dag.max_itemsize(info.itemsize)),)
    keys = _key_findings(tiling, dag.attr)
    bad = [name for name in ("dim0", "coreNum", "ubFormer") if int(tiling[name]) < 1]
    if bad:
        return WalkCheck(None, plan, 0, keys + tuple(
            finding("FIELD_RANGE", f"{name}={int(tiling[name])}: the kernel divides by it and needs it >= 1.")
            for name in bad))
    fields = spec_arch35.kernel_fields_32b(int(tiling["dim0"]), int(tiling["coreNum"]), int(tiling["ubFormer"]))
    return WalkCheck(fields, plan, fields.ubFormer, keys)


def run(grad, x: np.ndarray, out: np.ndarray, tiling: OpTiling, saturation: bool = False) -> None:
    """The kernel with a checked record over flat contiguous ``x`` and ``out`` (``grad`` None), in the
    saturation overflow mode where ``saturation``."""
    if grad is not None:
        raise ValueError(f"grad must be None for the forward operator {tiling.op!r} (it reads x only)")
    info = dtype_info(out.dtype, argname="out.dtype")
    scale32 = np.float32(tiling["scale"])
    fields = walk_fields(tiling)
    launch_plan = kernel_pkg.plan_launch(fields, tiling.block_dim, kernel_pkg.arch_code(tiling.architecture),
                                         out.size)
    launch(x, out, launch_plan, scale32, info, variant_of(tiling.architecture, scale32), saturation=saturation)

# ---------------------------------------------------------------- the kernels

def _device_instructions(architecture: str, tiling: OpTiling, itemsize: int) -> tuple:
    """The vector instructions of one tile (A2) or UB loop (950) for the device-time model: the
    program's (a 16-bit one has the widening Cast in front and the narrowing one after)."""
    variant = "main" if architecture == ARCH_A2 else VARIANT_NAMES[arch35_dag(tiling["scale"]).variant]
    return _programs(architecture, "float32" if itemsize == 4 else "float16", variant).instructions()


#: The kernels by architecture (Swish and Silu share them).
KERNELS = {
    ARCH_A2: Kernel(ARCH_A2, "experimental/activation/swish", "SwishTilingData", A2_RECORD_DTYPE, "CAST_ROUND",
                    a2_walk_check, run, functools.partial(_device_instructions, ARCH_A2),
                    programs=functools.partial(_programs, ARCH_A2)),
    ARCH_950: Kernel(ARCH_950, "activation/swish (arch35)", "EleBaseTilingData32B", ARCH35_RECORD_DTYPE,
                     "CAST_RINT", arch35_walk_check, run, functools.partial(_device_instructions, ARCH_950),
                     programs=functools.partial(_programs, ARCH_950),
                     variant=lambda scale32: VARIANT_NAMES[arch35_dag(scale32).variant]),
}


def swish_host_tiling(numel, info, beta32, platform):
    """aclnnSwish's host tiling: ``beta32`` the scale (1.0 where None)."""
    return host_tiling("swish", numel, info, np.float32(1.0) if beta32 is None else beta32, platform)


def silu_host_tiling(numel, info, beta32, platform):
    """aclnnSilu's host tiling: the Swish kernel with scale 1.0."""
    return host_tiling("silu", numel, info, np.float32(1.0), platform)
