"""The hot tier's loops: a block's stream split into loops around its Exps and Lns (issue 39, gelu32).

Private to :mod:`.hot_source`, which writes each instruction's lines; here they are placed: which loop
computes each value, which values cross from one loop to another through a scratch row, and how a Compare
read only as a Select's mask crosses (as an int32).
"""
from __future__ import annotations

__all__ = ["EXP_LOOP_MIN", "EXP_PREP", "int_masks", "split_loops"]

#: The least float32 instructions a stream with an Exp holds for its Exps to run in loops of their own
#: (:func:`split_loops`; one thread, 2^22 elements: gelu_v2 arch35's 30 from 6.3 to 4.7 ms, gelu_grad_v2 arch35's
#: 35 from 13.1 to 9.0; sigmoid a2's 3 from 2.5 to 3.1, silu arch35's 4 from 3.1 to 3.2: bench/RESULTS.md, gelu32).
EXP_LOOP_MIN = 16
#: The most instructions a later loop runs again to spare each scratch row it would read (:func:`_recomputed`).
RECOMPUTE_PER_ROW = 3
#: An Exp's first lines, those that read its argument alone (the clamp and the running maximum of its bits,
#: float32 work): they run in the loop that computes the argument, the rest in the Exp's loop.
EXP_PREP = 2


def int_masks(lines: list, masks: set, compares: dict) -> list:
    """``lines`` with each Compare of ``masks`` (its result read only as a Select's mask) kept as an int32, -1
    where true, 0 where false, and each Select reading it as is: the same ``mask != 0``. Within a loop LLVM
    makes either form the compare's mask register; across loops (a scratch row) the float32 0.0 / 1.0 costs
    three conversions to store and three to read back (issue 39, gelu35), the int32 one each (its bits stored
    as they are: ``split_loops``)."""
    out = []
    for line in lines:
        for m in masks:
            if line == f"{m} = np.float32({compares[m]})":
                line = f"{m} = np.int32(-np.int32({compares[m]}))"
            line = line.replace(f"np.uint8({m})", m)
        out.append(line)
    return out


def split_loops(units, flags, invariant: set, result: str, first_row: int, masks: set = frozenset(),
            vector_exp: bool = False):
    """The loops of a block: ``(passes, scratch rows)``, each pass the lines of one loop's body.

    Without an Exp or a Ln, one loop holds the whole stream. An Exp splits it (issue 39, gelu32): the binary64
    Exp sets a loop's vector width (8 lanes), so each Exp runs in a loop of its own over the block, between
    float32 loops of 16 lanes: a value that a later loop reads (an Exp's argument and result included) is
    kept in a scratch row of its own, an input is read again. A stream of fewer than :data:`EXP_LOOP_MIN`
    other instructions keeps its Exps in its loops (the scratch rows cost more there). Each Ln of a value
    that varies runs in a loop of its own too, whatever the stream's length (softplus32: one loop through
    Exp, Ln and Div in a row is bound by that chain). A value's *stage*: the float32 loop that computes it
    (an Exp's or a Ln's result: the loop after its own). Each unit: ``(value, lines, reads, own)``, ``own``
    None for a unit of a float32 loop, else the number of its first lines (an Exp's :data:`EXP_PREP`, a
    Ln's 0) that run in its argument's loop, the rest in its own. ``masks``: the values that are int32 (their
    bits kept in a scratch row as float32 bits: :func:`int_masks`). ``vector_exp``: each Exp's own loop is a
    call of ``exp_rows`` (:mod:`swishgrad_numba.kernel.exp_vector`) from its argument's row to its result's, a
    statement (a str) among the passes; the Lns of that stage keep their loop."""
    exps_lns = {u[0] for u in units if u[3] is not None}      # (never computed again)
    if sum(u[3] is None for u in units) < EXP_LOOP_MIN:
        units = [(v, lines, reads, None if own == EXP_PREP else own) for v, lines, reads, own in units]
    stage: dict = {}
    for v, _lines, reads, own in units:
        s = max((stage[r] for r in reads if r in stage), default=0)
        stage[v] = s if own is None else s + 1
    solo = [u for u in units if u[3] is not None]
    # the value its own loop reads from the loop before: an Exp's clamped argument, a Ln's argument
    handoff = {u[0]: f"{u[0]}c" if u[3] else u[2][0] for u in solo}
    # a value computed only for a later loop moves there where that keeps no more values (its operands
    # inputs, scalars, Exps' results or values kept for that loop anyway)
    last = max(stage.values(), default=0)
    wanted: dict = {result: [last]}               # value -> the loops that need it (an Exp: by its own loop)
    for v, _lines, reads, own in units:
        for r in reads:
            wanted.setdefault(r, []).append(stage[v] if own is None else stage[v] - 1)
    solo_results = set(handoff)
    for v, _lines, reads, own in reversed(units):
        t = min(wanted.get(v, [last]))
        if own is None and t > stage[v] and all(r not in stage or r in solo_results or
                                                any(w >= t for w in wanted[r]) for r in reads):
            for r in reads:
                wanted[r][wanted[r].index(stage[v])] = t
            stage[v] = t
    # the values loops read from scratch: the solo units' results and handoffs (a computed one)
    kept = solo_results | {h for h in handoff.values() if h not in invariant and (h in stage or not h.startswith("x"))}
    placed = [[] for _ in range(last + 1)]        # flag terms by stage
    for expr, names in flags:
        placed[max((stage.get(a, 0) for a in names), default=0)].append((expr, names))
    needed = [(stage[v] if own is None else stage[v] - 1, r) for v, _l, reads, own in units for r in reads]
    needed += [(s, a) for s in range(last + 1) for _e, names in placed[s] for a in names] + [(last, result)]
    again = _recomputed(units, stage, needed, last, exps_lns)
    kept.update(r for s, r in needed if r in stage and (r in solo_results or stage[r] != s) and r not in again[s])
    order = [x for v in stage for x in (f"{v}c", v)]
    row = {v: first_row + k for k, v in enumerate(sorted(kept, key=order.index))}

    def loads(names, s):
        """The lines that bring ``names`` into loop ``s``: inputs read, other loops' values from scratch."""
        names = dict.fromkeys(x for x in names if s < 0 or x not in again[s])
        return [f"{x} = np.float32(in{x[1:]}[j])" for x in names if x not in stage and x not in invariant and
                x.startswith("x")] + [f"{x} = np.float32(scratch[{row[x]}, i]).view(np.int32)" if x in masks else
                                      f"{x} = scratch[{row[x]}, i]" for x in names if x in row and
                                      (x not in stage or x in solo_results or stage[x] != s)]

    passes = []
    for s in range(last + 1):
        preps = [u for u in solo if stage[u[0]] == s + 1]
        mine = _live([u for u in units if u[3] is None and (stage[u[0]] == s or u[0] in again[s])],
                     set(row) | {r for u in preps for r in u[2]} | {a for _e, names in placed[s] for a in names} |
                     ({result} if s == last else set()))
        body = [line for u in mine for line in u[1]] + [line for u in preps for line in u[1][:u[3]]]
        if placed[s]:
            body.append(f"two_nans |= {' | '.join(e for e, _n in placed[s])}")
        body += [f"scratch[{row[v]}, i] = np.int32({v}).view(np.float32)" if v in masks else
                 f"scratch[{row[v]}, i] = {v}" for v in [u[0] for u in mine if stage[u[0]] == s] +
                 [f"{u[0]}c" for u in preps if u[3]] if v in row and v not in solo_results]
        if s == last:
            body.append(f"out[j] = {result}")
        head = loads([r for u in mine + [u for u in preps if u[3]] for r in u[2]] +
                     [a for _e, names in placed[s] for a in names] + ([result] if s == last else []), s)
        if body:
            passes.append(["j = at + np.uint64(i)"] + head + body)
        if vector_exp:
            passes += [f"if exp_rows(scratch[{row[handoff[v]]}], scratch[{row[v]}], n):\n        flagged = True"
                       for v, _l, _r, own in preps if own == EXP_PREP]
            preps = [u for u in preps if u[3] != EXP_PREP]
        if preps:
            passes.append(["j = at + np.uint64(i)"] + [line for v, lines, _r, own in preps for line in
                                                     loads([handoff[v]], -1) + lines[own:] +
                                                     [f"scratch[{row[v]}, i] = {v}"]])
    return passes, first_row + len(row)


