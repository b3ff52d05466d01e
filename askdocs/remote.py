"""Shard sets from a folder or an HTTPS base URL (CDN, object store).

A URL source is mirrored into a local cache folder, file by file, each
checked against the manifest's sha256; files already present with the right
hash are not downloaded again. The result is a folder `load_shards` reads.
"""

from __future__ import annotations

import hashlib
import json
import os
import secrets
from pathlib import Path

import httpx

from askdocs.errors import ShardError
from askdocs.models import askdocs_home
from askdocs.shards import MANIFEST, Manifest


def is_url(source: str) -> bool:
    return source.startswith(("http://", "https://"))


def cache_folder(url: str) -> Path:
    digest = hashlib.sha256(url.rstrip("/").encode()).hexdigest()[:16]
    return askdocs_home() / "remote" / digest


def fetch_manifest(url: str, client: httpx.Client) -> tuple[bytes, Manifest]:
    base = url.rstrip("/") + "/"
    try:
        response = client.get(base + MANIFEST)
        response.raise_for_status()
    except httpx.HTTPError as exc:
        raise ShardError(f"cannot fetch {base}{MANIFEST}: {exc}") from exc
    try:
        data = json.loads(response.content)
    except ValueError as exc:
        raise ShardError(f"{base}{MANIFEST} is not valid JSON: {exc}") from exc
    return response.content, Manifest.from_json(data)


def materialize(source: str, *, timeout: float = 60.0) -> Path:
    """Return a local folder holding the shard set `source` names."""
    if not is_url(source):
        folder = Path(source).expanduser()
        if not (folder / MANIFEST).is_file():
            raise ShardError(f"no askdocs shard set at {folder} ({MANIFEST} missing)")
        return folder
    base = source.rstrip("/") + "/"
    target = cache_folder(source)
    target.mkdir(parents=True, exist_ok=True)
    with httpx.Client(timeout=timeout, follow_redirects=True) as client:
        raw_manifest, manifest = fetch_manifest(source, client)
        for entry in manifest.files:
            local = target / entry.path
            if local.is_file() and _sha_file(local) == entry.sha256:
                continue
            try:
                response = client.get(base + entry.path)
                response.raise_for_status()
            except httpx.HTTPError as exc:
                raise ShardError(f"cannot fetch shard {base}{entry.path}: {exc}") from exc
            if hashlib.sha256(response.content).hexdigest() != entry.sha256:
                raise ShardError(
                    f"shard {base}{entry.path} does not match its sha256 in the manifest "
                    "(stale CDN cache or a partial upload); refusing to load it"
                )
            local.parent.mkdir(parents=True, exist_ok=True)
            write_atomically(local, response.content)
    write_atomically(target / MANIFEST, raw_manifest)
    return target


def write_atomically(path: Path, data: bytes) -> None:
    """`path` holds `data` whole or not at all, whoever else writes it at the same moment:
    replicas starting together on one cache (`ASKDOCS_HOME`) each write a temporary file of
    their own (one shared name let one replica rename the file another had just renamed, and
    its start failed)."""
    tmp = path.with_name(f".{path.name}.{os.getpid()}.{secrets.token_hex(4)}.tmp")
    try:
        tmp.write_bytes(data)
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)


def _sha_file(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()
