"""The wheel a release would publish installs in a fresh virtual environment, and its
``toolrig demo`` runs from there.

Offline and under a minute: the wheel is built without build isolation (hatchling comes with
the ``dev`` group), installed without its dependencies into a new venv, and the dependencies
are read from this project's environment through a path file. The test then checks that
``toolrig`` is imported from the new venv, not from this checkout.
"""

from __future__ import annotations

import os
import subprocess
import sys
import sysconfig
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

pytest.importorskip("build")
pytest.importorskip("hatchling")


def _run(*argv: str | Path, cwd: Path, env: dict[str, str] | None = None) -> str:
    done = subprocess.run(
        [str(a) for a in argv],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=240,
        stdin=subprocess.DEVNULL,
    )
    assert done.returncode == 0, f"{argv}:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
    return done.stdout


def test_the_wheel_installs_in_a_fresh_venv_and_runs_the_demo(tmp_path: Path) -> None:
    dist = tmp_path / "dist"
    _run(
        sys.executable,
        "-m",
        "build",
        "--wheel",
        "--no-isolation",
        "--outdir",
        dist,
        ROOT,
        cwd=tmp_path,
    )
    (wheel,) = dist.glob("toolrig-*.whl")
    with zipfile.ZipFile(wheel) as archive:
        names = archive.namelist()
    assert "toolrig/py.typed" in names and "toolrig/cli/main.py" in names
    assert not any(n.startswith(("tests/", "docs/")) for n in names)
    # the demo's data ships inside the package, so its plan and agent sections run
    assert "toolrig/_demo_data/catalog/analysis/sentiment_analyzer.yaml" in names
    assert "toolrig/_demo_data/plans/review_report.yaml" in names
    assert "toolrig/_demo_data/review_tools/text.py" in names
    metadata = next(n for n in names if n.endswith(".dist-info/METADATA"))
    with zipfile.ZipFile(wheel) as archive:
        extras = [
            line.split(":", 1)[1].strip()
            for line in archive.read(metadata).decode().splitlines()
            if line.startswith("Provides-Extra:")
        ]
    assert "postgres" in extras and "dev" not in extras and "bench" not in extras

    venv = tmp_path / "venv"
    _run(sys.executable, "-m", "venv", "--without-pip", venv, cwd=tmp_path)
    python = venv / "bin" / "python"
    _run(
        sys.executable,
        "-m",
        "pip",
        "--python",
        python,
        "install",
        "--quiet",
        "--no-deps",
        "--no-index",
        wheel,
        cwd=tmp_path,
    )
    site = Path(
        _run(
            python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])", cwd=tmp_path
        ).strip()
    )
    # the dependencies: this environment's packages, after the venv's own (the wheel's toolrig)
    (site / "zz_dependencies.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")

    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTHON", "VIRTUAL_ENV"))}
    env.update(
        TOOLRIG_LOG=str(tmp_path / "log.sqlite3"),
        TOOLRIG_CONFIG=str(tmp_path / "no-config.toml"),
        COLUMNS="120",
    )
    for name in ("OPENAI_API_KEY", "ANTHROPIC_API_KEY", "TOOLRIG_LLM_PROVIDER", "OPENAI_BASE_URL"):
        env.pop(name, None)
    where = _run(python, "-c", "import toolrig; print(toolrig.__file__)", cwd=tmp_path, env=env)
    assert where.startswith(str(venv)), where
    out = _run(venv / "bin" / "toolrig", "demo", cwd=tmp_path, env=env)
    assert "nothing raised" in out and "invalid_arguments" in out
    assert "4. A plan over the example catalogue" in out and "succeeded" in out
    assert "5. The agent loop" in out and "no plan demo" not in out
    listed = _run(venv / "bin" / "toolrig", "list", "--json", cwd=tmp_path, env=env)
    assert '"notes.read"' in listed
