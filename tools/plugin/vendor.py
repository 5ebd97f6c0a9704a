"""Third-party browser code the site ships: pinned files, with where they came from recorded.

The review page schedules with ``ts-fsrs`` (npm, MIT), the maintained FSRS implementation, not
with a scheduler of our own, and writes a learner's progress as an Anki package with ``sql.js``
(npm, MIT: SQLite compiled to WebAssembly), not with a SQLite writer of our own. The site must
work offline and from ``file://``, so each package's built browser file is committed under
``tools/plugin/static/vendor/<package>/``, with the plugin's other files (served as
``assets/vendor/<package>/``, no CDN); sql.js's is the build that carries its WebAssembly inline,
since ``fetch()`` of a separate ``.wasm`` file is refused from ``file://``. Next to it: its LICENSE
and a ``VENDOR.json`` that records the version, the registry's integrity string (a
sha512 of the package tarball, as ``npm view <pkg>@<version> dist.integrity`` prints it) and a
sha256 of each file taken from it.

``python3 -m tools vendor [PACKAGE]`` fetches each tarball with npm (the registry's own client),
checks its sha512 against the integrity the registry publishes and, for an unchanged version,
against the recorded one (a pinned version whose tarball changed is refused), then rewrites the
files.
``--version X`` moves the pin. :func:`verify` re-hashes the committed files without a network;
the test suite runs it, so a hand-edited vendored file fails the tests.
"""

from __future__ import annotations

import base64
import hashlib
import io
import json
import shutil
import subprocess
import tarfile
import tempfile
from dataclasses import dataclass
from pathlib import Path

from . import STATIC


@dataclass(frozen=True)
class Vendored:
    """One npm package: which files of its tarball land in which folder of the site."""

    package: str
    folder: Path
    files: dict[str, str]  # file name in ``folder`` -> path inside the tarball

    @property
    def record_path(self) -> Path:
        return self.folder / "VENDOR.json"

    def record(self) -> dict:
        return json.loads(self.record_path.read_text("utf-8"))


TS_FSRS = Vendored(
    package="ts-fsrs",
    folder=STATIC / "vendor" / "ts-fsrs",
    files={"index.umd.js": "package/dist/index.umd.js", "LICENSE": "package/LICENSE"},
)
SQL_JS = Vendored(
    package="sql.js",
    folder=STATIC / "vendor" / "sql.js",
    files={"sql-wasm-inline.js": "package/dist/sql-wasm-inline.js", "LICENSE": "package/LICENSE"},
)
PACKAGES = {vendored.package: vendored for vendored in (TS_FSRS, SQL_JS)}


class VendorError(Exception):
    """A vendored file does not match its record, or a download does not match the registry."""


def sha512_integrity(data: bytes) -> str:
    """The Subresource-Integrity form npm uses: ``sha512-`` and the base64 digest."""
    return "sha512-" + base64.b64encode(hashlib.sha512(data).digest()).decode()


def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def verify(vendored: Vendored = TS_FSRS) -> dict:
    """Check every vendored file against the sha256 in its record; return the record."""
    record = vendored.record()
    for name in vendored.files:
        path = vendored.folder / name
        if not path.is_file():
            raise VendorError(f"{path}: missing; run python3 -m tools vendor")
        expected = record["files"][name]["sha256"]
        if _sha256(path.read_bytes()) != expected:
            raise VendorError(
                f"{path}: differs from {record['package']}@{record['version']} "
                "as recorded in VENDOR.json; run python3 -m tools vendor to restore it"
            )
    return record


def unpack(tarball: bytes, integrity: str, vendored: Vendored = TS_FSRS) -> dict[str, bytes]:
    """The files ``vendored`` takes from ``tarball``, after checking the tarball's integrity."""
    actual = sha512_integrity(tarball)
    if actual != integrity:
        raise VendorError(f"{vendored.package}: tarball is {actual}, the registry says {integrity}")
    out = {}
    with tarfile.open(fileobj=io.BytesIO(tarball), mode="r:gz") as archive:
        for name, member in vendored.files.items():
            try:
                extracted = archive.extractfile(member)
            except KeyError:
                extracted = None
            if extracted is None:
                raise VendorError(f"{vendored.package}: the tarball has no {member}")
            out[name] = extracted.read()
    return out


def _npm(*args: str, cwd: Path) -> str:
    npm = shutil.which("npm")
    if npm is None:
        raise VendorError("npm is not installed; it is needed only to refresh vendored packages")
    result = subprocess.run([npm, *args], cwd=cwd, capture_output=True, text=True)
    if result.returncode != 0:
        raise VendorError(f"npm {' '.join(args)} failed:\n{result.stderr.strip()}")
    return result.stdout


def refresh(version: str | None = None, vendored: Vendored = TS_FSRS) -> dict:
    """Download the pinned (or the given) version with npm, check it, rewrite the files."""
    old = vendored.record() if vendored.record_path.exists() else {}
    version = version or old.get("version")
    if not version:
        raise VendorError(f"no version of {vendored.package} is recorded; pass --version")
    spec = f"{vendored.package}@{version}"
    with tempfile.TemporaryDirectory() as folder:
        work = Path(folder)
        facts = json.loads(_npm("view", spec, "dist.integrity", "license", "--json", cwd=work))
        registry = facts["dist.integrity"]
        if old.get("version") == version and old.get("integrity") != registry:
            raise VendorError(
                f"{spec}: the registry's integrity {registry} is not the recorded "
                f"{old.get('integrity')}; a published version should never change"
            )
        packed = json.loads(_npm("pack", spec, "--json", "--pack-destination", folder, cwd=work))
        tarball = (work / packed[0]["filename"]).read_bytes()
    files = unpack(tarball, registry, vendored)
    vendored.folder.mkdir(parents=True, exist_ok=True)
    for name, data in files.items():
        (vendored.folder / name).write_bytes(data)
    record = {
        "package": vendored.package,
        "version": version,
        "license": facts["license"],
        "source": f"npm pack {spec}",
        "integrity": registry,
        "files": {
            name: {"from": vendored.files[name], "bytes": len(data), "sha256": _sha256(data)}
            for name, data in files.items()
        },
    }
    vendored.record_path.write_text(json.dumps(record, indent=2) + "\n", "utf-8")
    return record
