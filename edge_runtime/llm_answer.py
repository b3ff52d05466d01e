"""The LLM synthesiser: a closed prompt over the pipeline's evidence, streamed, with agent tools.

Everything up to composition is the shared pipeline (`answer.prepare`); this
module only turns a `Case` into an `Answer` with an OpenAI-compatible model.
Any failure — the endpoint, the stream, an empty reply — ends in the
extractive answer labelled `extractive-fallback` with the reason, never in a
silent success.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable

from askdocs.edge_runtime import events
from askdocs.edge_runtime.answer import Case, Docs, citations, extractive, refuse
from askdocs.edge_runtime.answer_types import Answer, Part
from askdocs.edge_runtime.errors import ApiError
from askdocs.edge_runtime.events import StreamEvent
from askdocs.edge_runtime.evidence import Evidence
from askdocs.edge_runtime.fs import DocsFS
from askdocs.edge_runtime.i18n import phrase
from askdocs.edge_runtime.llm import LLMClient, LLMError, Sanitizer, ToolCall
from askdocs.edge_runtime.prompts import TOOLS, build_messages, tool_result_message
from starlette.concurrency import run_in_threadpool

log = logging.getLogger("askdocs.chat")

MAX_AGENT_STEPS = 4
MAX_EVIDENCE = 6
Emit = Callable[[StreamEvent], Awaitable[None]]
Usage = Callable[[dict], None]


async def compose_llm(
    docs: Docs, case: Case, llm: LLMClient, emit: Emit, on_usage: Usage | None = None
) -> Answer:
    """Stream an answer from the model; token events go out as they arrive."""
    try:
        return await _stream_answer(docs, case, llm, emit, on_usage)
    except LLMError as exc:
        log.warning("LLM failed (%s): %s; answering extractively, labelled as a fallback", exc.reason, exc)
        fallback = await run_in_threadpool(extractive, docs, case, "extractive-fallback")
        label = Part("note", phrase(case.query.locale, "fallback"))
        parts = ([Part("llm", exc.partial)] if exc.partial else []) + [label, *fallback.parts]
        return Answer(
            parts,
            fallback.answered,
            "extractive-fallback",
            fallback.citations,
            fallback.escalation,
            fallback.confidence,
            fallback.checked,
            {**fallback.extra, "fallback_reason": exc.reason},
        )


async def _stream_answer(
    docs: Docs, case: Case, llm: LLMClient, emit: Emit, on_usage: Usage | None
) -> Answer:
    fs = docs.fs
    query = case.query
    evidence = list(case.evidence[:MAX_EVIDENCE])
    agent = llm.settings.agent and llm.supports_tools is not False
    home = fs.tree.pages.get("/")
    site = (fs.corpus.page(*home).title if home else "") or fs.corpus.manifest.site_url or "this site"
    asked = query.written or query.message  # pasted code and traces included: the model reads them
    messages = build_messages(asked, query.history, evidence, query.locale, site, agent)
    sanitizer = Sanitizer(len(evidence))
    streamed: list[str] = []
    await emit(events.status("answering"))
    deadline = llm.deadline()  # ASKDOCS_LLM_TIMEOUT bounds the whole answer, tool steps included
    try:
        for step in range(MAX_AGENT_STEPS):
            use_tools = agent and llm.supports_tools is not False and step < MAX_AGENT_STEPS - 1
            calls: dict[int, ToolCall] = {}
            try:
                async for delta in llm.stream(messages, TOOLS if use_tools else None, deadline=deadline):
                    if delta.kind == "text":
                        safe = sanitizer.feed(delta.text)
                        if safe:
                            streamed.append(safe)
                            await emit(events.token(safe))
                    elif delta.kind == "tool_call":
                        call = calls.setdefault(
                            delta.index, ToolCall(delta.call_id or f"call_{delta.index}", "", "")
                        )
                        call.name = call.name or (delta.name or "")
                        call.arguments += delta.arguments
                        if delta.call_id and call.id.startswith("call_"):
                            call.id = delta.call_id
                    elif delta.kind == "usage" and on_usage is not None:
                        on_usage(delta.usage)
            except LLMError as exc:
                if exc.reason == "no_tools":
                    agent = False
                    continue
                raise
            if calls and not streamed:
                messages.append(_tool_request(calls))
                for call in calls.values():
                    result = await run_in_threadpool(run_tool, fs, call, evidence)
                    await emit(events.tool(call.name, result.pop("_args", {})))
                    sanitizer.set_sources(len(evidence))
                    messages.append(tool_result_message(call.id, result))
                continue
            break
        tail = sanitizer.finish()
        if tail:
            streamed.append(tail)
            await emit(events.token(tail))
        if not sanitizer.no_answer and not "".join(streamed).strip():
            raise LLMError("empty", "the model's reply held no answer text")
    except LLMError as exc:
        exc.partial = "".join(streamed)
        raise
    if sanitizer.no_answer:
        return refuse(case, "llm", llm_declined=True)
    used = [evidence[n - 1] for n in sanitizer.used if 0 < n <= len(evidence)]
    return Answer(
        [Part("llm", "".join(streamed))],
        True,
        "llm",
        citations(used or evidence[:1]),
        None,
        case.confidence,
        list(case.investigation.checked),
        case.trace(),
    )


def _tool_request(calls: dict[int, ToolCall]) -> dict:
    return {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {"id": c.id, "type": "function", "function": {"name": c.name, "arguments": c.arguments}}
            for c in calls.values()
        ],
    }


def run_tool(fs: DocsFS, call: ToolCall, evidence: list[Evidence]) -> dict:
    """Run one of the model's read-only tool calls in the reader's scope."""
    try:
        args = call.parsed_arguments()
    except LLMError as exc:
        return {"error": str(exc), "_args": {}}
    clean = {k: v for k, v in args.items() if k in ("path", "name", "pattern") and isinstance(v, str)}
    try:
        if call.name == "ls":
            result = fs.ls(clean.get("path", "/"))
        elif call.name == "find":
            result = fs.find(clean.get("name", ""))
        elif call.name == "grep":
            result = fs.grep(clean.get("pattern", ""), clean.get("path", "/"), budget=0.3, max_matches=30)
        elif call.name == "cat":
            page = fs.cat(clean.get("path", ""))
            set_index, page_index = fs.tree.pages[page["path"]]
            number = len(evidence) + 1
            evidence.append(
                Evidence(
                    ref=None,
                    set=set_index,
                    page=page_index,
                    url=page["path"],
                    page_url=page["path"],
                    title=page["title"],
                    heading=page["title"],
                    text=page["content"][:8000],
                    lastmod=page.get("lastmod"),
                    kind="link",
                    score=0.5,
                    locale=page["locale"],
                )
            )
            result = {
                "source": number,
                "path": page["path"],
                "title": page["title"],
                "content": page["content"][:8000],
            }
        else:
            result = {"error": f"unknown tool {call.name!r}; use ls, find, cat or grep"}
    except ApiError as exc:
        result = {"error": exc.message}
    result["_args"] = clean
    return result
