"""Old module path, kept so that existing imports keep working: the code lives in
:mod:`swishgrad_numba.tiling`."""
from .tiling import *  # noqa: F401,F403

__all__ = ["TILING_NBYTES", "as_tiling_record", "read_tiling_bin", "write_tiling_bin", "record_from_fields"]
