"""The parser's rules, one module per kind of item or page check, as markdown-it-py keeps one
module per block rule (``rules_block/``).

:mod:`.table` says which rule reads which top-level token, and which page rules run after the
blocks and in what order; :func:`tools.course.parser.parse_page` walks the tokens with it. Each
rule reads a :class:`.source.PageState` (the page's source lines, tokens and the page being
filled in) and adds what it finds to the page, or a :class:`~tools.course.model.CourseError`
with file and line to the source's errors.
"""
