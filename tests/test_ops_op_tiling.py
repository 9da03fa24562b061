"""swishgrad_numba/ops/op_tiling.py: the walk fields kept per tiling (:func:`a2_walk_fields`,
:func:`arch35_walk_fields`), checked against the record's fields read one by one."""
from __future__ import annotations

import numpy as np

import swishgrad_numba as sg
from swishgrad_numba.dtypes import FLOAT16, FLOAT32
from swishgrad_numba.ops.call import host_tiling
from swishgrad_numba.ops.op_tiling import a2_walk_fields, arch35_walk_fields
from swishgrad_numba.spec import a2 as spec_a2
from swishgrad_numba.spec import arch35 as spec_arch35


def _plain(tiling, spec):
    return spec.TilingFields(*(int(tiling.data[n]) for n in spec.FIELDS))


def test_the_kept_fields_are_the_records_and_follow_the_shape_and_dtype():
    small = sg.Platform(core_num=3, ub_size=8192)
    for numel in (1, 4096, 100_003):
        for info in (FLOAT32, FLOAT16):
            for platform in (sg.REFERENCE_PLATFORM, small):
                tiling = host_tiling("gelu_grad_v2", numel, info, np.float32(1), platform)
                assert a2_walk_fields(tiling) == _plain(tiling, spec_a2)
                assert a2_walk_fields(tiling) is a2_walk_fields(tiling)   # kept on the tiling
            tiling = host_tiling("elu", numel, info, None, sg.ASCEND950_PLATFORM)
            assert arch35_walk_fields(tiling) == _plain(tiling, spec_arch35)
    a = host_tiling("gelu_grad_v2", 4096, FLOAT32, np.float32(1), sg.REFERENCE_PLATFORM)
    b = host_tiling("gelu_grad_v2", 4096, FLOAT32, np.float32(1), small)
    assert a2_walk_fields(a) != a2_walk_fields(b)   # another platform, another record: its own fields
