"""How long would the NPU take? A device-time model of one launch (``docs/devicetime.md``).

An estimate rests on public figures, a calibration on public copy-only launches and stated assumptions
(:mod:`.params`); it is not a measurement.
:func:`estimate` models a SwishGrad tiling, :func:`estimate_custom` any element-wise kernel on the same
template, :func:`fit` calibrates the free parameters on ``msprof op`` measurements (:mod:`.calibrate`),
:func:`best_tiling` searches the template's tilings (:mod:`.search`).
"""
from .calibrate import FitResult, Measurement, fit, read_msprof
from .custom import estimate_custom
from .estimate import MAX_TILES, OPS, Estimate, estimate
from .params import (CALIBRATED, COST_MODELS, FITTABLE_PARAMETERS, FREE_PARAMETERS, SOC_FIGURES, Params,
                     default_params, instruction_names, load_params, save_params)
from .search import best_tiling

__all__ = ["Estimate", "estimate", "estimate_custom", "fit", "FitResult", "Measurement", "read_msprof", "Params",
           "default_params", "load_params", "save_params", "instruction_names", "best_tiling", "COST_MODELS",
           "FREE_PARAMETERS", "FITTABLE_PARAMETERS", "CALIBRATED", "SOC_FIGURES", "OPS", "MAX_TILES"]
