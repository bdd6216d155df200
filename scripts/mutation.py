#!/usr/bin/env python3
"""Mutation score of the modules that carry promises, measured by mutmut, one module at a time.

For each module in :data:`MODULES` a scratch project is built under ``.mutation/<module>/``
(``src/``, ``tests/``, ``pyproject.toml`` and the files the tests read, plus a ``[tool.mutmut]``
section that mutates that module only and runs only the tests named for it), and ``mutmut run``
mutates it there: the working tree is never changed. The result of each module is cached in
``.mutation/scores.json`` under a hash of the module and its tests, so a module whose code and
tests did not change is not run again (the cached baseline); mutmut's own cache in the scratch
project re-runs only the functions that changed.

    .venv/bin/python scripts/mutation.py                 # every module (cached ones are reused)
    .venv/bin/python scripts/mutation.py --changed       # modules whose score is not recorded
    .venv/bin/python scripts/mutation.py --changed main  # modules changed since the merge base
    .venv/bin/python scripts/mutation.py --changed --budget 900   # what CI runs (.ci/run)
    .venv/bin/python scripts/mutation.py -m _log --record  # run, then record the score
    .venv/bin/python scripts/mutation.py -m _claim       # modules whose path contains "_claim"
    .venv/bin/python scripts/mutation.py --survivors     # list the surviving mutants too
    .venv/bin/python scripts/mutation.py --fresh         # ignore the cache
    .venv/bin/python scripts/mutation.py -m _log --without _boundaries  # the score before them
    .venv/bin/python scripts/mutation.py --changed --list  # name the modules, run nothing

A mutant listed in :data:`EQUIVALENT` cannot change behaviour; it is counted apart and not held
against the score. Exit status 0 when every module run reaches :data:`TARGET`, 1 otherwise.

``--changed`` without a REF compares each module with :data:`BASELINE`, the scores recorded in
the repository (``--record``) under a hash of what decides them: a module whose code, tests or
entries here changed since its score was recorded is run. It needs no git history and no
cache, so it means the same on a fresh clone (CI) as in a working tree. ``--budget`` bounds the
whole run: no module starts once it is spent, and a module running when it runs out is stopped
there; both are said in the output. A module stopped part way fails only when the mutants it
ran already leave more survivors than :data:`TARGET` allows for the whole module, so a slow
machine can never fail a module that reaches the target.
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "scripts"))
import mutation_ops  # noqa: E402  (the custom operators, next to this script)

SCRATCH = ROOT / ".mutation"
CACHE = SCRATCH / "scores.json"
BASELINE = ROOT / "scripts" / "mutation_baseline.json"  # recorded scores, committed
COPIED = (
    "src",
    "tests",
    "pyproject.toml",
    "README.md",
    "docs",
    "examples",
    "CHANGELOG.md",
    "mkdocs.yml",
)
TARGET = 0.90  # killed / (generated - equivalent), per module
RUN_LIMIT = 1500  # seconds for the mutmut run of one module
MAX_CHILDREN = 2  # test processes at a time, at nice 10: the two cores are shared
KILLED = ("killed", "timeout")  # mutmut's statuses of a mutant the tests caught

_PIPELINE_TESTS = (
    "tests/runtime/test_runtime_executor.py",
    "tests/runtime/test_runtime_pipeline.py",
    "tests/runtime/test_runtime_one_call.py",
    "tests/runtime/test_runtime_timeouts_concurrency.py",
    "tests/runtime/test_pipeline_boundaries.py",
    "tests/tracing/test_tracing_pipeline.py",
)

# The CLI's tests run the command through tests/cli/cli_runner.py, in the test process under
# mutation (IN_PROCESS_ENV). Not test_serve_takes_catalog_and_runs_only_the_listed_names: it
# serves over stdio from a child process, which imports the unmutated package.
_CLI_SOURCES = "tests/cli/test_cli_sources.py::test_"
_CLI_TESTS = (
    "tests/cli/test_cli_main_boundaries.py",
    "tests/cli/test_cli_reference.py",
    "tests/cli/test_cli_option_boundaries.py",
    "tests/cli/test_cli_exit_codes.py",
    _CLI_SOURCES + "list_show_call_and_schema_read_a_python_file",
    _CLI_SOURCES + "a_module_is_a_catalogue_too",
    _CLI_SOURCES + "broken_yaml_exits_2_in_every_command",
    _CLI_SOURCES + "validate_reads_a_python_file_and_a_module",
    "tests/cli/test_cli_call.py",
    "tests/cli/test_cli_tools.py",
)
IN_PROCESS_ENV = {"TOOLRIG_TEST_CLI_IN_PROCESS": "1"}
"""The environment of the CLI modules' mutation runs: ``toolrig()`` calls ``main`` in the test
process, so the mutated package is the one that runs (the other tests run the real command)."""
_CLI_SHARED = ("main", "_checks", "_catalog", "_python_tools", "_remote_opts")
_CLI_COMMANDS = {
    "_agent_cmd": ("agent", "prompt"),
    "_agent_resume": ("agent",),
    "_agent_script": ("agent", "prompt"),
    "_call_cmd": ("call", "call_boundaries", "exit_codes", "option_boundaries"),
    "_completion_cmd": ("completion",),
    "_console_cmd": ("exit_codes",),
    "_demo": ("demo",),
    "_demo_agent": ("demo", "serve"),
    "_demo_tools": ("demo", "call"),
    "_log_cmd": ("log", "log_boundaries"),
    "_schema_cmd": ("schema",),
    "_serve": ("serve",),
    "_serve_report": ("serve",),
    "_serve_worker_app": ("serve",),
    "_serve_workers": ("serve",),
    "_tools_cmd": ("tools",),
    "_validate_cmd": ("validate",),
    "_worker_cmd": ("serve", "exit_codes"),
}

_MCP_CLIENT = (
    "client",
    "client_interaction",
    "options",
    "client_edges",
    "client_import_boundaries",
)
_MCP_SERVER = ("server_unit", "protocol_features", "client_interaction")
_MCP = {
    "_client_callbacks": (
        "client_callbacks_boundaries",
        "client",
        "client_interaction",
        "url_elicitation",
    ),
    "_connection": _MCP_CLIENT,
    "_remote": ("remote_boundaries", *_MCP_CLIENT, "import_boundaries"),
    "_source": (*_MCP_CLIENT, "import_boundaries"),
    "_params": ("params_boundaries", "client", "client_interaction", "options"),
    "_oauth": ("client_interaction",),
    "_client_hooks": ("client_interaction", "client_edges"),
    "_event_store": _MCP_SERVER,
    "_features": _MCP_SERVER,
    "_rounds": (*_MCP_SERVER, "input_rounds"),
    "_server": _MCP_SERVER,
    "_input_loop": ("input_rounds",),
    "_hosts": ("hosts",),
    "_limits": ("limits",),
    "_health": ("scaling",),
    "_relay": ("progress_cancel",),
    "_serve": ("options", "transports"),
    "_stateless": ("scaling",),
    "_transports": ("options", "transports"),
}

_SEARCH = {
    "_attach": ("registry",),
    "_bge": ("accurate",),
    "_bm25f": ("index", "parts", "usage"),
    "_config": ("parts", "learned", "accurate"),
    "_dense": ("dense", "accurate", "registry_method"),
    "_diversify": ("hits_boundaries", "parts", "learned", "accurate"),
    "_documents": ("index", "parts", "usage"),
    "_filters": ("filters_boundaries", "filter_boundaries", "index", "registry"),
    "_follow": ("registry", "accurate", "registry_method"),
    "_fusion": ("index", "parts", "usage"),
    # the grouped search's "still k tools" and one-hit-per-tool rows are in filter_boundaries
    "_hits": ("hits_boundaries", "index", "parts", "usage", "filter_boundaries"),
    "_index": ("index", "parts", "usage", "filter_boundaries"),
    "_learned": ("index", "parts", "learned"),
    "_meta_tools": ("meta",),
    "_packaged": ("accurate",),
    "_quantize": ("accurate", "vector_cache", "dense"),
    "_request": ("index", "parts", "usage"),
    "_requests": ("parts", "learned", "accurate"),
    "_rerank": ("accurate",),
    "_second_stage": ("index", "parts", "usage"),
    "_segments": ("parts", "learned", "accurate"),
    "_selection": ("registry", "registry_method"),
    "_ties": ("index", "usage", "registry"),
    "_tokenize": ("index", "parts", "learned"),
    "_usage": ("index", "parts", "usage"),
    "_vector_cache": ("vector_cache", "parts", "learned"),
    "_vectors": ("parts", "learned", "accurate"),
}

# The one place that says which tests cover which module: a module's mutants are run against
# these test files only (per-module selection keeps a module's run within minutes).
MODULES: dict[str, tuple[str, ...]] = {
    "src/toolrig/agent/_claim.py": (
        # Not the tests that decide in separate processes (30 s a run): those import the
        # unmutated package, so they cannot kill a mutant.
        "tests/agent/test_agent_approval_claims.py::test_threads_deciding_one_held_call_run_it_once",
        "tests/agent/test_agent_approval_claims.py::test_a_retried_decision_after_the_turn_finished_runs_nothing",
        "tests/agent/test_agent_approval_claims.py::test_a_claimed_turn_whose_run_stopped_is_not_decided_again",
        "tests/agent/test_agent_approval_claims.py::test_threads_claim_once_in_a_memory_session_store",
        "tests/agent/test_agent_claim_boundaries.py",
        "tests/agent/test_decision_records.py",
    ),
    "src/toolrig/agent/_session_policy.py": (
        "tests/agent/test_agent_approval_policy.py",
        "tests/agent/test_agent_claim_boundaries.py",
    ),
    "src/toolrig/tools/_sandbox.py": (
        "tests/tools/test_tools_sandbox.py",
        "tests/tools/test_adversarial_files.py",
        "tests/tools/test_tools_special_files.py",
        "tests/tools/test_tools_files.py",
        "tests/tools/test_tools_escapes.py",
        "tests/tools/test_sandbox_boundaries.py",
    ),
    "src/toolrig/tools/_shell_policy.py": (
        "tests/tools/test_shell_policy_boundaries.py",
        "tests/tools/test_adversarial_shell_options.py",
    ),
    "src/toolrig/tools/_sql_sqlite.py": (
        "tests/tools_web/test_sqlite_guard_boundaries.py",
        "tests/tools_web/test_db_layers.py",
    ),
    "src/toolrig/tools/_sql_postgres.py": (
        "tests/tools_web/test_postgres_guard_boundaries.py",
        "tests/tools_web/test_db_guard.py",
    ),
    "src/toolrig/core/schema/_validation.py": (
        "tests/core/test_validation_boundaries.py",
        "tests/core/test_core_validation.py",
        "tests/core/test_core_invalid_arguments_total.py",
        "tests/core/test_core_unknown_arguments.py",
        "tests/core/test_core_json_values.py",
    ),
    "src/toolrig/core/schema/_json_data.py": (
        "tests/core/test_json_data_boundaries.py",
        "tests/core/test_core_json_values.py",
        "tests/core/test_core_data_limit.py",
        "tests/core/test_core_invalid_arguments_total.py",
    ),
    "src/toolrig/tools/_netguard.py": (
        # test_web_fetch.py is left out: its slow-page and size-cap tests take seconds each,
        # and the audit tests send the same hops (redirects, pinning) to a local server.
        "tests/tools/test_adversarial_addresses.py",
        "tests/tools_web/test_web_audit_gaps.py",
        "tests/tools_web/test_netguard_boundaries.py",
    ),
    # -- approvals ------------------------------------------------------------------------------
    # Not test_a_held_call_is_decided_in_another_process: its child imports the unmutated package.
    "src/toolrig/agent/_approval.py": (
        "tests/agent/test_agent_approval.py::test_deny_and_answer_by_hand_in_one_process",
        "tests/agent/test_agent_approval.py::test_the_policy_can_name_tools_or_decide_per_call",
        "tests/agent/test_agent_approval.py::test_the_gate_holds_nothing_outside_an_agent_run",
        "tests/agent/test_agent_approval.py::test_a_resume_may_bring_a_new_prompt_after_the_decided_results",
        "tests/agent/test_agent_approval_policy.py",
        "tests/agent/test_agent_call_ids.py",
        "tests/agent/test_agent_meta_tools_approval.py",
        "tests/agent/test_approval_boundaries.py",
    ),
    "src/toolrig/agent/_decide.py": (
        "tests/agent/test_agent_loop.py::test_decide_next_action",
        "tests/agent/test_approval_boundaries.py",
    ),
    # -- sessions ---------------------------------------------------------------------------------
    # Not test_a_session_continues_in_another_process: its child imports the unmutated package.
    "src/toolrig/storage/_sessions.py": (
        "tests/agent/test_agent_conversation.py::test_a_run_continues_a_history",
        "tests/agent/test_agent_conversation.py::test_two_runs_cannot_both_save_one_session_version",
        "tests/agent/test_agent_conversation.py::test_a_stored_session_and_a_history_do_not_mix",
        "tests/agent/test_agent_conversation.py::test_two_runs_continuing_one_session_at_once_cannot_both_save",
        "tests/agent/test_agent_conversation.py::test_an_older_log_gets_the_sessions_table_by_its_migration",
        "tests/agent/test_agent_approval_policy.py",
        "tests/storage/test_sessions_boundaries.py",
        "tests/agent/test_decision_records.py",
    ),
    # -- the execution log ------------------------------------------------------------------------
    # Not the two tests that write from separate processes: they import the unmutated package.
    "src/toolrig/storage/_log.py": (
        "tests/storage/test_storage_log.py::test_add_result_and_query",
        "tests/storage/test_storage_log.py::test_executor_calls_are_recorded",
        "tests/storage/test_storage_log.py::test_summary_is_bounded_and_keeps_errors",
        "tests/storage/test_storage_log.py::test_large_values_are_stored_cut_with_a_marker",
        "tests/storage/test_storage_log.py::test_many_threads_write_at_once",
        "tests/storage/test_storage_log.py::test_sqlite_file_is_wal_and_versioned",
        "tests/storage/test_storage_log.py::test_sqlite_migrates_an_old_schema_and_refuses_a_newer_one",
        "tests/storage/test_storage_log.py::test_default_location",
        "tests/storage/test_storage_log.py::test_tool_usage_counts_calls_by_tool_and_action",
        "tests/storage/test_storage_failed_writes.py",
        "tests/storage/test_storage_durability.py",
        "tests/storage/test_storage_requests.py",
        "tests/storage/test_log_boundaries.py",
        "tests/storage/test_log_runs.py",
        "tests/runtime/test_runtime_result_budget.py",
        "tests/agent/test_agent_result_budget.py",
    ),
    # -- plan resume ------------------------------------------------------------------------------
    "src/toolrig/runtime/_plan_run.py": (
        "tests/runtime/test_runtime_plans.py",
        "tests/runtime/test_runtime_plan_resume.py",
        "tests/runtime/test_plan_run_boundaries.py",
        "tests/tracing/test_tracing_pipeline.py::test_a_plan_is_a_workflow_span_over_its_steps",
        "tests/tracing/test_plan_span_boundaries.py",
    ),
    # -- remote dispatch and worker -----------------------------------------------------------
    # The worker and ledger run here in the test process, behind an in-process engine (the same
    # worker code, a real Redis ledger). test_distributed_celery.py is left out: its workers are
    # separate processes importing the unmutated package, and it takes minutes a run.
    "src/toolrig/distributed/_dispatch.py": (
        "tests/runtime/test_runtime_one_call.py::test_a_worker_runs_an_action_named_like_its_multi_action_tool",
        "tests/runtime/test_runtime_one_call.py::test_remote_attempts_are_retried_by_the_pipeline",
        "tests/distributed/test_remote_boundaries.py",
    ),
    "src/toolrig/distributed/_worker.py": (
        "tests/runtime/test_runtime_one_call.py::test_a_worker_runs_an_action_named_like_its_multi_action_tool",
        "tests/runtime/test_runtime_one_call.py::test_remote_attempts_are_retried_by_the_pipeline",
        "tests/distributed/test_remote_boundaries.py",
    ),
    "src/toolrig/distributed/_ledger.py": (
        "tests/runtime/test_runtime_one_call.py::test_a_worker_runs_an_action_named_like_its_multi_action_tool",
        "tests/runtime/test_runtime_one_call.py::test_remote_attempts_are_retried_by_the_pipeline",
        "tests/distributed/test_remote_boundaries.py",
    ),
    # -- retry classification ---------------------------------------------------------------------
    "src/toolrig/runtime/_retry.py": (
        "tests/runtime/test_runtime_executor.py::test_retries_with_backoff_only_for_retryable_failures",
        "tests/runtime/test_runtime_executor.py::test_timeouts_are_retried",
        "tests/runtime/test_runtime_pipeline.py::test_retries_happen_inside_middleware",
        "tests/runtime/test_runtime_one_call.py::test_remote_attempts_are_retried_by_the_pipeline",
        "tests/runtime/test_retry_boundaries.py",
    ),
    # The pipeline: the steps of a call, its two straight lines, the composed path's links and
    # how an attempt's outcome becomes a result. Not the property tests (seconds a test, each
    # would run against every mutant) nor the isolation tests (child processes).
    **dict.fromkeys(
        (
            "src/toolrig/runtime/_steps.py",
            "src/toolrig/runtime/_straight.py",
            "src/toolrig/runtime/_outcome.py",
            "src/toolrig/runtime/_links.py",
        ),
        _PIPELINE_TESTS,
    ),
    # -- the agent's run limits and fallback models -------------------------------------------
    "src/toolrig/agent/_limits.py": (
        "tests/agent/test_agent_limits.py",
        "tests/agent/test_limits_boundaries.py",
        "tests/agent/test_run_limit_boundaries.py",
    ),
    # Not the slow-model test over HTTP (seconds a run): test_fallback_boundaries.py passes a
    # slow model over in-process, in a fifth of a second.
    "src/toolrig/agent/_fallback.py": (
        "tests/agent/test_fallback_boundaries.py",
        "tests/agent/test_agent_fallback.py::test_an_unreachable_model_is_passed_over_and_the_log_says_so",
        "tests/agent/test_agent_fallback.py::test_when_every_model_fails_the_run_fails_naming_each",
        "tests/agent/test_agent_fallback.py::test_models_must_share_a_message_format",
        "tests/tracing/test_tracing_fallback.py",
    ),
    # -- the console: every module is reached by the guard and page tests (coverage) ------------
    **dict.fromkeys(
        (
            f"src/toolrig/console/{name}.py"
            for name in (
                "_app",
                "_catalog_view",
                "_charts",
                "_follow",
                "_guard",
                "_health",
                "_live",
                "_pages",
                "_run_view",
                "_runs",
                "_session_view",
                "_state",
                "_tryit",
                "_watch",
            )
        ),
        (
            "tests/console/test_console_guard.py",
            "tests/console/test_console_guard_boundaries.py",
            "tests/console/test_console_pages.py",
        ),
    ),
    "src/toolrig/console/_run_view.py": (
        "tests/console/test_console_pages.py",
        "tests/console/test_console_guard.py",
    ),
    "src/toolrig/console/_live.py": ("tests/console/test_console_pages.py",),
    **dict.fromkeys(
        ("src/toolrig/console/_pages.py", "src/toolrig/console/_catalog_view.py"),
        (
            "tests/console/test_catalog_search_boundaries.py",
            "tests/console/test_tryit_boundaries.py",
            "tests/console/test_console_guard.py",
            "tests/console/test_console_guard_boundaries.py",
            "tests/console/test_console_pages.py",
        ),
    ),
    "src/toolrig/console/_tryit.py": (
        "tests/console/test_tryit_boundaries.py",
        "tests/console/test_console_guard.py",
        "tests/console/test_console_pages.py",
    ),
    "src/toolrig/console/_approvals.py": (
        "tests/console/test_approvals_boundaries.py",
        "tests/console/test_console_pages.py",
        "tests/console/test_console_edit.py",
    ),
    "src/toolrig/console/_guard.py": (
        "tests/console/test_guard_asgi_boundaries.py",
        "tests/console/test_console_guard_boundaries.py",
        "tests/console/test_console_guard.py",
    ),
    # -- the CLI: by command (its tests run `python -m toolrig.cli.main` in a child process,
    # which coverage's per-test contexts cannot attribute; see docs/testing.md) ---------------
    **{f"src/toolrig/cli/{name}.py": _CLI_TESTS for name in _CLI_SHARED},
    "src/toolrig/cli/_output.py": (*_CLI_TESTS, "tests/cli/test_cli_output_boundaries.py"),
    "src/toolrig/cli/_numbers.py": (
        "tests/cli/test_cli_numbers.py",
        "tests/cli/test_cli_option_boundaries.py",
        "tests/cli/test_cli_main_boundaries.py",
        "tests/cli/test_cli_log_boundaries.py",
    ),
    **{
        f"src/toolrig/cli/{name}.py": tuple(
            f"tests/cli/test_cli_{t}.py" for t in (*tests, "reference")
        )
        for name, tests in _CLI_COMMANDS.items()
    },
    "src/toolrig/cli/_call_cmd.py": (
        *(f"tests/cli/test_cli_{t}.py" for t in (*_CLI_COMMANDS["_call_cmd"], "reference")),
        "tests/cli/test_cli_log.py::test_call_with_log_records_the_call_as_a_run_of_its_own",
    ),
    "src/toolrig/cli/_plan_cmd.py": (
        "tests/test_cli_plan.py",
        "tests/cli/test_cli_plan_edges.py",
        "tests/cli/test_cli_reference.py",
    ),
    "src/toolrig/cli/_demo_plan.py": ("tests/test_cli_plan.py", "tests/cli/test_cli_demo.py"),
    "src/toolrig/cli/_search_cmd.py": (
        "tests/test_cli_search.py",
        "tests/cli/test_cli_reference.py",
    ),
    # -- MCP: client and server (coverage per test; the modules it could not attribute, reached
    # from the SDK's threads or other processes, by the test file of their feature) ------------
    **{
        f"src/toolrig/mcp/{name}.py": tuple(f"tests/mcp_server/test_mcp_{t}.py" for t in tests)
        for name, tests in _MCP.items()
    },
    # -- search: by coverage, the three test files that reach a module most --------------------
    **{
        f"src/toolrig/search/{name}.py": tuple(f"tests/search/test_search_{t}.py" for t in tests)
        for name, tests in _SEARCH.items()
    },
    # -- the YAML loader and the export cache ----------------------------------------------------
    "src/toolrig/registry/_yamlsrc.py": (
        "tests/registry/test_yaml_boundaries.py",
        "tests/registry/test_yaml_value_boundaries.py",
        "tests/registry/test_registry_yaml.py",
        "tests/registry/test_registry_yaml_bounds.py",
    ),
    # the loader by coverage: the definition, source and reload tests reach its error paths
    "src/toolrig/registry/_loader.py": (
        "tests/registry/test_loader_boundaries.py",
        "tests/registry/test_registry_definitions.py",
        "tests/registry/test_registry_sources.py",
        "tests/registry/test_registry_reload_checks.py",
        "tests/registry/test_registry_yaml.py",
        "tests/registry/test_registry_yaml_bounds.py",
    ),
    "src/toolrig/providers/_export_cache.py": (
        "tests/providers/test_export_cache_boundaries.py",
        "tests/providers/test_prov_export_cache.py",
    ),
    # -- the fork server (its workers run the database tools' queries) ---------------------------
    **dict.fromkeys(
        ("src/toolrig/tools/_fork_server.py", "src/toolrig/tools/_fork_call.py"),
        ("tests/tools/test_fork_server_framing_boundaries.py", "tests/tools_web/test_db_bounds.py"),
    ),
}

# Mutants that cannot change behaviour, by mutmut's name, with the reason.
_NET = "toolrig.tools._netguard."
_STEPS = "toolrig.runtime._steps."
_STRAIGHT = "toolrig.runtime._straight."
_OUTCOME = "toolrig.runtime._outcome."
EQUIVALENT: dict[str, str] = {
    _STEPS + "x_attempt__mutmut_5": "a context built for a tool that takes none is never "
    "passed to it: Action.call adds it only under the context parameter's name",
    _STEPS + "x_attempt__mutmut_28": "unreachable: an inline runner's attempt never suspends",
    _STEPS + "x_attempt__mutmut_29": "unreachable: an inline runner's attempt never suspends",
    _STEPS + "x_attempt__mutmut_30": "unreachable: an inline runner's attempt never suspends",
    _STEPS + "x_attempt__mutmut_31": "with no limit, asyncio.timeout(None) waits as a bare "
    "await does; with one, a bounded runner's own limit and an outer one expire together and "
    "answer the same timeout",
    _STEPS + "x_attempt__mutmut_52": "an inline attempt never suspends, so the caller's "
    "cancellation cannot reach it: current_task().cancelling() is 0 there",
    _STRAIGHT + "xǁStraightLineǁrun_sync__mutmut_45": "the output of a failed call is never "
    "read: make_result keeps None whenever there is an error",
    _STRAIGHT + "xǁStraightLineǁrun_async__mutmut_45": "the output of a failed call is never "
    "read: make_result keeps None whenever there is an error",
    _OUTCOME + "x_make_result__mutmut_12": "a duration 0.1% longer: less than the jitter between "
    "the clock reads of a call and of its caller, so no test can tell it apart reliably",
    _OUTCOME + "x_values_or__mutmut_4": "type(None) is dict is false: what remains is "
    "isinstance(args, Mapping), true for every dict too",
    _OUTCOME + "x_with_timeout__mutmut_5": "at expiry the coroutine has run to its "
    "cancellation: closing a finished coroutine does nothing",
    _OUTCOME + "xǁAttemptFailedǁ__init____mutmut_2": "the exception's text is read only if it "
    "escapes, and attempt() turns every AttemptFailed into the call's error",
    "toolrig.runtime._links.x_compose__mutmut_32": "typing.cast does nothing at run time",
    _STRAIGHT + "xǁStraightLineǁ_refused__mutmut_16": "with no listener the call is never "
    "read: report() reads it only for listeners",
    "toolrig.runtime._links.xǁPostHooksǁ__call____mutmut_15": "logger.exception inside an "
    "except block logs the exception being handled: exc_info=exc names the same one",
    _STEPS + "x_not_found__mutmut_27": "ResultMetadata.duration_ms defaults to 0.0, the value "
    "given",
    _NET + "x__parse_networks__mutmut_3": "strict=None is falsy: the same as strict=False",
    _NET + "x__pinned__mutmut_5": "httpx's URL.host has no brackets or spaces to strip",
    _NET + "x__pinned__mutmut_6": "URL.host is lower case and bracket-free: no X, [ or ] to strip",
    _NET + "x__resolve__mutmut_8": "without type=, getaddrinfo repeats each address per socket "
    "type; the list keeps each address once, in the same order",
    _NET + "x__resolve__mutmut_24": "split('%') or split('%', 2): the part before the first % is "
    "the same",
    _NET + "x__resolve__mutmut_25": "a zone index holds no %: rsplit and split cut at the same one",
    _NET + "x__resolve__mutmut_30": "maxsplit 2 instead of 1: the part before the first % is the "
    "same",
    _NET + "xǁNetPolicyǁreason__mutmut_41": "getattr default None is falsy like False",
    _NET + "x_resolve_checked__mutmut_36": "ip_address(None) raises ValueError, so a literal "
    "goes to getaddrinfo, which returns that same address without a lookup",
}
_SHELL = "toolrig.tools._shell_policy."
EQUIVALENT |= {
    _SHELL + "x__git__mutmut_28": "split('=') or split('=', 1): the part before the first = is "
    "the same",
    _SHELL + "x__git__mutmut_31": "maxsplit 2 instead of 1: the part before the first = is the "
    "same",
    _SHELL + "x__long__mutmut_5": "split('=') or split('=', 1): the part before the first = is "
    "the same",
    _SHELL + "x__long__mutmut_8": "maxsplit 2 instead of 1: the part before the first = is the "
    "same",
    _SHELL + "x__git__mutmut_79": "an argument that starts with -O cannot start with --, "
    "whatever the second test compares",
}
_GUARD = "toolrig.console._guard.xǁConsoleGuardǁ"
EQUIVALENT |= {
    **dict.fromkeys(
        (_GUARD + "__call____mutmut_15", _GUARD + "__call____mutmut_18"),
        "Python's codec names are read in any case: 'LATIN-1' is 'latin-1'",
    ),
    _GUARD + "_refusal__mutmut_111": "Python's codec names are read in any case",
    _GUARD + "__call____mutmut_47": "a refusal is a plain Starlette response, which never "
    "reads the request (its __call__ only sends)",
    _GUARD + "_refusal__mutmut_54": "a Host the pattern accepts always has a host name, so the "
    "'' fallback is never taken",
    _GUARD + "_refusal__mutmut_109": "parse_qs of a query without '=' is empty, as of b''",
    _GUARD + "_refusal__mutmut_161": "an absent Authorization read as 'XXXX' does not start "
    "with 'Bearer ' either: no bearer token",
    **dict.fromkeys(
        (_GUARD + f"_refusal__mutmut_{n}" for n in (166, 168, 171)),
        "an absent Cookie read as None or 'XXXX' holds no console cookie either",
    ),
    _GUARD + "_refusal__mutmut_153": "a cookie's SameSite value is read in any case "
    "(RFC 6265bis 5.4.7): STRICT is Strict",
    _GUARD + "_refusal__mutmut_198": "HTTP header names are read in any case",
    _GUARD + "__init____mutmut_12": "the bind is lower-cased first, so it holds no 'X' to strip",
    "toolrig.console._guard.custom__drop_element__6": "the bind is added to the names a Host "
    "may have only when it is one of them already (Host is checked on the default binds only)",
    "toolrig.console._guard.custom__drop_operand__12": "a Host the pattern accepts always has "
    "a host name, so the '' fallback is never taken",
    "toolrig.console._guard.custom__drop_operand__22": "same_token answers False for None itself",
    "toolrig.console._guard.custom__drop_operand__24": "same_token answers False for None and "
    "for '' (never the token) itself",
}
_SQLITE = "toolrig.tools._sql_sqlite."
EQUIVALENT |= {
    _SQLITE + "x_read_only_authorizer__mutmut_6": "a function event without a name: 'xxxx' is "
    "no more a denied function than '' is",
    _SQLITE + "x_read_only_authorizer__mutmut_14": "a pragma event without a name: 'xxxx' is on "
    "neither list, like ''",
    _SQLITE + "x_setup_read_only__mutmut_4": "SQLite reads pragma names and values in any case",
    _SQLITE + "x_setup_read_only__mutmut_5": "SQLite reads pragma names and values in any case",
}
_PG = "toolrig.tools._sql_postgres."
EQUIVALENT |= {
    _PG + f"x_narrow_role_sql__mutmut_{n}": "PostgreSQL reads keywords in any case and folds "
    "unquoted names to lower case: the same role and grants"
    for n in (3, 5, 7, 8, 11)
}
_VALIDATION = "toolrig.core.schema._validation.x"
_TRUTHY = "only whether data_problems found anything is read: any limit, and long integers "
_TRUTHY += "(which json.dumps then refuses, reaching the same strict Python validation), agree"
_PRESENT = "pydantic-core puts this key in every error: the default is never used"
_NO_FALLBACK = (
    "the path for errors() that cannot encode their inputs: pydantic-core 2.50 encodes lone "
    "surrogates without raising, so no error lacks its input (reached again if a version does)"
)
EQUIVALENT |= {
    _VALIDATION + "ǁArgumentsValidatorǁvalidate__mutmut_1": "a Protocol's method body never "
    "runs: the implementations' own defaults apply",
    **{
        _VALIDATION + f"ǁArgumentValidatorǁ_strict__mutmut_{n}": _TRUTHY
        for n in (12, 14, 15, 16, 17)
    },
    **{
        _VALIDATION + f"ǁArgumentValidatorǁ_strict__mutmut_{n}": "NaN and Infinity were refused "
        "by data_problems just before: json.dumps never meets one"
        for n in (25, 27, 28)
    },
    **{
        _VALIDATION + f"ǁArgumentValidatorǁ_problem__mutmut_{n}": _PRESENT
        for n in (4, 6, 12, 14, 17)
    },
    **{
        _VALIDATION + f"ǁOutputValidatorǁcheck__mutmut_{n}": _PRESENT
        for n in (6, 8, 14, 16, 19, 20)
    },
    **{
        _VALIDATION + f"ǁArgumentValidatorǁ_problem__mutmut_{n}": _PRESENT
        for n in (104, 106, 109, 110)
    },
    **{
        _VALIDATION + f"ǁArgumentValidatorǁ_problem__mutmut_{n}": _NO_FALLBACK
        for n in (22, 28, 29, 30, 31)
    },
    **{_VALIDATION + f"__error_list__mutmut_{n}": _NO_FALLBACK for n in range(3, 12)},
    _VALIDATION + "__error_list__mutmut_2": "an error's url is never read",
    _VALIDATION + "ǁArgumentValidatorǁerror_from__mutmut_9": "error_count() of pydantic-core "
    "equals the length of the full error list, the fallback's answer",
    _VALIDATION + "ǁArgumentValidatorǁerror_from__mutmut_10": "the listed count is only read "
    "when error_count() fails, which pydantic-core's does not",
    _VALIDATION + "__loads_container__mutmut_7": "the text's first character is [ or { or "
    "it is not JSON text of a container: an X first fails to decode all the same",
    _VALIDATION + "__loads_container__mutmut_11": "text that starts with [ or { decodes to an "
    "array or an object or not at all",
}
_JSON = "toolrig.core.schema._json_data."
_IN_RANGE = (
    "moving the 64-bit range's edge by one: an integer at the edge has fewer digits than "
    "Python's smallest int-to-text limit (640), so readable_int accepts it all the same"
)
EQUIVALENT |= {
    **{_JSON + f"x__plain__mutmut_{n}": _IN_RANGE for n in (22, 23)},
    **{_JSON + f"x__plain_scalar__mutmut_{n}": _IN_RANGE for n in (8, 9)},
    **{_JSON + f"x_plain__mutmut_{n}": _IN_RANGE for n in (21, 22)},
    **{
        _JSON + f"x_plain__mutmut_{n}": "the flat-object shortcut of plain gives up to the "
        "general walk, which answers the same; only the time differs"
        for n in (1, 11, 12, 17, 24, 30, 32)
    },
    **{
        _JSON + f"x__plain__mutmut_{n}": "without the exact type the item reaches the "
        "isinstance tests and _plain_scalar, which answer the same"
        for n in (12, 13)
    },
    _JSON + "x_plain__mutmut_42": "_plain stops at depth 257, far below Python's recursion "
    "limit: the RecursionError guard is a safety net no input reaches",
    _JSON + "x__plain__mutmut_33": "a bool or None that skips the shortcut reaches "
    "_plain_scalar, which accepts it too",
    _JSON + "x__plain__mutmut_38": "the isinstance test accepts every list the exact type "
    "tests would",
    _JSON + "x__plain__mutmut_39": "the isinstance test accepts every dict the exact type "
    "tests would",
}
_BOX = "toolrig.tools._sandbox.x"
_ROOT_SHORTCUT = (
    "the shortcut for the root's spellings: without it the path is joined, normalised and "
    "resolved to the root all the same"
)
EQUIVALENT |= {
    **{_BOX + f"ǁSandboxǁresolve__mutmut_{n}": _ROOT_SHORTCUT for n in (14, 15, 16)},
    _BOX + "ǁSandboxǁresolve__mutmut_60": "the root's parent joined with the root's name is "
    "the root: the second test only saves the work",
    _BOX + "ǁSandboxǁrelative__mutmut_4": "Path.relative_to gives '.' for the root, never '': "
    "the fallback is never taken",
    _BOX + "ǁSandboxǁread_bytes__mutmut_5": "the size only sets how much the first read asks "
    "for: the bytes returned are the same",
    _BOX + "ǁSandboxǁread_bytes__mutmut_8": "the size only sets how much the first read asks "
    "for: the bytes returned are the same",
    _BOX + "ǁSandboxǁlstat__mutmut_11": "follow_symlinks=None is falsy: the same as False",
    _BOX + "__existing_mode__mutmut_4": "follow_symlinks=None is falsy: the same as False",
}

_PLAN = "toolrig.runtime._plan_run."
_SKIP_ON = (
    "continue -> break in the loop starting ready steps: ready() is computed again before "
    "anything is awaited, so the rest of the batch starts in the next pass; only the order of "
    "step events within one pass can differ, and it is not promised"
)
_VERSION_SET = (
    "version or '': the action was just resolved in the catalogue, and a catalogued tool always "
    "has a version (ToolSpec.version defaults to 0.1.0), so the fallback is never used"
)
EQUIVALENT.update(
    {
        _PLAN + "xǁRunStoreǁadd_tool_result__mutmut_1": "a default in a Protocol's stub (its "
        "body is ...): never used",
        _PLAN + "xǁRunStoreǁadd_tool_result__mutmut_2": "a default in a Protocol's stub (its "
        "body is ...): never used",
        _PLAN + "xǁPlanRunnerǁ_call_id__mutmut_9": _VERSION_SET,
        _PLAN + "xǁPlanRunnerǁ_reuse__mutmut_20": _VERSION_SET,
        _PLAN + "xǁPlanRunnerǁ_run__mutmut_25": _SKIP_ON,
        _PLAN + "xǁPlanRunnerǁ_run__mutmut_41": _SKIP_ON,
        _PLAN + "xǁPlanRunnerǁ_run__mutmut_49": _SKIP_ON,
        _PLAN + "xǁPlanRunnerǁ_run__mutmut_58": "the end time written when a step starts is a "
        "placeholder: it is replaced when the step's task ends, and every started task is "
        "awaited before the result is built",
    }
)

_SESSIONS = "toolrig.storage._sessions.xǁLogSessionStoreǁ"
EQUIVALENT.update(
    {
        _SESSIONS + name: "SQL in another letter case: keywords and unquoted names are "
        "case-insensitive in SQLite and PostgreSQL (which folds them to lower case)"
        for name in (
            "load__mutmut_8",
            "load__mutmut_9",
            "save__mutmut_12",
            "save__mutmut_13",
            "save__mutmut_15",
            "save__mutmut_16",
            "save__mutmut_20",
            "save__mutmut_21",
        )
    }
)

_LOG = "toolrig.storage._log.xǁExecutionLogǁ"
_SQL_CASE = (
    "SQL in another letter case: keywords and unquoted names are case-insensitive in SQLite "
    "and PostgreSQL"
)
EQUIVALENT.update(
    {
        **{
            _LOG + name: _SQL_CASE
            for name in (
                "query__mutmut_5",
                "query__mutmut_7",
                "query__mutmut_9",
                "query__mutmut_15",
                "query__mutmut_22",
                "query__mutmut_27",
                "query__mutmut_40",
                "query__mutmut_41",
                "query__mutmut_43",
                "query__mutmut_44",
                "query__mutmut_57",
                "tool_usage__mutmut_4",
                "tool_usage__mutmut_10",
                "tool_usage__mutmut_14",
                "tool_usage__mutmut_19",
                "tool_usage__mutmut_24",
            )
        },
        _LOG + "_select__mutmut_2": "placeholder compared with 'XX?XX': when it is '?', "
        "replacing '?' by '?' changes nothing",
        _LOG + "tool_usage__mutmut_26": "placeholder compared with 'XX?XX': when it is '?', "
        "replacing '?' by '?' changes nothing",
        _LOG + "_conn__mutmut_14": "getattr default None instead of False: both falsy",
        _LOG + "_lost__mutmut_19": "run_id or '': add_result refuses an empty run_id before "
        "writing, so a lost record's run id is never empty",
        _LOG + "tool_usage__mutmut_53": "rows are grouped by (tool, action): each action's "
        "name comes once, so its count so far is always 0 (get(None) gives 0 too)",
        _LOG + "add_tool_result__mutmut_23": "started_at left out: the row takes finished_at - "
        "duration/1000, which gives started_at back (finished_at is started_at + "
        "duration/1000; exact for epoch-scale times, checked on 200,000 random ones)",
        _LOG + "add_tool_result__mutmut_40": "started_at left out: as add_tool_result__mutmut_23",
    }
)

EQUIVALENT.update(
    {
        "toolrig.cli.main.x_parse_command__mutmut_19": "extra = None instead of []: only its "
        "truth is read next, and both are false",
    }
)

_YAML = "toolrig.registry._yamlsrc."
_YAML_FALLBACK = (
    "a number fast path given up: PyYAML's own constructor, taken instead, gives the same value"
)
EQUIVALENT.update(
    {
        _YAML + "x__build__mutmut_10": "the cache of typed values never hit: each value is typed "
        "again, the same",
        **{
            _YAML + f"x__build__mutmut_{n}": "unreachable: the composer makes only scalar, "
            "sequence and mapping nodes, each handled above"
            for n in range(70, 79)
        },
        _YAML + "x__refuse_aliases__mutmut_12": "libyaml gives every event a start mark",
        _YAML + "x__refuse_aliases__mutmut_4": "PyYAML's default loader instead of libyaml's: "
        "the same events, more slowly",
        **{_YAML + f"x__scalar__mutmut_{n}": _YAML_FALLBACK for n in (32, 33, 34, 36, 38, 55)},
        **{
            _YAML + f"x__scalar__mutmut_{n}": "unreachable default: a plain scalar reaches the "
            "implicit types only when its first character has some (checked in _build)"
            for n in (5, 7)
        },
        **{
            _YAML + f"xǁ_Typingǁresolve__mutmut_{n}": "a collection's implicit tag is only "
            "checked to be one of seq and map; its value is built by its node's kind"
            for n in (6, 7, 10)
        },
        _YAML + "custom__drop_operand__11": _YAML_FALLBACK,
        _YAML + "custom__drop_operand__12": _YAML_FALLBACK,
        _YAML + "custom__drop_operand__17": "an index looked up among a mapping's keys matches "
        "none (keys are text): the same answer as the branch for a part of the wrong kind",
        _YAML + "custom__drop_operand__18": "a key that is a collection has a list as its value, "
        "never equal to the text looked up",
    }
)

_LOADER = "toolrig.registry._loader."
_DATA_IS_NODE = "a document's data is a list exactly when its node is a sequence (built from it)"
EQUIVALENT.update(
    {
        _LOADER + "x__clean_loc__mutmut_6": "stepping into the data after the walk stopped: "
        "walking stays False, and then only the markers decide what is kept",
        _LOADER + "x__clean_loc__mutmut_24": "walking = None instead of False: only its truth is "
        "read",
        _LOADER + "x__validation_errors__mutmut_12": "include_url adds a 'url' entry; the "
        "message read is 'msg', the same either way",
        **{
            _LOADER + f"x__validation_errors__mutmut_{n}": "pydantic reports an extra or "
            "missing key with its name: the loc of those errors is never empty"
            for n in (31, 34, 35, 43)
        },
        _LOADER + "x_read_file__mutmut_4": "'UTF-8' and 'utf-8' name the same codec",
        _LOADER + "x_read_text__mutmut_10": _DATA_IS_NODE,
        _LOADER + "custom__drop_operand__3": _DATA_IS_NODE,
        _LOADER + "custom__drop_operand__4": _DATA_IS_NODE,
        **{
            _LOADER + f"x_read_text__mutmut_{n}": "zip's strictness: a sequence's data and "
            "nodes have the same length (one built from the other)"
            for n in (15, 18, 19)
        },
    }
)

EQUIVALENT["toolrig.cli.main.x_parse_command__mutmut_30"] = (
    'getattr(args, "command") without its default: the root parser always sets `command` '
    "(None when no command is given)"
)
_LOG_CMD = "toolrig.cli._log_cmd."
EQUIVALENT.update(
    {
        **dict.fromkeys(
            (_LOG_CMD + f"x__run_summary__mutmut_{n}" for n in (30, 81, 82)),
            "a table title justified None, 'LEFT' or 'XXleftXX': rich prints it as 'left' "
            "(checked on this table)",
        ),
        **dict.fromkeys(
            (_LOG_CMD + f"x__show__mutmut_{n}" for n in (18, 70, 71)),
            "a table title justified None, 'LEFT' or 'XXleftXX': rich prints it as 'left'",
        ),
        **dict.fromkeys(
            (
                _LOG_CMD + "x__run_summary__mutmut_46",
                _LOG_CMD + "x__show__mutmut_39",
                _LOG_CMD + "x__show__mutmut_49",
            ),
            "rich parses a style in any case: 'BOLD CYAN' is 'bold cyan', 'DIM' is 'dim'",
        ),
        _LOG_CMD + "x__show__mutmut_63": "overflow=None: the console's default, which is 'fold'",
        **dict.fromkeys(
            (_LOG_CMD + "x__show__mutmut_3", _LOG_CMD + "x__text__mutmut_6"),
            "ensure_ascii=None for False: json reads it for its truth, and None is false",
        ),
        **dict.fromkeys(
            (_LOG_CMD + f"x__show__mutmut_{n}" for n in (74, 76, 77, 78)),
            "the colour of a status outside RecordStatus: every stored status went through "
            "status_of, so the default is never used",
        ),
        **dict.fromkeys(
            (_LOG_CMD + "x__text__mutmut_7", _LOG_CMD + "x__text__mutmut_10"),
            "json's default=str: an output read back from the log is decoded JSON, so every "
            "value is JSON already",
        ),
        _LOG_CMD + "x_last_records__mutmut_10": "limit=max(count, 2): the newest record and "
        "the last `count` are the same with one more read",
        **dict.fromkeys(
            (
                _LOG_CMD + "x_last_records__mutmut_18",
                _LOG_CMD + "x_records_after__mutmut_8",
                _LOG_CMD + "custom__drop_operand__7",
                _LOG_CMD + "custom__drop_operand__9",
            ),
            "`id or 0` / `or 1` / without `or`: a record read back from the log always has its id",
        ),
        **dict.fromkeys(
            (_LOG_CMD + f"x_add_log_parser__mutmut_{n}" for n in (23, 26, 27)),
            "the subcommands' dest: nothing reads it, and argparse names a missing one by its "
            "metavar, ACTION",
        ),
        _LOG_CMD + "custom__drop_operand__2": "`or os.environ.get('TOOLRIG_LOG')` left out: "
        "default_log_path() reads $TOOLRIG_LOG first itself",
    }
)

_OUTPUT = "toolrig.cli._output."
EQUIVALENT.update(
    {
        **dict.fromkeys(
            (_OUTPUT + "x_out_console__mutmut_1", _OUTPUT + "x_err_console__mutmut_2"),
            "highlight=None for False: rich reads it for its truth, and None is false",
        ),
        _OUTPUT + "x_print_json__mutmut_4": "ensure_ascii=None for False: json reads it for its "
        "truth, and None is false",
        _OUTPUT + "custom__drop_operand__2": "print(file=None) writes to sys.stdout, as "
        "`file or sys.stdout` does",
    }
)

_CALL_CMD = "toolrig.cli._call_cmd.x_print_result__mutmut_"
EQUIVALENT.update(
    {
        **dict.fromkeys(
            (_CALL_CMD + "29", _CALL_CMD + "41"),
            "rich reads a colour's name in any case: 'GREEN' is 'green', 'RED' is 'red'",
        ),
        **dict.fromkeys(
            (_CALL_CMD + n for n in ("47", "55", "56")),
            "rich aligns a panel's subtitle to the right unless it is 'left' or 'center': None, "
            "'RIGHT' and 'XXrightXX' are all 'right'",
        ),
        "toolrig.cli._call_cmd.custom__drop_operand__5": "strict=False instead of None without "
        "--strict: the command's executor has the default policy, whose strictness is False",
    }
)

EQUIVALENT.update(
    {
        "toolrig.distributed._ledger.xǁCallLedgerǁclaim__mutmut_29": "a marker that is not "
        "JSON read as '' instead of None: neither is a dict, so both answer 'lost'",
    }
)

EQUIVALENT.update(
    {
        f"toolrig.agent._approval.custom__drop_operand__{n}": "a member left out of the "
        "`Decision` type alias: only type checkers read it (decisions are checked against "
        "DECISION_TYPES)"
        for n in range(3, 11)
    }
)
EQUIVALENT.update(
    {
        "toolrig.agent._limits.custom__drop_operand__10": "a cost limit without a price is "
        "refused when RunLimits is built (and it is frozen): price is never None there",
        "toolrig.agent._fallback.xǁFallbackModelǁ__init____mutmut_26": "the provider of the "
        "second model: every model's provider is the same, checked just before",
    }
)

_REMOTE = "toolrig.mcp._remote.x_"
EQUIVALENT.update(
    {
        **dict.fromkeys(
            (_REMOTE + f"_icons__mutmut_{n}" for n in (5, 7, 9)),
            "an icon dumped by field name (mime_type) instead of its alias: ToolIcon takes both",
        ),
        **dict.fromkeys(
            (_REMOTE + f"build_remote_tool__mutmut_{n}" for n in (31, 41)),
            "Tool(name=None) or no name: Tool names the tool after its function, named `name` "
            "just before",
        ),
        **dict.fromkeys(
            (_REMOTE + f"_error_of__mutmut_{n}" for n in (33, 35)),
            "a missing 'retryable' read as None instead of False: bool() of either is False",
        ),
    }
)

_CALLBACKS = "toolrig.mcp._client_callbacks."
EQUIVALENT.update(
    {
        _CALLBACKS + "xǁClientCallbacksǁsample__mutmut_42": "TextContent without its type: "
        "the type of a text block defaults to 'text'",
        _CALLBACKS + "custom__drop_operand__13": "a form request not checked to be one: URL "
        "requests are answered just before, and the SDK's elicitation params are one or the other",
        _CALLBACKS + "custom__drop_operand__2": "a URL without a host read as None instead of '': "
        "`not host` refuses both",
        _CALLBACKS + "custom__drop_operand__5": "a password without a user: urlsplit gives a user "
        "('' at least) whenever the address has an '@', so the user check refuses it first",
    }
)

_APPROVALS = "toolrig.console._approvals."
EQUIVALENT.update(
    {
        **dict.fromkeys(
            (_APPROVALS + f"x__detail__mutmut_{n}" for n in (3, 4, 5)),
            "a stored decision's kind read with no default: decide() stores only the kinds of "
            "PAST, so the default is never taken",
        ),
        **dict.fromkeys(
            (_APPROVALS + f"x_decide__mutmut_{n}" for n in (105, 112)),
            "decided_at None or left out: insert_decision writes time.time() for it",
        ),
        **dict.fromkeys(
            (
                *(_APPROVALS + f"x_decide__mutmut_{n}" for n in (125, 128)),
                *(_APPROVALS + f"x_held_calls__mutmut_{n}" for n in (32, 35)),
                *(_APPROVALS + f"x_stored_decisions__mutmut_{n}" for n in (20, 23)),
            ),
            "the session's decisions read for all its calls instead of those named: each is "
            "then looked up by the ids wanted, and a call id is never used twice in a session",
        ),
        _APPROVALS + "x_decide__mutmut_130": "the detail of a refused insert read from a "
        "decision that is always there: ON CONFLICT DO NOTHING refuses only a recorded one",
        **dict.fromkeys(
            (
                _APPROVALS + "x_decide__mutmut_24",
                _APPROVALS + "custom__drop_operand__9",
                _APPROVALS + "custom__drop_operand__10",
            ),
            "no state or no pending turn left to the last test: the call is then not among "
            "the (no) items either, and the same AlreadyDecided is raised",
        ),
        **dict.fromkeys(
            (_APPROVALS + f"x_held_calls__mutmut_{n}" for n in (4, 5)),
            "SQL keywords in another case: SQL reads them in any",
        ),
        _APPROVALS + "custom__drop_operand__12": "stored_decisions without `state is None or`: "
        "pending is None for no state, and `not pending` returns None just after",
    }
)

_HITS = "toolrig.search._hits."
EQUIVALENT.update(
    {
        _HITS + "x_top_hits__mutmut_41": "numpy reads the sort kind in any case: 'STABLE' is "
        "'stable'",
        **dict.fromkeys(
            (_HITS + f"x_top_hits__mutmut_{n}" for n in (61, 62)),
            "two candidates or one: diversifying them cannot change their order (the best "
            "is picked first, the other follows)",
        ),
        **dict.fromkeys(
            (_HITS + f"x_top_hits__mutmut_{n}" for n in (78, 85, 87, 90, 91)),
            "every candidate picked one by one instead of the first k (a grouped search's "
            "picks unchanged): hits_of keeps the first k of an action search, the same k picks",
        ),
    }
)

_DIVERSIFY = "toolrig.search._diversify."
EQUIVALENT.update(
    {
        **dict.fromkeys(
            (_DIVERSIFY + f"x_diversify__mutmut_{n}" for n in (3, 4)),
            "two candidates returned as they came: diversifying two cannot reorder them (the "
            "best is picked first)",
        ),
        _DIVERSIFY + "custom__drop_operand__1": "one candidate (or none) diversified: it is "
        "picked, and the order is the same",
        _DIVERSIFY + "x_diversify__mutmut_5": "weight 0 diversified: its scale is 0, so every "
        "pick is the best score left, the scores' own order",
        **dict.fromkeys(
            (_DIVERSIFY + f"x_diversify__mutmut_{n}" for n in (11, 13)),
            "the penalties in float64 instead of float32: the same order (the scores and "
            "similarities are float32)",
        ),
        **dict.fromkeys(
            (_DIVERSIFY + f"x_diversify__mutmut_{n}" for n in (16, 18, 53)),
            "the mask of candidates left as floats (1.0, then 0.0) or set with None (False in a "
            "bool array): np.where and flatnonzero read them the same",
        ),
        _DIVERSIFY + "x_diversify__mutmut_77": "numpy reads the sort kind in any case",
    }
)

_TRYIT = "toolrig.console._tryit.x_fields_of__mutmut_"
EQUIVALENT.update(
    {
        _TRYIT + "31": "an enum's members read for every field: only an enum's schema has an "
        "`enum`, so the others' are ()",
        **dict.fromkeys(
            (_TRYIT + "34", _TRYIT + "36"),
            "the default of a missing `enum` in an enum field: the field is an enum because "
            "its schema has one",
        ),
    }
)


@dataclass(frozen=True, slots=True, kw_only=True)
class Score:
    """One module's mutmut result."""

    module: str
    generated: int
    killed: int
    survived: int
    equivalent: int
    other: int  # timeouts, suspicious, no tests: counted as not killed
    survivors: tuple[str, ...]
    seconds: float
    not_run: int = 0  # left unchecked when the time limit stopped the run
    cut: bool = False  # the time limit stopped the run
    custom: int = 0  # of the generated mutants, those of the custom operators (mutation_ops)

    @property
    def rate(self) -> float:
        """Killed over the mutants that count (over those run, when the run was cut)."""
        counted = self.generated - self.equivalent - self.not_run
        return 1.0 if counted <= 0 else self.killed / counted

    @property
    def passes(self) -> bool:
        """Whether the module meets :data:`TARGET`. A cut run fails only when its survivors
        already exceed what the target allows over every mutant, whatever the rest do."""
        if not self.cut:
            return self.rate >= TARGET
        counted = self.generated - self.equivalent
        best = 1.0 if counted <= 0 else (counted - self.survived - self.other) / counted
        return best >= TARGET


