"""One shard set (public or private) written as its pages come by, in URL order.

Each page's record, its chunks' records, its FAQ pairs and its path-tree entry go straight
to the shard files; each chunk goes to its locale's Lunr and BM25 writers and, in the
public set, to the offline search's refs; vectors go to a file by row. What stays in
memory for a page is a few numbers, whatever the site's size.
"""

from __future__ import annotations

import os
from array import array
from pathlib import Path

import numpy as np

from askdocs.lexical import BM25Writer, LexicalDoc, LunrWriter, TermCache, TermCounts
from askdocs.shards import ChunkRecord, FaqRecord, PageRecord, ShardWriter, json_bytes
from askdocs.spill import BLOCK_ROWS, RecordFile, npy_header

MAX_SUGGESTED = 4  # FAQ questions offered by default, per locale


class Vectors:
    """A set's int8 vectors and their scales, in two files by row, until they become shards."""

    def __init__(self, path: Path, dim: int) -> None:
        self.dim = dim
        self._vectors = open(path, "w+b")  # noqa: SIM115 - closed by close()
        self._scales = open(path.with_name(path.name + ".scales"), "w+b")  # noqa: SIM115

    def put(self, row: int, vector: np.ndarray, scale: float) -> None:
        data = np.ascontiguousarray(vector, dtype=np.int8).tobytes()
        os.pwrite(self._vectors.fileno(), data, row * self.dim)
        os.pwrite(self._scales.fileno(), np.float32(scale).tobytes(), row * 4)

    def rows(self, start: int, stop: int) -> np.ndarray:
        data = os.pread(self._vectors.fileno(), (stop - start) * self.dim, start * self.dim)
        return np.frombuffer(data, dtype=np.int8).reshape(-1, self.dim)

    def scales(self, start: int, stop: int) -> np.ndarray:
        data = os.pread(self._scales.fileno(), (stop - start) * 4, start * 4)
        return np.frombuffer(data, dtype=np.float32)

    def close(self) -> None:
        for file in (self._vectors, self._scales):
            file.close()
            Path(file.name).unlink(missing_ok=True)


class SetWriter:
    """Pages, then each page's chunks and FAQ pairs, as `add_page`, `add_chunk`, `add_faq`."""

    def __init__(self, visibility: str, folder: Path, dim: int, counted: TermCounts | None = None) -> None:
        self.visibility = visibility
        self._counted = counted  # texts' term counts kept between builds (the build cache)
        self.writer = ShardWriter()
        self.vectors = Vectors(folder / f"vectors.{visibility}", dim)
        self._pages = self.writer.json_parts("pages")
        self._chunks = self.writer.json_parts("chunks")
        self._faq = self.writer.open("faq", "json")
        self._faq.write(b"[")
        self._tree = self.writer.open("tree", "json")
        self._tree.write(b"{")
        self._locales: dict[str, _Locale] = {}
        self._refs = RecordFile(folder / f"refs.{visibility}") if visibility == "public" else None
        self._page: tuple[int, _Locale] | None = None  # the page being added, and its locale
        self.faqs = 0

    @property
    def pages(self) -> int:
        return self._pages.count

    @property
    def chunks(self) -> int:
        return self._chunks.count

    @property
    def locales(self) -> list[str]:
        return sorted(self._locales)

    def add_page(self, page: PageRecord) -> int:
        """The next page (in URL order); returns its position, which its chunks refer to."""
        index = self._pages.count
        self._pages.add(json_bytes(page.to_json()))
        tree = {
            "title": page.title,
            "locale": page.locale,
            "groups": page.groups,
            "visibility": "restricted" if page.groups else "public",
            "lastmod": page.lastmod,
            "kind": page.kind,
        }
        self._tree.write((b"," if index else b"") + json_bytes(page.url) + b":" + json_bytes(tree))
        locale = self._locales.get(page.locale)
        if locale is None:
            search = self._refs is not None
            locale = self._locales[page.locale] = _Locale(
                self.writer, page.locale, search=search, counted=self._counted
            )
        self._page = (index, locale)
        locale.add_page(page)
        return index

    def add_chunk(self, chunk: ChunkRecord, page: PageRecord, embed_text: str, body: str) -> int:
        """A chunk of the last page added: `embed_text` is what is embedded and BM25 indexes,
        `body` its own text as the Lunr index has it. Returns its row (vectors, refs)."""
        assert self._page is not None and self._page[0] == chunk.page, "chunks follow their page"
        row = self._chunks.count
        self._chunks.add(json_bytes(chunk.to_json()))
        locale = self._page[1]
        locale.lunr.add(LexicalDoc(str(row), page.title, " ".join(chunk.headings), body))
        locale.bm25.add(str(row), embed_text)
        if self._refs is not None:
            heading = chunk.headings[-1] if chunk.headings else ""
            locale.rows.append(row)
            locale.at.append(self._refs.append(json_bytes([locale.page_index, chunk.anchor, heading])))
        return row

    def add_faq(self, faq: FaqRecord) -> None:
        assert self._page is not None and self._page[0] == faq.page, "FAQ pairs follow their page"
        self._faq.write((b"," if self.faqs else b"") + json_bytes(faq.to_json()))
        self.faqs += 1
        questions = self._page[1].questions
        question = " ".join(faq.question.split())
        if len(questions) < MAX_SUGGESTED and question not in questions:
            questions.append(question)

    def questions(self, locale: str) -> list[str]:
        """The first distinct FAQ questions of the locale's pages in this set (for suggestions)."""
        return list(self._locales[locale].questions)

    def finish(self) -> None:
        """Everything but the vectors: the files each page added to, the lexical indexes."""
        self._pages.close()
        self._chunks.close()
        self._faq.write(b"]")
        self._faq.close()
        self._tree.write(b"}")
        self._tree.close()
        for name in self.locales:
            locale = self._locales[name]
            with self.writer.open("lunr", "json", locale=name) as out:  # for lunr.js
                locale.lunr.write(out)
            # What the runtime searches with: BM25 over each chunk with its page title and heading path.
            with (
                self.writer.open("lexical", "json", locale=name) as meta,
                self.writer.open("postings", "npy", locale=name) as table,
            ):
                locale.bm25.write(meta, table)
            if self._refs is not None:
                locale.finish_search_docs(self._refs)
        if self._refs is not None:
            self._refs.close()

    def write_vectors(self) -> None:
        count, vectors = self.chunks, self.vectors
        self.writer.add_vector_parts("vectors", count, vectors.dim, vectors.rows)
        with self.writer.open("scales", "npy") as out:
            out.write(npy_header(np.dtype(np.float32), (count,)))
            for start in range(0, count, BLOCK_ROWS):
                out.write(vectors.scales(start, min(start + BLOCK_ROWS, count)).tobytes())
        vectors.close()


