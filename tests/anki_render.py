"""Show Anki cards in Chromium the way Anki does, on a machine with no Urdu font.

Shared by tests/test_deck_fonts.py and tests/perf/bench_deck_fonts.py. Anki puts the rendered
card (``card.question()`` / ``card.answer()``, which start with the note type's CSS) into a page
whose body has the class ``card`` and resolves relative URLs against the collection's media
folder. Here that page and the media folder are served inside the browser (Playwright routes, no
network) from one made-up origin, so the CSS's ``url("_font.woff2")`` loads the imported file.

The browser sees only fonts without Urdu: ``FONTCONFIG_FILE`` points Chromium at a configuration
whose one font folder holds a link to the system's Latin sans-serif font. A test that asserts the
card's own font is used then cannot pass thanks to an Urdu font installed on the machine.
"""

from __future__ import annotations

import html
import os
import shutil
import subprocess
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit

MEDIA_ORIGIN = "http://anki-media.test/"
CARD_PAGE = "__card.html"
URDU_FAMILY = "Noto Nastaliq Urdu"


def fontconfig_without_urdu(folder: Path) -> dict[str, str]:
    """Write a fontconfig setup under ``folder`` holding one Latin font; return the environment.

    Raises RuntimeError (with the reason) when fontconfig's tools are missing, no Latin font is
    found, or the result still offers a font for Urdu.
    """
    if not (shutil.which("fc-match") and shutil.which("fc-list")):
        raise RuntimeError("fontconfig's fc-match and fc-list are not installed")
    latin = subprocess.run(
        ["fc-match", "-f", "%{file}", "sans-serif:lang=en"], capture_output=True, text=True
    ).stdout.strip()
    if not latin or not Path(latin).is_file():
        raise RuntimeError("fontconfig finds no Latin sans-serif font")
    fonts = folder / "fonts"
    fonts.mkdir(parents=True, exist_ok=True)
    link = fonts / Path(latin).name
    if not link.exists():
        link.symlink_to(latin)
    config = folder / "fonts.conf"
    config.write_text(
        '<?xml version="1.0"?>\n<!DOCTYPE fontconfig SYSTEM "fonts.dtd">\n<fontconfig>\n'
        f"  <dir>{html.escape(str(fonts))}</dir>\n"
        f"  <cachedir>{html.escape(str(folder / 'cache'))}</cachedir>\n"
        "</fontconfig>\n",
        "utf-8",
    )
    env = dict(os.environ, FONTCONFIG_FILE=str(config))
    urdu = subprocess.run(
        ["fc-list", ":lang=ur", "family"], capture_output=True, text=True, env=env, check=True
    ).stdout.strip()
    if urdu:
        raise RuntimeError(f"the font configuration still has Urdu fonts: {urdu}")
    return env


def card_page(card_html: str) -> str:
    """The document Anki shows a card side in: body class ``card``, the side inside ``#qa``."""
    return (
        '<!doctype html><html><head><meta charset="utf-8"></head>'
        f'<body class="card"><div id="qa">{card_html}</div></body></html>'
    )


def serve_media(context: Any, media_dir: Path, pages: dict[str, str]) -> list[str]:
    """Answer ``MEDIA_ORIGIN`` from ``media_dir`` (plus ``pages``); return every URL requested.

    Any other address gets a failed request, so a card that reached for the network shows up.
    """
    requested: list[str] = []

    def fulfill(route: Any) -> None:
        url = route.request.url
        requested.append(url)
        parts = urlsplit(url)
        name = unquote(parts.path).lstrip("/")
        if url.startswith(MEDIA_ORIGIN) and name in pages:
            route.fulfill(body=pages[name], content_type="text/html; charset=utf-8")
            return
        file = (media_dir / name).resolve()
        if url.startswith(MEDIA_ORIGIN) and file.is_file() and file.parent == media_dir.resolve():
            route.fulfill(path=str(file))
        else:
            route.abort()

    context.route("**/*", fulfill)
    return requested


def launch_without_urdu(playwright: Any, folder: Path) -> Any:
    """Headless Debian Chromium that sees only the fonts of :func:`fontconfig_without_urdu`.

    Raises RuntimeError (with the reason) when Chromium or a suitable font setup is missing.
    """
    from conftest import CHROMIUM_ARGS, chromium_path

    executable = chromium_path()
    if executable is None:
        raise RuntimeError("Chromium is not installed (Debian: apt-get install chromium)")
    env = fontconfig_without_urdu(folder)
    return playwright.chromium.launch(
        executable_path=executable, headless=True, args=CHROMIUM_ARGS, env=env
    )


# For every Urdu element of the card with Arabic-script text in it: that text's width in the
# element's font and in its fallback stack (its font-family without the first, the course's face),
# each measured as one unwrapped line inside the element; then the state of the course's face.
MEASURE_URDU = """(family) => {
  const measure = (urdu) => {
    const probe = document.createElement('span');
    probe.style.whiteSpace = 'nowrap';
    probe.textContent = urdu.textContent.trim();
    urdu.prepend(probe);
    const style = getComputedStyle(urdu);
    const own = probe.getBoundingClientRect().width;
    probe.style.fontFamily = style.fontFamily.split(',').slice(1).join(',');
    const fallback = probe.getBoundingClientRect().width;
    probe.remove();
    return {
      tag: urdu.tagName.toLowerCase(),
      text: probe.textContent,
      stack: style.fontFamily,
      lineHeight: parseFloat(style.lineHeight) / parseFloat(style.fontSize),
      own,
      fallback,
      check: document.fonts.check(`20px "${family}"`, probe.textContent),
    };
  };
  return {
    runs: [...document.querySelectorAll('#qa [lang="ur"]')]
      .filter((el) => /[\u0600-\u06ff]/.test(el.textContent)).map(measure),
    faces: [...document.fonts]
      .filter((f) => f.family.replace(/["']/g, '') === family)
      .map((f) => [f.weight, f.status]),
  };
}"""
