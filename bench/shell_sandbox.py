"""What the kernel sandbox (Landlock) costs a shell call, beside the same call without it.

Each row runs one command ``--rounds`` times through ``ShellTool.run_command`` (supervisor
included, as the tool always runs it on Linux), interleaving the configurations round by round
so that a noisy neighbour weighs on all of them alike, and prints the median and p90 wall time
per call. ``lists`` is the tool with the argument checks alone (``kernel_sandbox="off"``, what
every call cost before); ``landlock`` applies the ruleset in the command's process before
``exec``. The first call of a tool, which resolves the allowed programs (``ldd``, git's exec
path, a Python's library folders) and builds the rules, is timed apart.

    python bench/shell_sandbox.py               # 40 rounds
    python bench/shell_sandbox.py --rounds 10   # quicker
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from toolrig.tools import ShellTool, _landlock

PROGRAMS = ["true", "git", "ls", "cat", "grep", sys.executable]
COMMANDS = {
    "true": ["true"],
    "git status": ["git", "status", "--short"],
    "python -c pass": [sys.executable, "-c", "pass"],
}


def timed(shell: ShellTool, command: list[str]) -> float:
    start = time.perf_counter()
    shell.run_command(command)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=40)
    parser.add_argument("--quick", action="store_true", help="a few rounds (CI)")
    args = parser.parse_args()
    if args.quick:
        args.rounds = 3
    print(f"Landlock ABI {_landlock.abi()}; {args.rounds} rounds, interleaved")
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        subprocess.run(["git", "init", "-q", str(root)], check=True)
        (root / "a.txt").write_text("a\n")
        for name in ("lists", "landlock"):
            mode = "off" if name == "lists" else "required"
            start = time.perf_counter()
            ShellTool(root, allowed_programs=PROGRAMS, kernel_sandbox=mode).run_command(["true"])
            print(
                f"first call of a new tool, {name:8}: {1000 * (time.perf_counter() - start):7.1f} ms"
            )
        shells = {
            "lists": ShellTool(root, allowed_programs=PROGRAMS, kernel_sandbox="off"),
            "landlock": ShellTool(root, allowed_programs=PROGRAMS, kernel_sandbox="required"),
            "landlock, any program": ShellTool(root, kernel_sandbox="required"),
        }
        for shell in shells.values():
            shell.run_command(["true"])  # rules built, caches warm
        print(f"{'command':16} {'configuration':22} {'median ms':>10} {'p90 ms':>8}")
        for label, command in COMMANDS.items():
            times: dict[str, list[float]] = {name: [] for name in shells}
            for _ in range(args.rounds):
                for name, shell in shells.items():
                    times[name].append(timed(shell, command))
            for name, values in times.items():
                values.sort()
                p90 = values[int(0.9 * (len(values) - 1))]
                median = statistics.median(values)
                print(f"{label:16} {name:22} {1000 * median:10.1f} {1000 * p90:8.1f}")


if __name__ == "__main__":
    main()