class _Locale:
    """What a set writes per locale while its pages come by."""

    def __init__(
        self, writer: ShardWriter, locale: str, *, search: bool, counted: TermCounts | None = None
    ) -> None:
        terms = TermCache(locale, counted)  # the same words: one cache of what the pipeline makes of them
        self.lunr = LunrWriter(locale, terms)
        self.bm25 = BM25Writer(locale, terms)
        self.questions: list[str] = []
        self.page_index = -1  # the last page's position among this locale's pages
        # What the browser needs to turn refs into links when it searches offline (public
        # sets): `{"pages": [[url, title], ...], "refs": {row: [page, anchor, heading]}}`. The
        # pages are written as they come; each chunk's ref waits in a record file, by row.
        self.search = writer.open("search_docs", "json", locale=locale) if search else None
        if self.search is not None:
            self.search.write(b'{"pages":[')
        self.rows, self.at = array("q"), array("q")

    def add_page(self, page: PageRecord) -> None:
        self.page_index += 1
        if self.search is not None:
            self.search.write((b"," if self.page_index else b"") + json_bytes([page.url, page.title]))

    def finish_search_docs(self, refs: RecordFile) -> None:
        assert self.search is not None
        self.search.write(b'],"refs":{')
        rows, at = np.frombuffer(self.rows, dtype=np.int64), np.frombuffer(self.at, dtype=np.int64)
        for n, i in enumerate(decimal_order(rows).tolist()):  # json_bytes sorts the keys as strings
            self.search.write(b'%s"%d":%s' % (b"," if n else b"", rows[i], refs.read(int(at[i]))))
        self.search.write(b"}}")
        self.search.close()


def decimal_order(numbers: np.ndarray) -> np.ndarray:
    """The order that sorts non-negative integers as their decimal strings sort ("10" < "9"):
    how `json.dumps(sort_keys=True)` orders the refs of `search_docs`."""
    numbers = np.asarray(numbers, dtype=np.int64)
    digits = np.ones(len(numbers), dtype=np.int64)
    for power in range(1, 19):
        digits += numbers >= 10**power
    width = int(digits.max()) if len(numbers) else 1
    # Padded on the right to one width, a shorter string that is a prefix of a longer one
    # ties with it; it sorts first, as the shorter string does.
    padded = numbers * 10 ** (width - digits)
    return np.lexsort((digits, padded))
