"""The course model: what the parser finds in the Markdown sources, and nothing about rendering.

Every item keeps the file and line it came from, so that any renderer or check can point a
course author at the exact place to fix. Items are immutable; the parser builds them once and
every renderer (site, deck, check) reads the same objects, so site and deck cannot disagree.
"""

from __future__ import annotations

import functools
import hashlib
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, ClassVar

LANGUAGES = {"en": "English", "ur": "اردو"}

# Arabic-script blocks (Urdu is written in them): Arabic, Arabic Supplement, Arabic Extended-A,
# and the two presentation-form blocks.
_ARABIC_SCRIPT = re.compile("[\u0600-\u06ff\u0750-\u077f\u08a0-\u08ff\ufb50-\ufdff\ufe70-\ufeff]")


def script_lang(text: str) -> str:
    """The language a piece of course text is in: ``ur`` if it holds Arabic script, else ``en``.

    Direction is decided from the script, not from the first strong character, because Anki's and
    the browser's ``dir="auto"`` read an Urdu line that starts with "PyTorch" as left-to-right.
    """
    return "ur" if _ARABIC_SCRIPT.search(text) else "en"


# markdown-it's ``$$`` math as the site's (pymdownx.arithmatex) reads it, for every course
# tokenizer (the parser's, the renderer's): never across a blank line, where Python-Markdown
# splits blocks first and shows the lines as prose. Read on to the next ``$$``, card lines the
# site shows as text would be math to the parser, and missing from the deck.
MATH_OPTIONS = {"allow_blank_lines": False}

# TeX by allow-list: only commands that typeset math. MathJax (in Anki) acts on commands that
# carry links, styles, classes, raw HTML, Unicode escapes, extensions or macros (\href, \bbox,
# \style, \class, \cssId, \unicode, \require, \html..., \def, \csname), and fetches what
# some of them name on every review; latex2mathml turns some into attributes. So any command not
# listed here is refused: the parser with file and line, the renderers again for math it does
# not see. Add a command only when it renders math and nothing else.
_TEX_COMMANDS = frozenset(
    re.findall(
        r"\S+",
        """
    alpha beta gamma delta epsilon varepsilon zeta eta theta vartheta iota kappa lambda mu nu xi
    pi varpi rho varrho sigma varsigma tau upsilon phi varphi chi psi omega Gamma Delta Theta
    Lambda Xi Pi Sigma Upsilon Phi Psi Omega
    frac dfrac tfrac sqrt binom text mathrm mathbf mathit mathsf mathtt mathcal mathbb boldsymbol
    operatorname left right big Big bigg Bigg bigl bigr Bigl Bigr middle
    overline underline hat widehat bar vec tilde widetilde dot ddot overbrace underbrace
    sum prod int iint oint lim limits nolimits infty partial nabla forall exists emptyset
    cdot cdots ldots dots vdots ddots times div pm mp ast star circ bullet odot otimes oplus
    le leq ge geq ne neq approx sim simeq equiv propto ll gg in notin ni subset subseteq
    supset supseteq cup cap setminus land lor lnot neg wedge vee mid parallel perp
    to rightarrow leftarrow leftrightarrow Rightarrow Leftarrow Leftrightarrow mapsto implies iff
    uparrow downarrow longrightarrow longleftarrow
    lVert rVert lvert rvert Vert vert lfloor rfloor lceil rceil langle rangle lbrace rbrace
    top bot ell prime hbar Re Im aleph
    sin cos tan log ln exp max min arg sup inf det dim ker lg mod bmod pmod gcd argmax argmin
    quad qquad displaystyle textstyle scriptstyle
    begin end
    """,
    )
)
_TEX_ENVIRONMENTS = frozenset(
    re.findall(r"\S+", "matrix pmatrix bmatrix vmatrix Vmatrix smallmatrix cases aligned array")
)
# One-character commands: spacing and escaped symbols.
_TEX_SYMBOLS = frozenset(",;:! {}|\\%#&_$")
_TEX_COMMAND = re.compile(r"\\([A-Za-z]+|.)|\\$", re.DOTALL)
_TEX_ENVIRONMENT = re.compile(r"\\(?:begin|end)\s*\{([^{}]*)\}")


