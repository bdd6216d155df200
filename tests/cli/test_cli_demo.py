"""``toolrig demo`` through the real command: every section, offline, each under a screen."""

from __future__ import annotations

import re
from pathlib import Path

from cli_runner import toolrig

SECTIONS = (
    "1. Tools, defined three ways",
    "2. Good and bad calls",
    "3. A hundred concurrent calls",
    "4. A plan over the example catalogue",
    "5. The agent loop",
)


def test_the_demo_runs_every_section_offline(tmp_path: Path) -> None:
    done = toolrig(
        "demo",
        TOOLRIG_LOG=str(tmp_path / "log.sqlite3"),
        COLUMNS="100",
        TOOLRIG_CONFIG=str(tmp_path / "none.toml"),
    )
    assert done.returncode == 0, done.stderr
    out = done.stdout
    starts = [out.index(title) for title in SECTIONS]
    assert starts == sorted(starts)
    # shorter than a screen (50 lines) per section
    ends = [*starts[1:], len(out)]
    lengths = [out[a:b].count("\n") for a, b in zip(starts, ends, strict=True)]
    assert max(lengths) <= 50, lengths
    assert "## Available tools" in out and "When to use:" in out
    assert "5 succeeded, 5 failed as expected; nothing raised." in out
    for code in ("[invalid_arguments]", "[timeout]", "[not_found]"):
        assert code in out
    assert "Did you mean 'search'?" in " ".join(out.split())
    assert re.search(r"100 searches at once: all succeeded", out)
    assert re.search(r"8 steps in 5 layers, estimated cost [\d.]+; succeeded", out)
    assert re.search(r"toolrig console --catalog \S+catalog --import-path \S+examples", out)
    # with no LLM, the scripted model sends a bad call, reads the error and corrects it
    agent = out[out.index("5. The agent loop") :]
    assert "ScriptedModel plays the model" in agent
    assert agent.index("✗ add") < agent.index("invalid_arguments") < agent.index("✓ add → 42")
    assert "done after 3 turns: 2 + 40 = 42." in agent
    assert done.stderr == ""


def test_colour_on_a_terminal(tmp_path: Path) -> None:
    done = toolrig(
        "demo",
        "--no-prompt",
        TOOLRIG_LOG=str(tmp_path / "log.sqlite3"),
        FORCE_COLOR="1",
        NO_COLOR="",
        TERM="xterm-256color",
        TOOLRIG_CONFIG=str(tmp_path / "none.toml"),
    )
    assert done.returncode == 0, done.stderr
    assert "\x1b[" in done.stdout and "## Available tools" not in done.stdout
