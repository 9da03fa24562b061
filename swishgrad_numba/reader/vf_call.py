"""A vector function launched from scalar code (issue 43): ``asc_vf_call<F<T>>(args...)`` and
``VF_CALL<F<T>>(args...)``, where ``F`` is the kernel's own ``__simd_vf__`` function.

asc-devkit (``impl/basic_api/utils/kernel_utils_ceil_oom_que.h``) defines both as a call of ``F`` with
the arguments, ``VF_CALL`` inside a ``__VEC_SCOPE__``; on the 950 (``__NPU_ARCH__`` 3510) ``asc_vf_call``'s
call is the vector function itself. Either is read as a ``__VEC_SCOPE__`` around the call (:mod:`.vec_scope`):
its arguments are evaluated inside the scope (``(__ubuf__ T*)t.GetPhyAddr()`` is ``t``'s address), and the
function's one loop over vector lengths is read as that module reads a scope's.
"""
from __future__ import annotations

from .abstract import refuse
from .function_specs import pick_function
from .syntax import Name, Type

__all__ = ["VF_CALLS", "vf_call"]

VF_CALLS = ("asc_vf_call", "VF_CALL")


def vf_call(m, node, fn, arg_nodes):
    """Run the kernel's vector function that ``fn``'s template argument names, inside a vector scope."""
    targs = fn.targs or ()
    target = targs[0].name if len(targs) == 1 and isinstance(targs[0], Type) else targs[0] if len(targs) == 1 \
        else None
    if not isinstance(target, Name) or target.last not in m.symbols.functions and \
            target.last not in m.symbols.function_specs:
        refuse(node, f"{fn.text()} of {target.text() if isinstance(target, Name) else 'a non-function'}",
               "the vector function must be the kernel's own (a __simd_vf__ function in its sources)")
    if m.vec is not None or getattr(m, "micro", None) is not None:
        refuse(node, f"{fn.last} inside a vector scope", "a vector function is launched from scalar code")
    f, env = pick_function(m, node, target)
    # the registers are named by the call's site, so a tail tile's call (ProcessTile again) makes the loop's
    # events (.tail_branch); a __VEC_SCOPE__'s are numbered by the scopes run so far
    sites = m.__dict__.setdefault("vf_sites", {})
    site = sites.setdefault(node.at, f"f{len(sites) + 1}")
    m.vec = {"alias": {}, "layout": {}, "loop": None, "in_loop": False, "start": len(m.events), "n": [site]}
    try:
        args = [m.eval(a) for a in arg_nodes]
        m.invoke(node, f, None, args, env)
    finally:
        m.vec = None
    return None
