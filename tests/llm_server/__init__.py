"""A scripted LLM server on 127.0.0.1 that checks every request the way the real APIs do.

It speaks OpenAI Chat Completions (``POST .../chat/completions``), the OpenAI Responses API
(``POST .../responses``) and Anthropic Messages (``POST .../messages``), so the real ``openai``
and ``anthropic`` SDK clients talk to it unchanged::

    from llm_server import ScriptedLLM, Turn

    with ScriptedLLM([Turn(calls=[("add", {"a": 1, "b": 2}, "c1")]), Turn(text="3")]) as server:
        client = openai.OpenAI(base_url=f"{server.url}/v1", api_key="test")   # or
        client = anthropic.Anthropic(base_url=server.url, api_key="test")
        ...
    assert server.errors == [] and server.refusals == []

Each request is first checked, and refused with the API's own status and error body (so the
SDK raises its ``BadRequestError``) when the real API would refuse it: unknown fields, messages
that are not the SDK's request types, tool results that answer no call of the turn before them
or calls left unanswered, ``max_tokens`` for a reasoning model (o1/o3/o4/gpt-5). A request that
passes gets the next step of the script: a :class:`Turn`, or a function of the request body
returning one (its ``assert``\\ s are collected in ``errors``). ``"stream": true`` is answered
in each API's own SSE wire format (``test_client_wire_format.py`` validates every answer and
event against the SDKs' response types). Usage reported: input ``100 + n`` and output ``10``
tokens for the n-th request.

A :class:`Turn` may also set ``stop_reason`` (a turn cut at the limit), ``reasoning`` (a
Responses reasoning item first) and ``stream_error`` (a streamed answer that fails midway, the
way each API reports it). ``ScriptedLLM(..., delay=s)`` adds the model's own time to every
answer; ``gate=threading.Event()`` holds a streamed answer after its first text delta until
the client has seen it (see :class:`ScriptedLLM`).

``tool_results(request)`` and ``tool_names(request)`` read a request of any of the three APIs.
Import it from any test (``tests/`` is on ``sys.path`` through ``conftest.py``).
"""

from llm_server._reading import last_user_text, tool_names, tool_results
from llm_server._server import ScriptedLLM
from llm_server._turns import Script, Turn

__all__ = ["Script", "ScriptedLLM", "Turn", "last_user_text", "tool_names", "tool_results"]
