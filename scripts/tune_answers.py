"""Answer quality of the pipeline itself (`answer.answer`, what /api/chat streams), in-process.

Per corpus and pooled, in two groups that never mix: the tuning sets (the only
ones anything is fitted on) and, with --held-out, the held-out sets (measured
only). Same scorer as `askdocs eval --chat`: answered / refused / escalated /
citation precision / fact recall.

    .venv/bin/python scripts/tune_answers.py [--held-out] [--fresh] [--new-user] [--blind] [--follow-ups]
        [--json FILE]
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from askdocs import devsets
from askdocs.evaluation import answer_in_process, answer_table


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--held-out", action="store_true", help="also measure the held-out sets")
    parser.add_argument("--fresh", action="store_true", help="also measure the fresh held-out sets")
    parser.add_argument("--new-user", action="store_true", help="also measure the new-user sets")
    parser.add_argument("--blind", action="store_true", help="also measure the sets written blind")
    parser.add_argument("--follow-ups", action="store_true", help="also measure the follow-ups written blind")
    parser.add_argument("--json", help="write the tables and per-question details here")
    args = parser.parse_args()
    wanted = {
        "tuning": True,
        "held-out": args.held_out,
        "fresh": args.fresh,
        "new-user": args.new_user,
        "blind": args.blind,
        "follow-ups": args.follow_ups,
    }
    groups = [(name, devsets.GROUPS[name]) for name, on in wanted.items() if on]
    report: dict = {}
    for group, sets in groups:
        pooled = []
        for dev in devsets.built(sets):
            rows, details = answer_in_process(dev.load(), dev.site, dev.private)
            report[dev.name] = {"table": answer_table(rows, f"{group}: {dev.name}"), "details": details}
            pooled += rows
        report[group] = answer_table(pooled, f"{group}: all corpora")
    if args.json:
        Path(args.json).write_text(json.dumps(report, indent=1, default=str))


if __name__ == "__main__":
    main()
