"""What an optional extra adds to an install: sizes in fresh virtual environments.

Run: ``.venv/bin/python bench/extra_size.py [EXTRA ...]`` (default: ``search``). Installs this
checkout into a fresh venv without extras, then with each extra, and prints the megabytes and
distributions each extra adds, largest first. Sizes are those of the files on disk (``pip``
and its caches excluded). Needs the package index; takes a few minutes. ``--quick`` installs
nothing: it measures the running environment's largest distributions (a smoke run).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import venv
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
MB = 1_000_000
SIZES = (
    "import importlib.metadata as m, json, pathlib\n"
    "out = {}\n"
    "for d in m.distributions():\n"
    "    size = 0\n"
    "    for f in d.files or ():\n"
    "        p = pathlib.Path(d.locate_file(f))\n"
    "        if p.is_file():\n"
    "            size += p.stat().st_size\n"
    "    out[d.metadata['Name'].lower()] = size\n"
    "print(json.dumps(out))\n"
)
"""Prints the bytes on disk of each distribution of the interpreter running it, as JSON."""


def installed(extra: str | None, where: Path) -> dict[str, int]:
    """Bytes per distribution in a fresh venv holding toolrig (with ``extra``)."""
    venv.create(where, with_pip=True)
    python = where / "bin" / "python"
    target = f"{ROOT}[{extra}]" if extra else str(ROOT)
    done = subprocess.run(
        [python, "-m", "pip", "install", "--quiet", "--disable-pip-version-check", target],
        capture_output=True,
        text=True,
    )
    if done.returncode:
        sys.exit(f"pip could not install {target}:\n{done.stderr}")
    return measured(python)


def measured(python: str | Path) -> dict[str, int]:
    """Bytes per distribution installed for ``python`` (``pip`` and ``setuptools`` left out)."""
    done = subprocess.run([python, "-c", SIZES], check=True, capture_output=True, text=True)
    sizes: dict[str, int] = json.loads(done.stdout)
    for tool in ("pip", "setuptools"):
        sizes.pop(tool, None)
    return sizes


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("extras", nargs="*", default=["search"])
    parser.add_argument("--quick", action="store_true", help="this environment, no installs")
    args = parser.parse_args()
    if args.quick:
        sizes = measured(sys.executable)
        print(f"this environment: {sum(sizes.values()) / MB:.0f} MB in {len(sizes)} distributions")
        for name, size in sorted(sizes.items(), key=lambda item: -item[1])[:5]:
            print(f"  {name:<28}{size / MB:>7.1f} MB")
        return
    with tempfile.TemporaryDirectory(prefix="toolrig-size-") as work:
        base = installed(None, Path(work) / "base")
        print(
            f"toolrig without extras: {sum(base.values()) / MB:.0f} MB in {len(base)} distributions"
        )
        for extra in args.extras:
            sizes = installed(extra, Path(work) / extra)
            added = {name: size for name, size in sizes.items() if name not in base}
            total = sum(added.values())
            print(
                f"\n[{extra}] adds {total / MB:.0f} MB in {len(added)} distributions "
                "(target for [search]: 120 MB):"
            )
            for name, size in sorted(added.items(), key=lambda item: -item[1]):
                print(f"  {name:<28}{size / MB:>7.1f} MB")


if __name__ == "__main__":
    main()