def unsafe_tex(tex: str) -> str | None:
    """The first TeX command in ``tex`` that is not on the allow-list (``href`` for
    ``\\href{...}``, ``begin{x}`` for an environment not listed), or None."""
    for found in _TEX_COMMAND.finditer(tex):
        name = found.group(1)
        if name is None or (name not in _TEX_COMMANDS and name not in _TEX_SYMBOLS):
            return name or "\\"
    for found in _TEX_ENVIRONMENT.finditer(tex):
        if found.group(1).strip() not in _TEX_ENVIRONMENTS:
            return f"begin{{{found.group(1)}}}"
    return None


# What MathJax (Anki's) typesets in a note's text, wherever the text came from: \( \), \[ \]
# and a bare \begin{...}...\end{...} environment.
_MATHJAX_SPAN = re.compile(
    r"\\\((?P<inline>.*?)\\\)|\\\[(?P<display>.*?)\\\]"
    r"|(?P<env>\\begin\s*\{(?P<name>[^{}]*)\}.*?\\end\s*\{(?P=name)\})",
    re.DOTALL,
)
_MATHJAX_OPENING = re.compile(r"\\[(\[]|\\begin\s*\{")


def unsafe_tex_in_text(text: str, *, unclosed: bool = True) -> str | None:
    """What is wrong with the formulas MathJax would find in ``text``, the text as it reaches a
    page or a note (character references decoded, backslash escapes resolved): the first TeX
    command off the allow-list in one of them, or, with ``unclosed``, a delimiter that opens
    a formula the text does not close (a note joins several items' text, so the formula would
    close in another item, unchecked). None when all is well.

    This is the check that a ``\\(`` written in prose (``\\\\(``, ``&#92;(``) or in a quiz
    explanation gets: the same allow-list as ``$...$`` math (:func:`unsafe_tex`)."""
    last = 0
    for found in _MATHJAX_SPAN.finditer(text):
        if unclosed and _MATHJAX_OPENING.search(text, last, found.start()):
            return "an opening delimiter without its closing one"
        tex = found.group("inline") or found.group("display") or found.group("env") or ""
        command = unsafe_tex(tex)
        if command:
            return f"\\{command}"
        last = found.end()
    if unclosed and _MATHJAX_OPENING.search(text, last):
        return "an opening delimiter without its closing one"
    return None


def normalize(text: str) -> str:
    """Case- and whitespace-insensitive form of a question, used for identity and duplicates."""
    return " ".join(text.casefold().split())


@dataclass(frozen=True, order=True)
class Location:
    """A place in a source file: ``path`` relative to the repository root, ``line`` 1-based."""

    path: str
    line: int

    def __str__(self) -> str:
        return f"{self.path}:{self.line}"


class CourseError(Exception):
    """A problem in the course sources, printed as ``path:line: message``."""

    def __init__(self, location: Location, message: str) -> None:
        super().__init__(f"{location}: {message}")
        self.location = location
        self.message = message

    def __reduce__(self) -> tuple[type[CourseError], tuple[Location, str]]:
        """Pickled by its two parts (parsing runs in worker processes)."""
        return CourseError, (self.location, self.message)


@dataclass(frozen=True)
class Span:
    """Lines ``start`` (inclusive) to ``end`` (exclusive), 0-based: a block or an item."""

    start: int
    end: int


def source_hash(lines: list[str] | tuple[str, ...]) -> str:
    """Hash of an item's source lines: what changed, for caches and for dating notes."""
    return hashlib.sha256("\n".join(lines).encode("utf-8")).hexdigest()[:16]


class _Identified:
    """Identity shared by cards and questions: it must survive edits to the answer, because
    Anki keeps a learner's review history only for a note whose GUID stays the same.

    An item never changes once parsed, so its key, anchor and script are worked out once, on
    first use (the site, the review data, the deck and the checks each ask for them).
    """

    explicit_id: str | None
    anchor_prefix: ClassVar[str]

    @property
    def asked(self) -> str:
        raise NotImplementedError

    @functools.cached_property
    def key(self) -> str:
        """Stable identity: the explicit id, else the normalized question."""
        return self.explicit_id or normalize(self.asked)

    @functools.cached_property
    def anchor(self) -> str:
        """The HTML id of the item on its page (deck notes link to it)."""
        return self.explicit_id or self.anchor_prefix + _short_hash(normalize(self.asked))


