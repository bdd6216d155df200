"""The agent examples run offline (their model is a ``ScriptedModel``) and print what they
show. They run in one fresh interpreter, one after the other (one start-up, not five)."""

from __future__ import annotations

import subprocess
import sys

from agent_support import ROOT

EXPECTED = {
    "agent_conversation.py": ["2 + 3 = 5. (4 new messages)", "6 messages in session 'sums'"],
    "agent_approval.py": ["approval [('c2', 'drop_table'", "users is still in use"],
    "agent_typed_output.py": ["city='Lyon' celsius=21.5", 'received "warm"'],
    "agent_toolsets.py": ["offered: ['gh_list_issues', 'gl_issues', 'attempt_completion']"],
    "agent_streaming.py": ["-> word_count(", "[answer] The line has 6 words."],
}

RUNNER = """
import runpy, sys
for path in sys.argv[1:]:
    print(f"=== {path}", flush=True)
    runpy.run_path(path, run_name="__main__")
"""


def test_every_agent_example_runs_offline() -> None:
    assert sorted(p.name for p in (ROOT / "examples").glob("agent_*.py")) == sorted(EXPECTED)
    paths = [str(ROOT / "examples" / name) for name in sorted(EXPECTED)]
    done = subprocess.run(
        [sys.executable, "-c", RUNNER, *paths],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    parts = done.stdout.split("=== ")[1:]
    outputs = {part.split("\n", 1)[0].rsplit("/", 1)[-1]: part for part in parts}
    for name, texts in EXPECTED.items():
        for text in texts:
            assert text in outputs[name], outputs[name]
