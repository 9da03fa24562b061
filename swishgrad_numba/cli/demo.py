"""``swishgrad demo``: the seed example (model section 1) in every dtype, then one line per operator."""
from __future__ import annotations

import numpy as np

SEED_BETA = 1.1


def fed_from() -> dict:
    """Operators whose second input is another operator's result, by that operator, read from the descriptions:
    a backward whose second input has role ``"y"`` reads its forward's result (SigmoidGrad's ``output``, in
    (0, 1)), so its line feeds it the forward of x (sigmoid(x))."""
    from ..ops.description import DESCRIPTIONS

    return {d.backward: name for name, d in DESCRIPTIONS.items()
            if d.backward in DESCRIPTIONS and DESCRIPTIONS[d.backward].inputs[-1].role == "y"}


def seed_inputs(dtype):
    """gradOutput = six ones, self = 1..6, in ``dtype``."""
    grad = np.ones(6, dtype=np.float32).astype(dtype)
    x = np.arange(1, 7, dtype=np.float32).astype(dtype)
    return grad, x


def run_demo(out=print) -> None:
    from .. import ASCEND950_PLATFORM, compute_tiling, swish_backward
    from ..dtypes import SUPPORTED_DTYPES
    from ..golden import float64_truth

    out(f"SwishGrad seed example: gradOutput = 1 x 6, self = 1..6, beta = {SEED_BETA}")
    out("gradInput: the Atlas A2 kernel (the default); Ascend 950: the arch35 kernel; float64: the formula")
    for name, dtype in SUPPORTED_DTYPES.items():
        grad, x = seed_inputs(dtype)
        tiling = compute_tiling(x.size, dtype, beta=SEED_BETA)
        result = swish_backward(grad, x, SEED_BETA)
        exact = float64_truth(grad, x, SEED_BETA)
        err = np.abs(result.astype(np.float64) - exact) / np.abs(exact)
        out("")
        out(f"[{name}] tiling: " + ", ".join(f"{k}={v}" for k, v in tiling.as_dict().items()))
        out(f"[{name}] gradInput : " + " ".join(f"{float(v):.8g}" for v in result))
        out(f"[{name}] float64   : " + " ".join(f"{v:.8g}" for v in exact))
        out(f"[{name}] rel. error: " + " ".join(f"{v:.2e}" for v in err) + f"  (max {err.max():.2e})")
        on_950 = swish_backward(grad, x, SEED_BETA, platform=ASCEND950_PLATFORM)
        differ = np.count_nonzero(on_950.view(f"u{on_950.itemsize}") != result.view(f"u{result.itemsize}"))
        out(f"[{name}] Ascend 950: " + " ".join(f"{float(v):.8g}" for v in on_950)
            + f"  ({differ} of {x.size} differ from the A2 kernel's)")


def family_lines(dtype=np.float32) -> list:
    """One line per registered operator on the seed input (gradOutput = 1 x 6,
    x = 1..6, beta = :data:`SEED_BETA` where it takes one), as the Atlas A2
    kernel computes it (the Ascend 950's for an operator with no A2 kernel,
    said on its line): ``[op] aclnnName (beta=...): v1 ... v6``. An operator
    of :func:`fed_from` reads that operator's result on x instead of x, said
    on its line.

    Every operator alike, through the registry: its host tiling
    (``compute_tiling(op=...)``) run by ``run_tiling``, so a newly
    registered operator gets its line with no change here. Where the
    validator finds errors in the host's own record (the A2 SoftplusV2Grad's
    and GeluGradV2's whole-block copies run past a 6-element tensor's
    padding), that is the kernel's own behaviour, not a bad record: the
    values are the kernel's as the functional API computes them (its launch
    on the host's record, the tensor's own elements), and one more line,
    indented under the operator's, names the validator's codes.
    """
    from .. import compute_tiling, run_tiling
    from ..ops import OPERATORS

    grad, x = seed_inputs(dtype)
    lines = []
    fed = fed_from()
    for name in sorted(OPERATORS):
        op = OPERATORS[name]
        tiling = compute_tiling(x.size, x.dtype, SEED_BETA if op.has_beta else None, op=name)
        beta = f" (beta={SEED_BETA})" if op.has_beta else ""
        # an operator without an A2 kernel (FastGelu) runs on its default platform, the 950's
        beta += "" if "a2" in op.kernels else " (Ascend 950 kernel; no public A2 kernel)"
        source = fed.get(name)
        if source is not None:
            beta += f" ({OPERATORS[source].aclnn[1]} output of x)"
        second = x if source is None else run_tiling(None, x, np.empty_like(x),
                                                     compute_tiling(x.size, x.dtype, op=source))
        values, flagged = _run_host_record(op, grad if op.inputs == 2 else None, second, tiling)
        lines.append(f"[{name}] {op.aclnn[1]}{beta}: " + " ".join(f"{float(v):.8g}" for v in values))
        if flagged:
            lines.append(f"    (the validator flags the kernel's own behaviour on {x.size} elements: "
                         f"{', '.join(flagged)}; the values are the kernel's on the tensor's own elements, "
                         f"as the functional API computes them)")
    return lines


def _run_host_record(op, grad, x, tiling):
    """The operator's kernel on the host's own record: ``(values, codes)``, the codes of the
    validator's errors in it (empty where it has none, and then run by ``run_tiling``). A record with
    errors is the kernel's own behaviour (the host made it), so it is launched as the functional
    API launches it (:func:`~swishgrad_numba.ops.call.call`), on the tensor's own elements."""
    from .. import run_tiling, validate_tiling

    out = np.empty_like(x)
    report = validate_tiling(tiling, x.size, x.dtype)
    if report.ok:
        return run_tiling(grad, x, out, tiling), ()
    # the record is compute_tiling's on the operator's default platform, whose Axpy rounding the API's launch takes
    extra = {"axpy_rounding": op.default_platform.axpy_rounding} if op.axpy else {}
    op.kernels[tiling.architecture].run(grad, x, out, tiling, **extra)
    return out, tuple(dict.fromkeys(f.code for f in report.errors))


def run_family(out=print) -> None:
    """The family's lines (float32)."""
    out("")
    out("The Swish family on the same input (float32, Atlas A2 kernel where there is one), one line per operator:")
    for line in family_lines():
        out(line)


def _cmd_demo(args) -> int:
    run_demo()
    run_family()
    return 0


def register(subparsers) -> None:
    p = subparsers.add_parser("demo", help="run the seed example (model section 1) in float32, float16 and "
                                                   "bfloat16, and one line per operator of the Swish family")
    p.set_defaults(func=_cmd_demo)
