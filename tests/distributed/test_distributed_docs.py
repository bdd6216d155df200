"""The deployment docs, the compose example and the README say the same commands, and each of
them is one the ``toolrig`` parser accepts."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import yaml

from toolrig.cli.main import build_parser

ROOT = Path(__file__).resolve().parents[2]
DEPLOY = (ROOT / "docs/deploy.md").read_text()
COMPOSE = yaml.safe_load((ROOT / "examples/deploy/compose.yaml").read_text())


def _parses(command: str) -> None:
    argv = shlex.split(command)
    assert argv[0] == "toolrig", command
    args, extra = build_parser().parse_known_args(argv[1:])
    if extra and getattr(args, "pairs", None) is not None:  # `call`'s key=value after options
        args.pairs += extra
        extra = []
    assert not extra, f"{command}: unknown {extra}"


def _doc_commands(text: str) -> list[str]:
    return [line.removeprefix("$ ") for line in text.splitlines() if line.startswith("$ toolrig")]


def test_compose_commands_are_the_documented_ones() -> None:
    documented = [" ".join(c.split()) for c in _doc_commands(DEPLOY)]
    for service in ("worker", "frontend"):
        command = " ".join(COMPOSE["services"][service]["command"].split())
        assert command in documented, service
        _parses(command)
    assert {"rabbitmq", "redis", "postgres"} <= set(COMPOSE["services"])


def test_readme_scaling_commands_parse() -> None:
    readme = (ROOT / "README.md").read_text()
    section = readme.split("## Scaling out", 1)[1].split("\n## ", 1)[0]
    commands = _doc_commands(section)
    assert [shlex.split(c)[1] for c in commands] == ["worker", "call"]
    for command in commands:
        _parses(command)
    assert re.search(r"docker run .*redis", section)
