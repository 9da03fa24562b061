"""From what a followed entry recorded (:class:`.objects.Event`) to a :class:`.description.Body`."""
from __future__ import annotations

from .description import AttrRef, Body, ScalarProduct
from .launch_scalars import named
from .errors import KernelSourceError
from .instructions import STEP_KINDS

__all__ = ["assemble", "attr_names"]

_DTYPES = ("float32", "float16", "bfloat16", "uint8", "int32", "int16", "int8")   # ints: Cast locals (issue 43)


def assemble(file, dtype, prologue, tile, names, dtypes, gm_params, variant="", buffer_num=None,
             views=None) -> Body:
    """The body of one tile: ``prologue`` steps run once before the tiles (Init's
    Duplicate of a constant buffer), ``tile`` the events of one tile; ``names`` the
    tensors' names by storage key, ``dtypes`` their dtypes; ``views`` a bit view's buffer by
    key (:mod:`.bitviews`: a view reads what its buffer's other views wrote or loaded)."""
    views = views or {}

    def group(key):
        return views.get(key, key)
    pro_steps = [e.step for e in prologue if e.kind == "step"]
    steps = [e.step for e in tile if e.kind == "step"]
    loads = {group(e.key): e.gm for e in prologue + tile if e.kind == "load"}
    stores = [e for e in tile if e.kind == "store"]
    if not stores:
        raise KernelSourceError(file, 0, "a kernel without output", "no DataCopy to GM in the tile")
    # several outputs: each GM tensor's last store, in the kernel's GM order (.byte_tensors)
    out_keys = {e.gm: e.key for e in stores}
    out_keys = {g: out_keys[g] for g in sorted(out_keys, key=lambda g: gm_params.index(g) if g in gm_params else 0)}
    written_once = {s.args[0] for s in pro_steps}
    for s in steps:
        if s.args[0] in written_once:
            raise KernelSourceError(s.at[0], s.at[1], f"{s.op} into {names.get(s.args[0], s.args[0])}",
                                    "a tensor set once before the tiles is overwritten in a tile")
    for s in pro_steps + steps:
        if s.op == "Cast" and dtypes[s.args[0]] == dtypes[s.args[1]]:
            _check_whole_cast(s, dtypes[s.args[0]])
    written, inputs = set(), {}
    for s in pro_steps + steps:
        kinds = STEP_KINDS[s.op]
        for arg, kind in zip(s.args, kinds):
            if kind in "sD" and group(arg) not in written:
                if group(arg) not in loads:
                    raise KernelSourceError(s.at[0], s.at[1], f"{s.op} reading {names.get(arg, arg)}",
                                            "nothing writes that tensor before it is read")
                # a GM input loaded into two tensors (a row's two halves, ops-nn gelu_mul) is two program
                # inputs, each gathered per tile from where its copies read (.split_loads)
                inputs.setdefault(group(arg), loads[group(arg)])
        written.add(group(s.args[0]))
    out_key = stores[-1].key if len(out_keys) == 1 else next(iter(out_keys.values()))
    for key in out_keys.values():
        if group(key) not in written and group(key) not in loads:
            raise KernelSourceError(file, 0, f"output {names.get(key, key)}", "never written")

    def name(key):
        return names.get(key, key)

    ordered = [k for g in gm_params for k, gk in inputs.items() if gk == g]     # by argument, then first read
    tensors = {}
    for key in ordered + [k for s in pro_steps + steps for k in _tensor_args(s)] + list(out_keys.values()):
        dt = dtypes[key]
        if dt not in _DTYPES:
            raise KernelSourceError(file, 0, f"tensor {name(key)} of dtype {dt}", f"a program holds {_DTYPES}")
        tensors.setdefault(name(key), dt)
    renamed = tuple(type(s)(s.op, tuple(name(a) if isinstance(a, str) and k in "dDs" else a
                                        for a, k in zip(s.args, STEP_KINDS[s.op])), s.at)
                    for s in pro_steps + steps)
    renamed, scalars = named(renamed)        # attribute arithmetic, computed per launch (.launch_scalars)
    attrs = tuple(dict.fromkeys(n for s in renamed for a in s.args for n in attr_names(a)))
    for key in ordered + list(out_keys.values()):
        if dtypes[key] == "int16":
            raise KernelSourceError(file, 0, f"GM tensor {name(key)} of int16_t or uint16_t", "a program's inputs "
                                    "and output are float32, float16 or bfloat16 (issue 43: int16 only as a local)")
    bit_views = tuple((name(k), name(b)) for k, b in views.items() if name(k) in tensors)
    outputs = tuple((g, name(k)) for g, k in out_keys.items()) if len(out_keys) > 1 else ()
    return Body(dtype, tuple((inputs[k], name(k)) for k in ordered),
                outputs[0] if outputs else (stores[-1].gm, name(out_key)), tuple(tensors.items()), renamed, attrs,
                variant, buffer_num, bit_views=bit_views, scalars=scalars, outputs=outputs)


def _tensor_args(step):
    return [a for a, k in zip(step.args, STEP_KINDS[step.op]) if k in "dDs"]


def attr_names(scalar) -> tuple:
    """The attributes a scalar operand reads (those of a product's factors too)."""
    if isinstance(scalar, AttrRef):
        return (scalar.name,)
    if isinstance(scalar, ScalarProduct):
        return attr_names(scalar.a) + attr_names(scalar.b)
    return ()


def _check_whole_cast(step, dtype):
    """A Cast from a dtype to itself: on float32 ``Cast<float, float>``, rounding to a whole float32 in one of
    the modes the A2 lists (issue 43, :data:`swishgrad_numba.program.isa.WHOLE_ROUND_MODES`); else refused."""
    from ..program.isa import WHOLE_ROUND_MODES

    mode = str(step.args[2])
    if dtype != "float32":
        raise KernelSourceError(step.at[0], step.at[1], f"a Cast from {dtype} to itself ({mode})",
                                "the A2's Cast rounds to a whole number only float to float (asc-devkit Cast.md); "
                                "the library widens half to float first")
    if mode not in WHOLE_ROUND_MODES:
        raise KernelSourceError(step.at[0], step.at[1], f"a Cast from float to float with {mode}",
                                f"the A2 lists {', '.join(WHOLE_ROUND_MODES)} for it (asc-devkit Cast.md)")
