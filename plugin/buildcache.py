"""What a build keeps for the next build of the same site: each page as extracted, and the
term counts of each long text the lexical indexes count (`lexical.TermCache`).

A rebuild after one page changed used to parse every page again and count every chunk's
terms again, two thirds of its time (httpx: 0.1 s and 0.08 s of 0.3 s). The cache holds
each page's extraction under a key made of everything extraction reads: the HTML's bytes,
its URL and metadata, the build's site URL and default locale, and the askdocs code itself
(a digest of every source file of the package, so any change to askdocs starts from
nothing). A page whose key is found is not parsed again; what it gives is exactly what
extracting it gives, so the shards are byte for byte those of a build without the cache
(tests/test_build_memory.py checks it).

Term counts are keyed by the code, the locale and the text. One file of each kind per site
folder, under `$ASKDOCS_HOME/build/` (default `~/.cache/askdocs/build/`;
`ASKDOCS_BUILD_CACHE=DIR` puts it elsewhere, `ASKDOCS_BUILD_CACHE=off` turns it off). A
build writes the next file as it reads its pages (records appended, then a sorted table of
keys and offsets at the end) and puts it in place atomically when it succeeds: it holds the
pages of that build only, never grows past the site, and is readable by its owner only
(restricted pages' text is in it, as in the private set). Like the rest of the build, it
holds nothing per page in memory but a key and an offset (40 bytes). The folder keeps the
files of the 32 site folders built last (`mkdocs serve` builds into a new temporary folder
each time it starts). A damaged or foreign file is ignored with a warning and replaced; it
is the owner's own file, read with `marshal` like the build's spill files.
"""

from __future__ import annotations

import hashlib
import json
import logging
import marshal
import os
import struct
import tempfile
import time
import weakref
from array import array
from functools import cache
from pathlib import Path

import numpy as np

from askdocs.models import askdocs_home

_MAGIC = b"askdocs-build-cache 2\n"
_TRAILER = struct.Struct("<QQ8s")  # table offset, entries, magic
_TRAILER_MAGIC = b"ADXCEND\n"
_LENGTH = struct.Struct("<I")
KEY_BYTES = 32
_OFF = {"0", "off", "no", "false"}
KEEP_SITES = 32  # the cache files of the site folders built last that are kept


@cache
def code_digest() -> str:
    """A digest of askdocs' own source files (the package and its mapped folders)."""
    import askdocs.plugin

    import askdocs

    digest = hashlib.sha256()
    for root in sorted({Path(askdocs.__file__).parent, Path(askdocs.plugin.__file__).parent}):
        for path in sorted(root.rglob("*.py")):
            digest.update(path.relative_to(root).as_posix().encode())
            digest.update(b"\0")
            digest.update(path.read_bytes())
            digest.update(b"\0")
    return digest.hexdigest()


class BuildCache:
    """Records by key (`extract_key`; `key` for others): `get` what the last build kept,
    `put` what this one made, `save` this build's records for the next (or `discard` them)."""

    def __init__(self, path: Path | None, log: logging.Logger) -> None:
        self.path = path
        self.log = log
        self._old: _Table | None = None
        self._new = None
        self._new_path: Path | None = None
        self._keys = bytearray()  # the new file's keys and where their records start
        self._offsets = array("q")
        self._size = 0
        self._writable = path is not None  # until the new file cannot be written
        if path is not None:
            self._old = _Table.open(path, log)

    def _open_new(self) -> None:
        """The next build's file, made when the first record comes."""
        assert self.path is not None
        self._writable = False
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(prefix=f".{self.path.suffix[1:]}-", dir=self.path.parent)
            os.chmod(tmp, 0o600)
            self._new, self._new_path = os.fdopen(fd, "wb"), Path(tmp)
            # A build that never ends (an adapter's run that failed) leaves no file behind.
            weakref.finalize(self, _drop, self._new, self._new_path)
            self._new.write(_MAGIC)
            self._size = len(_MAGIC)
        except OSError as exc:  # a read-only home must not fail the build
            self.log.warning("build cache not written (%s): the next build starts without it", exc)

    @classmethod
    def for_site(cls, site_dir: Path, site_url: str, kind: str, log: logging.Logger) -> BuildCache:
        """The site folder's cache file of this kind ("extract", "terms")."""
        setting = os.environ.get("ASKDOCS_BUILD_CACHE", "").strip()
        if setting.lower() in _OFF:
            return cls(None, log)
        folder = Path(setting).expanduser() if setting else askdocs_home() / "build"
        site = hashlib.sha256(f"{site_dir.resolve()}\0{site_url}".encode()).hexdigest()[:24]
        return cls(folder / f"{site}.{kind}", log)

    @staticmethod
    def key(*parts: str | bytes) -> bytes:
        """A key of the askdocs code and these parts."""
        digest = hashlib.sha256(code_digest().encode())
        for part in parts:
            digest.update(b"\0")
            digest.update(part.encode("utf-8", "surrogatepass") if isinstance(part, str) else part)
        return digest.digest()

    def get(self, key: bytes) -> tuple | None:
        data = self._old.read(key) if self._old is not None else None
        if data is None:
            return None
        try:
            record = marshal.loads(data)
        except (ValueError, EOFError, TypeError):
            return None
        self._append(key, data)
        return record

    def put(self, key: bytes, record: tuple) -> None:
        if self._new is not None or self._writable:
            self._append(key, marshal.dumps(record))

    def _append(self, key: bytes, data: bytes) -> None:
        if self._new is None and self._writable:
            self._open_new()
        if self._new is None:
            return
        try:
            self._new.write(_LENGTH.pack(len(data)))
            self._new.write(data)
        except OSError as exc:
            self.log.warning("build cache not written (%s): the next build starts without it", exc)
            self.discard()
            return
        self._keys += key
        self._offsets.append(self._size)
        self._size += _LENGTH.size + len(data)

    def save(self) -> None:
        """Put this build's file in place of the last one's."""
        if self._new is None or self.path is None or self._new_path is None:
            self.discard()
            return
        try:
            keys = np.frombuffer(bytes(self._keys), dtype=f"S{KEY_BYTES}")
            offsets = np.frombuffer(self._offsets.tobytes(), dtype="<i8")
            order = np.argsort(keys, kind="stable")
            keys, offsets = keys[order], offsets[order]
            if len(keys):  # a page read twice: its last record counts
                last = np.append(keys[1:] != keys[:-1], True)
                keys, offsets = keys[last], offsets[last]
            self._new.write(keys.tobytes())
            self._new.write(offsets.astype("<i8").tobytes())
            self._new.write(_TRAILER.pack(self._size, len(keys), _TRAILER_MAGIC))
            self._new.close()
            self._new = None
            os.replace(self._new_path, self.path)
            self._new_path = None
        except OSError as exc:
            self.log.warning("build cache not written (%s): the next build starts without it", exc)
        finally:
            self.discard()
        self._forget_old_sites()

    def discard(self) -> None:
        """Drop what this build wrote (a failed build leaves the last file as it was)."""
        self._writable = False
        if self._new is not None:
            self._new.close()
            self._new = None
        if self._new_path is not None:
            self._new_path.unlink(missing_ok=True)
            self._new_path = None
        if self._old is not None:
            self._old.close()
            self._old = None

    def _forget_old_sites(self) -> None:
        if self.path is None:
            return
        day_ago = time.time() - 86400
        for path in self.path.parent.glob(f".{self.path.suffix[1:]}-*"):  # a killed build's
            try:
                if path.stat().st_mtime < day_ago:
                    path.unlink()
            except FileNotFoundError:
                continue
        files = []
        for path in self.path.parent.glob(f"*{self.path.suffix}"):
            try:
                files.append((path.stat().st_mtime, path.name, path))
            except FileNotFoundError:  # another build removed it meanwhile
                continue
        for _, _, path in sorted(files, reverse=True)[KEEP_SITES:]:
            path.unlink(missing_ok=True)


