"""Rewrite tests/data/golden/prompt-*.json after an intended prompt change (then review the diff)."""

from __future__ import annotations

import json

from askdocs.edge_runtime.conversation import Turn
from askdocs.edge_runtime.prompts import build_messages

from tests.test_llm import GOLDEN, _evidence

for locale, agent in (("en", False), ("es", True)):
    history = (Turn("user", "How do I install it?"), Turn("assistant", "Which system?"))
    messages = build_messages("And on Windows?", history, _evidence(), locale, "Tallyfox docs", agent)
    GOLDEN.mkdir(parents=True, exist_ok=True)
    (GOLDEN / f"prompt-{locale}.json").write_text(
        json.dumps(messages, ensure_ascii=False, indent=2) + "\n", encoding="utf-8"
    )
    print("wrote", GOLDEN / f"prompt-{locale}.json")
