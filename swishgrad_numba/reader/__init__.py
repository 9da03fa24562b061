"""Read an element-wise Ascend C kernel from its source (issue 31): pure Python, no compiler.

:func:`read_source` reads an op_kernel folder (the A2 class style, or the 950
DAG style) into a :class:`KernelDescription`: per dtype, the straight-line
vector instructions of Compute in upstream's vocabulary, the GM inputs they
read and the tiling struct's fields. What it cannot read faithfully is a
:class:`KernelSourceError` naming the file, the line and the construct.

An operator's ``op_host`` (:mod:`.host`) gives the tiling struct ``GET_TILING_DATA`` reads, the op
definition and, for a launch, the values its tiling function sets (:mod:`.host_eval`).

The preprocessor's conditions are evaluated for a device build
(:data:`.preprocess.DEVICE_DEFINES`, and the caller's ``defines``); only regular
files inside the folder are read, within the fixed limits of :mod:`.limits`.

Read since issue 43's census work: ``Compare``, ``CompareScalar`` and ``Select`` (:mod:`.compare`;
``And``/``Or``/``Not`` on a mask's 16-bit words, :mod:`.mask_words`; a Select through half views of bfloat16
tensors, :mod:`.select_views`),
``EVENT_ID0``-``7`` (synchronisation only), the build's dtype flags (``DTYPE_X``, ``ORIG_DTYPE_X``: one
read per dtype), a local tensor at an offset (the buffer's part, :mod:`.schedule` checks the parts do not
overlap), ``ReinterpretCast`` to the tensor's own type, ``(T)-2.5f``, ``using namespace`` in a body;
``ReinterpretCast`` between half or bfloat16 and ``int16_t``/``uint16_t`` (the same bits) with ``And``,
``Or`` and ``Duplicate`` on those, and Casts of an ``int16_t`` one, and views to other types (a ``uint8_t`` mask,
``uint32_t`` for ``ShiftRight``, ``int32_t``, ``float`` scratch), each read where it holds the bytes
(:mod:`.bitviews`); a raw ``uint8_t`` buffer's bytes as a float type, its ping and pong halves picked by a flag
(:mod:`.byte_views`); a copy or vector call past its ``InitBuffer``'s
bytes is refused (:mod:`.ub_bounds`); the kernel's own helpers (a base class's methods, ``Base::Init(...)``,
class-scope constants, a tile loop in a function Process calls: :mod:`.helpers`), ``std::numeric_limits``,
``LeakyRelu`` (:mod:`.leaky_relu`), ``Divs`` (:mod:`.divs`), a GM input's element by ``GetValue`` as a scalar
read per launch (:mod:`.gm_scalars`), a ``TBuf``'s ``AllocTensor`` (its one buffer, as ``Get``), ``ENABLE_PRINTF()``; a dtype op_host's definition does not list is left
out where its path does not read.

Read since (reader-host): AscendC's integer helpers in scalar code (:mod:`.scalar_lib`), ``asc_vf_call`` of the
kernel's own vector function (:mod:`.vf_call`), a scalar's bits read through a pointer and ``static_cast<half>``
of an attribute, per launch (:mod:`.scalar_puns`), explicit specializations of function templates
(:mod:`.function_specs`), array fields of the tiling struct (:mod:`.tiling_arrays`).

Read since (reader-glu): a GM input copied into two tensors at offsets of their own, a row's two halves
(ops-nn gelu_mul, fatrelu_mul), and 2-D ``DataCopy``/``DataCopyPad`` (``blockCount`` rows, strides), each
program input gathered from where its copies read and the output's last dimension halved
(:mod:`.split_loads`); a member function's explicit specialization (``template <> void C<bfloat16_t>::f()``).

Read since (reader-wild): the tiling struct as an entry parameter by value, or copied from its GM address by
the samples' ``CopyTiling`` (:mod:`.copy_tiling`); ``Axpy`` into the only local copy of a tile, run in the
source's bytes (:mod:`.local_copy`); the host's ``GetTilingData<T>()`` pointer (:mod:`.host_eval`); a float attribute assigned to a
``half``/``bfloat16_t`` member or local, converted as C converts it (as ``static_cast<T>``).

Read since (reader-bytes): ``uint8_t`` / ``int8_t`` GM inputs and outputs read or written by a Cast (values as
numbers, widened exactly at the launch's boundary), and kernels of several outputs (one program per output;
a run returns them in GM order): :mod:`.byte_tensors`.

Refused, each with its file and line: loops in Compute (and over ``SetValue``, but for a fill of one value,
a ``Duplicate``: :mod:`.fill_loop`),
a ``ReinterpretCast`` view read where another view wrote its bytes (and arithmetic on an int16 view),
``reinterpret_cast``,
overlapping parts of a buffer,
a condition of the preprocessor around code on a macro it does not know (a build
flag: pass ``defines=``), calls it does not know (``Sin``, ...), level-0 calls
whose lanes are not a tile's consecutive elements (:mod:`.level0`),
runtime branches around vector calls, arithmetic on an
attribute other than products of attributes and float32 constants (each float product
rounded once, left to right; a product with a ``double`` constant multiplied again is
refused), a Cast from a dtype to
itself outside a DAG, a vector call over a constant count, a type in
``std::is_same_v`` it does not know, a DAG node that writes an input a later
node reads.

A branch known for the launch (tile index, length, record, core index, an attribute's value) whose ways
make different vector calls is one variant per way (:mod:`.launch_branch`); a pipelined Process (a tile
loaded ahead of the one computed) is read by the schedule (:mod:`.schedule`). A tile runs the variant whose
calls it made and whose deciding branches its core took the same way (:mod:`.variant_ways`).

Modules: :mod:`.limits`, :mod:`.lexer`, :mod:`.preprocess`, :mod:`.parser`, :mod:`.declarations`
(the C++ subset); :mod:`.machine` (the abstract interpreter), :mod:`.a2`,
:mod:`.dag`, :mod:`.microapi` (the styles); :mod:`.assemble`, :mod:`.description`
(the result); :mod:`.read` (the driver); :mod:`.operator` (``read_kernel``: the folder as an operator),
:mod:`.host_tiling` (its host side), :mod:`.launch_plan` (an A2 kernel's per-core tiles as the walk's plan).
``read_kernel`` and ``ReadOperator`` are importable from here as from :mod:`swishgrad_numba.ops`.
"""
from .description import AttrRef, Body, Constant, KernelDescription, ScalarProduct, Step, TilingStruct
from .errors import KernelSourceError
from .read import read_source

__all__ = ["AttrRef", "Body", "Constant", "KernelDescription", "KernelSourceError", "ScalarProduct", "Step",
           "TilingStruct", "read_source", "ReadOperator", "read_kernel"]


def __getattr__(name):
    # read_kernel builds on ops.registry, which imports the reader's users: loaded on first use, not here
    if name in ("ReadOperator", "read_kernel"):
        from . import operator
        return getattr(operator, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
