"""Temporary files a build spills to: records back as written, rows grouped as a sort groups them."""

from __future__ import annotations

import io
import random
from array import array

import numpy as np
import pytest

from askdocs import spill
from askdocs.spill import RecordFile, Rows, buckets_for, grouped, npy_header, row_blocks


def test_records_read_back_as_written(tmp_path):
    rng = random.Random(4)
    records = [
        ("/a/", "Title", None, ["staff"], [("para", "x" * n, 0, "", None, 0, n)], 7, 0.5, b"\0raw")
        for n in (0, 1, 4000, 5000, 100_000)
    ] + [{"not": "a tuple"}, [], "ünïcödé ✓", rng.random()]
    spilled = RecordFile(tmp_path / "records")
    offsets = [spilled.append(r) for r in records]
    for at, record in sorted(zip(offsets, records, strict=True), key=lambda x: rng.random()):
        assert spilled.read(at) == record
    assert spilled.read(spilled.append("after a read")) == "after a read"
    spilled.close()
    assert not (tmp_path / "records").exists()


@pytest.mark.parametrize("wide", [False, True])
def test_rows_come_back_in_blocks_and_by_bucket(tmp_path, monkeypatch, wide):
    monkeypatch.setattr(spill, "_FLUSH_ITEMS", 7)  # many small flushes between the appends
    rng = np.random.default_rng(3)
    data = rng.integers(-(2**31), 2**31 - 1, size=(5000, 3))
    rows = Rows(tmp_path / "rows", 3, wide=wide)
    for start in range(0, len(data), 37):
        part = data[start : start + 37]
        rows.extend(part if start % 2 else array(rows.typecode, part.ravel().tolist()))
    assert len(rows) == len(data)
    assert np.array_equal(np.concatenate(list(rows.blocks(999))), data)
    assert np.array_equal(rows.read(10, 20), data[10:20])
    monkeypatch.setattr(spill, "MAX_OPEN", 4)  # 9 buckets: first to 3 files of 3, then each to its own
    for buckets in (1, 2, 9):
        found = list(grouped(rows.blocks(999), lambda b, n=buckets: np.abs(b[:, 0]) % n, buckets, rows.path))
        assert len(found) == buckets
        for k, group in enumerate(found):
            assert np.array_equal(group, data[np.abs(data[:, 0]) % buckets == k])  # run order kept
    assert sorted(p.name for p in tmp_path.iterdir()) == ["rows"]  # bucket files removed
    sizes = rng.integers(0, 30, size=100)  # records of variable size, one after the other
    sizes[7] = 2000  # a record bigger than a block
    sizes[-1] = len(data) - sizes[:-1].sum()
    assert sizes[-1] >= 0
    blocks = list(row_blocks(rows, sizes, rows=50, limit=500))
    assert [r for records, _, _ in blocks for r in records] == list(range(len(sizes)))
    assert np.array_equal(np.concatenate([b for _, b, _ in blocks]), data)
    assert np.array_equal(np.concatenate([o for _, _, o in blocks]), np.repeat(np.arange(len(sizes)), sizes))
    assert all(len(b) <= 500 or len(records) == 1 for records, b, _ in blocks)  # whole records
    assert max(len(records) for records, _, _ in blocks) <= 50
    rows.close()
    assert not any(tmp_path.iterdir())


def test_buckets_hold_consecutive_keys_within_the_limit():
    rng = np.random.default_rng(8)
    for _ in range(50):
        counts = rng.integers(0, 40, size=rng.integers(0, 60))
        limit = int(rng.integers(1, 120))
        bucket, number = buckets_for(counts, limit)
        assert len(bucket) == len(counts) and number >= 1
        if len(counts):
            assert bucket[0] == 0 and bucket[-1] == number - 1 and np.all(np.isin(np.diff(bucket), (0, 1)))
        sizes = np.bincount(bucket, weights=counts, minlength=number)
        alone = np.bincount(bucket, minlength=number) == 1
        assert np.all((sizes <= limit) | alone)


@pytest.mark.parametrize(
    "value",
    [
        np.zeros((0, 384), np.int8),
        np.ones((3, 384), np.int8),
        np.arange(10**5, dtype=np.float32),
        np.zeros(0, np.float32),
        np.zeros(12, dtype=[("doc", "<i4"), ("weight", "<f8")]),
        np.arange(7, dtype="<i8"),
    ],
)
def test_npy_header_is_what_numpy_save_writes(value):
    saved = io.BytesIO()
    np.save(saved, value, allow_pickle=False)
    header = npy_header(value.dtype, value.shape)
    assert saved.getvalue() == header + value.tobytes()
    big = npy_header(np.dtype(np.int8), (10**12, 384))
    assert np.lib.format.read_array_header_1_0(io.BytesIO(big[8:]))[0] == (10**12, 384)
