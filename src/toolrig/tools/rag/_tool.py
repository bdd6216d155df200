"""``rag_tool``: index files, texts and web pages into a local search index, then search it.

Indexing is incremental: a document whose content hash is unchanged is skipped (not chunked,
not embedded again), a changed one is replaced, and files that disappeared from an indexed
folder are removed. Search ranks chunks by BM25 (SQLite FTS5); with an ``embed`` function the
chunks also get vectors and search fuses both rankings (reciprocal rank fusion).
"""

from __future__ import annotations

import asyncio
import hashlib
import os
import stat
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Annotated, Final, Literal

from pydantic import Field
from typing_extensions import TypedDict

from toolrig.core.define._base import BaseTool, action
from toolrig.core.model._errors import ErrorCode, ToolError
from toolrig.core.model._spec import ToolAnnotations
from toolrig.tools._fd import Unreadable, read_regular
from toolrig.tools._sandbox import Sandbox
from toolrig.tools._text import decode, looks_binary
from toolrig.tools._walk import glob_regex, walk
from toolrig.tools.rag._chunking import chunk_text
from toolrig.tools.rag._store import RagStore, StoredHit

if TYPE_CHECKING:
    from toolrig.tools._web import WebTool

__all__ = ["Embedder", "IndexOutput", "RagTool", "SearchRagOutput"]

Embedder = Callable[[list[str]], list[list[float]]]
"""Turns texts into vectors (one per text), e.g. the embedding model used for tool search."""

_RRF_K: Final = 60
_MAX_LISTED: Final = 50


class Problem(TypedDict):
    source: str
    reason: str


class IndexOutput(TypedDict):
    added: int
    updated: int
    unchanged: int
    deleted: int
    chunks_indexed: int
    """Chunks written by this call (those of added and updated documents)."""
    changed: list[str]
    """Sources added or updated (at most 50 listed)."""
    skipped: list[Problem]
    """Sources not indexed, with the reason (binary file, too large, fetch failed...)."""


class RagHit(TypedDict):
    source: str
    position: int
    """Which chunk of the source (0 is the first)."""
    start: int
    end: int
    """Character offsets of the chunk in the source's text."""
    text: str
    score: float


class SearchRagOutput(TypedDict):
    query: str
    mode: Literal["lexical", "hybrid"]
    results: list[RagHit]


@dataclass(slots=True)
class _Doc:
    source: str
    text: str
    title: str | None = None

    @property
    def hash(self) -> str:
        return hashlib.sha256(self.text.encode("utf-8", "surrogatepass")).hexdigest()


