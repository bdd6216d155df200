"""Take the terminal screenshots of the docs: real commands in a real terminal (tmux), the
screen read back with its colours (``capture-pane -e``), drawn as HTML by Rich and photographed
by headless Chromium.

Run from the project root: ``.venv/bin/python docs/screenshots/capture.py`` (needs tmux and
/usr/bin/chromium). Writes ``demo.png``, ``demo-plan.png``, ``list-and-call.png`` and
``agent.png`` here.
"""

from __future__ import annotations

import io
import os
import re
import shutil
import subprocess
import tempfile
import time
from pathlib import Path

from rich.console import Console
from rich.terminal_theme import MONOKAI
from rich.text import Text

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
WIDTH = 104
"""Columns of the terminal."""
SESSION = "toolrig-screens"


def tmux(*args: str) -> str:
    done = subprocess.run(["tmux", *args], capture_output=True, text=True, check=True)
    return done.stdout


def run_in_terminal(commands: list[str], *, height: int) -> str:
    """Type ``commands`` in a fresh terminal; the whole screen and scroll-back, with colours."""
    with tempfile.TemporaryDirectory(ignore_cleanup_errors=True) as home:
        env = f"env -i HOME={home} PATH={ROOT / '.venv' / 'bin'}:/usr/bin:/bin TERM=xterm-256color"
        env += f" TOOLRIG_LOG={home}/log.sqlite3 TOOLRIG_CONFIG={home}/none.toml"
        shell = f"{env} PS1='$ ' bash --norc --noprofile"
        tmux("new-session", "-d", "-s", SESSION, "-x", str(WIDTH), "-y", str(height), shell)
        try:
            tmux("send-keys", "-t", SESSION, f"cd {ROOT} && clear", "Enter")
            time.sleep(0.5)
            for command in commands:
                tmux("send-keys", "-t", SESSION, command, "Enter")
                _wait_for_prompt()
            return tmux("capture-pane", "-p", "-e", "-J", "-t", SESSION, "-S", "-", "-E", "-")
        finally:
            tmux("kill-session", "-t", SESSION)


def _wait_for_prompt(timeout: float = 60.0) -> None:
    """Until the last line of the screen is the shell's prompt again."""
    deadline = time.monotonic() + timeout
    time.sleep(0.3)
    while time.monotonic() < deadline:
        lines = [line for line in tmux("capture-pane", "-p", "-t", SESSION).splitlines() if line]
        if lines and lines[-1].rstrip() == "$":
            return
        time.sleep(0.2)
    raise TimeoutError("the command did not finish")


PAGE = """<!DOCTYPE html>
<html><head><meta charset="UTF-8"><style>
{stylesheet}
body {{ margin: 0; padding: 16px; background: #e8e8e8; }}
.window {{ display: inline-block; border-radius: 10px; overflow: hidden;
           box-shadow: 0 4px 16px rgba(0,0,0,.35); background: {background}; }}
.bar {{ background: #3a3a3a; color: #ddd; font: 13px sans-serif; padding: 7px 12px;
        text-align: center; position: relative; }}
.dots {{ position: absolute; left: 12px; top: 7px; letter-spacing: 4px; }}
pre {{ margin: 0; padding: 12px 16px; color: {foreground};
       font: 15px/1.17 'DejaVu Sans Mono', monospace; }}
</style></head><body><div class="window">
<div class="bar"><span class="dots"><span style="color:#ff5f56">&#9679;</span>\
<span style="color:#ffbd2e">&#9679;</span><span style="color:#27c93f">&#9679;</span></span>\
{title}</div>
<pre><code style="font-family:inherit">{code}</code></pre></div></body></html>
"""
"""A terminal window around the screen's text; DejaVu Sans Mono at this line height joins the
box-drawing characters of tables and panels."""


def to_png(screen: str, target: Path, *, title: str) -> None:
    """Draw the captured screen (ANSI colours) as a terminal window in a PNG."""
    lines = screen.rstrip("\n").splitlines()
    while lines and not Text.from_ansi(lines[-1]).plain.strip(" $"):
        lines.pop()  # the final empty prompt
    console = Console(
        record=True, width=WIDTH, force_terminal=True, color_system="truecolor", file=io.StringIO()
    )
    for line in lines:
        console.print(Text.from_ansi(line), no_wrap=True, crop=True)
    html = console.export_html(theme=MONOKAI, code_format=PAGE.replace("{title}", title))
    # spans need no background of their own (it is the window's), and a span's background
    # would paint over the underscores of the line above
    html = re.sub(r"background-color: #[0-9a-fA-F]{6};?", "", html)
    height = 80 + 18 * len(lines)
    with tempfile.TemporaryDirectory() as work:
        page = Path(work) / "screen.html"
        page.write_text(html, encoding="utf-8")
        subprocess.run(
            [
                shutil.which("chromium") or "/usr/bin/chromium",
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--hide-scrollbars",
                f"--window-size={WIDTH * 9 + 70},{height}",
                f"--screenshot={target}",
                page.as_uri(),
            ],
            check=True,
            capture_output=True,
            env={**os.environ, "HOME": work},
            timeout=120,
        )


def main() -> None:
    demo = run_in_terminal(["toolrig demo"], height=200)
    marker = "4. A plan over the example catalogue"
    head, _, tail = demo.partition(marker)
    plan_start = head.rfind("\n") + 1
    to_png(head[:plan_start], HERE / "demo.png", title="toolrig demo")
    to_png(head[plan_start:] + marker + tail, HERE / "demo-plan.png", title="toolrig demo")
    screen = run_in_terminal(
        ["toolrig list", "toolrig call add a=2 b=40", "toolrig call add a=two bb=3"], height=60
    )
    to_png(screen, HERE / "list-and-call.png", title="toolrig list, toolrig call")
    screen = run_in_terminal(
        ['toolrig agent "What is two plus 40?" --script examples/agent_turns.json'], height=40
    )
    to_png(screen, HERE / "agent.png", title="toolrig agent")


if __name__ == "__main__":
    main()
