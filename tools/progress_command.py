"""``python -m tools progress``'s three directions, once the course is checked: a progress file
into an Anki package (``to-anki``) or into the learner's collection (``into-anki``), or an Anki
export into a progress file (``from-anki``); each prints what it moved.

:func:`tools.cli.cmd_progress` calls :func:`direction` and turns every failure into a message.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from .course import config as course_config

FSRS_NOTE = (
    " Anki goes on with the FSRS memory state each card carries once FSRS is on: Deck options >"
    " Advanced > FSRS (one switch for the whole collection)."
)


def direction(args: argparse.Namespace, course, now: int) -> int:
    from .anki import deck, progress
    from .course import notes

    source = Path(args.file)
    guids = {item.guid for item in notes.note_items(course)}
    if args.direction == "from-anki":
        from .anki.progress_read import from_anki

        out = Path(args.output or source.with_suffix(".json"))
        progress.check_output(out, [source], args.force)
        cards, counts = from_anki(source, guids, now)
        data = progress.encode_progress(
            progress.progress_document(cards, now, progress.DEFAULT_NEW_PER_DAY)
        )
        progress.write_output(out, data)
        print(
            f"wrote {out}: {counts['known']} reviewed cards; {counts['new']} never reviewed; "
            f"{counts['unknown']} cards the course does not know ignored"
            + (
                f"; {counts['damaged']} with values the page cannot read left out"
                if counts["damaged"]
                else ""
            )
            + (
                f"; {counts['estimated']} without an FSRS memory state (estimated)"
                if counts["estimated"]
                else ""
            )
            + ". On the Review page: Progress and settings > Import progress."
        )
        return 0
    document = progress.read_progress(source, now)
    package = deck.build_apkg(
        course, timestamp=course_config.timestamp(args.course, course.config), root=args.course
    )
    if args.direction == "into-anki":
        from .anki.progress_merge import into_anki

        if not args.collection:
            raise progress.ProgressError(
                "into-anki needs the collection: Anki's collection.anki2 in your profile's folder"
            )
        counts = into_anki(Path(args.collection), document["cards"], package, guids, now)
        if not counts["notes_added"] + counts["scheduled"] + counts["reviews_added"]:
            print(
                f"{args.collection}: nothing moved: Anki already has every review in {source}"
                f" ({counts['kept']} cards reviewed there as late or later keep Anki's schedule)."
                f" Anki's backup from before: {counts['backup']}."
            )
            return 0
        print(
            f"{args.collection}: {counts['notes_added']} course notes added; "
            f"{counts['scheduled']} cards given the site's schedule; {counts['kept']} kept as "
            f"Anki had them (reviewed there later); {counts['reviews_added']} reviews added"
            + (
                f"; {counts['unknown']} items not in this course left out"
                if counts["unknown"]
                else ""
            )
            + f". Anki's backup from before: {counts['backup']}."
            + ("" if counts["fsrs"] else FSRS_NOTE)
        )
        return 0
    return _to_anki(args, source, document["cards"], package, now)


def _to_anki(args: argparse.Namespace, source: Path, cards: dict, package: bytes, now: int) -> int:
    """``cards`` as a package of the course deck ``package``; what it leaves out is counted by
    its reason (never reviewed, so new in Anki; or not in this version of the course)."""
    from .anki import progress
    from .anki.progress_apkg import reviewed, to_apkg

    out = Path(args.output or source.with_suffix(".apkg"))
    progress.check_output(out, [source], args.force)
    made, scheduled = to_apkg(package, cards, now)
    progress.write_output(out, made)
    unreviewed = len(cards) - len(reviewed(cards))
    unknown = len(cards) - unreviewed - scheduled
    print(
        f"wrote {out}: {scheduled} cards with their schedule"
        + (f"; {unreviewed} never reviewed (new in Anki)" if unreviewed else "")
        + (f"; {unknown} not in this version of the course left out" if unknown else "")
        + ". In Anki: File > Import, with 'Import any learning progress' ticked. That brings the"
        " schedule only into a collection without the course's deck: Anki leaves the cards it"
        " already has as they are. If yours has the deck, close Anki and run python3 -m tools"
        " progress into-anki " + str(source) + " COLLECTION instead." + FSRS_NOTE
    )
    return 0