def _slug(module: str) -> str:
    return module.removeprefix("src/").removesuffix(".py").replace("/", ".")


def _fingerprint(module: str) -> str:
    """Hash of what decides a module's score: its code, its test files and selection, and its
    equivalent mutants (not the rest of this script, so adding a module changes no other's)."""
    digest = _files_digest((module, *MODULES[module]))
    prefix = _slug(module) + "."
    for name in sorted(n for n in EQUIVALENT if n.startswith(prefix)):
        digest.update(f"{name}: {EQUIVALENT[name]}".encode())
    return digest.hexdigest()


def _load_cache() -> dict[str, dict[str, object]]:
    if not CACHE.exists():
        return {}
    data: dict[str, dict[str, object]] = json.loads(CACHE.read_text())
    return data


def _save_cache(cache: dict[str, dict[str, object]]) -> None:
    SCRATCH.mkdir(exist_ok=True)
    CACHE.write_text(json.dumps(cache, indent=1, sort_keys=True))


def load_baseline(path: Path = BASELINE) -> dict[str, dict[str, object]]:
    """The recorded scores, by module: fingerprint and figures of its last complete run."""
    if not path.exists():
        return {}
    data: dict[str, dict[str, object]] = json.loads(path.read_text())
    return data


def record(scores: list[Score], path: Path = BASELINE) -> list[str]:
    """Record the complete runs among ``scores`` in the baseline; return the modules recorded."""
    baseline = load_baseline(path)
    done = [s for s in scores if not s.cut]
    for s in done:
        baseline[s.module] = {
            "fingerprint": _fingerprint(s.module),
            "generated": s.generated,
            "killed": s.killed,
            "survived": s.survived,
            "equivalent": s.equivalent,
            "other": s.other,
            "seconds": s.seconds,
            "custom": s.custom,
        }
    path.write_text(json.dumps(baseline, indent=1, sort_keys=True) + "\n")
    return [s.module for s in done]


