"""The op folder's parts for :func:`.operator.read_kernel` (issue 43): which entry file is the platform's,
the op_kernel and op_host folders, and the op attributes the host's tiling function carries in the struct."""
from __future__ import annotations

from ..platform import ARCH_950

__all__ = ["host_attributes", "kernel_folders", "entry_for"]


def host_attributes(side, fields) -> tuple:
    """(op attribute name -> tiling field, tiling field -> default) from op_host: a field the tiling
    function sets from attribute ``i`` (``set_<field>(*attrs->GetAttrPointer<float>(i))``), or a float
    field named as an attribute."""
    names, defaults = {}, {}
    if side is None or side.definition is None:
        return names, defaults
    attrs = side.definition.attrs
    for i, (aname, _, _, default) in enumerate(attrs):
        carried = [f for f, k in side.attr_fields.items() if k == i and f in fields]
        target = carried[0] if carried else aname if aname in fields else None
        if target is None:
            continue
        if aname != target:
            names[aname] = target
        if default is not None:
            defaults[target] = default
    return names, defaults


def kernel_folders(folder):
    """(op_kernel folder, its op_host read or None): ``folder`` is the operator's folder where it holds
    ``op_kernel/``, else the op_kernel folder."""
    from pathlib import Path

    from .host import read_op_host

    path = Path(folder)
    if (path / "op_kernel").is_dir() and not (path / "op_kernel").is_symlink():
        host = path / "op_host"
        ok = host.is_dir() and not host.is_symlink()
        return path / "op_kernel", read_op_host(host) if ok else None
    return path, None


def entry_for(kernel_dir, arch):
    """The entry file for ``arch`` where op_kernel holds an A2 and a 950 entry; None (the reader's own
    choice) where it holds one, or none of ``arch``'s."""
    from .errors import KernelSourceError
    from .source import read_regular

    if not kernel_dir.is_dir():
        return None
    top = [p for p in sorted(kernel_dir.glob("*.cpp")) if p.is_file() and not p.is_symlink()]
    sub = kernel_dir / "arch35"
    deep = [p for p in sorted(sub.glob("*.cpp")) if p.is_file() and not p.is_symlink()] if sub.is_dir() else []
    entries = [p for p in top + deep if "__global__" in read_regular(p)]
    if len(entries) < 2:
        return str(entries[0].relative_to(kernel_dir)) if entries and entries[0] in deep else None
    is_950 = [p in deep or p.stem.endswith("_apt") for p in entries]
    mine = [p for p, f in zip(entries, is_950) if f == (arch == ARCH_950)]
    if len(mine) != 1:
        raise KernelSourceError(str(kernel_dir), 0, f"{len(entries)} entry files",
                                f"{len(mine)} of them for the {arch} platform: name one with entry= "
                                f"({', '.join(str(p.relative_to(kernel_dir)) for p in entries)})")
    return str(mine[0].relative_to(kernel_dir))
