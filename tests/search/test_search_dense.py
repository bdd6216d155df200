"""Semantic ranking with the packaged models, and lexical ranking when they are missing."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import pytest

from toolrig.core.spec import ToolSpec
from toolrig.registry.search import ToolIndex
from toolrig.registry.search.dense import dense_available, load_embedders

needs_models = pytest.mark.skipif(not dense_available(), reason="extra 'search' not installed")


@pytest.fixture(scope="session")
def embedders() -> tuple:
    return load_embedders()  # loaded once and shared by the whole process


@needs_models
def test_models_load_offline_and_give_unit_vectors(embedders: tuple) -> None:
    import numpy as np

    assert [e.name for e in embedders] == ["minilm", "static"]
    for embedder in embedders:
        vectors = embedder.embed(["umbrella needed tomorrow?", "rain forecast", "stock price"])
        assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
        assert vectors[0] @ vectors[1] > vectors[0] @ vectors[2]
    assert load_embedders() is embedders


@needs_models
def test_meaning_is_found_without_shared_words(catalogue: list[ToolSpec], embedders: tuple) -> None:
    index = ToolIndex(catalogue, embedders=embedders)
    assert index.dense
    query = "Do I need an umbrella in Oslo tomorrow?"
    assert index.search(query, mode="lexical") == []
    assert index.search(query)[0].name == "get_weather"
    assert index.search("how is Apple trading today", mode="dense")[0].name == "stock_quote"
    assert index.search("remove that document permanently")[0].name == "files.delete"


def test_without_the_extra_search_is_lexical_and_says_so_once(tmp_path) -> None:
    script = textwrap.dedent(
        """
        import logging, sys
        for name in ("onnxruntime", "tokenizers", "numpy"):
            sys.modules[name] = None  # as if the extra were not installed
        logging.basicConfig(level=logging.WARNING, format="%(name)s:%(message)s")
        from toolrig import tool
        from toolrig.registry import Registry
        from toolrig.registry.search.follow import attach

        @tool
        def get_weather(city: str) -> str:
            '''Current weather and forecast for a city.'''
            return city

        registry = Registry()
        registry.add(get_weather)
        first, second = attach(registry), attach(registry)
        assert not first.dense and not second.dense
        print([h.name for h in first.search("weather forecast in Rome")])
        """
    )
    env = {**os.environ, "HF_HUB_OFFLINE": "1"}
    run = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, env=env, timeout=60
    )
    assert run.returncode == 0, run.stderr
    assert run.stdout.strip() == "['get_weather']"
    assert run.stderr.count("tool search ranks by words only") == 1
