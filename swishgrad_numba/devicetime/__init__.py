"""How long would the NPU take? A device-time model of one launch (``docs/devicetime.md``).

An estimate rests on public figures and stated assumptions (:mod:`.params`); it is not a measurement.
:func:`estimate` models a SwishGrad tiling, :func:`estimate_custom` any element-wise kernel on the same
template, :func:`fit` calibrates the free parameters on ``msprof op`` measurements.
"""
from .estimate import OPS, Estimate, estimate, estimate_custom
from .params import (COST_MODELS, FREE_PARAMETERS, SOC_FIGURES, Params, default_params, instruction_names,
                     load_params, save_params)

__all__ = ["Estimate", "estimate", "estimate_custom", "fit", "FitResult", "Params", "default_params",
           "load_params", "save_params", "instruction_names", "COST_MODELS", "FREE_PARAMETERS", "SOC_FIGURES", "OPS",
           "best_tiling", "read_msprof"]


def __getattr__(name):
    # fit and the search import more; load them on first use
    if name in ("fit", "FitResult", "read_msprof"):
        from . import fit as _fit
        return getattr(_fit, name)
    if name == "best_tiling":
        from .search import best_tiling
        return best_tiling
    raise AttributeError(name)
