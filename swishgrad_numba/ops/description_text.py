"""An operator's description as text: what ``swishgrad ops show NAME`` prints (issue 40).

:func:`show` reads a :class:`~.description.Description`'s fields only; :mod:`.description` re-exports it.
"""
from __future__ import annotations

__all__ = ["show"]

_PROMOTIONS = {"same": "one dtype", "promote": "promoted",
               "float32": "the kernel's where they agree, else Cast to float32; the result PyTorch's promotion"}


def show(desc) -> str:
    """A :class:`~.description.Description` as text (``swishgrad ops show NAME``)."""
    sig = ", ".join([i.name for i in desc.inputs] + [f"{a.name}={a.default!r}" for a in desc.attributes])
    acl = ", ".join(desc.acl_arguments)
    lines = [f"{desc.name}: {desc.summary}",
             f"  functional  swishgrad_numba.{desc.functional}({sig}, *, out=None, platform=None"
             f"{''.join(f', {n}={v!r}' for n, v in (desc.rows.options if desc.rows is not None else {}).items())})",
             f"  aclnn       {desc.aclnn[0]}({acl}) / {desc.aclnn[1]}"]
    if desc.aclnn_inplace:
        lines.append(f"              {desc.aclnn_inplace[0]} / {desc.aclnn_inplace[1]}")
    lines.append("  inputs      " + ", ".join(f"{i.name} ({i.acl}, {i.role}"
                                              + (f"; also {', '.join(i.extra_dtypes)}" if i.extra_dtypes else "")
                                              + ")" for i in desc.inputs))
    for a in desc.attributes:
        conv = ("ToFloat: one rounding to float32, a bool 1.0/0.0" if a.kind == "float"
                else f"an int64, an axis of {a.axis_of} in [-{a.axis_of}.ndim, {a.axis_of}.ndim - 1]" if a.kind == "int"
                else f"one of {', '.join(map(repr, a.choices))}" if a.kind == "choice"
                else "a bool, read by the kernel" if a.kernel else "a bool")
        checked = f"; scalar dtypes {', '.join(a.scalar_dtypes)}" if a.scalar_dtypes else ""
        lines.append(f"  attribute   {a.name} ({a.acl}), default {a.default!r}: {conv}{checked}")
    for dtype, why in desc.dtype_refusals.items():
        lines.append(f"  refused     {dtype}: {why}")
    if desc.path is not None:
        lines.append(f"  path        by attribute value: {(desc.path.__doc__ or '').strip()}")
    for r in desc.rules:
        lines.append("  rule        " + r.says.format(value="...", **{a.name: a.name for a in desc.attributes}))
    for soc, names in desc.dtypes.items():
        lines.append(f"  dtypes      {'other SoCs' if soc == '*' else soc}: {', '.join(names) or 'none (empty list)'}")
    if desc.aicpu_dtypes:
        lines.append(f"  AICPU       {', '.join(desc.aicpu_dtypes)} (any platform)")
    if desc.exact_dtypes:
        lines.append(f"  exact       {', '.join(desc.exact_dtypes)}: a plain exact model on the host (integers)")
    rank = "any rank" if desc.max_dims is None else f"at most {desc.max_dims} dims"
    if desc.rows is None:
        lines.append(f"  shapes      {'broadcast' if desc.broadcast else 'one shape'}, {rank}; "
                     f"dtypes {_PROMOTIONS[desc.promotion]}")
    if desc.broadcast_to:
        lines.append("  broadcast   BroadcastTo the output's shape, then the element-wise kernel")
    if desc.one_shape_on:
        lines.append(f"  one shape   on {', '.join(desc.one_shape_on)}: one shape and one dtype (inputs and output)")
    for arch, k in desc.kernels.items():
        lines.append(f"  kernel      {arch}: {k.source}, {k.struct}, narrowing {k.narrowing}"
                     f"{', programs' if k.programs else ''}")
    for arch, why in desc.no_kernel.items():
        lines.append(f"  no kernel   {arch}: {why}")
    if desc.backward:
        lines.append(f"  backward    {desc.backward}")
    if desc.torch_module:
        lines.append(f"  torch       swishgrad_numba.torch.{desc.torch_module}")
    whys = {why: [d for d, w in desc.acl_refusals.items() if w == why] for why in desc.acl_refusals.values()}
    lines += [f"  aclnn only  {', '.join(dtypes)} refused: {why}" for why, dtypes in whys.items()]
    if desc.out_dtypes:
        lines.append(f"  out         also {', '.join(desc.out_dtypes)} (a real result Cast to it)")
    if desc.torch_functions:
        lines.append("  torch       " + ", ".join(f"swishgrad_numba.torch.{n}" for n in desc.torch_functions))
    if desc.torch_rows is not None:   # a row operator's generated torch names (faces/torch_rows.py)
        lines.append("  torch       " + ", ".join(f"swishgrad_numba.torch.{n}" for n in desc.torch_rows.functions))
    if desc.torch_variant:
        lines.append(f"  torch       with {desc.torch_variant[0]} given: operator {desc.torch_variant[1]}'s")
    for arch, fmts in desc.storage_formats.items():
        lines.append(f"  storage     {arch}: ND-type or {', '.join(fmts)} (one format and storage shape; the kernel "
                     f"walks the storage)")
    if desc.tiling_parameter_error:
        lines.append("  tiling      a platform that cannot be tiled: 161002 (a parameter error)")
    for arch, kernel in desc.no_saturation_on.items():
        lines.append(f"  saturation  not on {arch} (the {kernel} kernel: Inf/NaN mode only)")
    if desc.rows is not None:
        lines += desc.rows.show_lines()
    if desc.op_api_checks is not None:
        lines.append("  op_api      " + (desc.op_api_checks.__doc__ or "").strip().split("\n")[0])
    return "\n".join(lines)