def unrecorded_modules(baseline: dict[str, dict[str, object]]) -> list[str]:
    """Recorded modules whose fingerprint differs from the current one, quickest recorded run
    first so a budget covers as many as it can. A module never recorded is not among them
    (see :func:`unscored_modules`): with no score to keep, a change to it cannot lower one."""
    stale = [
        m for m in MODULES if m in baseline and baseline[m].get("fingerprint") != _fingerprint(m)
    ]

    def seconds(module: str) -> float:
        value = baseline.get(module, {}).get("seconds", 0.0)
        return float(value) if isinstance(value, (int, float)) else 0.0

    return sorted(stale, key=seconds)


def unscored_modules(baseline: dict[str, dict[str, object]]) -> list[str]:
    """Modules of :data:`MODULES` with no recorded score yet ("not yet scored" in
    docs/testing.md): ``--changed`` names them and leaves them to ``-m NAME --record``."""
    return [m for m in MODULES if m not in baseline]


def _mutmut_section(module: str) -> str:
    tests = ", ".join(
        json.dumps(t) for t in MODULES[module] if (ROOT / t.partition("::")[0]).exists()
    )
    return (
        "\n[tool.mutmut]\n"
        'source_paths = ["src"]\n'
        f"only_mutate = [{json.dumps(module)}]\n"
        f"pytest_add_cli_args_test_selection = [{tests}]\n"
        'pytest_add_cli_args = ["-p", "no:cacheprovider", "-x", "-q"]\n'
        # mutmut's own copy (mutants/) gets src and tests; the CLI's tests read examples/ too
        f"also_copy = {json.dumps([n for n in COPIED if n not in ('src', 'tests')])}\n"
        "use_setproctitle = false\n"
        # Forked from a fresh server process: a test process that already ran async work holds
        # a background event-loop thread that a plain fork would not carry over (the child hangs).
        'process_isolation = "forkserver"\n'
    )


