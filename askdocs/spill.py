"""What a large build keeps on disk instead of in memory, in temporary files (under TMPDIR).

- `RecordFile`: records (what `marshal` writes: str, int, float, bytes, None, tuples, lists)
  appended to one file; `append` says where a record starts, `read` reads it back.
- `Rows`: integer rows of a fixed width appended to one file and read back in blocks;
  `grouped` puts rows into buckets of keys (the distribution pass of an external sort), so
  a site's postings or shingles are sorted a bucket at a time, never all in memory at once.
- `npy_header`: the header `numpy.save` writes, for an array written a block at a time.

The files live only as long as the build: whoever makes them removes them.
"""

from __future__ import annotations

import io
import marshal
import os
import struct
from array import array
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any

import numpy as np

_LENGTH = struct.Struct("<I")
_READ_AHEAD = 4096  # one read serves most records: the length and what follows it
BLOCK_ROWS = 1 << 16  # rows per block read back (about a MB)
BLOCK_RECORDS = 8192  # records per block, for `row_blocks`
MAX_OPEN = 64  # bucket files open at once while rows are grouped (more buckets: in two steps)
_FLUSH_ITEMS = 1 << 14  # integers buffered before they go to the file


class RecordFile:
    """An append-only file of marshalled records."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._file = open(path, "w+b")  # noqa: SIM115 - closed by close()
        self._size = 0
        self._unflushed = False

    def append(self, record: Any) -> int:
        """Write `record` at the end; returns the offset to `read` it from."""
        data = marshal.dumps(record)
        at = self._size
        self._file.write(_LENGTH.pack(len(data)))
        self._file.write(data)
        self._size += _LENGTH.size + len(data)
        self._unflushed = True
        return at

    def read(self, at: int) -> Any:
        if self._unflushed:
            self._file.flush()
            self._unflushed = False
        fd = self._file.fileno()
        head = os.pread(fd, _READ_AHEAD, at)
        (size,) = _LENGTH.unpack_from(head)
        data = head[_LENGTH.size : _LENGTH.size + size]
        if len(data) < size:
            data += os.pread(fd, size - len(data), at + len(head))
        return marshal.loads(data)

    def close(self) -> None:
        self._file.close()
        self.path.unlink(missing_ok=True)


class Rows:
    """Rows of `width` integers (int32, or int64 with `wide`) appended to a file.

    `extend` takes a flat `array` of whole rows; `blocks`, `read` and `grouped` give numpy
    arrays of shape (n, width)."""

    def __init__(self, path: Path, width: int, *, wide: bool = False) -> None:
        self.path = path
        self.width = width
        self.typecode = "q" if wide else "i"
        self.dtype = np.dtype("<i8" if wide else "<i4")
        if array(self.typecode).itemsize != self.dtype.itemsize:
            raise RuntimeError(f"array({self.typecode!r}) is not {self.dtype.itemsize} bytes here")
        self._file = open(path, "w+b")  # noqa: SIM115 - closed by close()
        self._buffer = array(self.typecode)
        self._written = 0  # integers in the file

    def __len__(self) -> int:
        return (self._written + len(self._buffer)) // self.width

    def extend(self, values: array | np.ndarray) -> None:
        if isinstance(values, np.ndarray):
            self._flush()
            data = np.ascontiguousarray(values, dtype=self.dtype)
            self._file.write(data.tobytes())
            self._written += data.size
            return
        self._buffer.extend(values)
        if len(self._buffer) >= _FLUSH_ITEMS:
            self._flush()

    def _flush(self) -> None:
        if self._buffer:
            self._buffer.tofile(self._file)
            self._written += len(self._buffer)
            self._buffer = array(self.typecode)
        self._file.flush()

    def read(self, start: int, stop: int) -> np.ndarray:
        """Rows `start` to `stop` (writable)."""
        self._flush()
        row_bytes = self.width * self.dtype.itemsize
        data = bytearray(max(stop - start, 0) * row_bytes)
        view, at = memoryview(data), start * row_bytes
        while view:  # a read returns at most ~2 GB
            got = os.preadv(self._file.fileno(), [view], at)
            if not got:
                raise OSError(f"{self.path}: {len(view)} bytes short")
            view, at = view[got:], at + got
        return np.frombuffer(data, dtype=self.dtype).reshape(-1, self.width)

    def blocks(self, rows: int | None = None) -> Iterator[np.ndarray]:
        total, rows = len(self), rows or BLOCK_ROWS
        for start in range(0, total, rows):
            yield self.read(start, min(start + rows, total))

    def close(self) -> None:
        if not self._file.closed:
            self._file.close()
        self.path.unlink(missing_ok=True)


def grouped(
    blocks: Iterable[np.ndarray],
    bucket_of: Callable[[np.ndarray], np.ndarray],
    buckets: int,
    path: Path,
    *,
    wide: bool = False,
) -> Iterator[np.ndarray]:
    """Every row of `blocks` (arrays of shape (n, width)) once, bucket by bucket (0 first);
    rows keep their order within a bucket.

    `bucket_of(block)` gives each row's bucket. The rows are written to one file per bucket
    (named after `path`), or with more than MAX_OPEN buckets first to files of MAX_OPEN runs
    of buckets and then each of those to its buckets; with one bucket they are gathered in
    memory. Choose `buckets` so that none holds more rows than fit in memory (`buckets_for`)."""
    if buckets <= 1:
        found = [block for block in blocks if len(block)]
        yield np.concatenate(found) if found else np.zeros((0, 0), dtype=np.int64)
        return
    per = -(-buckets // MAX_OPEN)  # buckets per file
    parts = _distribute(blocks, lambda block: bucket_of(block) // per, -(-buckets // per), path, wide)
    try:
        for k, part in enumerate(parts):
            if per == 1:
                yield part.read(0, len(part))
            else:
                low = k * per
                yield from grouped(
                    part.blocks(), lambda block, low=low: bucket_of(block) - low, min(per, buckets - low),
                    part.path, wide=wide,
                )  # fmt: skip
            part.close()
    finally:
        for part in parts:
            part.close()


def _distribute(
    blocks: Iterable[np.ndarray],
    bucket_of: Callable[[np.ndarray], np.ndarray],
    buckets: int,
    path: Path,
    wide: bool,
) -> list[Rows]:
    def files(width: int) -> list[Rows]:
        return [Rows(path.with_name(f"{path.name}.{k}"), width, wide=wide) for k in range(buckets)]

    parts: list[Rows] = []
    try:
        for block in blocks:
            if not parts:
                parts = files(block.shape[1])
            where = bucket_of(block)
            order = np.argsort(where, kind="stable")
            bounds = np.searchsorted(where[order], np.arange(buckets + 1))
            block = block[order]
            for k in np.flatnonzero(np.diff(bounds)).tolist():
                parts[k].extend(block[bounds[k] : bounds[k + 1]])
    except BaseException:
        for part in parts:
            part.close()
        raise
    return parts or files(1)


def row_blocks(
    pairs: Rows, sizes: np.ndarray, *, rows: int | None = None, limit: int | None = None
) -> Iterator[tuple[range, np.ndarray, np.ndarray]]:
    """Records of variable size stored one after the other (record i is `sizes[i]` rows of
    `pairs`), read back whole, a block of records at a time: (the records, their rows, each
    row's record). A block holds at most `rows` records and about `limit` rows (a larger
    record alone); by default BLOCK_RECORDS and BLOCK_ROWS."""
    rows, limit = rows or BLOCK_RECORDS, limit or BLOCK_ROWS
    first, at = 0, 0
    while first < len(sizes):
        ends = np.cumsum(sizes[first : first + rows], dtype=np.int64)
        take = max(1, int(np.searchsorted(ends, limit, side="right")))
        size = int(ends[take - 1])
        block = pairs.read(at, at + size)
        owner = np.repeat(np.arange(first, first + take, dtype=np.int64), sizes[first : first + take])
        yield range(first, first + take), block, owner
        first, at = first + take, at + size


def buckets_for(counts: np.ndarray, limit: int) -> tuple[np.ndarray, int]:
    """Cut keys 0..n-1, holding `counts[k]` rows each, into runs of consecutive keys of at most
    `limit` rows (a key with more rows is a bucket of its own): each key's bucket, and how many."""
    if not len(counts):
        return np.zeros(0, dtype=np.int64), 1
    ends = np.cumsum(counts, dtype=np.int64)
    limit = max(limit, 1)
    bucket = np.zeros(len(counts), dtype=np.int64)
    start, number = 0, 0
    while start < len(counts):
        # the first key past the run that starts at `start`: at least one key per bucket
        base = ends[start - 1] if start else 0
        stop = max(int(np.searchsorted(ends, base + limit, side="right")), start + 1)
        bucket[start:stop] = number
        start, number = stop, number + 1
    return bucket, number


def npy_header(dtype: np.dtype, shape: tuple[int, ...]) -> bytes:
    """The bytes `numpy.save` writes before the data of a C-ordered array of this dtype and
    shape (format 1.0, as `save` picks for any header that fits it)."""
    buffer = io.BytesIO()
    header = {"descr": np.lib.format.dtype_to_descr(np.dtype(dtype)), "fortran_order": False, "shape": shape}
    np.lib.format.write_array_header_1_0(buffer, header)
    return buffer.getvalue()
