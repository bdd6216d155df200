"""``toolrig completion SHELL`` prints a script generated from the real parser."""

from __future__ import annotations

import shutil
import subprocess

import pytest
from cli_runner import toolrig

pytest.importorskip("shtab")


@pytest.mark.parametrize("shell", ["bash", "zsh", "tcsh", "fish"])
def test_the_script_knows_every_command(shell: str) -> None:
    done = toolrig("completion", shell)
    assert done.returncode == 0, done.stderr
    for command in ("list", "show", "call", "schema", "validate", "log", "serve", "plan"):
        assert command in done.stdout
    assert "--catalog" in done.stdout


@pytest.mark.skipif(shutil.which("bash") is None, reason="bash is not installed")
def test_the_bash_script_parses_and_completes_subcommands(tmp_path: object) -> None:
    script = toolrig("completion", "bash").stdout
    probe = (
        script
        + "\nCOMP_WORDS=(toolrig l); COMP_CWORD=1; COMP_LINE='toolrig l'; COMP_POINT=9\n"
        + "_shtab_toolrig toolrig l toolrig; printf '%s\\n' \"${COMPREPLY[@]}\"\n"
    )
    done = subprocess.run(["bash", "-c", probe], capture_output=True, text=True, timeout=30)
    assert done.returncode == 0, done.stderr
    assert set(done.stdout.split()) == {"list", "log"}
