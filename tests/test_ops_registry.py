"""The operator registry: every operator of the family, both kernels, one form."""
import numpy as np
import pytest

import swishgrad_numba as sg
from swishgrad_numba.ops import OPERATORS, get_operator

PLATFORMS = {"a2": sg.REFERENCE_PLATFORM, "950": sg.ASCEND950_PLATFORM}
# struct sizes from the C headers (docs/model.md): (A2, 950)
STRUCT_BYTES = {"swish_grad": (72, 88), "swish": (36, 32), "silu": (36, 32), "silu_grad": (32, 456)}
# operators with an Ascend 950 kernel only (no public A2 kernel): their 950 struct sizes
ARCH35_ONLY_BYTES = {"fast_gelu": 80, "fast_gelu_grad": 80}
STRUCT_BYTES.update({"sigmoid": (64, 64), "sigmoid_grad": (64, 64)})     # issue 29 (docs/activation_tiling.md)
STRUCT_BYTES.update({"gelu": (64, 16), "gelu_grad": (36, 456)})
ARCH35_ONLY_BYTES.update({"leaky_relu": 24, "leaky_relu_grad": 464})     # issue 30: 24B struct; broadcast + slope
STRUCT_BYTES.update({"softplus_grad": (112, 328)})      # issue 30 (SoftplusV2GradTilingData, RANK 4 on the 950)
ARCH35_ONLY_BYTES.update({"softplus": 40})
STRUCT_BYTES.update({"elu_grad": (52, 96)})      # issue 30 (elu_grad_v2_tiling_data.h, elu_grad_v2_tiling_struct.h)
ARCH35_ONLY_BYTES.update({"elu": 96})            # EluTilingData (elu_tiling_struct.h)
STRUCT_BYTES.update({"gelu_grad_v2": (72, 456)})                     # issue 30
ARCH35_ONLY_BYTES.update({"gelu_v2": 16})
STRUCT_BYTES.update({"relu": (32, 16), "threshold_backward": (72, 464)})   # issue 41 (ReluTilingData, 16B; ThresholdGradV2D)


def test_the_family_is_registered():
    assert sorted(OPERATORS) == sorted([*STRUCT_BYTES, *ARCH35_ONLY_BYTES])
    with pytest.raises(ValueError, match="op must be one of"):
        get_operator("selu")
    with pytest.raises(ValueError, match="op must be one of"):
        sg.compute_tiling(64, "float32", op="selu")


@pytest.mark.parametrize("kernel", PLATFORMS)
@pytest.mark.parametrize("op", sorted(STRUCT_BYTES))
def test_compute_tiling_gives_each_operators_struct(op, kernel):
    platform = PLATFORMS[kernel]
    operator = get_operator(op)
    t = sg.compute_tiling(1 << 20, "float16", platform=platform, op=op)
    described = operator.kernels[platform.architecture]
    assert t.data.dtype == described.record_dtype
    assert len(t.tobytes()) == STRUCT_BYTES[op][kernel == "950"]
    assert t.block_dim >= 1
    assert described.narrowing == ("CAST_ROUND" if (op in ("swish", "silu") and kernel == "a2") else "CAST_RINT")


@pytest.mark.parametrize("op", sorted(ARCH35_ONLY_BYTES))
def test_an_arch35_only_operator_refuses_the_a2_and_defaults_to_the_950(op):
    operator = get_operator(op)
    assert list(operator.kernels) == ["arch35"] and "a2" in operator.no_kernel
    t = sg.compute_tiling(1 << 20, "float16", op=op)
    assert t.data.dtype == operator.kernels["arch35"].record_dtype and len(t.tobytes()) == ARCH35_ONLY_BYTES[op]
    with pytest.raises(ValueError, match="soc_version 'ascend910b'.*Ascend 950 only"):
        sg.compute_tiling(64, "float32", platform=PLATFORMS["a2"], op=op)


def test_silu_takes_no_beta_and_swish_does():
    with pytest.raises(TypeError, match="takes no beta"):
        sg.compute_tiling(64, "float32", 2.0, op="silu")
    with pytest.raises(TypeError, match="takes no beta"):
        sg.compute_tiling(64, "float32", 2.0, op="silu_grad")
    t = sg.compute_tiling(64, "float32", 2.5, op="swish")
    assert t.data["scale"] == np.float32(2.5)


@pytest.mark.parametrize("op", ["swish", "silu_grad"])
def test_an_operators_tiling_is_frozen_with_its_record(op):
    t = sg.compute_tiling(4096, "float32", op=op)
    before = t.tobytes()
    view = np.array(t.data)
    with pytest.raises(ValueError):
        view[t.data.dtype.names[0]] = 7
    with pytest.raises((ValueError, TypeError)):
        t.data[t.data.dtype.names[0]] = 7
    assert t.tobytes() == before


#: The operators whose 950 Compute has an Axpy (docs/model.md, "Axpy"): Gelu, GeluGrad, and GeluV2 and
#: GeluGradV2 with approximate "tanh".
AXPY_OPS = {"gelu", "gelu_grad", "gelu_v2", "gelu_grad_v2"}


@pytest.mark.parametrize("op", sorted(OPERATORS))
def test_an_operator_with_an_axpy_declares_it_and_every_run_takes_the_rounding(op):
    import inspect

    operator = get_operator(op)
    assert operator.axpy == (op in AXPY_OPS)
    found = False
    for kernel in operator.kernels.values():
        assert ("axpy_rounding" in inspect.signature(kernel.run).parameters) == operator.axpy
        for variant in ("main", "none", "tanh", "v1"):
            try:
                program = kernel.programs("float32", variant)
            except (ValueError, KeyError):
                continue
            found = found or "Axpy" in program.instructions()
    assert found == operator.axpy


def test_a_second_kernel_for_a_registered_op_type_and_soc_is_refused():
    """issue 38 (6e): ops-nn has two SoftplusV2 kernels for the 950 (activation/softplus_v2 and
    experimental/activation/softplus_v2); the registry holds the mainline one and refuses another."""
    from dataclasses import replace
    from swishgrad_numba.ops import register

    softplus = get_operator("softplus")
    held = [(o.name, a, k.source) for o in OPERATORS.values() if o.kernel_op == "SoftplusV2"
            for a, k in o.kernels.items()]
    assert held == [("softplus", "arch35", "activation/softplus_v2 (arch35)")]
    second = replace(softplus, name="softplus_experimental",
                     kernels={"arch35": replace(softplus.kernels["arch35"],
                                                source="experimental/activation/softplus_v2")})
    with pytest.raises(ValueError, match=r"'softplus_experimental'.*op type 'SoftplusV2'.*duplicates "
                                         r"operator 'softplus'.*one kernel per \(op type, architecture\)"):
        register(second)
    assert "softplus_experimental" not in OPERATORS
    # the same kernel under another operator (as Silu shares Swish's) is still accepted
    same = register(replace(softplus, name="softplus_alias"))
    try:
        assert get_operator("softplus_alias").kernels == softplus.kernels
    finally:
        del OPERATORS[same.name]

# issue 41: HardSwishGradTilingData (24 bytes on both kernels); HardSwishTilingData (950 only)
STRUCT_BYTES.update({"hardswish_grad": (24, 24), "mish": (64, 16)})
ARCH35_ONLY_BYTES.update({"hardswish": 24, "mish_grad": 16})   # mish_grad: the A2 kernel is not emulated yet
AXPY_OPS = AXPY_OPS | {"mish", "mish_grad"}     # issue 41: the 950 Mish and MishGrad have an Axpy