@dataclass(frozen=True)
class Card(_Identified):
    """A flashcard: one ``Question ::: Answer`` line. Sides are Markdown source text."""

    anchor_prefix: ClassVar[str] = "card-"
    front: str
    back: str
    location: Location
    explicit_id: str | None = None
    span: Span = Span(0, 0)  # its source lines (one line)
    digest: str = ""  # source_hash of those lines

    @property
    def asked(self) -> str:
        return self.front

    @functools.cached_property
    def lang(self) -> str:
        return script_lang(self.front + self.back)


# The label a learner sees beside each shown option, by the question's script: Latin capitals,
# and Extended Arabic-Indic digits for Urdu. They are what the deck's note type numbers its
# option lists with (``list-style-type`` ``upper-latin`` and ``persian`` in ``deck/cards.css``)
# and what the site writes beside each option, so an explanation that names an option by its
# label (``{option:B}``, resolved by the parser) matches what both show.
OPTION_LABELS = {"en": "ABCDEFGHIJKLMNOPQRSTUVWXYZ", "ur": "۱۲۳۴۵۶۷۸۹"}


def option_label(lang: str, index: int) -> str:
    """The label of the option shown at ``index`` (0-based) of a question in ``lang``."""
    labels = OPTION_LABELS.get(lang, OPTION_LABELS["en"])
    return labels[index] if index < len(labels) else str(index + 1)


@dataclass(frozen=True)
class Option:
    text: str
    correct: bool
    location: Location
    letter: str  # its letter in the source's order (A first), whatever order it is shown in

    @functools.cached_property
    def lang(self) -> str:
        return script_lang(self.text)


@dataclass(frozen=True)
class Question(_Identified):
    """One single-choice question of a quiz. Prompt, options and explanation are Markdown.

    ``options`` are in the order learners see them: the source's order, or the one the
    question's ``{order=...}`` attribute gives (each option keeps its source ``letter``). The
    explanation's ``{option:X}`` references are already resolved to the shown labels.
    """

    anchor_prefix: ClassVar[str] = "q-"
    prompt: str
    options: tuple[Option, ...]
    explanation: str
    location: Location
    explicit_id: str | None = None
    explanation_location: Location = Location("", 0)  # where its explanation starts
    span: Span = Span(0, 0)  # its first line up to the next question (the last: up to ':::')
    digest: str = ""  # source_hash of those lines

    @property
    def asked(self) -> str:
        return self.prompt

    @property
    def answer(self) -> int:
        """Index of the correct option (the parser guarantees there is exactly one)."""
        return next(i for i, option in enumerate(self.options) if option.correct)

    @functools.cached_property
    def lang(self) -> str:
        return script_lang(self.prompt)

    def label(self, index: int) -> str:
        """The label shown beside the option at ``index``."""
        return option_label(self.lang, index)


@dataclass(frozen=True)
class Quiz:
    quiz_id: str
    title: str
    lang: str
    questions: tuple[Question, ...]
    location: Location


@dataclass(frozen=True)
class CardGroup:
    """A paragraph made of flashcard lines; the site shows it as one block of cards."""

    cards: tuple[Card, ...]
    location: Location


@dataclass(frozen=True)
class Reference:
    """A link or image address written in a course item (checked course-wide, then rewritten)."""

    url: str
    location: Location
    image: bool = False


@dataclass(frozen=True)
class Embed:
    """A ``::: name args`` directive whose content a renderer produces (e.g. a benchmark table)."""

    name: str
    args: tuple[str, ...]
    location: Location


@dataclass(frozen=True)
class ConsoleExample:
    """A ``console`` fence showing ``$ command`` and the output the page claims it prints."""

    command: str
    output: str
    location: Location


Block = CardGroup | Quiz | Embed


@dataclass(frozen=True)
class Prose:
    """A piece of a page's running text, as its Markdown source: what a learner reads outside
    code, cards, quizzes and solutions. ``paragraph``: a top-level paragraph (not in a list,
    table, quote or admonition); ``after_math``: the block before it is display math, so it may
    go on with that sentence."""

    text: str
    location: Location
    paragraph: bool = False
    after_math: bool = False


