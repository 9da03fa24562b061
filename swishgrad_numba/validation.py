"""Old module path, kept so that existing imports keep working: the code lives in
:mod:`swishgrad_numba.tiling`."""
from .tiling import *  # noqa: F401,F403

__all__ = ["CODES", "Finding", "ValidationReport", "TilingBalance", "SweepResult", "validate_tiling", "tiling_balance",
           "vectorized_verdict", "sweep_grid", "run_sweep"]
