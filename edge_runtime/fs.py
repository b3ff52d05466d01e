"""Docs as files, read-only: `ls`, `find`, `cat`, `grep` over the reader's path tree.

Paths are page URLs. A path with children is a `dir`; `cat` works on it
too when it is also a page. Everything resolves from the reader's `Scope`,
so a page the reader may not see does not exist here either.

`grep` is two-phase: a coarse filter keeps the pages whose text holds the
pattern's required literal (ordered by the Lunr index's relevance for it),
then the pattern runs over the in-memory lines of those pages under a time
budget. Patterns are written in Python `re` syntax and run on RE2 (google-re2):
linear-time matching and a memory cap on the compiled program, so no pattern,
however built, can take more than milliseconds to compile or match a line (a
backtracking engine unrolls `((a{100}){100}){100}` into gigabytes, or spends
exponential time on `(a|aa)+$`). What RE2 cannot run — backreferences,
lookaround, possessive and atomic groups, `\\Z`, counted repeats beyond 1,000
in total — is a 400 `unsupported_pattern`. Note that RE2's `\\w`, `\\d`, `\\s` and
`\\b` are ASCII-only (Python's are Unicode): spell accented letters out, or use a
class such as `[a-záéíóúñ]`.
"""

from __future__ import annotations

import fnmatch
import re
import re._constants as sre_constants
import re._parser as sre_parse
import time
import warnings
from dataclasses import dataclass
from functools import cached_property

import re2
from askdocs.edge_runtime.errors import ApiError
from askdocs.edge_runtime.lru import LRU
from askdocs.edge_runtime.scope import Scope

from askdocs import lexical

MAX_MATCHES = 200
MAX_LINE = 400
# RE2's budget for one compiled pattern (program + DFA cache); larger programs are refused.
RE2_MAX_MEM = 8 << 20


def normalize_path(path: str | None) -> str:
    """A clean absolute path; traversal and junk are a 400."""
    raw = (path or "/").strip()
    if len(raw) > 1000:
        raise ApiError(413, "too_large", "path over 1,000 characters")
    if "\x00" in raw or "\\" in raw:
        raise ApiError(400, "bad_path", "path contains forbidden characters")
    raw = raw.split("#")[0].split("?")[0]
    if raw.startswith(("http://", "https://")):
        raise ApiError(400, "bad_path", "paths are site paths such as /install/, not URLs")
    segments = [s for s in raw.split("/") if s]
    if any(s in (".", "..") for s in segments):
        raise ApiError(400, "bad_path", "path traversal (`.` or `..`) is not allowed")
    if not segments:
        return "/"
    trailing = raw.endswith("/") or "." not in segments[-1]
    return "/" + "/".join(segments) + ("/" if trailing else "")


@dataclass
class Tree:
    """The reader's pages as a tree of paths."""

    pages: dict[str, tuple[int, int]]  # url → (set, page)

    @cached_property
    def children(self) -> dict[str, list[str]]:
        kids: dict[str, set[str]] = {"/": set()}
        for url in self.pages:
            segments = [s for s in url.split("/") if s]
            parent = "/"
            for i, segment in enumerate(segments):
                folder = i < len(segments) - 1 or url.endswith("/")
                child = parent + segment + ("/" if folder else "")
                kids.setdefault(parent, set()).add(child)
                if folder:
                    kids.setdefault(child, set())
                parent = child
        return {k: sorted(v) for k, v in kids.items()}

    def resolve(self, path: str) -> str | None:
        for candidate in (path, path.rstrip("/") + "/", path.rstrip("/")):
            if candidate in self.pages or self.children.get(candidate):
                return candidate
        return None

    def kind(self, path: str) -> str:
        return "dir" if self.children.get(path) else "page"