@dataclass(frozen=True)
class Heading:
    """A heading as the built page will have it: its id, and its script for direction and font."""

    line: int  # 0-based line of the heading in the page file
    level: int
    anchor: str
    given: bool  # the author wrote the id ({#id}), so the site must not add one
    lang: str
    atx: bool  # a '#' heading (a setext heading cannot take attributes)
    top_level: bool  # not inside a list or quote (the site gives only these a direction)
    text: str = ""  # its Markdown source, without the attribute list


@dataclass
class Page:
    """One Markdown source file and the course items found in it, in source order."""

    path: str  # relative to the repository root, e.g. "docs/lessons/01-x.md"
    docs_path: str  # relative to docs/, as MkDocs names the page
    title: str
    blocks: list[tuple[Span, Block]] = field(default_factory=list)
    examples: list[ConsoleExample] = field(default_factory=list)
    references: list[Reference] = field(default_factory=list)  # links and images, prose too
    anchors: frozenset[str] = frozenset()  # ids on the built page: headings, cards, questions
    headings: tuple[Heading, ...] = ()
    lines: tuple[str, ...] = ()  # the file's source lines (no byte-order mark), as parsed
    prose: tuple[Prose, ...] = ()  # its running text, in source order (the check's cues)

    @property
    def slug(self) -> str:
        return self.docs_path.rsplit("/", 1)[-1].removesuffix(".md")

    @property
    def cards(self) -> list[Card]:
        return [card for _, b in self.blocks if isinstance(b, CardGroup) for card in b.cards]

    @property
    def quizzes(self) -> list[Quiz]:
        return [b for _, b in self.blocks if isinstance(b, Quiz)]

    @property
    def embeds(self) -> list[Embed]:
        return [b for _, b in self.blocks if isinstance(b, Embed)]


@dataclass(frozen=True)
class SiteSyntax:
    """What the site's toolchain decides about the Markdown the parser checks, handed to the
    parser by whoever runs it (:data:`tools.plugin.syntax.MKDOCS`): the course layer imports no
    site generator."""

    heading_id: Callable[[str, set[str]], str]  # a heading's plain text -> its unique id
    urdu_heading_id: Callable[[str], str]  # an Urdu heading's text -> its slug ("" if none)
    includes: Callable[[list[str]], list[tuple[int, str]]]  # lines -> (line, include target)
    # an include target -> (the file it opens, the section it names or None); None: no file
    include_target: Callable[[str], tuple[str, str | None] | None]
    has_section: Callable[[list[str], str], bool]  # whether lines mark a named section
    # a page's text -> the lines at its top read as page metadata, and their YAML (None when
    # they are MultiMarkdown-style "Key: value" lines); (0, None) when it has none
    metadata: Callable[[str], tuple[int, str | None]]
    # a page's path in the docs folder -> its key in the order the site generator reads pages
    reading_order: Callable[[str], Any]


@dataclass(frozen=True)
class CourseConfig:
    """What makes a course this course (``extra.course`` in its ``mkdocs.yml``, read by
    :func:`tools.course.config.load`)."""

    deck_name: str
    deck_file: str  # relative to the site root
    guid_namespace: str
    note_type_ids: dict[str, int]
    languages: tuple[str, ...]
    site_url: str  # "" when the course has none: the deck's notes then carry no Source link
    active_files: tuple[str, ...] = ()  # docs/ files that run in a browser, reviewed (published.py)
    practice_download: str = ""  # the practice workspace's zip on the site; "" when none
    deck_templates: str = "deck"  # the course's folder of note templates, from its root


@dataclass
class Course:
    pages: list[Page]
    errors: list[CourseError]
    config: CourseConfig | None = None  # None only when mkdocs.yml's settings have errors

    def page(self, docs_path: str) -> Page | None:
        return next((p for p in self.pages if p.docs_path == docs_path), None)

    @property
    def cards(self) -> list[Card]:
        return [card for page in self.pages for card in page.cards]

    @property
    def questions(self) -> list[Question]:
        return [q for page in self.pages for quiz in page.quizzes for q in quiz.questions]


def _short_hash(text: str) -> str:
    return hashlib.sha1(text.encode("utf-8")).hexdigest()[:10]
