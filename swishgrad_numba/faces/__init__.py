"""The faces of the operators in the described form (:mod:`swishgrad_numba.ops.description`), generated:

- :mod:`.functional`: the public function (``swishgrad_numba.leaky_relu``);
- :mod:`.torch`: the torch module and its autograd row (``swishgrad_numba.torch.LeakyReLU``);
- the aclnn pairs: :mod:`swishgrad_numba.aclnn.described`; the Dask function:
  :func:`swishgrad_numba.dask.described` (each beside the hand-written faces it shares helpers with).

And the older operators' hand-written faces (issue 40: once at the package's top level): :mod:`.swish_grad`
(``swish_backward``, ``run_tiling``), and what the generated torch modules share: :mod:`.torch_support`,
:mod:`.torch_family` (the ``ACTIVATIONS`` machinery). Every torch module is generated (:func:`.torch.module`:
Swish, SiLU and GELU too, once ``torch_family``'s and ``torch_gelu``'s), and so are the attribute-free torch
functions (:func:`.torch.functions`).
"""
