"""A fixture kernel folder copied with one piece of its source replaced: the reader tests' variants."""
import shutil
from pathlib import Path

KERNELS = Path(__file__).parent / "fixtures" / "kernels"


def fixture_variant(tmp_path, name, old, new, file=None):
    """``tests/fixtures/kernels/<name>`` copied under ``tmp_path`` with ``old`` (which must be there) replaced by
    ``new`` in ``file`` (default: ``<name>.cpp``, in ``op_kernel/`` where the folder has one). Returns
    (folder, the changed file's path)."""
    folder = tmp_path / name
    shutil.copytree(KERNELS / name, folder)
    if file is None:
        file = f"op_kernel/{name}.cpp" if (folder / "op_kernel").is_dir() else f"{name}.cpp"
    path = folder / file
    text = path.read_text()
    assert old in text, f"{old!r} not in {file}"
    path.write_text(text.replace(old, new))
    return folder, path


def refusal(tmp_path, name, old, new, file=None):
    """The KernelSourceError that ``read_kernel`` raises on the variant of :func:`fixture_variant`, with the
    changed file's path and the line number of the first line holding ``new``'s text."""
    import pytest

    from swishgrad_numba.ops import read_kernel
    from swishgrad_numba.reader import KernelSourceError

    folder, path = fixture_variant(tmp_path, name, old, new, file)
    with pytest.raises(KernelSourceError) as e:
        read_kernel(folder)
    return e.value, path


def fixture_edited(tmp_path, name, edits):
    """``tests/fixtures/kernels/<name>`` copied under ``tmp_path`` with each ``(file, old, new)`` of ``edits``
    applied in turn (``old`` must be in ``file``, a path inside the folder). Returns the copy's folder."""
    folder = tmp_path / name
    shutil.copytree(KERNELS / name, folder)
    for file, old, new in edits:
        path = folder / file
        text = path.read_text()
        assert old in text, f"{old!r} not in {file}"
        path.write_text(text.replace(old, new))
    return folder
