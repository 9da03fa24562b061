"""Checks of option values the command line makes itself, before calling the library."""
from __future__ import annotations

__all__ = ["OptionError", "check_soc"]


class OptionError(ValueError):
    """A bad option value; the message names the option."""


def check_soc(value: str, argname: str = "--soc") -> str:
    """``value`` if it is a known SoC family or chip name, else an :class:`OptionError` naming ``argname``."""
    from ..platform import SOC_VERSIONS, soc_family_of

    if soc_family_of(value) is None:
        raise OptionError(f"{argname} {value!r} is not a known SoC family or chip name; families: "
                          f"{', '.join(SOC_VERSIONS)} (or a chip name such as Ascend910B3 or Ascend950PR_9599)")
    return value
