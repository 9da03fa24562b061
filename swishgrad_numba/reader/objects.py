"""The runtime objects of a class-style kernel as the reader follows them."""
from __future__ import annotations

from dataclasses import dataclass, field

__all__ = ["GMAddr", "GlobalT", "GlobalView", "Queue", "Buf", "Pipe", "Instance", "TilingVal", "Event"]


@dataclass(frozen=True)
class GMAddr:
    """A ``GM_ADDR`` parameter of the entry."""
    name: str


@dataclass
class GlobalT:
    """A ``GlobalTensor`` member; ``gm`` is set by ``SetGlobalBuffer``."""
    name: str
    gm: str | None = None
    ctype: object = field(default=None, compare=False)   # its element type (a template argument deduced from it)


@dataclass(frozen=True)
class GlobalView:
    """``xGm[offset]``: the global tensor at the tile's offset."""
    glob: GlobalT


@dataclass
class Queue:
    name: str
    depth: object = None


@dataclass(frozen=True)
class Buf:
    name: str


@dataclass(frozen=True)
class Pipe:
    pass


@dataclass(eq=False)
class Instance:
    """An object of a kernel class: its class, template bindings and members."""
    cls: object
    env: dict
    members: dict = field(default_factory=dict)
    ctypes: dict = field(default_factory=dict)        # a member's declared C type, by name


@dataclass(eq=False)
class TilingVal:
    """The tiling struct as the kernel holds it: float fields are attributes, the rest run-time values."""
    struct: object
    members: dict = field(default_factory=dict)
    name: str = ""          # the struct's name as the kernel gives it ("" where it names none)


@dataclass(frozen=True)
class Event:
    """What a tile does, in order: a ``step``, a ``load`` (key <- gm) or a ``store`` (gm <- key)."""
    kind: str
    step: object = None
    key: str = ""
    gm: str = ""
