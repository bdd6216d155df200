"""rag_tool: index a folder, search, change a file, re-index (only the change is processed),
restart, search again; texts, URLs, hybrid ranking and concurrent readers."""

from __future__ import annotations

import hashlib
import itertools
import threading
from pathlib import Path

import pytest
from local_site import Site

from toolrig.tools import NetPolicy, WebTool
from toolrig.tools.rag import RagStore, RagTool, chunk_text

DOCS = {
    "tea.md": "# Tea\n\nMatcha is a powdered green tea from Uji, near Kyoto.\n\n"
    "Sencha is steeped whole leaf tea.",
    "coffee.md": "# Coffee\n\nEspresso is brewed by forcing hot water through fine coffee grounds.",
    "guides/rust.txt": "Rust ownership rules: each value has one owner; borrowing is checked "
    "at compile time by the borrow checker.",
    "guides/python.txt": "Python's asyncio runs coroutines on an event loop.",
}


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    root = tmp_path / "workspace"
    for rel, text in DOCS.items():
        path = root / "docs" / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    (root / "docs" / "logo.png").write_bytes(b"\x89PNG\x00\x00binary")
    return root


class CountingEmbed:
    """A tiny deterministic embedding (hashed bag of words) that counts the texts it sees."""

    def __init__(self) -> None:
        self.texts: list[str] = []

    def __call__(self, texts: list[str]) -> list[list[float]]:
        self.texts.extend(texts)
        vectors = []
        for text in texts:
            vector = [0.0] * 64
            for word in text.lower().split():
                vector[hashlib.md5(word.strip(".,:;#").encode()).digest()[0] % 64] += 1.0
            vectors.append(vector)
        return vectors


def sources(out: dict[str, object]) -> list[str]:
    return [hit["source"] for hit in out["results"]]  # type: ignore[attr-defined]


async def test_index_search_change_reindex_restart(folder: Path, tmp_path: Path) -> None:
    index = tmp_path / "index" / "rag.sqlite3"
    embed = CountingEmbed()
    rag = RagTool(index, root=folder, embed=embed)

    first = (await rag.aexecute("index_to_rag", paths=["docs"])).unwrap()
    assert (first["added"], first["updated"], first["unchanged"], first["deleted"]) == (4, 0, 0, 0)
    assert first["skipped"] == [{"source": "docs/logo.png", "reason": "binary file"}]
    assert len(embed.texts) == first["chunks_indexed"] >= 4

    found = (await rag.aexecute("search_rag", query="powdered green tea", k=2)).unwrap()
    assert found["mode"] == "hybrid" and sources(found)[0] == "docs/tea.md"
    top = found["results"][0]
    assert DOCS["tea.md"][top["start"] : top["end"]] == top["text"]
    assert top["score"] > 0

    (folder / "docs" / "coffee.md").write_text("# Coffee\n\nA cortado is espresso cut with milk.")
    (folder / "docs" / "guides" / "python.txt").unlink()
    embed.texts.clear()
    second = (await rag.aexecute("index_to_rag", paths=["docs"])).unwrap()
    assert (second["added"], second["updated"], second["unchanged"], second["deleted"]) == (
        0,
        1,
        2,
        1,
    )
    assert second["changed"] == ["docs/coffee.md"]
    assert embed.texts == ["# Coffee\n\nA cortado is espresso cut with milk."]  # only the change

    again = (await rag.aexecute("index_to_rag", paths=["docs"])).unwrap()
    assert again["unchanged"] == 3 and again["chunks_indexed"] == 0

    restarted = RagTool(index, root=folder)  # a new process would see the same file
    out = restarted.execute("search_rag", query="cortado milk").unwrap()
    assert out["mode"] == "lexical" and sources(out)[0] == "docs/coffee.md"
    assert (
        restarted.execute("search_rag", query="forcing hot water grounds").unwrap()["results"] == []
    )  # the old text is gone from the word index
    assert restarted.execute("search_rag", query="asyncio event loop").unwrap()["results"] == []
    assert restarted.store.counts()[0] == 3


def test_texts_single_files_and_deleted_single_file(folder: Path, tmp_path: Path) -> None:
    rag = RagTool(tmp_path / "rag.db", root=folder)
    out = rag.execute(
        "index_to_rag",
        texts={"minutes": "The board approved the new kettle budget."},
        paths=["docs/tea.md"],
    ).unwrap()
    assert out["added"] == 2 and set(out["changed"]) == {"text:minutes", "docs/tea.md"}
    hit = rag.execute("search_rag", query="kettle budget").unwrap()["results"][0]
    assert hit["source"] == "text:minutes" and hit["position"] == 0
    (folder / "docs" / "tea.md").unlink()
    gone = rag.execute("index_to_rag", paths=["docs/tea.md"]).unwrap()
    assert gone["deleted"] == 1
    # indexing a folder never removes texts or pages
    assert rag.execute("index_to_rag", paths=["."]).unwrap()["deleted"] == 0
    assert rag.execute("search_rag", query="kettle").unwrap()["results"]