def _prepare(module: str, *, fresh: bool) -> Path:
    """The scratch project for ``module``, refreshed from the working tree (``fresh``: without
    mutmut's results of earlier runs)."""
    work = SCRATCH / _slug(module)
    if fresh:
        shutil.rmtree(work / "mutants", ignore_errors=True)
    work.mkdir(parents=True, exist_ok=True)
    _forget_stale_coverage(module, work)
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc", ".hypothesis")
    for name in COPIED:
        source = ROOT / name
        if source.is_dir():
            shutil.copytree(source, work / name, dirs_exist_ok=True, ignore=ignore)
        elif source.exists():
            shutil.copy2(source, work / name)
    pyproject = (ROOT / "pyproject.toml").read_text()
    (work / "pyproject.toml").write_text(pyproject + _mutmut_section(module))
    return work


def _files_digest(names: Sequence[str]) -> hashlib._Hash:
    """A SHA-256 over each named file (a test selection's file part) and its name."""
    digest = hashlib.sha256()
    for name in names:
        path = ROOT / name.partition("::")[0]
        digest.update(name.encode())
        digest.update(path.read_bytes() if path.exists() else b"<missing>")
    return digest


def _tests_hash(module: str) -> str:
    return _files_digest(MODULES[module]).hexdigest()


