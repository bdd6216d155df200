"""The agent examples run offline (their model is a ``ScriptedModel``) and print what they
show."""

from __future__ import annotations

import subprocess
import sys

import pytest
from agent_support import ROOT

EXPECTED = {
    "agent_conversation.py": ["2 + 3 = 5. (4 new messages)", "6 messages in session 'sums'"],
    "agent_approval.py": ["approval [('c2', 'drop_table'", "users is still in use"],
    "agent_typed_output.py": ["city='Lyon' celsius=21.5", 'received "warm"'],
    "agent_toolsets.py": ["offered: ['gh_list_issues', 'gl_issues', 'attempt_completion']"],
    "agent_streaming.py": ["-> word_count(", "[answer] The line has 6 words."],
}


def test_every_agent_example_is_listed() -> None:
    assert sorted(p.name for p in (ROOT / "examples").glob("agent_*.py")) == sorted(EXPECTED)


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_the_example_runs_offline(name: str) -> None:
    done = subprocess.run(
        [sys.executable, str(ROOT / "examples" / name)],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    for text in EXPECTED[name]:
        assert text in done.stdout, done.stdout