def extract_key(html: bytes | str, url: str, meta: dict, site_url: str, default_locale: str) -> bytes:
    """What extracting a page reads: the code, the options, the page's URL, metadata and HTML."""
    options = json.dumps([url, site_url, default_locale, meta], sort_keys=True, default=str)
    kind = "str" if isinstance(html, str) else "bytes"  # the same text as str and bytes decode apart
    return BuildCache.key("extract", options, kind, html)


def _drop(file, path: Path) -> None:
    file.close()
    path.unlink(missing_ok=True)


class _Table:
    """The last build's file: its sorted keys and offsets in memory, records read on demand."""

    def __init__(self, file, keys: np.ndarray, offsets: np.ndarray) -> None:
        self._file, self._keys, self._offsets = file, keys, offsets

    @classmethod
    def open(cls, path: Path, log: logging.Logger) -> _Table | None:
        try:
            file = open(path, "rb")  # noqa: SIM115 - closed by close()
        except FileNotFoundError:
            return None
        except OSError as exc:
            log.warning("build cache %s not read (%s): this build works without it", path, exc)
            return None
        try:
            size = os.fstat(file.fileno()).st_size
            if size < len(_MAGIC) + _TRAILER.size or file.read(len(_MAGIC)) != _MAGIC:
                raise ValueError("not an askdocs build cache")
            file.seek(size - _TRAILER.size)
            at, count, magic = _TRAILER.unpack(file.read(_TRAILER.size))
            if magic != _TRAILER_MAGIC or at + count * (KEY_BYTES + 8) + _TRAILER.size != size:
                raise ValueError("cut short or damaged")
            file.seek(at)
            keys = np.frombuffer(file.read(count * KEY_BYTES), dtype=f"S{KEY_BYTES}")
            offsets = np.frombuffer(file.read(count * 8), dtype="<i8")
            if len(keys) != count or len(offsets) != count or (count and offsets.max() >= at):
                raise ValueError("cut short or damaged")
            return cls(file, keys, offsets)
        except (ValueError, OSError, struct.error) as exc:
            file.close()
            log.warning("build cache %s ignored (%s): this build works without it", path, exc)
            return None

    def read(self, key: bytes) -> bytes | None:
        at = int(np.searchsorted(self._keys, key))
        # (numpy's S dtype drops trailing NUL bytes: compare what it kept)
        if at >= len(self._keys) or self._keys[at] != key.rstrip(b"\0"):
            return None
        try:
            offset = int(self._offsets[at])
            head = os.pread(self._file.fileno(), _LENGTH.size, offset)
            (size,) = _LENGTH.unpack(head)
            data = os.pread(self._file.fileno(), size, offset + _LENGTH.size)
        except (OSError, struct.error):
            return None
        return data if len(data) == size else None

    def close(self) -> None:
        self._file.close()