class DocsFS:
    def __init__(self, scope: Scope, caches: FsCaches) -> None:
        self.scope = scope
        self.corpus = scope.corpus
        self.caches = caches
        key = (self.corpus.version, scope.groups)
        tree = caches.trees.get(key)
        if tree is None:
            tree = Tree(scope.paths)
            caches.trees.put(key, tree)
        self.tree = tree
        self._key = key

    def _title(self, path: str) -> str:
        where = self.tree.pages.get(path)
        if where is not None:
            return self.corpus.page(*where).title
        return path.rstrip("/").rsplit("/", 1)[-1] or "/"

    def _require(self, path: str) -> str:
        resolved = self.tree.resolve(normalize_path(path))
        if resolved is None:
            raise ApiError(404, "not_found", f"no such path: {normalize_path(path)}")
        return resolved

    def ls(self, path: str | None) -> dict:
        resolved = self._require(path or "/")
        names = self.tree.children.get(resolved) or []
        if not names and resolved in self.tree.pages:
            names = [resolved]  # like `ls FILE`: the page itself
        entries = []
        for child in names:
            name = child.rstrip("/").rsplit("/", 1)[-1] or "/"
            entries.append(
                {"name": name, "path": child, "type": self.tree.kind(child), "title": self._title(child)}
            )
        return {"path": resolved, "entries": entries}

    def find(self, name: str, path: str | None = None, limit: int = 50) -> dict:
        if not name or not name.strip():
            raise ApiError(400, "missing_field", "`name` is required")
        if len(name) > 200:
            raise ApiError(413, "too_large", "name over 200 characters")
        root = self._require(path or "/")
        needle = name.strip().lower()
        glob = any(ch in needle for ch in "*?[")
        scored = []
        for url in self.tree.pages:
            if not url.startswith(root):
                continue
            segment = url.rstrip("/").rsplit("/", 1)[-1].lower()
            title = self._title(url).lower()
            if glob:
                if fnmatch.fnmatch(segment, needle) or fnmatch.fnmatch(title, needle):
                    scored.append((0, url))
            elif needle in (segment, title):
                scored.append((0, url))
            elif segment.startswith(needle) or title.startswith(needle):
                scored.append((1, url))
            elif needle in segment or needle in title or needle in url.lower():
                scored.append((2, url))
        scored.sort()
        return {"results": [{"path": url, "title": self._title(url)} for _, url in scored[:limit]]}

    def cat(self, path: str) -> dict:
        resolved = self._require(path)
        where = self.tree.pages.get(resolved)
        if where is None:
            raise ApiError(404, "not_found", f"{resolved} is a directory, not a page; try ls")
        page = self.corpus.page(*where)
        return {
            "path": resolved,
            "title": page.title,
            "locale": page.locale,
            "content": page.content,
            "lastmod": page.lastmod,
        }

    def lines(self, url: str) -> list[str]:
        key = (self.corpus.version, url)
        cached = self.caches.pages.get(key)
        if cached is None:
            cached = self.corpus.page(*self.tree.pages[url]).content.split("\n")
            self.caches.pages.put(key, cached)
        return cached

    def grep(
        self,
        pattern: str,
        path: str | None = None,
        *,
        ignore_case: bool = False,
        budget: float = 0.5,
        max_matches: int = MAX_MATCHES,
    ) -> dict:
        if not pattern:
            raise ApiError(400, "missing_field", "`pattern` is required")
        parsed, compiled = compile_pattern(pattern, ignore_case)
        root = self._require(path or "/")
        folded = bool(parsed.state.flags & re.IGNORECASE)
        literal = required_literal(parsed)
        candidates = self._candidates(root, literal, folded)
        matches: list[dict] = []
        deadline = time.monotonic() + budget
        complete, timed_out = True, False
        for url in candidates:
            page_lines = self.lines(url)
            for number, line in enumerate(page_lines, start=1):
                if time.monotonic() >= deadline:
                    complete, timed_out = False, True
                    break
                if compiled.search(line) is None:
                    continue
                matches.append(
                    {
                        "path": url,
                        "line": number,
                        "text": line[:MAX_LINE],
                        "before": page_lines[number - 2][:MAX_LINE] if number > 1 else "",
                        "after": page_lines[number][:MAX_LINE] if number < len(page_lines) else "",
                    }
                )
                if len(matches) >= max_matches:
                    complete = False
                    break
            if not complete:
                break
        return {
            "pattern": pattern,
            "path": root,
            "matches": matches,
            "complete": complete,
            "timed_out": timed_out,
            "pages_searched": len(candidates),
        }

    def _candidates(self, root: str, literal: str, folded: bool) -> list[str]:
        """Phase one: pages that can match, best first (cached per reader and literal)."""
        key = (self._key, root, literal, folded)
        cached = self.caches.grep.get(key)
        if cached is not None:
            return cached
        urls = [u for u in self.tree.pages if u.startswith(root)]
        if literal:
            needle = literal.lower() if folded else literal
            urls = [
                u
                for u in urls
                if needle
                in (
                    self.corpus.page(*self.tree.pages[u]).content.lower()
                    if folded
                    else self.corpus.page(*self.tree.pages[u]).content
                )
            ]
            order = self._lexical_order(literal)
            urls.sort(key=lambda u: (order.get(u, len(order)), u))
        self.caches.grep.put(key, urls)
        return urls

    def _lexical_order(self, literal: str) -> dict[str, int]:
        order: dict[str, int] = {}
        for set_index, loaded in enumerate(self.corpus.sets):
            for index in loaded.lexical.values():
                for ref, _, _ in lexical.search(index, literal, limit=200):
                    chunk = loaded.chunks[int(ref)]
                    url = loaded.pages[chunk.page].url
                    if self.scope.visible(set_index, chunk.page):
                        order.setdefault(url, len(order))
        return order


