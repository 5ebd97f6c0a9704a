"""Run in a child process by :mod:`tools.anki.progress_read`: the Anki library turns a current
(zstd-compressed) Anki export into a plain collection file.

``python -m tools.anki.progress_unpack EXPORT TARGET``. A child, so that the parent can bound
what the library does with an untrusted file: its time (a timeout), its memory and the size of
what it writes (resource limits set before this starts). It prints the library's own error on
failure and exits 1.
"""

from __future__ import annotations

import sys
from pathlib import Path


def unpack(export: Path, target: Path) -> None:
    from anki._backend import RustBackend
    from anki.collection import Collection, ImportAnkiPackageOptions, ImportAnkiPackageRequest

    if export.suffix.lower() == ".colpkg":  # a whole collection: unpacked to ``target`` as is
        # Anki's desktop app restores a .colpkg with this backend call; pylib has no wrapper.
        RustBackend().import_collection_package(
            col_path=str(target),
            backup_path=str(export),
            media_folder=str(target.parent / "media"),
            media_db=str(target.parent / "media.db"),
        )
        return
    col = Collection(str(target))  # a deck: imported into an empty collection with its schedule
    try:
        options = ImportAnkiPackageOptions(with_scheduling=True, merge_notetypes=True)
        col.import_anki_package(ImportAnkiPackageRequest(package_path=str(export), options=options))
    finally:
        col.close()


def main(argv: list[str]) -> int:
    try:
        unpack(Path(argv[0]), Path(argv[1]))
    except Exception as exc:  # the library's errors have no common base; the parent words them
        print(str(exc).strip().splitlines()[-1] if str(exc).strip() else type(exc).__name__)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
