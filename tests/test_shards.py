"""The shard format: bounded part sizes, content addressing, loading back, refusing junk."""

from __future__ import annotations

import json
import shutil

import numpy as np
import pytest

from askdocs import shards
from askdocs.errors import ShardError


def _manifest(writer: shards.ShardWriter) -> shards.Manifest:
    return shards.Manifest(
        format=shards.FORMAT_NAME, format_version=shards.FORMAT_VERSION, askdocs_version="t",
        visibility="public", built_at="2026-01-01T00:00:00Z", site_url="", default_locale="en",
        locales=["en"], model={"id": "m", "sha256": "0" * 64, "dim": 4},
        embeddings={"dim": 4, "dtype": "int8"}, counts={}, files=writer.entries)


def test_large_sets_are_split_and_load_back(tmp_path, monkeypatch):
    monkeypatch.setattr(shards, "MAX_PART_BYTES", 2_000)
    pages = [{"url": f"/p{i}/", "text": "x" * 300} for i in range(20)]
    writer = shards.ShardWriter()
    writer.add_json_parts("pages", pages)
    vectors = np.arange(2_000 * 4, dtype=np.int64).reshape(2_000, 4).astype(np.int8)
    writer.add_vector_parts("vectors", len(vectors), 4, lambda start, stop: vectors[start:stop])
    parts = [f for f in writer.entries if f.role == "pages"]
    assert len(parts) >= 3 and all(f.bytes <= 2_000 + 400 for f in parts)
    assert len([f for f in writer.entries if f.role == "vectors"]) > 1
    manifest = _manifest(writer)
    writer.publish(tmp_path, manifest)
    loaded = shards.read_manifest(tmp_path)
    assert shards._load_json_parts(tmp_path, loaded, "pages") == pages
    assert np.array_equal(shards._load_array(tmp_path, loaded, "vectors", np.int8, 4), vectors)
    # Content-addressed names; a rewrite with other content drops the stale files.
    writer2 = shards.ShardWriter()
    writer2.add_json_parts("pages", pages[:1])
    writer2.publish(tmp_path, _manifest(writer2))
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(
        [f.path for f in writer2.entries] + ["manifest.json"])


def test_files_written_piece_by_piece_are_the_files_written_whole(monkeypatch):
    """`open` and `json_parts` stream what `add` writes from whole bytes: the same names,
    sha256 and bytes, with parts cut where the list of all records would be cut."""
    monkeypatch.setattr(shards, "MAX_PART_BYTES", 1_000)
    records = [{"i": i, "text": "é" * (i * 37 % 700)} for i in range(60)]

    def whole(encoded: list[bytes]) -> list[bytes]:  # the split as first written, on whole lists
        parts, part, size = [], [], 0
        for item in encoded:
            if part and size + len(item) > shards.MAX_PART_BYTES:
                parts.append(b"[" + b",".join(part) + b"]")
                part, size = [], 0
            part.append(item)
            size += len(item) + 1
        return [*parts, b"[" + b",".join(part) + b"]"]

    for chosen in (records, records[:1], [records[12]] * 5, []):
        writer = shards.ShardWriter()
        writer.add_json_parts("pages", chosen, locale="en")
        expected = whole([shards.json_bytes(r) for r in chosen])
        assert [f.part for f in writer.entries] == list(range(len(expected)))
        assert [writer._files[f.path].read_bytes() for f in writer.entries] == expected
        assert [f.sha256 for f in writer.entries] == [shards._sha(e) for e in expected]
        assert all(f.path == f"pages.en.{f.part}.{f.sha256[:8]}.json" for f in writer.entries)
    writer = shards.ShardWriter()
    with writer.open("lunr", "json", locale="es") as out:
        for piece in (b'{"a":', b"[1,2]", b"}"):
            out.write(piece)
    whole_file = writer.add("lunr", b'{"a":[1,2]}', "json", locale="es")
    assert writer.entries == [out.entry, whole_file] and out.entry.bytes == 11
    with pytest.raises(ValueError), writer.open("tree", "json") as out:
        out.write(b"{")
        raise ValueError("the build failed mid-file")
    assert len(writer.entries) == 2  # a file that was not finished is not listed


def test_manifest_is_checked(tmp_path):
    (tmp_path / "manifest.json").write_text("{not json")
    with pytest.raises(ShardError, match="not valid JSON"):
        shards.read_manifest(tmp_path)
    (tmp_path / "manifest.json").write_text(json.dumps({"format": "something-else"}))
    with pytest.raises(ShardError, match="not an askdocs manifest"):
        shards.read_manifest(tmp_path)
    with pytest.raises(ShardError, match="build the site with askdocs"):
        shards.read_manifest(tmp_path / "missing")


def test_a_format_2_set_is_still_read_its_title_vectors_left_unread(example_site, tmp_path):
    """Format 3 dropped the page-title vectors; a set built by the previous askdocs still loads."""
    old = tmp_path / "old"
    shutil.copytree(example_site.shard_dir, old)
    manifest = json.loads((old / shards.MANIFEST).read_text())
    manifest["format_version"] = 2
    manifest["files"].append({"path": "titles.0.npy", "role": "titles", "sha256": "0" * 64, "bytes": 1})
    (old / shards.MANIFEST).write_text(json.dumps(manifest))
    loaded = shards.load_shards(old)
    assert loaded.manifest.format_version == 2 and len(loaded.vectors) == len(loaded.chunks)
    manifest["format_version"] = 1
    (old / shards.MANIFEST).write_text(json.dumps(manifest))
    with pytest.raises(ShardError, match="reads versions 2, 3"):
        shards.load_shards(old)


def test_records_to_json_are_their_dataclass_fields():
    """The builder encodes records with `to_json`, written out for speed: it must stay `asdict`."""
    from dataclasses import asdict

    heading = shards.Heading(2, "Sección", "s")
    page = shards.PageRecord("/a/", "A", "es", ["x"], None, "listing", [heading], ["/b/"], 3, "0f", "", "x")
    chunk = shards.ChunkRecord(0, 4, 9, "s", ["Sección"], None, "faq", "ab", "Q\n\nA")
    faq = shards.FaqRecord(0, "Q", "A", "s")
    for record in (page, chunk, faq, shards.ChunkRecord(1, 0, 0, "", [], "2026-01-02", "section", "cd")):
        assert record.to_json() == asdict(record)
        assert type(record).from_json(record.to_json()) == record
