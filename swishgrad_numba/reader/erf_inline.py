"""The Ascend 950's Erf in a read DAG (issue 43), inlined from the package's Erf routine.

asc-devkit's ``impl/adv_api/detail/math/erf/erf_3510_impl.h`` (arch 3510 = the 950) builds ``AscendC::Erf``
from basic instructions; :mod:`swishgrad_numba.program.erf` writes both of its algorithms out instruction by
instruction (docs/model.md, "Erf (asc-devkit, arch 3510 = the 950)", cites the lines):

- opbase's ``Vec::Erf<float>`` DAG node asks for the subsection polynomial (:data:`..program.erf.SUBSECTION`;
  ops-nn ``gelu_grad_v2_dag.h:197``, the float32 DAG);
- ``AscendC::Erf(dst, src, count)`` with the default config, in a DAG node of the kernel's own (the ``ErfFast``
  of ``gelu_grad_v2_dag.h:35-41`` and ``gelu_v2_dag.h:31-36``), is the Pade one (:data:`..program.erf.PADE`).

Each routine instruction becomes one step, its locals the node's own tensors, on float32 tensors only (the
kernels call Erf on widened data). The A2's Erf (another implementation) is not read here.
"""
from __future__ import annotations

from .description import Constant, Step
from .machine import Tensor, refuse
from .objects import Event

__all__ = ["inline_erf", "micro_erf"]


def inline_erf(machine, node, algo, dst, src):
    """Append the steps of Erf (``algo``) from tensor key ``src`` into ``dst`` (both float32)."""
    from ..program.erf import erf_program
    from ..program.form import Const
    from ..program.isa import INSTRUCTIONS

    for key in (dst, src):
        if machine.dtypes.get(key) != "float32":
            refuse(node, f"Erf on {machine.dtypes.get(key) or 'an unknown type'}", "the reader reads the 950's "
                   "Erf on float32 tensors")
    program = erf_program(algo)
    rename = {program.inputs[0].name: src, program.output.name: dst}
    taken = set(machine.names.values())
    for t in program.locals:
        key = f"{dst}/erf_{t.name}"
        name = f"erf_{t.name}"
        k = 0
        while name in taken:
            k += 1
            name = f"erf_{t.name}_{k}"
        taken.add(name)
        machine.dtypes[key], machine.names[key] = t.dtype, name
        rename[t.name] = key
    for instr in program.body:
        args = []
        for a, kind in zip(instr.args, INSTRUCTIONS[instr.op]):
            if isinstance(a, Const):
                args.append(Constant(a.value, a.text))
            elif isinstance(a, str) and kind in "dDsx" and a in rename:
                args.append(rename[a])
            else:
                args.append(a)
        op = "Selects" if instr.op == "Select" and not isinstance(args[2], str) else instr.op
        machine.events.append(Event("step", Step(op, tuple(args), node.at)))


def micro_erf(machine, node, args):
    """``AscendC::Erf(dst, src, count)`` in a DAG node's constructor: the node's result (its first tensor)
    is the Pade Erf of ``src``."""
    from ..program.erf import PADE

    micro = machine.micro
    if len(args) != 3 or not isinstance(args[0], Tensor) or not isinstance(args[1], Tensor) \
            or args[0].key != micro["dst"]:
        refuse(node, "AscendC::Erf", "the reader knows Erf(dst, src, count) into the DAG node's result")
    dst = args[0].key
    machine.dtypes[dst] = machine.dtypes.get(args[1].key)
    machine.names.setdefault(dst, dst.replace("/", "_"))
    inline_erf(machine, node, PADE, dst, machine._resolve(args[1].key))
    micro["result"] = dst
    return None
