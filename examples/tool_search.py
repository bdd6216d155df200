"""Find the few tools that fit a request in a catalogue, and show a model only those.

Run: python examples/tool_search.py
(With the optional extra ``search`` installed, ranking also uses sentence embeddings; without
it, search ranks by words and says so once.)
"""

from __future__ import annotations

import logging
from pathlib import Path

from toolrig import ToolExecutor
from toolrig.registry import Registry
from toolrig.search import ToolIndex, meta_tools, tools_for_turn

CATALOG = Path(__file__).parent / "catalog"


def main() -> None:
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
    registry = Registry()
    registry.load_folder(CATALOG)
    index = ToolIndex.follow(registry)  # follows later additions, removals and hot reloads
    print(f"{len(index)} actions indexed; semantic ranking: {index.dense}\n")

    requests = [
        # found through inventory_manager's sample requests (`examples:` in its YAML): its
        # description alone shares no word with this request
        "how many blue kettles do we still have?",
        "what are people saying about our product in reviews",
        "find trending hashtags, and then draft a pitch deck for the sales team",
    ]
    for request in requests:
        print(request)
        for hit in index.search(request, k=3):
            print(f"  {hit.score:6.2f}  {hit.name}")
    print("\nanalysis tools only:")
    for hit in index.search("summarise the complaints", k=3, filters={"type": "analysis"}):
        print(f"  {hit.name}")

    # Tools that are called often rank a little higher (counts usually come from the
    # execution log: index.set_usage(log.tool_usage())).
    request = "analyze what customers write"
    print(f"\n{request}: {[h.name for h in index.search(request, k=2)]}")
    runner_up = index.search(request, k=2)[1].name
    index.record_use(runner_up, 25)
    print(f"after 25 calls of {runner_up}: {[h.name for h in index.search(request, k=2)]}")

    # A model that sees just these two tools can still reach every tool of the catalogue.
    executor = ToolExecutor(registry)  # runs the calls of the registry's tools
    model_view = ToolExecutor(meta_tools(index, executor, k=2))
    found = model_view.execute_sync("search_tools", {"query": "extract keywords from texts"})
    print("\nsearch_tools ->", [entry["name"] for entry in found.output])
    print("tools for this turn ->", tools_for_turn(index, executor, "forecast sales"))


if __name__ == "__main__":
    main()