def _live(units: list, roots: set) -> list:
    """``units`` (one loop's, in order) less those whose value nothing of the loop reads: neither a later unit
    nor ``roots`` (what the loop stores, its flag terms', its Exps' and its result's operands)."""
    live, kept = set(roots), []
    for u in reversed(units):
        if u[0] in live:
            live.update(u[2])
            kept.append(u)
    return kept[::-1]


def _recomputed(units, stage: dict, needed: list, last: int, exps_lns: set) -> list:
    """For each float32 loop, the values from an earlier loop that it computes again rather than read from a
    scratch row (issue 39, remat): each read of inputs, invariants and other such values alone (no Exp's or
    Ln's result), all of them together costing at most :data:`RECOMPUTE_PER_ROW` instructions (an input not
    otherwise read in that loop counted as one) for each row they spare that loop; never ``exps_lns``. The same
    instructions on the same operands: the same bits."""
    unit = {u[0]: u for u in units}
    chain: dict = {}             # value -> the values computed to compute it again (None: it cannot be)
    for v, _lines, reads, own in units:             # (in the stream's order: each read's chain before)
        parts = [chain[r] if r in stage else set() for r in reads]
        chain[v] = None if v in exps_lns or any(p is None for p in parts) else {v}.union(*parts)
    position = {v: k for k, v in enumerate(unit)}
    again = []
    for s in range(last + 1):
        inputs = {r for u in units if stage[u[0]] == (s if u[3] is None else s + 1 if u[3] else -1)
                  for r in u[2] if r not in stage and r.startswith("x")}   # those the loop reads anyway (an Exp's too)
        wanted = {r for t, r in needed if t == s and r in stage and chain[r] is not None and stage[r] < s}
        done: set = set()
        for v in sorted(wanted, key=lambda v: (len(chain[v] or ()), position[v])):
            if v in done:
                continue
            trial = done | chain[v]
            extra = {r for w in trial for r in unit[w][2] if r not in stage and r.startswith("x")} - inputs
            if len(trial) + len(extra) <= RECOMPUTE_PER_ROW * len(trial & wanted):
                done = trial
        again.append(done)
    return again
