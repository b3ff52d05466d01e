"""Exceptions shared by the build side and the runtime."""

from __future__ import annotations


class AskdocsError(Exception):
    """Base class: a message meant for the person running askdocs."""


class ModelNotFound(AskdocsError):
    pass


class ModelMismatch(AskdocsError):
    pass


class ShardError(AskdocsError):
    """A shard set that cannot be used: unknown format, bad hash, missing file."""


class BuildError(AskdocsError):
    pass
