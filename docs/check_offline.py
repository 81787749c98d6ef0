# Authors: The sklearn_perceptrons developers
# SPDX-License-Identifier: BSD-3-Clause
"""Check that the built documentation works offline, in a real browser.

Usage (after ``sphinx-build -b html docs docs/_build/html``)::

    python docs/check_offline.py docs/_build/html [--screenshot page.png]

1. No page loads an asset (script, style sheet, image, frame, font) from
   another host: every ``src``, every ``<link href>`` that is not a plain
   hyperlink and every ``url(...)`` of the style sheets is local.
2. Every page with formulas is opened in headless Chromium with all host
   names unresolvable (no network), and after its scripts ran: MathJax typeset
   each formula (one ``mjx-container`` per formula, no ``mjx-merror``), and no
   TeX delimiter such as ``\\(`` is left in the visible text.

Exits 1 with the reasons when a check fails (or when no Chromium is found).
"""

import argparse
import glob
import html.parser
import os
import re
import shutil
import subprocess
import sys
import tempfile

EXTERNAL = re.compile(r"^\s*(https?:)?//", re.I)
# A <link> whose rel is one of these only names a page; the others load it.
NAVIGATION_RELS = {"index", "search", "next", "prev", "canonical", "author",
                   "license", "help", "alternate", "top", "up", "first", "last"}
CSS_URL = re.compile(r"""(?:url\(\s*['"]?|@import\s+['"])([^'")\s]+)""", re.I)
VOID_ELEMENTS = {"area", "base", "br", "col", "embed", "hr", "img", "input",
                 "link", "meta", "source", "track", "wbr"}
TEX_DELIMITERS = re.compile(r"\\\(|\\\)|\\\[|\\\]|\$\$|\\begin\{")


class _Page(html.parser.HTMLParser):
    """The external assets, the formulas and the visible text of a page."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.external, self.n_math, self.n_typeset, self.n_errors = [], 0, 0, 0
        self.text, self._hidden = [], 0

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        for name in ("src", "data", "poster", "srcset"):
            if attrs.get(name) and EXTERNAL.match(attrs[name]):
                self.external.append(f"<{tag} {name}={attrs[name]}>")
        if tag == "link" and attrs.get("href") and EXTERNAL.match(attrs["href"]):
            rels = set((attrs.get("rel") or "").lower().split())
            if not rels or not rels <= NAVIGATION_RELS:
                self.external.append(f"<link rel={attrs.get('rel')} "
                                     f"href={attrs['href']}>")
        if attrs.get("style"):
            self.external += [u for u in CSS_URL.findall(attrs["style"])
                              if EXTERNAL.match(u)]
        classes = (attrs.get("class") or "").split()
        if "math" in classes:
            self.n_math += 1
        if tag == "mjx-container":
            self.n_typeset += 1
        if tag == "mjx-merror":
            self.n_errors += 1
        if tag not in VOID_ELEMENTS and (self._hidden or tag in (
                "script", "style", "mjx-container", "mjx-assistive-mml",
                "template")):
            self._hidden += 1

    def handle_endtag(self, tag):
        if self._hidden and tag not in VOID_ELEMENTS:
            self._hidden -= 1

    def handle_data(self, data):
        if not self._hidden:
            self.text.append(data)


def _parse(text):
    page = _Page()
    page.feed(text)
    page.close()
    return page


def static_problems(site):
    """External assets named by the pages and the style sheets."""
    problems = []
    for path in sorted(glob.glob(os.path.join(site, "**", "*.html"), recursive=True)):
        with open(path, encoding="utf-8") as f:
            page = _parse(f.read())
        problems += [f"{os.path.relpath(path, site)}: loads {asset}"
                     for asset in page.external]
    for path in sorted(glob.glob(os.path.join(site, "_static", "**", "*.css"),
                                 recursive=True)):
        with open(path, encoding="utf-8", errors="replace") as f:
            urls = CSS_URL.findall(f.read())
        problems += [f"{os.path.relpath(path, site)}: loads {url}"
                     for url in urls if EXTERNAL.match(url)]
    return problems


def find_chromium():
    for name in ("chromium", "chromium-browser", "google-chrome", "chrome"):
        found = shutil.which(name)
        if found:
            return found
    return None


def _chromium(browser, url, *args):
    """Run headless Chromium offline on ``url``; returns its standard output."""
    with tempfile.TemporaryDirectory() as profile:
        command = [
            browser, "--headless", "--no-sandbox", "--disable-gpu",
            "--disable-dev-shm-usage", f"--user-data-dir={profile}",
            # Every host name fails to resolve: the page gets no network.
            "--host-resolver-rules=MAP * ~NOTFOUND",
            # Let the deferred MathJax script load and typeset before the dump.
            "--virtual-time-budget=20000", *args, url,
        ]
        result = subprocess.run(command, capture_output=True, text=True,
                                timeout=180, stdin=subprocess.DEVNULL)
    if result.returncode != 0:
        raise RuntimeError(f"{' '.join(command)} failed:\n{result.stderr[-2000:]}")
    return result.stdout


def browser_problems(site, browser):
    """Formulas left untypeset or TeX left visible, page by page."""
    problems, checked = [], 0
    for path in sorted(glob.glob(os.path.join(site, "**", "*.html"), recursive=True)):
        with open(path, encoding="utf-8") as f:
            n_math = _parse(f.read()).n_math
        if n_math == 0:
            continue
        name = os.path.relpath(path, site)
        page = _parse(_chromium(browser, "file://" + os.path.abspath(path),
                                "--dump-dom"))
        checked += 1
        if page.n_typeset < n_math:
            problems.append(f"{name}: {page.n_typeset} of {n_math} formulas "
                            "typeset by MathJax")
        if page.n_errors:
            problems.append(f"{name}: {page.n_errors} MathJax errors")
        leftover = TEX_DELIMITERS.findall("".join(page.text))
        if leftover:
            problems.append(f"{name}: TeX left visible: {sorted(set(leftover))}")
        print(f"  {name}: {page.n_typeset} of {n_math} formulas typeset offline")
    if checked == 0:
        problems.append("no page has formulas: is the site built?")
    return problems


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("site", help="the built HTML folder")
    parser.add_argument("--screenshot", help="also save a screenshot of the "
                        "user guide (a page with formulas) to this PNG file")
    args = parser.parse_args(argv)
    if not os.path.exists(os.path.join(args.site, "index.html")):
        print(f"{args.site} has no index.html: build the site first",
              file=sys.stderr)
        return 1
    problems = static_problems(args.site)
    browser = find_chromium()
    if browser is None:
        problems.append("no Chromium found (Debian: apt-get install chromium)")
    else:
        print(f"Opening the pages with formulas in {browser}, offline:")
        problems += browser_problems(args.site, browser)
        if args.screenshot:
            _chromium(browser, "file://" + os.path.abspath(
                os.path.join(args.site, "user_guide.html")),
                "--window-size=1400,1600",
                f"--screenshot={os.path.abspath(args.screenshot)}")
            print(f"Screenshot of the user guide: {args.screenshot}")
    for problem in problems:
        print("PROBLEM:", problem, file=sys.stderr)
    print("The documentation works offline." if not problems else
          f"{len(problems)} problem(s): the documentation does not work offline.")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