def _forget_stale_coverage(module: str, work: Path) -> None:
    """Drop mutmut's record of which test reaches which function when the tests changed since
    it was taken: mutmut traces only tests it has not seen by name, so a test whose body now
    reaches another function would never be run against that function's mutants."""
    seen = work / "tests.sha256"
    now = _tests_hash(module)
    if not seen.exists() or seen.read_text() != now:
        (work / "mutants" / "mutmut-stats.json").unlink(missing_ok=True)
        seen.write_text(now)


def run_limited(
    command: Sequence[str],
    *,
    cwd: Path,
    env: dict[str, str],
    limit: float | None,
    grace: float = 20.0,
) -> tuple[str, bool]:
    """Run ``command``; return its output and whether ``limit`` (seconds) stopped it.

    It runs in a process group of its own, so a stop reaches every process it started (the
    test processes too): an interrupt first (mutmut keeps the results it has), then a kill."""
    out, stopped, _ = _run_group(command, cwd=cwd, env=env, limit=limit, grace=grace)
    return out, stopped


def _run_group(
    command: Sequence[str], *, cwd: Path, env: dict[str, str], limit: float | None, grace: float
) -> tuple[str, bool, int | None]:
    """:func:`run_limited`, with the exit status too (None when the limit stopped it)."""
    with subprocess.Popen(
        command,
        cwd=cwd,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,
    ) as child:
        try:
            return child.communicate(timeout=limit)[0], False, child.returncode
        except subprocess.TimeoutExpired:
            pass
        out = ""
        for sig in (signal.SIGINT, signal.SIGKILL):
            try:
                os.killpg(child.pid, sig)
            except ProcessLookupError:
                break
            try:
                out = child.communicate(timeout=grace)[0]
            except subprocess.TimeoutExpired:
                continue
            with contextlib.suppress(ProcessLookupError):  # the leader ended; its group may not
                os.killpg(child.pid, signal.SIGKILL)
            break
        return out or "", True, None


