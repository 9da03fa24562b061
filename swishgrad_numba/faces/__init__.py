"""The faces of the operators in the described form (:mod:`swishgrad_numba.ops.description`), generated:

- :mod:`.functional`: the public function (``swishgrad_numba.leaky_relu``);
- :mod:`.torch`: the torch module and its autograd row (``swishgrad_numba.torch.LeakyReLU``);
- the aclnn pairs: :mod:`swishgrad_numba.aclnn.described`; the Dask function:
  :func:`swishgrad_numba.dask.described` (each beside the hand-written faces it shares helpers with).

And the older operators' hand-written faces (issue 40: once at the package's top level): :mod:`.swish_grad`
(``swish_backward``, ``run_tiling``), and the torch modules: :mod:`.torch_support` (what they share),
:mod:`.torch_family` (Swish, SiLU and the ``ACTIVATIONS`` machinery), :mod:`.torch_gelu` (GELU, over the
generated Gelu and GeluV2 faces); Sigmoid's (once :mod:`.torch_sigmoid`) is generated: :func:`.torch.functions`.
"""
