"""The generated faces bind their arguments through a fast path (:func:`faces.signature.binder`):
for every described operator's signature it must give what ``inspect.Signature.bind`` then ``apply_defaults``
give, in the same order, and the same TypeError for a call that does not bind."""
import inspect

import pytest

from swishgrad_numba.faces.signature import binder, signature
from swishgrad_numba.ops.description import DESCRIPTIONS


def _calls(sig):
    """Call forms over ``sig``'s parameters: positional, keyword, mixed, too many, unknown, twice, missing."""
    pos = [p.name for p in sig.parameters.values() if p.kind is inspect.Parameter.POSITIONAL_OR_KEYWORD]
    every = [p.name for p in sig.parameters.values()]
    yield tuple(pos), {}
    yield (), {n: n for n in pos}
    yield tuple(pos[:1]), {n: n for n in pos[1:]}
    yield tuple(pos), {"out": "o"}
    yield tuple(pos), {"platform": "p", "out": "o"}
    yield tuple(pos) + ("extra",), {}
    yield tuple(pos), {"nonesuch": 1}
    yield tuple(pos), {pos[0]: "again"}
    yield tuple(pos[:-1]), {}
    yield (), {}
    yield (), {n: n for n in reversed(every)}
    yield tuple(pos), {"out": None, "platform": None}


def _slow(sig, args, kwargs):
    try:
        bound = sig.bind(*args, **kwargs)
    except TypeError as e:
        return TypeError, str(e)
    bound.apply_defaults()
    return list(bound.arguments.items())


def _fast(bind, args, kwargs):
    try:
        return list(bind(args, kwargs).items())
    except TypeError as e:
        return TypeError, str(e)


@pytest.mark.parametrize("name", sorted(DESCRIPTIONS))
def test_the_fast_binder_binds_as_inspect_does(name):
    sig = signature(DESCRIPTIONS[name])
    bind = binder(sig)
    for args, kwargs in _calls(sig):
        assert _fast(bind, args, kwargs) == _slow(sig, args, kwargs), (args, kwargs)


@pytest.mark.parametrize("name", sorted(n for n, d in DESCRIPTIONS.items() if d.rows is not None))
def test_the_row_faces_bind_as_inspect_does(name):
    # a row operator's face binds its own signature (its keyword-only options too) through the same binder
    import swishgrad_numba as sg

    sig = getattr(sg, DESCRIPTIONS[name].functional).__signature__
    bind = binder(sig)
    for args, kwargs in _calls(sig):
        assert _fast(bind, args, kwargs) == _slow(sig, args, kwargs), (args, kwargs)
