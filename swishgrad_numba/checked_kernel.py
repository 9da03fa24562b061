"""Old module path, kept so that existing imports keep working: the code lives in
:mod:`swishgrad_numba.tiling`."""
from .tiling import *  # noqa: F401,F403

__all__ = ["FIELD_CAP", "MAX_CHECKED_NUMEL", "CheckedRun", "checked_run"]