def test_paths_stay_inside_the_workspace(folder: Path, tmp_path: Path) -> None:
    rag = RagTool(tmp_path / "rag.db", root=folder)
    outside = rag.execute("index_to_rag", paths=["../"])
    assert outside.code == "permission_denied"
    no_root = RagTool(tmp_path / "rag2.db").execute("index_to_rag", paths=["docs"])
    assert no_root.code == "permission_denied" and "texts" in no_root.error.hint
    assert rag.execute("index_to_rag").code == "invalid_arguments"


async def test_index_urls_through_the_web_tool(site: Site, tmp_path: Path) -> None:
    web = WebTool(network=NetPolicy(allow=("127.0.0.1",)))
    rag = RagTool(tmp_path / "rag.db", web=web)
    out = (
        await rag.aexecute(
            "index_to_rag", urls=[site.url("/page"), site.url("/missing"), "http://10.0.0.1/"]
        )
    ).unwrap()
    assert out["added"] == 1 and len(out["skipped"]) == 2
    assert "Refused" in out["skipped"][1]["reason"]
    hit = (await rag.aexecute("search_rag", query="Uji bridge temple")).unwrap()["results"][0]
    assert hit["source"] == site.url("/page")
    no_web = await RagTool(tmp_path / "other.db").aexecute("index_to_rag", urls=[site.url("/")])
    assert no_web.code == "permission_denied"


def test_search_odd_queries(tmp_path: Path) -> None:
    rag = RagTool(tmp_path / "rag.db")
    rag.execute("index_to_rag", texts={"a": 'Quotes "and" operators AND OR NOT near(x)'})
    for query in ('"unbalanced', "AND OR NOT", "near(x", "*", "-"):
        result = rag.execute("search_rag", query=query)
        assert result.success, (query, result.error)
    assert rag.execute("search_rag", query="???").unwrap()["results"] == []


def test_concurrent_readers_while_indexing(tmp_path: Path) -> None:
    path = tmp_path / "rag.db"
    writer = RagTool(path)
    writer.execute("index_to_rag", texts={"seed": "alpha beta gamma"})
    errors: list[str] = []
    stop = threading.Event()

    def read() -> None:
        reader = RagTool(path)
        while not stop.is_set():
            result = reader.execute("search_rag", query="alpha")
            if not result.success:
                errors.append(result.error.message)

    threads = [threading.Thread(target=read) for _ in range(3)]
    for t in threads:
        t.start()
    for i in range(30):
        writer.execute("index_to_rag", texts={f"doc{i}": f"alpha document number {i} " * 20})
    stop.set()
    for t in threads:
        t.join()
    assert errors == []
    assert RagStore(path).counts()[0] == 31


def test_chunks_overlap_and_keep_offsets() -> None:
    text = "\n\n".join(f"Paragraph {i}. " + "word " * 40 for i in range(10))
    chunks = chunk_text(text, size=300, overlap=60)
    assert len(chunks) > 5
    for chunk in chunks:
        assert text[chunk.start : chunk.end] == chunk.text and len(chunk.text) <= 300
    for before, after in itertools.pairwise(chunks):
        assert after.start < before.end  # overlap
        assert after.start > before.start
    assert chunk_text("   ") == []


def test_hybrid_ranking_with_the_tool_search_model(tmp_path: Path) -> None:
    from toolrig.search._dense import dense_available
    from toolrig.tools.rag import search_model_embedder

    if not dense_available():
        pytest.skip("the search extra (embedding model) is not installed")
    rag = RagTool(tmp_path / "index.sqlite3", embed=search_model_embedder())
    rag.execute(
        "index_to_rag",
        texts={
            "kettle": "The kettle boils water in two minutes and switches itself off.",
            "policy": "Our refund policy: return any item within thirty days for your money back.",
        },
    ).unwrap()
    # no word in common with the refund text: only the dense ranking can find it
    hits = rag.execute("search_rag", query="reimbursement for purchases", k=1).unwrap()
    assert hits["mode"] == "hybrid"
    assert "refund" in hits["results"][0]["text"]