def compile_pattern(pattern: str, ignore_case: bool = False):
    """(Python parse tree, RE2 program) for a reader's pattern, or a 400 saying why not."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # "possible nested set" and friends
            parsed = sre_parse.parse(pattern, re.IGNORECASE if ignore_case else 0)
    except (re.error, RecursionError, OverflowError) as exc:
        raise ApiError(400, "bad_pattern", f"invalid regular expression: {exc}") from exc
    options = re2.Options()
    options.max_mem = RE2_MAX_MEM
    options.log_errors = False
    options.case_sensitive = not ignore_case
    try:
        compiled = re2.compile(pattern, options)
    except re2.error as exc:
        raw = exc.args[0] if exc.args else exc
        detail = raw.decode("utf-8", "replace") if isinstance(raw, bytes) else raw
        raise ApiError(
            400,
            "unsupported_pattern",
            f"grep runs patterns on RE2 (linear time), which cannot run this one: {detail}. "
            "Backreferences, lookaround, possessive/atomic groups, \\Z and more than 1,000 "
            "counted repeats in total are not supported.",
        ) from exc
    return parsed, compiled


def required_literal(parsed) -> str:
    """The longest literal run every match must contain ('' when there is none)."""
    best = ""
    run: list[str] = []

    def close() -> None:
        nonlocal best, run
        text = "".join(run)
        if len(text) > len(best):
            best = text
        run = []

    for op, value in parsed:
        if op is sre_constants.LITERAL:
            run.append(chr(value))
        elif op is sre_constants.SUBPATTERN and value[1] == 0 and value[2] == 0:
            close()
            inner = required_literal(value[3])
            if len(inner) > len(best):
                best = inner
        elif op in (sre_constants.AT,):
            continue
        else:
            close()
    close()
    return best if len(best) >= 2 else ""


class FsCaches:
    def __init__(self) -> None:
        self.trees: LRU[tuple, Tree] = LRU(64, name="path_tree")
        self.pages: LRU[tuple, list[str]] = LRU(512, name="page_text")
        self.grep: LRU[tuple, list[str]] = LRU(256, name="grep_candidates")

    def all(self) -> list[LRU]:
        return [self.trees, self.pages, self.grep]