class RagTool(BaseTool):
    """Index documents (files, texts, web pages) into a local search index and search it."""

    name = "rag_tool"
    tags = ("rag", "search", "knowledge")
    layer = "tools"
    annotations = ToolAnnotations(open_world=False)

    def __init__(
        self,
        store: str | os.PathLike[str] | RagStore,
        *,
        root: str | os.PathLike[str] | Sandbox | None = None,
        web: WebTool | None = None,
        embed: Embedder | None = None,
        chunk_size: int = 1200,
        chunk_overlap: int = 200,
        max_file_bytes: int = 2_000_000,
        include: Sequence[str] = (),
    ) -> None:
        """``store``: the index file (created when missing). ``root``: folder (or
        :class:`~toolrig.tools.Sandbox`) that ``paths`` are relative to (no paths can be indexed
        without one). ``web``: the tool used to fetch
        ``urls`` (its address policy applies). ``embed``: adds dense ranking. ``include``:
        glob patterns of files to index in folders (default: every text file)."""
        super().__init__()
        self.store = store if isinstance(store, RagStore) else RagStore(store)
        self.sandbox = root if isinstance(root, Sandbox) or root is None else Sandbox(root)
        self.web = web
        self.embed = embed
        self.chunk_size = chunk_size
        self.chunk_overlap = chunk_overlap
        self.max_file_bytes = max_file_bytes
        self.include = tuple(include)

    # -- actions -----------------------------------------------------------------------------
    @action(
        annotations=ToolAnnotations(read_only=False, destructive=False, idempotent=True),
        output_description="Counts of added, updated, unchanged and deleted documents.",
    )
    async def index_to_rag(
        self,
        paths: list[str] | None = None,
        texts: dict[str, str] | None = None,
        urls: list[str] | None = None,
    ) -> IndexOutput:
        """Add documents to the search index, or bring them up to date.

        Folders are indexed recursively; unchanged documents are skipped, changed ones
        replaced, and files deleted from an indexed folder are removed from the index.

        Args:
            paths: Files or folders relative to the workspace root, e.g. `["docs"]`.
            texts: Texts to index by name, e.g. `{"meeting-notes": "..."}`.
            urls: Web pages to fetch and index.
        """
        if not (paths or texts or urls):
            raise ToolError(
                "Give at least one of `paths`, `texts` or `urls`.",
                code=ErrorCode.INVALID_ARGUMENTS,
            )
        skipped: list[Problem] = []
        docs: list[_Doc] = []
        scopes: list[str] = []
        if paths:
            found, scopes, problems = await asyncio.to_thread(self._read_paths, paths)
            docs += found
            skipped += problems
        docs += [_Doc(source=f"text:{key}", text=value) for key, value in (texts or {}).items()]
        if urls:
            fetched, problems = await self._fetch_urls(urls)
            docs += fetched
            skipped += problems
        return await asyncio.to_thread(self._apply, docs, scopes, skipped)

    @action(
        annotations=ToolAnnotations(read_only=True, destructive=False, idempotent=True),
        output_description="The best matching chunks with their source, offsets and score.",
    )
    def search_rag(
        self,
        query: Annotated[str, Field(min_length=1, max_length=1000)],
        k: Annotated[int, Field(ge=1, le=50)] = 5,
    ) -> SearchRagOutput:
        """Search the indexed documents and return the `k` most relevant passages.

        Args:
            query: What you are looking for, in words likely to appear in the passages.
            k: How many passages to return.
        """
        mode: Literal["lexical", "hybrid"] = "lexical" if self.embed is None else "hybrid"
        lexical = self.store.search_words(query, k if self.embed is None else k * 4)
        hits = lexical
        if self.embed is not None:
            dense = self.store.search_vector(self.embed([query])[0], k * 4)
            hits = self._fuse(lexical, dense)
        results = [
            RagHit(
                source=h.source,
                position=h.position,
                start=h.start,
                end=h.end,
                text=h.text,
                score=h.score,
            )
            for h in hits[:k]
        ]
        return SearchRagOutput(query=query, mode=mode, results=results)

    # -- indexing ----------------------------------------------------------------------------
    def _read_paths(self, paths: list[str]) -> tuple[list[_Doc], list[str], list[Problem]]:
        if self.sandbox is None:
            raise ToolError(
                "Files cannot be indexed: no workspace folder is configured for this tool.",
                code=ErrorCode.PERMISSION_DENIED,
                hint="Index `texts` or `urls` instead.",
            )
        sandbox = self.sandbox
        docs: list[_Doc] = []
        scopes: list[str] = []
        problems: list[Problem] = []
        for path in paths:
            target = sandbox.resolve(path)
            rel = sandbox.relative(target)
            found = sandbox.lstat(target)
            if found is None:
                scopes.append(rel)  # a file that is gone: drop it from the index
            elif stat.S_ISDIR(found.st_mode):
                scopes.append("" if rel == "." else rel + "/")
                for entry in walk(sandbox, target):
                    if self._wanted(entry.rel):
                        self._read_file(entry.name, entry.dir_fd, entry.rel, docs, problems)
            else:
                dfd = sandbox.open_dir(target.parent, for_path=target)
                try:
                    self._read_file(target.name, dfd, rel, docs, problems)
                finally:
                    os.close(dfd)
        return docs, scopes, problems

    def _wanted(self, rel: str) -> bool:
        if not self.include:
            return True
        name = rel.rsplit("/", 1)[-1]
        return any(glob_regex(p).match(rel) or glob_regex(p).match(name) for p in self.include)

    def _read_file(
        self, name: str, dir_fd: int, rel: str, docs: list[_Doc], problems: list[Problem]
    ) -> None:
        assert self.sandbox is not None
        links = self.sandbox.allow_hard_links
        try:
            data = read_regular(name, dir_fd, self.max_file_bytes, allow_hard_links=links)
        except Unreadable as exc:
            problems.append(Problem(source=rel, reason=exc.reason))
            return
        except OSError as exc:
            problems.append(Problem(source=rel, reason=f"cannot be read: {exc.strerror}"))
            return
        if looks_binary(data):
            problems.append(Problem(source=rel, reason="binary file"))
            return
        try:
            text, _ = decode(data)
        except ValueError:
            problems.append(Problem(source=rel, reason="not text"))
            return
        docs.append(_Doc(source=rel, text=text))

    async def _fetch_urls(self, urls: list[str]) -> tuple[list[_Doc], list[Problem]]:
        if self.web is None:
            raise ToolError(
                "Web pages cannot be indexed: no web access is configured for this tool.",
                code=ErrorCode.PERMISSION_DENIED,
                hint="Index `texts` or `paths` instead.",
            )
        docs: list[_Doc] = []
        problems: list[Problem] = []
        for url in urls:
            try:
                page = await self.web.fetch_page(url)
            except ToolError as exc:
                problems.append(Problem(source=url, reason=exc.message))
                continue
            docs.append(_Doc(source=url, text=page["text"], title=page["title"]))
        return docs, problems

    def _apply(self, docs: list[_Doc], scopes: list[str], skipped: list[Problem]) -> IndexOutput:
        known = self.store.hashes()
        seen = {d.source for d in docs} | {p["source"] for p in skipped}
        added = updated = unchanged = chunk_count = 0
        changed: list[str] = []
        for doc in docs:
            digest = doc.hash
            if known.get(doc.source) == digest:
                unchanged += 1
                continue
            chunks = chunk_text(doc.text, size=self.chunk_size, overlap=self.chunk_overlap)
            vectors = None
            if self.embed is not None and chunks:
                vectors = self.embed([c.text for c in chunks])
            self.store.replace(doc.source, digest, chunks, vectors, doc.title)
            chunk_count += len(chunks)
            if doc.source in known:
                updated += 1
            else:
                added += 1
            changed.append(doc.source)
        gone = [s for s in known if s not in seen and any(_within(s, scope) for scope in scopes)]
        deleted = self.store.delete(gone)
        return IndexOutput(
            added=added,
            updated=updated,
            unchanged=unchanged,
            deleted=deleted,
            chunks_indexed=chunk_count,
            changed=changed[:_MAX_LISTED],
            skipped=skipped[:_MAX_LISTED],
        )

    def _fuse(self, lexical: list[StoredHit], dense: list[StoredHit]) -> list[StoredHit]:
        scores: dict[int, float] = {}
        for ranking in (lexical, dense):
            for rank, hit in enumerate(ranking):
                scores[hit.chunk_id] = scores.get(hit.chunk_id, 0.0) + 1.0 / (_RRF_K + rank + 1)
        ranked = sorted(scores.items(), key=lambda item: item[1], reverse=True)
        return self.store.chunks_by_id(ranked)


def _within(source: str, scope: str) -> bool:
    """Whether the indexed file ``source`` lies in ``scope`` (a file, or a folder ending in
    ``/``; ``""`` is the whole workspace). Texts and web pages are never in a scope."""
    if source.startswith(("text:", "http://", "https://")):
        return False
    if scope and not scope.endswith("/"):
        return source == scope
    return source.startswith(scope)
