"""The CI rule of ``ci_rules``: under ``CI=true`` a skip of a corpus or Chromium test or of a
test whose PostgreSQL fixture found no server fails the run; other skips stay skips; without
``CI`` nothing changes. Checked by running pytest on a small test file in a subprocess."""

from __future__ import annotations

import os
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

TESTS = Path(__file__).resolve().parent

SAMPLE = """
import pytest

@pytest.fixture
def postgres_url():
    pytest.skip("no PostgreSQL server reachable at 127.0.0.1:5432")

@pytest.fixture
def other_service():
    pytest.skip("an optional service is missing")

@pytest.fixture(params=["sqlite", "postgres"])
def db(request):
    if request.param == "postgres":
        return request.getfixturevalue("postgres_url")
    return "sqlite"

@pytest.mark.corpus
@pytest.mark.skipif(True, reason="corpus not found")
def test_corpus_missing():
    pass

@pytest.mark.corpus
def test_corpus_present():
    pass

@pytest.fixture
def corpus_rows():
    raise AssertionError("the fixture read a corpus that is not there")

@pytest.mark.corpus("no-such-corpus/rows.json")
def test_corpus_named_and_missing(corpus_rows):
    pass

@pytest.mark.chromium
@pytest.mark.skipif(True, reason="no Chromium found")
def test_chromium_missing():
    pass

@pytest.mark.chromium
def test_chromium_sends_nothing():
    pytest.skip("nothing to compare")

def test_database(db):
    assert db == "sqlite"

def test_optional(other_service):
    pass

@pytest.mark.skipif(True, reason="not on this platform")
def test_plain_skip():
    pass

@pytest.mark.xfail(reason="known", strict=True)
def test_expected_failure():
    assert False
"""


def _report(tmp_path: Path, ci: str | None) -> ET.Element:
    (tmp_path / "test_sample.py").write_text(SAMPLE, encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if k != "CI"}
    if ci is not None:
        env["CI"] = ci
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(TESTS), env.get("PYTHONPATH")]))
    report = tmp_path / "report.xml"
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-p",
            "ci_rules",
            "-p",
            "no:cacheprovider",
            "-q",
            f"--junitxml={report}",
            str(tmp_path / "test_sample.py"),
        ],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        stdin=subprocess.DEVNULL,
    )
    assert done.returncode in (0, 1), done.stdout + done.stderr
    return ET.parse(report).getroot()


def _outcomes(tmp_path: Path, ci: str | None) -> dict[str, str]:
    outcomes: dict[str, str] = {}
    for case in _report(tmp_path, ci).iter("testcase"):
        kinds = [child.tag for child in case if child.tag in ("failure", "error", "skipped")]
        outcomes[case.attrib["name"]] = kinds[0] if kinds else "passed"
    return outcomes


def test_under_ci_missing_corpus_or_postgres_fails(tmp_path: Path) -> None:
    assert _outcomes(tmp_path, "true") == {
        "test_corpus_missing": "error",  # a skip in setup, turned into a failure
        "test_corpus_present": "passed",
        "test_corpus_named_and_missing": "error",
        "test_chromium_missing": "error",
        "test_chromium_sends_nothing": "failure",  # a skip in the test's body
        "test_database[sqlite]": "passed",
        "test_database[postgres]": "error",
        "test_optional": "skipped",
        "test_plain_skip": "skipped",
        "test_expected_failure": "skipped",  # xfail stays xfail
    }


@pytest.mark.parametrize("ci", [None, "false", "1"])
def test_outside_ci_those_skips_stay_skips(tmp_path: Path, ci: str | None) -> None:
    outcomes = _outcomes(tmp_path, ci)
    assert outcomes["test_corpus_missing"] == outcomes["test_corpus_named_and_missing"] == "skipped"
    assert outcomes["test_chromium_missing"] == outcomes["test_chromium_sends_nothing"] == "skipped"
    assert outcomes["test_database[postgres]"] == "skipped"
    assert outcomes["test_database[sqlite]"] == "passed"


def test_a_missing_named_corpus_skips_before_its_fixtures_saying_where(tmp_path: Path) -> None:
    """``corpus("<path>")`` checks the path under ``../shared/corpora``: a checkout that does not
    sit beside ``shared/`` skips (the fixture that would read it never runs) and says why."""
    case = next(
        c
        for c in _report(tmp_path, None).iter("testcase")
        if c.attrib["name"] == "test_corpus_named_and_missing"
    )
    skipped = case.find("skipped")
    assert skipped is not None, ET.tostring(case, encoding="unicode")
    message = skipped.attrib["message"]
    assert "needs ../shared/corpora/no-such-corpus/rows.json" in message
    assert "does not sit beside shared/" in message