def _test_env(slug: str) -> dict[str, str]:
    """The environment of the tests of the module named ``slug`` (see :data:`IN_PROCESS_ENV`)."""
    extra = IN_PROCESS_ENV if slug.startswith("toolrig.cli.") else {}
    return {**os.environ, "PYTHONHASHSEED": "0", **extra}


def _mutmut(work: Path, *args: str, limit: float | None = None) -> tuple[str, bool]:
    command = ["nice", "-n", "10", sys.executable, "-m", "mutmut", *args]
    return run_limited(command, cwd=work, env=_test_env(work.name), limit=limit)


def _statuses(work: Path) -> dict[str, str]:
    """Every mutant's status, by name (``mutmut results --all true``)."""
    out: dict[str, str] = {}
    for line in _mutmut(work, "results", "--all", "true")[0].splitlines():
        name, sep, status = line.strip().rpartition(": ")
        if sep and "__mutmut_" in name:
            out[name] = status
    return out


def _test_command(module: str) -> list[str]:
    tests = [t for t in MODULES[module] if (ROOT / t.partition("::")[0]).exists()]
    return [
        "nice",
        "-n",
        "10",
        sys.executable,
        "-m",
        "pytest",
        "-p",
        "no:cacheprovider",
        "-x",
        "-q",
        *tests,
    ]


