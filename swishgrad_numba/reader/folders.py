"""The op folder's parts for :func:`.operator.read_kernel` (issue 43): which entry file is the platform's,
the op_kernel and op_host folders, and the op attributes the host's tiling function carries in the struct."""
from __future__ import annotations

from ..platform import ARCH_950

__all__ = ["host_attributes", "kernel_folders", "entry_for", "only_950"]


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


def kernel_folders(folder, platform_arch=None, entry=None):
    """(op_kernel folder, its op_host read or None, the entry, whether it is a 950 entry): ``folder`` is the
    operator's folder where it holds ``op_kernel/``, else the op_kernel folder. The entry is ``entry``, else
    :func:`entry_for` ``platform_arch``'s (None: the A2's). A 950 entry is one in ``arch35/`` or named
    ``*_apt.cpp``, or the one entry of an op whose definition configures the 950 and no A2 SoC
    (:func:`only_950`); op_host's ``arch35/`` is read with it."""
    from pathlib import Path

    from .host import read_op_host

    path = Path(folder)
    if (path / "op_kernel").is_dir() and not (path / "op_kernel").is_symlink():
        kernel_dir, host = path / "op_kernel", path / "op_host"
    else:
        kernel_dir, host = path, None
    if entry is None:
        entry = entry_for(kernel_dir, platform_arch or "a2")
    ok = host is not None and host.is_dir() and not host.is_symlink()
    is_950 = _is_950(kernel_dir, entry) or (ok and entry is None and only_950(host))
    return kernel_dir, read_op_host(host, arch35=is_950) if ok else None, entry, is_950


#: The SoC families of an op definition's ``AddConfig`` that run the A2 kernel (the A2 and A3 parts).
_A2_SOCS = frozenset({"ascend910b", "ascend910_93"})


def only_950(host) -> bool:
    """Whether op_host's op definition configures the Ascend 950 (``AddConfig("ascend950", ...)``) and no A2
    SoC: its one kernel entry is then the 950's, wherever it lies."""
    import re

    from .source import read_regular

    socs = set()
    for p in sorted(host.glob("*.cpp")):
        if p.is_file() and not p.is_symlink():
            socs |= set(re.findall(r'\bAddConfig\s*\(\s*"(\w+)"', read_regular(p)))
    return "ascend950" in socs and not socs & _A2_SOCS


def _entries(kernel_dir):
    from .source import is_entry_text, read_regular

    top = [p for p in sorted(kernel_dir.glob("*.cpp")) if p.is_file() and not p.is_symlink()]
    sub = kernel_dir / "arch35"
    deep = [p for p in sorted(sub.glob("*.cpp")) if p.is_file() and not p.is_symlink()] if sub.is_dir() else []
    return [p for p in top + deep if is_entry_text(read_regular(p))], deep


def _is_950(kernel_dir, entry) -> bool:
    """Whether ``entry`` (relative to ``kernel_dir``; None: the folder's one top-level entry) is a 950 entry."""
    from pathlib import Path

    if entry is not None:
        p = Path(entry)
        return p.parts[:1] == ("arch35",) or p.stem.endswith("_apt")
    if not kernel_dir.is_dir():
        return False
    entries, _ = _entries(kernel_dir)
    return len(entries) == 1 and entries[0].stem.endswith("_apt")


def entry_for(kernel_dir, arch):
    """The entry file for ``arch`` where op_kernel holds an A2 and a 950 entry; None (the reader's own
    choice) where it holds one, or none of ``arch``'s."""
    from .errors import KernelSourceError

    if not kernel_dir.is_dir():
        return None
    entries, deep = _entries(kernel_dir)
    if len(entries) < 2:
        return str(entries[0].relative_to(kernel_dir)) if entries and entries[0] in deep else None
    is_950 = [p in deep or p.stem.endswith("_apt") for p in entries]
    mine = [p for p, f in zip(entries, is_950) if f == (arch == ARCH_950)]
    if len(mine) != 1:
        raise KernelSourceError(str(kernel_dir), 0, f"{len(entries)} entry files",
                                f"{len(mine)} of them for the {arch} platform: name one with entry= "
                                f"({', '.join(str(p.relative_to(kernel_dir)) for p in entries)})")
    return str(mine[0].relative_to(kernel_dir))
