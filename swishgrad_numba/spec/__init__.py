"""The model's integer arithmetic (docs/model.md sections 3, 4, 9), written once.

Each function here is plain integer arithmetic that runs unchanged on three
kinds of number:

- Python ints: exact at any size (:func:`~swishgrad_numba.compute_tiling`,
  the validator);
- NumPy int64 arrays: one evaluation per element (the validator's sweep over
  millions of sizes and platforms checks the real host code this way);
- jitted code: the helpers of :mod:`.arith` and the element-level
  functions are ``register_jitable``, so jitted code calls them too.

So conditionals are written as arithmetic (:func:`select`, :func:`minimum`)
rather than ``if``. Callers check their inputs; these functions only
compute.

- :mod:`.a2`: the Atlas A2 kernel (model sections 3 and 4): host tiling, core
  ranges, block padding, the unified-buffer plan.
- :mod:`.arch35`: the Ascend 950 kernel (model section 9): the atvoss
  ElewiseTiling, block ranges, its unified-buffer use.
"""
from .arith import ceil_div, maximum, minimum, pad_to, select

__all__ = ["ceil_div", "maximum", "minimum", "pad_to", "select"]