def run_custom(module: str, work: Path, *, limit: float) -> tuple[dict[str, str], bool]:
    """Run the custom operators' mutants of ``module`` (:mod:`mutation_ops`) against the same
    test selection, in a copy of the scratch project's sources; return each mutant's status,
    with mutmut's words (killed, survived, timeout, not checked), and whether ``limit`` stopped
    the run. A result is kept under a hash of the mutant and the tests, so a re-run runs only
    what changed."""
    started = time.monotonic()
    found = mutation_ops.mutants((ROOT / module).read_text(), _slug(module))
    if not found:
        return {}, False
    command = _test_command(module)
    tests = hashlib.sha256()
    for name in MODULES[module]:
        path = ROOT / name.partition("::")[0]
        tests.update(name.encode() + (path.read_bytes() if path.exists() else b""))
    store = work / "custom.json"
    results: dict[str, str] = json.loads(store.read_text()) if store.exists() else {}
    tree = work / "custom" / "src"
    target = tree / module.removeprefix("src/")
    env = {**_test_env(_slug(module)), "PYTHONPATH": str(tree)}
    statuses: dict[str, str] = {}
    clean: float | None = None
    cut = False
    for mutant in found:
        key = hashlib.sha256(tests.digest() + mutant.source.encode()).hexdigest()
        left = limit - (time.monotonic() - started)
        if key in results:
            statuses[mutant.name] = results[key]
            continue
        if left <= 0:
            statuses[mutant.name], cut = "not checked", True
            continue
        if clean is None:
            shutil.rmtree(tree.parent, ignore_errors=True)
            shutil.copytree(work / "src", tree)
            where = subprocess.run(
                [sys.executable, "-c", "import toolrig; print(toolrig.__file__)"],
                env=env,
                cwd=work,
                capture_output=True,
                text=True,
                check=True,
            ).stdout.strip()
            if not Path(where).is_relative_to(tree):
                raise SystemExit(f"the custom mutants' tests would import {where}, not {tree}")
            begun = time.monotonic()
            out, stopped, status = _run_group(command, cwd=work, env=env, limit=left, grace=5)
            clean = time.monotonic() - begun
            if stopped:
                return {m.name: "not checked" for m in found if m.name not in statuses}, True
            if status != 0:
                raise SystemExit(f"the tests of {module} fail unmutated:\n{out[-3000:]}")
            left = limit - (time.monotonic() - started)
        original = target.read_text()
        target.write_text(mutant.source)
        try:
            wait = min(left, max(60.0, 10 * clean))
            _, stopped, status = _run_group(command, cwd=work, env=env, limit=wait, grace=5)
        finally:
            target.write_text(original)
        if stopped and wait >= left:
            statuses[mutant.name], cut = "not checked", True
            continue
        statuses[mutant.name] = "timeout" if stopped else "survived" if status == 0 else "killed"
        results[key] = statuses[mutant.name]
        store.write_text(json.dumps(results, indent=1, sort_keys=True))
    return statuses, cut


