"""``toolrig search`` over the example catalogue."""

from __future__ import annotations

import io
import json
import sys
from pathlib import Path

import pytest

from toolrig.cli.main import main

CATALOG = str(Path(__file__).resolve().parents[1] / "examples" / "catalog")


def search(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str]:
    code = main(["search", "--catalog", CATALOG, *args])
    return code, capsys.readouterr().out


def search_error(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str]:
    """The exit code and stderr of a search that fails (errors are one line on stderr)."""
    try:
        code = main(["search", "--catalog", CATALOG, *args])
    except SystemExit as refused:  # refused while the command line is parsed
        code = refused.code if isinstance(refused.code, int) else 2
    return code, capsys.readouterr().err


def test_json_lists_the_best_actions_first(capsys: pytest.CaptureFixture[str]) -> None:
    code, out = search(capsys, "--json", "-k", "2", "how much stock is left of the kettle?")
    assert code == 0
    hits = json.loads(out)
    assert hits[0]["name"] == "inventory_manager.check_stock"
    assert len(hits) == 2 and hits[0]["score"] >= hits[1]["score"]


def test_filters_and_one_result_per_tool(capsys: pytest.CaptureFixture[str]) -> None:
    code, out = search(capsys, "--json", "--type", "analysis", "--tools", "stock and complaints")
    names = [h["name"] for h in json.loads(out)]
    assert code == 0 and names and "inventory_manager" not in names
    assert len(names) == len(set(names)) and all("." not in n for n in names)


def test_the_table_shows_the_action_description(capsys: pytest.CaptureFixture[str]) -> None:
    code, out = search(capsys, "-k", "1", "--mode", "lexical", "reorder quantities per product")
    assert code == 0
    assert "inventory_manager.suggest_reorder" in out and "Quantities to reorder" in out


def test_bad_requests_exit_2_with_the_reason(capsys: pytest.CaptureFixture[str]) -> None:
    code, err = search_error(capsys, "   ")
    assert code == 2 and "query is empty" in err
    code, err = search_error(capsys, "-k", "0", "stock")
    assert code == 2 and "argument -k: must be at least 1, not 0" in err
    assert main(["search", "stock"]) == 2
    assert "--catalog" in capsys.readouterr().err


def test_nothing_found_exits_1(capsys: pytest.CaptureFixture[str]) -> None:
    code, out = search(capsys, "--mode", "lexical", "zzyzx qwertyuiop")
    assert code == 1 and "no tool fits" in out


def test_usage_log_moves_the_often_called_tool_up(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    from toolrig.storage import SQLiteExecutionLog

    query = "analyze customer data"  # several analysers match about as well
    code, out = search(capsys, "--json", "--tools", "--mode", "lexical", query)
    order = [h["name"] for h in json.loads(out)]
    assert code == 0 and len(order) >= 2
    path = tmp_path / "log.sqlite3"
    with SQLiteExecutionLog(path) as log:
        for _ in range(50):
            log.add_result(order[1], "tool", None, None, None, "success", run_id="r")
    args = ["--json", "--tools", "--mode", "lexical", "--usage-log", str(path), query]
    code, out = search(capsys, *args)
    assert code == 0 and json.loads(out)[0]["name"] == order[1]
    code, err = search_error(capsys, "--usage-log", str(tmp_path / "missing.db"), query)
    assert code == 2 and "no execution log at" in err


def test_learn_from_moves_the_tool_that_like_requests_led_to_up(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    from toolrig.storage import RequestLog, SQLiteExecutionLog

    query = "analyze customer data"
    code, out = search(capsys, "--json", "--tools", query)
    order = [h["name"] for h in json.loads(out)]
    assert code == 0 and len(order) >= 2
    path = tmp_path / "log.sqlite3"
    with SQLiteExecutionLog(path) as log:
        requests = RequestLog(log, enabled=True)
        for request in ("analyze our customer data", "analyse the customers' data please"):
            requests.record(request, order[1])
    code, out = search(capsys, "--json", "--tools", "--learn-from", str(path), query)
    learned = [h["name"] for h in json.loads(out)]
    assert code == 0 and learned[0] == order[1]  # learned requests are compared by meaning
    code, err = search_error(capsys, "--learn-from", str(tmp_path / "missing.db"), query)
    assert code == 2 and "no execution log at" in err


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_a_cold_start_says_where_the_index_is_cached_on_stderr_only(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The real command over the example catalogue, default (embedding) mode: the first run
    embeds and says so on stderr; the second reads the cache and says nothing; stdout is the
    same JSON both times."""
    pytest.importorskip("onnxruntime")
    from toolrig.search import _vector_cache as vector_cache

    monkeypatch.setenv("TOOLRIG_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(vector_cache, "_caches", {})
    args = ["search", "--catalog", CATALOG, "--json", "-k", "2", "how much stock is left?"]
    assert main(args) == 0
    cold = capsys.readouterr()
    line = f"index cached in {tmp_path / 'vectors'}; next start reuses it"
    assert cold.err.strip() == line
    vector_cache._caches.clear()  # as a new process
    assert main(args) == 0
    warm = capsys.readouterr()
    assert warm.err == ""
    assert json.loads(cold.out) == json.loads(warm.out)  # stdout holds the JSON alone
    assert "cached" not in cold.out


def test_a_long_build_shows_a_bar_on_a_terminal_and_never_a_short_one(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from toolrig.cli._build_progress import LONG_BUILD, BuildProgress

    terminal = _Terminal()
    monkeypatch.setattr(sys, "stderr", terminal)
    with BuildProgress() as progress:
        progress("minilm", 0, LONG_BUILD - 1)
        progress("minilm", LONG_BUILD - 1, LONG_BUILD - 1)
    assert "indexing tools" not in terminal.getvalue()
    assert terminal.getvalue().startswith("index cached in ")
    terminal = _Terminal()
    monkeypatch.setattr(sys, "stderr", terminal)
    with BuildProgress() as progress:
        progress("minilm", 0, LONG_BUILD)
        progress("minilm", LONG_BUILD // 2, LONG_BUILD)
        assert "indexing tools (minilm)" in terminal.getvalue()
        progress("minilm", LONG_BUILD, LONG_BUILD)
    assert terminal.getvalue().rstrip().endswith("next start reuses it")
    piped = io.StringIO()  # not a terminal: the line, no bar
    monkeypatch.setattr(sys, "stderr", piped)
    with BuildProgress() as progress:
        progress("minilm", 0, 10 * LONG_BUILD)
        progress("minilm", 10 * LONG_BUILD, 10 * LONG_BUILD)
    assert "indexing" not in piped.getvalue() and "cached in" in piped.getvalue()
