"""The deck's identity settings never change by accident.

The course plugin's ``guid_namespace`` makes every note's GUID and ``note_type_ids`` name its note
types: Anki matches a learner's notes by them on every import, so a changed value duplicates every
note (or makes every note type "conflicting") in every learner's collection. :func:`check` compares
them with the values the course's history first published (the first commit of ``mkdocs.yml`` that
sets them) and reports a difference as a ``check`` error at the changed line.

A deliberate migration is possible, and explicit: the plugin's ``identity_migration`` must then
name the values being left, exactly as first published::

    identity_migration:
      from: {guid_namespace: old-name, note_type_ids: {basic: 1, choice: 2}}
      reason: one sentence on why every learner gets new notes
"""

from __future__ import annotations

from pathlib import Path

import yaml

from ..buildkit.buildinfo import git
from . import config as course_config
from .model import CourseError, Location

KEYS = ("guid_namespace", "note_type_ids")


def check(root: Path) -> list[CourseError]:
    """A ``mkdocs.yml:line`` error per identity setting that differs from its first published
    value without a matching ``identity_migration``; nothing outside git or before a first
    commit."""
    path = root / course_config.CONFIG_FILE
    try:
        text = path.read_text("utf-8")
        current = _course(text)
    except (OSError, yaml.YAMLError):
        return []  # course_config reports an unreadable file
    first = _first_published(root)
    if not current or not first:
        return []
    migration = current.get("identity_migration") or {}
    left = migration.get("from") if isinstance(migration, dict) else None
    errors = []
    for key in KEYS:
        if current.get(key) == first.get(key) or first.get(key) is None:
            continue
        if isinstance(left, dict) and left.get(key) == first.get(key) and migration.get("reason"):
            continue
        line = next(
            (n for n, row in enumerate(text.splitlines(), 1) if row.strip().startswith(f"{key}:")),
            1,
        )
        errors.append(
            CourseError(
                Location(course_config.CONFIG_FILE, line),
                f"{course_config.WHERE}.{key} is {current.get(key)!r} but was first published as "
                f"{first.get(key)!r}: every learner would get a duplicate of every note. Put it "
                f"back, or migrate on purpose with {course_config.WHERE}.identity_migration (from: "
                "the old values, reason: why; see tools/course/identity.py)",
            )
        )
    return errors


def _course(text: str) -> dict:
    """The course's settings in one version of ``mkdocs.yml``: the plugin's, or ``extra.course``
    where they were kept before the engine was a plugin (the history's first commits)."""
    config = course_config.parse_yaml(text) or {}
    course = course_config.plugin_settings(config)
    if course is None and isinstance(config, dict):
        course = (config.get("extra") or {}).get("course")
    return course if isinstance(course, dict) else {}


def _first_published(root: Path) -> dict:
    """The identity settings of the first commit of mkdocs.yml that has them."""
    name = course_config.CONFIG_FILE
    commits = git(root, "log", "--reverse", "--format=%H", "--", name)
    for commit in (commits or "").split():
        shown = git(root, "show", f"{commit}:./{name}")
        if shown is None:
            continue
        try:
            course = _course(shown)
        except yaml.YAMLError:
            continue
        if all(course.get(key) is not None for key in KEYS):
            return {key: course[key] for key in KEYS}
    return {}