def run_module(module: str, *, fresh: bool = False, limit: float = RUN_LIMIT) -> Score:
    """Run mutmut over ``module`` against its tests and count the results; ``limit`` seconds
    bound the run (the mutants it left are counted as not run, never as killed)."""
    started = time.monotonic()
    work = _prepare(module, fresh=fresh)
    earlier = (work / "mutants").exists()
    args = ("run", "--max-children", str(MAX_CHILDREN))
    output, cut = _mutmut(work, *args, limit=limit)
    statuses = _statuses(work)
    retry = [n for n, s in statuses.items() if s not in KILLED]
    if earlier and retry and not cut:
        # mutmut keeps a result while its function is unchanged; a killed mutant stays killed
        # when tests are added, but an earlier survivor must meet the current tests again.
        left = limit - (time.monotonic() - started)
        cut = left <= 0 or _mutmut(work, *args, *retry, limit=left)[1]
        statuses = _statuses(work)
    if not statuses and not cut:
        raise SystemExit(f"mutmut produced no mutants for {module}:\n{output[-3000:]}")
    if not cut and statuses and all(s == "not checked" for s in statuses.values()):
        # the tests failed before any mutant ran (a test failing unmutated, or under mutmut)
        raise SystemExit(f"mutmut ran no mutant of {module}:\n{output[-3000:]}")
    if fresh:
        (work / "custom.json").unlink(missing_ok=True)
    custom, custom_cut = run_custom(module, work, limit=limit - (time.monotonic() - started))
    cut = cut or custom_cut
    statuses.update(custom)
    equivalent = [n for n in statuses if n in EQUIVALENT]
    counted = {n: s for n, s in statuses.items() if n not in EQUIVALENT}
    not_run = [n for n, s in counted.items() if s == "not checked"] if cut else []
    # a mutant whose tests ran past mutmut's CPU-time limit (an endless loop) was caught too
    killed = [n for n, s in counted.items() if s in KILLED]
    survived = [n for n, s in counted.items() if s == "survived"]
    return Score(
        module=module,
        generated=len(statuses),
        killed=len(killed),
        survived=len(survived),
        equivalent=len(equivalent),
        other=len(counted) - len(killed) - len(survived) - len(not_run),
        survivors=tuple(
            sorted(n for n, s in counted.items() if s not in KILLED and n not in not_run)
        ),
        seconds=round(time.monotonic() - started, 1),
        not_run=len(not_run),
        cut=cut,
        custom=len(custom),
    )


def changed_modules(ref: str) -> list[str]:
    """Modules whose code or mapped tests differ from the merge base with ``ref`` (committed
    or not)."""
    found = subprocess.run(
        ["git", "rev-parse", "--verify", "--quiet", ref], cwd=ROOT, capture_output=True, check=False
    )
    if found.returncode != 0 and ref == "origin/main":
        ref = "main"  # a clone without that remote: compare with the local main branch
    base = subprocess.run(
        ["git", "merge-base", ref, "HEAD"], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout.strip()
    names = subprocess.run(
        ["git", "diff", "--name-only", base], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout.split()
    touched = set(names)
    return [m for m, tests in MODULES.items() if m in touched or touched & set(tests)]


def table(scores: Sequence[Score], skipped: Sequence[str] = ()) -> str:
    """The per-module table: a run cut by the budget and a module not started say so."""
    lines = [
        "| module | generated | killed | survived | equivalent | other | not run | score |",
        "|---|---:|---:|---:|---:|---:|---:|---|",
    ]
    for s in scores:
        verdict = f"{s.rate:.0%}" + ("" if s.passes else " (below target)")
        if s.cut and s.generated - s.equivalent - s.not_run <= 0:
            verdict = "stopped by the time limit before any mutant ran"
        elif s.cut:
            verdict += " over the mutants run (stopped by the time limit)"
        lines.append(
            f"| `{_slug(s.module)}` | {s.generated} | {s.killed} | {s.survived} | "
            f"{s.equivalent} | {s.other} | {s.not_run} | {verdict} |"
        )
    for module in skipped:
        lines.append(f"| `{_slug(module)}` | | | | | | all | not started: budget spent |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--changed",
        nargs="?",
        const="recorded",
        metavar="REF",
        help="only modules whose score is not recorded for their current code and tests; "
        "with REF, the modules changed since the merge base with REF (git)",
    )
    parser.add_argument("-m", "--module", action="append", default=[])
    parser.add_argument("--fresh", action="store_true", help="ignore the cached scores")
    parser.add_argument("--survivors", action="store_true", help="list the surviving mutants")
    parser.add_argument("--list", action="store_true", help="name the selected modules only")
    parser.add_argument(
        "--budget", type=float, metavar="SECONDS", help="time for the whole run (see above)"
    )
    parser.add_argument(
        "--record", action="store_true", help=f"record complete runs in {BASELINE.name}"
    )
    parser.add_argument(
        "--without",
        action="append",
        default=[],
        metavar="TEST",
        help="leave out the test selections containing TEST (a score before those tests; "
        "implies --fresh, never recorded)",
    )
    args = parser.parse_args(argv)
    if args.without:
        args.fresh, args.record = True, False
        for module, tests in MODULES.items():
            MODULES[module] = tuple(t for t in tests if not any(w in t for w in args.without))

    selected = list(MODULES)
    if args.changed == "recorded":
        selected = unrecorded_modules(load_baseline())
        unscored = unscored_modules(load_baseline())
        if unscored and not args.module:
            print(f"not yet scored, not run ({len(unscored)}; -m NAME --record scores one):")
            print("".join(f"  {m}\n" for m in unscored), end="", flush=True)
    elif args.changed:
        selected = changed_modules(args.changed)
    if args.module:
        selected = [m for m in selected if any(k in m for k in args.module)]
    if not selected:
        print("no module to mutate")
        return 0
    if args.list:
        print("\n".join(selected))
        return 0
    started = time.monotonic()
    cache = _load_cache()
    scores: list[Score] = []
    skipped: list[str] = []
    for module in selected:
        key = _fingerprint(module)
        hit = cache.get(module)
        left = RUN_LIMIT
        if args.budget is not None:
            left = min(left, args.budget - (time.monotonic() - started))
        if hit is not None and hit.get("fingerprint") == key and not args.fresh:
            data = {k: v for k, v in hit.items() if k != "fingerprint"}
            data["survivors"] = tuple(data["survivors"])  # type: ignore[arg-type]
            score = Score(**data)  # type: ignore[arg-type]
            print(f"{module}: cached ({score.rate:.0%})", flush=True)
        elif left <= 0:
            print(f"{module}: not started, the budget of {args.budget:.0f} s is spent", flush=True)
            skipped.append(module)
            continue
        else:
            print(
                f"{module}: running mutmut against {len(MODULES[module])} test selection(s)",
                flush=True,
            )
            score = run_module(module, fresh=args.fresh, limit=left)
            if not score.cut:  # a cut run is not a baseline for the next one
                cache = {**_load_cache(), module: {**asdict(score), "fingerprint": key}}
                _save_cache(cache)  # read again first: another run may have saved other modules
            cut = f", stopped by the time limit: {score.not_run} mutants not run"
            cut = cut if score.cut else ""
            print(f"{module}: {score.rate:.0%} in {score.seconds:.0f} s{cut}", flush=True)
        scores.append(score)
    print(table(scores, skipped))
    if args.survivors:
        for s in scores:
            described = {
                m.name: m.description
                for m in mutation_ops.mutants((ROOT / s.module).read_text(), _slug(s.module))
            }
            for name in s.survivors:
                how = described.get(name) or f"mutmut show {name}, in .mutation/{_slug(s.module)}"
                print(f"  not killed: {name}  ({how})")
    if args.record:
        recorded = record(scores)
        print(f"recorded in {BASELINE.relative_to(ROOT)}: {', '.join(recorded) or 'nothing'}")
    failed = [_slug(s.module) for s in scores if not s.passes]
    if failed:
        print(f"below the target of {TARGET:.0%}: {', '.join(failed)}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
