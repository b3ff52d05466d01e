"""Release channels: many replicas follow one small pointer to an immutable shard set.

A channel is a folder (or the same folder on a static host, CDN or object store):

    CHANNEL/releases/<id>/manifest.json + shards   one immutable release each
    CHANNEL/current.json                           {"format": "askdocs-release", "release": "<id>"}

`askdocs release publish` copies a built shard set under a release id, then
rewrites the pointer (last, atomically); `askdocs release point` repoints it
(a rollback is pointing at the previous id). Replicas serve
`--index CHANNEL/current.json`: they poll the pointer with `If-None-Match`,
download and verify a new release in the background and swap it in whole.
Restricted shards follow the same release ids in their own private channel
(`--private PRIVATE_CHANNEL`), so public and private sets always change together.

Every release a replica verified is remembered in its local cache, so a
fresh replica whose origin is unreachable starts from the last verified
release, and says so.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import time
from dataclasses import dataclass
from pathlib import Path

import httpx

from askdocs.errors import ShardError
from askdocs.models import askdocs_home
from askdocs.remote import is_url, write_atomically
from askdocs.shards import MANIFEST, read_manifest

POINTER = "current.json"
POINTER_FORMAT = "askdocs-release"
RELEASES = "releases"
_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,79}$")


def is_pointer(source: str) -> bool:
    return source.rstrip("/").endswith(".json")


def channel_base(pointer: str) -> str:
    """The channel a pointer lives in (its folder / URL prefix)."""
    return pointer.rsplit("/", 1)[0] if "/" in pointer else "."


def release_source(channel: str, release: str) -> str:
    return f"{channel.rstrip('/')}/{RELEASES}/{release}"


def check_id(release: str) -> str:
    if not _ID.match(release):
        raise ShardError(f"release id {release!r} must be 1-80 letters, digits, '.', '_' or '-'")
    return release


@dataclass(frozen=True)
class Pointer:
    release: str
    etag: str | None


class PointerReader:
    """Reads a channel pointer, answering "unchanged" cheaply (ETag / If-None-Match)."""

    def __init__(self, pointer: str, timeout: float = 10.0) -> None:
        self.pointer = pointer
        self.timeout = timeout
        self.etag: str | None = None
        self.current: str | None = None

    def read(self) -> Pointer | None:
        """The pointer, or None when it has not changed since the last read."""
        if is_url(self.pointer):
            headers = {"If-None-Match": self.etag} if self.etag else {}
            try:
                response = httpx.get(
                    self.pointer, headers=headers, timeout=self.timeout, follow_redirects=True
                )
            except httpx.HTTPError as exc:
                raise ShardError(f"cannot fetch release pointer {self.pointer}: {exc}") from exc
            if response.status_code == 304:
                return None
            if response.status_code != 200:
                raise ShardError(f"release pointer {self.pointer} answered {response.status_code}")
            raw, etag = response.content, response.headers.get("etag")
        else:
            path = Path(self.pointer).expanduser()
            try:
                stat = path.stat()
                etag = f'"{stat.st_mtime_ns:x}-{stat.st_size:x}"'
                if etag == self.etag:
                    return None
                raw = path.read_bytes()
            except OSError as exc:
                raise ShardError(f"cannot read release pointer {path}: {exc}") from exc
        release = parse_pointer(raw, self.pointer)
        if release == self.current:
            self.etag = etag
            return None
        return Pointer(release, etag)

    def accept(self, pointer: Pointer) -> None:
        """The release went live: later reads compare against it."""
        self.current, self.etag = pointer.release, pointer.etag


def parse_pointer(raw: bytes, where: str) -> str:
    try:
        data = json.loads(raw)
    except ValueError as exc:
        raise ShardError(f"release pointer {where} is not JSON: {exc}") from exc
    if not isinstance(data, dict) or data.get("format") != POINTER_FORMAT or "release" not in data:
        raise ShardError(
            f'{where} is not an askdocs release pointer (expected {{"format": "{POINTER_FORMAT}", '
            f'"release": ID}}); to serve a shard folder, pass the folder itself'
        )
    return check_id(str(data["release"]))


# -- the replica's memory of verified releases ---------------------------------------


def _memo(pointer: str) -> Path:
    key = pointer if is_url(pointer) else str(Path(pointer).expanduser().resolve())
    return askdocs_home() / "releases" / (hashlib.sha256(key.encode()).hexdigest()[:16] + ".json")


def remember(pointer: str, release: str, public: Path, private: Path | None) -> None:
    """Record the last release this replica verified and where its files are."""
    memo = _memo(pointer)
    memo.parent.mkdir(parents=True, exist_ok=True)
    record = {"release": release, "public": str(public), "private": str(private) if private else None}
    write_atomically(memo, json.dumps({**record, "verified_at": time.time()}).encode())


def recall(pointer: str) -> dict | None:
    try:
        return json.loads(_memo(pointer).read_text())
    except (OSError, ValueError):
        return None


# -- publishing ---------------------------------------------------------------------


def default_release_id(shards: Path) -> str:
    manifest = read_manifest(shards)
    stamp = re.sub(r"[^0-9TZ]", "", manifest.built_at)
    return f"{stamp}-{manifest.version_key[:8]}"


def publish(shards: Path, channel: Path, release: str | None = None, *, point: bool = True) -> str:
    """Copy a built shard set into CHANNEL/releases/<id>/ (verified), then point at it."""
    manifest = read_manifest(shards)
    release = check_id(release or default_release_id(shards))
    target = channel / RELEASES / release
    if (target / MANIFEST).is_file():
        if read_manifest(target).version_key != manifest.version_key:
            raise ShardError(f"release {release} already exists in {channel} with other content")
    else:
        staging = channel / RELEASES / f".{release}.staging"
        shutil.rmtree(staging, ignore_errors=True)
        for entry in manifest.files:
            source = shards / entry.path
            if hashlib.sha256(source.read_bytes()).hexdigest() != entry.sha256:
                raise ShardError(f"{source} does not match its sha256 in {shards / MANIFEST}")
            (staging / entry.path).parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(source, staging / entry.path)
        shutil.copyfile(shards / MANIFEST, staging / MANIFEST)
        os.replace(staging, target)
    if point:
        point_at(channel, release)
    return release


def point_at(channel: Path, release: str) -> None:
    """Repoint the channel (publish, or roll back to an earlier release)."""
    check_id(release)
    if not (channel / RELEASES / release / MANIFEST).is_file():
        raise ShardError(f"no release {release} in {channel}; `askdocs release list {channel}` shows them")
    pointer = {"format": POINTER_FORMAT, "release": release, "pointed_at": int(time.time())}
    write_atomically(channel / POINTER, json.dumps(pointer).encode())


def list_releases(channel: Path) -> tuple[list[str], str | None]:
    folder = channel / RELEASES
    found = sorted(p.name for p in folder.iterdir() if (p / MANIFEST).is_file()) if folder.is_dir() else []
    current = None
    if (channel / POINTER).is_file():
        current = parse_pointer((channel / POINTER).read_bytes(), str(channel / POINTER))
    return found, current
