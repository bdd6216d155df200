"""Data of the retrieval benchmark: MetaTool and the pooled BFCL functions, split into a dev
slice (for tuning) and a held-out part (for reporting), and a plain BM25 baseline.

- MetaTool (``../shared/corpora/metatool``, MIT): 199 tools, 20,614 single-tool and 497
  two-tool requests.
- BFCL v4 (``../shared/corpora/bfcl``, Apache-2.0): every function of every entry pooled into
  one catalogue, identical definitions once; a name defined differently by several entries is
  kept once per definition (``name~2``, ...), and a hit on any of them counts for that name.
  Each question (of simple_python, multiple, parallel, parallel_multiple; irrelevance has no
  answer) targets the distinct functions of its ground truth.

A request goes to the dev slice (30%) or the held-out part by a hash of its text (MetaTool)
or of its entry id (BFCL).
"""

from __future__ import annotations

import csv
import hashlib
import json
import math
import random
import re
from collections import Counter
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from toolrig.core.model._spec import ActionSpec, ToolSpec

ROOT = Path(__file__).resolve().parents[1]
CORPORA = ROOT.parent / "shared" / "corpora"
METATOOL = CORPORA / "metatool"
BFCL = CORPORA / "bfcl"
BFCL_QUESTIONS = ("simple_python", "multiple", "parallel", "parallel_multiple")

Query = tuple[str, list[str]]


def safe(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.\- ]", "_", name)


def is_dev(key: str) -> bool:
    """The fixed dev slice: 30% of the requests, by a hash of ``key``."""
    return int(hashlib.sha1(key.encode()).hexdigest()[:8], 16) % 10 < 3


def load_metatool() -> tuple[dict[str, str], list[Query], list[Query]]:
    tools = {safe(k): v for k, v in json.loads((METATOOL / "plugin_des.json").read_text()).items()}
    with open(METATOOL / "all_clean_data.csv", newline="", encoding="utf-8") as f:
        single = [(row["Query"], [safe(row["Tool"])]) for row in csv.DictReader(f)]
    multi = [
        (d["query"], [safe(t) for t in d["tool"]])
        for d in json.loads((METATOOL / "multi_tool_query_golden.json").read_text())
    ]
    return tools, single, multi


def metatool_specs(
    tools: dict[str, str], examples: dict[str, list[str]] | None = None
) -> list[ToolSpec]:
    return [
        ToolSpec(
            name=name,
            description=text,
            examples=tuple((examples or {}).get(name, ())),
            actions={name: ActionSpec(name=name, description=text)},
        )
        for name, text in tools.items()
    ]


def _standard(node: Any) -> Any:
    """BFCL's JSON-Schema-like types as standard ones (``dict`` -> ``object``, ...)."""
    if isinstance(node, list):
        return [_standard(n) for n in node]
    if not isinstance(node, dict):
        return node
    out = {k: _standard(v) for k, v in node.items() if k != "optional"}
    kind = out.get("type")
    mapped = {"dict": "object", "float": "number", "tuple": "array", "any": None}
    if isinstance(kind, str) and kind in mapped:
        if mapped[kind] is None:
            del out["type"]
        else:
            out["type"] = mapped[kind]
    return out


def tool_name(name: str) -> str:
    """A BFCL function name as a tool name (dots would read as ``tool.action``)."""
    return safe(name).replace(".", "_")


def load_bfcl() -> tuple[dict[str, dict[str, Any]], list[tuple[str, str, list[str]]]]:
    """Pooled functions by tool name, and ``(id, question, gold names)`` per question (the
    function's name as a tool name: ``fn["base"]`` of the pooled tools that stand for it)."""
    pooled: dict[str, dict[str, Any]] = {}
    seen: dict[str, str] = {}  # definition -> tool name
    variants: Counter[str] = Counter()
    questions: list[tuple[str, str, list[str]]] = []
    for path in sorted(BFCL.glob("BFCL_v4_*.json")):
        category = path.stem.removeprefix("BFCL_v4_")
        answers: dict[str, Any] = {}
        answer_path = BFCL / "possible_answer" / path.name
        if answer_path.is_file():
            for line in answer_path.read_text().splitlines():
                entry = json.loads(line)
                answers[entry["id"]] = entry["ground_truth"]
        for line in path.read_text().splitlines():
            entry = json.loads(line)
            for fn in entry["function"]:
                key = json.dumps(fn, sort_keys=True)
                if key in seen:
                    continue
                base = tool_name(fn["name"])
                variants[base] += 1
                name = base if variants[base] == 1 else f"{base}_variant{variants[base]}"
                seen[key] = name
                pooled[name] = {**fn, "base": base}
            if category in BFCL_QUESTIONS and entry["id"] in answers:
                gold = list(dict.fromkeys(tool_name(n) for c in answers[entry["id"]] for n in c))
                text = " ".join(
                    m["content"] for turn in entry["question"] for m in turn if m["role"] == "user"
                )
                questions.append((entry["id"], text, gold))
    return pooled, questions


