"""The README's two commands are the ones CI and users run."""

from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
NEEDS_A_SERVER = {"conformance_client.py"}
"""Examples that are commands for a server's URL (the MCP conformance suite runs this one)."""


def test_readme_opens_with_two_commands_and_ci_runs_the_test_one() -> None:
    lines = (ROOT / "README.md").read_text().splitlines()
    block = lines[lines.index("```bash") + 1 : lines.index("```bash") + 3]
    assert lines.index("```bash") <= 3 and lines[lines.index("```bash") + 3] == "```"
    demo, tests = block
    assert demo.endswith("toolrig demo")
    assert "pytest" in tests and "mypy" in tests and "ruff check" in tests
    assert tests in (ROOT / ".ci" / "run").read_text().splitlines()


def test_demo_runs_offline(capsys, monkeypatch, tmp_path) -> None:  # type: ignore[no-untyped-def]
    from toolrig.cli.main import main

    monkeypatch.setenv("TOOLRIG_LOG", str(tmp_path / "log.sqlite3"))
    monkeypatch.setenv("TOOLRIG_CONFIG", str(tmp_path / "no-config.toml"))
    for name in (
        "TOOLRIG_LLM_PROVIDER",
        "TOOLRIG_LLM_MODEL",
        "OPENAI_API_KEY",
        "ANTHROPIC_API_KEY",
        "OPENAI_BASE_URL",
    ):
        monkeypatch.delenv(name, raising=False)
    assert main(["demo"]) == 0
    out = capsys.readouterr().out
    assert "## Available tools" in out and "nothing raised" in out
    assert "[invalid_arguments]" in out and "[timeout]" in out and "[not_found]" in out


def test_examples_run_as_they_are() -> None:
    import subprocess
    import sys

    for script in sorted((ROOT / "examples").glob("*.py")):
        done = subprocess.run(
            [sys.executable, str(script)], capture_output=True, text=True, timeout=120
        )
        if script.name in NEEDS_A_SERVER:  # run for real by its own test; alone, it says how
            assert done.returncode == 1 and done.stderr.startswith("usage: "), done.stderr
            continue
        assert done.returncode == 0, f"{script.name}: {done.stderr[-2000:]}"