def bfcl_specs(
    pooled: dict[str, dict[str, Any]], examples: dict[str, list[str]] | None = None
) -> list[ToolSpec]:
    out = []
    for name, fn in pooled.items():
        params = _standard(fn.get("parameters") or {})
        schema = {"type": "object", "properties": params.get("properties") or {}}
        description = fn.get("description") or fn["name"]
        display = fn["name"]
        action = ActionSpec(name=name, description=description, parameters=schema)
        out.append(
            ToolSpec(
                name=name,
                display_name=display if display != name else None,
                description=description,
                examples=tuple((examples or {}).get(name, ())),
                actions={action.name: action},
            )
        )
    return out


# -- a plain BM25 baseline (as the corpora README describes it) ---------------------------------
class PlainBM25:
    """BM25 (k1=1.2, b=0.75) over lowercase word tokens of name + description, no stemming."""

    def __init__(self, docs: dict[str, str]) -> None:
        self.names = list(docs)
        self.tokens = [re.findall(r"\w+", docs[n].lower()) for n in self.names]
        self.df: Counter[str] = Counter(t for toks in self.tokens for t in set(toks))
        self.avg = sum(len(t) for t in self.tokens) / max(len(self.tokens), 1)
        self.tf = [Counter(t) for t in self.tokens]

    def rank(self, query: str, k: int = 10) -> list[str]:
        n = len(self.names)
        scores = []
        terms = re.findall(r"\w+", query.lower())
        for i, tf in enumerate(self.tf):
            s = 0.0
            length = len(self.tokens[i])
            for t in terms:
                f = tf.get(t)
                if f:
                    idf = math.log(1 + (n - self.df[t] + 0.5) / (self.df[t] + 0.5))
                    s += idf * f * 2.2 / (f + 1.2 * (1 - 0.75 + 0.75 * length / self.avg))
            scores.append(s)
        order = sorted(range(n), key=lambda i: -scores[i])[:k]
        return [self.names[i] for i in order if scores[i] > 0]


def words_of(name: str) -> str:
    return " ".join(re.findall(r"[A-Za-z]+|\d+", name.replace("_", " ")))


def dev_samples(dev: Iterable[Query], tools: Iterable[str], n: int) -> dict[str, list[str]]:
    """Up to ``n`` dev-slice requests per tool (the first ones in hash order), as a tool
    author's hand-written sample requests."""
    out: dict[str, list[str]] = {name: [] for name in tools}
    for query, gold in sorted(dev, key=lambda x: hashlib.sha1(x[0].encode()).hexdigest()):
        for g in gold:
            if g in out and len(out[g]) < n:
                out[g].append(query)
    return out


def big_catalogue(tools: dict[str, str], size: int) -> list[ToolSpec]:
    """The MetaTool tools, every BFCL function (with its parameters), then tools made by
    recombining those names and descriptions, up to ``size`` tools."""
    out = {s.name: s for s in metatool_specs(tools)}
    for path in sorted(BFCL.glob("BFCL_v4_*.json")):
        for line in path.read_text().splitlines():
            for fn in json.loads(line).get("function", []):
                name = safe(fn["name"])
                props = (fn.get("parameters") or {}).get("properties") or {}
                action = ActionSpec(
                    name=name,
                    description=fn.get("description", ""),
                    parameters={"type": "object", "properties": props},
                )
                out.setdefault(
                    name,
                    ToolSpec(name=name, description=action.description, actions={name: action}),
                )
    base = list(out.values())
    rng = random.Random(42)
    i = 0
    while len(out) < size:
        a, b = rng.sample(base, 2)
        name = f"{a.name}_{b.name.split('.')[-1]}_{i}"[:120]
        action = next(iter(b.actions.values()))
        text = f"{a.description} {b.description}"
        out[name] = ToolSpec(
            name=name,
            description=text,
            actions={name: action.model_copy(update={"name": name, "description": text})},
        )
        i += 1
    return list(out.values())[:size]
