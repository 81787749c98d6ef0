# Authors: The sklearn_perceptrons developers
# SPDX-License-Identifier: BSD-3-Clause
"""Sphinx configuration of the sklearn_perceptrons documentation.

Build from the repository root, against the *installed* package::

    pip install ".[docs]"
    sphinx-build -W --keep-going -b html docs docs/_build/html

The gallery (``examples/plot_*.py``) is executed on every build, so a
picture or an example that no longer matches the code fails the build.
"""

import importlib
import importlib.util
import inspect
import os
import re
import sys
import warnings

import sklearn_perceptrons

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)

# -- Project -----------------------------------------------------------------

project = "sklearn_perceptrons"
author = "The sklearn_perceptrons developers"
copyright = "The sklearn_perceptrons developers, BSD-3-Clause"
release = sklearn_perceptrons.__version__
version = ".".join(release.split(".")[:2])

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.mathjax",
    # Copies MathJax 3 (scripts and fonts) into _static/mathjax/ and points
    # mathjax_path there, so that formulas render without network access.
    "sphinx-mathjax-offline",
    "numpydoc",
    "sphinx_gallery.gen_gallery",
]

# The site loads nothing from another host (.ci/run checks the built pages
# in headless Chromium with docs/check_offline.py).
mathjax_path = "mathjax/tex-chtml.js"

templates_path = ["_templates"]
exclude_patterns = ["_build", "_generated", "Thumbs.db", ".DS_Store",
                    "sg_execution_times.rst", "auto_examples/sg_execution_times.rst"]
html_theme = "alabaster"
html_static_path = ["_static"]
html_theme_options = {
    "description": "Perceptrons for the scikit-learn ecosystem",
    "fixed_sidebar": True,
    "page_width": "1100px",
    "sidebar_width": "260px",
}
html_show_sourcelink = False

# -- API reference -------------------------------------------------------------

autosummary_generate = True
autodoc_default_options = {"members": True}
autodoc_typehints = "none"
# numpydoc renders Parameters/Attributes/...; the class template lists the
# methods itself, so numpydoc must not add member tables (whose entries
# would have no page of their own).
numpydoc_show_class_members = False
numpydoc_class_members_toctree = False
numpydoc_validation_checks = set()

# sklearn_perceptrons.distributed needs Dask, an optional dependency (the
# "dask" extra).  Without it, its classes are documented from their
# docstrings with Dask mocked, so that the build never depends on it.
if importlib.util.find_spec("dask") is None:
    autodoc_mock_imports = ["dask", "distributed", "dask_ml"]

# -- Gallery -------------------------------------------------------------------

sphinx_gallery_conf = {
    "examples_dirs": os.path.join(ROOT, "examples"),
    "gallery_dirs": "auto_examples",
    # Only plot_*.py scripts are run (all of them, on every build); scripts
    # owned elsewhere that need large data or a cluster stay out.
    "filename_pattern": r"/plot_",
    "ignore_pattern": r"(__init__|out_of_core_memmap)\.py$",
    "within_subsection_order": "ExampleTitleSortKey",
    "doc_module": ("sklearn_perceptrons",),
    "backreferences_dir": os.path.join("_generated", "backreferences"),
    "reference_url": {"sklearn_perceptrons": None},
    "remove_config_comments": True,
    "min_reported_time": 1,
    "abort_on_example_error": False,
    "only_warn_on_example_error": False,
    "plot_gallery": "True",
    "download_all_examples": False,
    "show_memory": False,
    # Its page of execution times loads jQuery and DataTables from CDNs.
    "write_computation_times": False,
}

# The gallery runs the examples with matplotlib's non-interactive backend.
os.environ.setdefault("MPLBACKEND", "Agg")
warnings.filterwarnings(
    "ignore", category=UserWarning,
    message="Matplotlib is currently using agg, which is a non-GUI backend",
)

# -- Generated pages -------------------------------------------------------------


def _write_if_changed(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    if os.path.exists(path):
        with open(path, encoding="utf-8") as f:
            if f.read() == text:
                return
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)


# The Benchmarks page shows the full report of the last run of the main job
# on the machine that builds the pages: benchmarks/run.py writes it to
# benchmarks/results.txt (ignored by git; CI runs the main job before it
# builds the documentation).  No results file is committed: one run's
# figures would go stale with the next change.
_RESULTS = os.path.join(ROOT, "benchmarks", "results.txt")


def _benchmark_results():
    if not os.path.exists(_RESULTS):
        return (
            "No run of the main job on the machine that built these pages "
            "(``benchmarks/results.txt`` is missing): run ``python "
            "benchmarks/run.py``, then build the documentation again to see "
            "its report here.\n"
        )
    with open(_RESULTS, encoding="utf-8") as f:
        report = f.read().rstrip()
    body = "\n".join("   " + line if line else "" for line in report.splitlines())
    return (
        "The report of the last run of the main job on the machine that "
        "built these pages (``benchmarks/results.txt``, as ``python "
        "benchmarks/run.py`` wrote it; its first lines say which version, "
        "mode and machine):\n\n.. code-block:: text\n\n" + body + "\n"
    )


_write_if_changed(
    os.path.join(HERE, "_generated", "benchmark_results.rst"),
    _benchmark_results(),
)


# The module map of developers.rst: the line count of every source file of
# the package, as the substitution |<path in the package>| (e.g.
# |_core/base.py|).
_PACKAGE_DIR = os.path.join(ROOT, "sklearn_perceptrons")
_SOURCE_ENDINGS = (".py", ".pyx", ".pxd", ".pxi", ".h", ".c")


def _package_sources():
    """The source files of the package and its subpackages, as paths
    relative to the package (not the C that Cython generates)."""
    sources = []
    for folder, dirs, names in os.walk(_PACKAGE_DIR):
        dirs[:] = sorted(d for d in dirs if not d.startswith(("__", ".")))
        generated = {name[:-4] + ".c" for name in names if name.endswith(".pyx")}
        relative = os.path.relpath(folder, _PACKAGE_DIR)
        sources += [
            name if relative == "." else f"{relative}/{name}"
            for name in sorted(names)
            if name.endswith(_SOURCE_ENDINGS) and name not in generated
        ]
    return sources


def _line_count(name):
    with open(os.path.join(_PACKAGE_DIR, name), encoding="utf-8") as f:
        return sum(1 for _ in f)


rst_epilog = "\n".join(
    f".. |{name}| replace:: {_line_count(name)}" for name in _package_sources()
)


def _check_module_map(app):
    """Warn (an error under -W) when a source file of the package is missing
    from the module map of developers.rst."""
    with open(os.path.join(HERE, "developers.rst"), encoding="utf-8") as f:
        text = f.read()
    from sphinx.util import logging

    logger = logging.getLogger(__name__)
    for name in _package_sources():
        if f"|{name}|" not in text:
            logger.warning(
                f"sklearn_perceptrons/{name} is missing from the module map "
                "of docs/developers.rst"
            )


def _public_names():
    """Every documented public name: ``__all__`` and the public modules."""
    names = set()
    for name in sklearn_perceptrons.__all__:
        if name.startswith("__"):
            continue
        obj = getattr(sklearn_perceptrons, name)
        if inspect.ismodule(obj):
            names.update(f"{obj.__name__}.{member}" for member in obj.__all__)
        else:
            names.add(f"sklearn_perceptrons.{name}")
    for module_name in ("bounds", "feasibility", "distributed"):
        full_name = f"sklearn_perceptrons.{module_name}"
        try:
            spec = importlib.util.find_spec(full_name)
        except ImportError:
            spec = None
        if spec is None:
            continue
        with open(spec.origin, encoding="utf-8") as f:
            source = f.read()
        match = re.search(r"^__all__ = \[(.*?)\]", source, re.S | re.M)
        if match:
            names.update(
                f"{full_name}.{member}"
                for member in re.findall(r"[\"'](\w+)[\"']", match.group(1))
            )
    return names


def _check_api_reference(app):
    """Warn (an error under -W) when a public name is missing from api.rst."""
    with open(os.path.join(HERE, "api.rst"), encoding="utf-8") as f:
        text = f.read()
    listed = set()
    module = None
    for line in text.splitlines():
        stripped = line.strip()
        if stripped.startswith(".. currentmodule::"):
            module = stripped.split("::", 1)[1].strip()
        elif module and re.fullmatch(r"[A-Za-z_][\w.]*", stripped):
            listed.add(f"{module}.{stripped}")
    from sphinx.util import logging

    logger = logging.getLogger(__name__)
    for name in sorted(_public_names() - listed):
        logger.warning(
            "%s is public but missing from docs/api.rst: add it to the API "
            "reference.", name,
        )


# A word ending in "_" such as ``n_mistakes_`` (a fitted attribute) is read by
# reStructuredText as a hyperlink reference ("Unknown target name") when a
# docstring writes it bare: in a numpydoc type (``ndarray of shape
# (n_features_in_,)``) or in prose.  Escape such words before numpydoc renders
# the docstring, except in names of "name : type" lines, inline literals and
# roles, doctests and their output, and literal blocks.
_TRAILING_UNDERSCORE = re.compile(
    r"(?<![\w\\])([A-Za-z]\w*?)_(?=[\s,.;:)\]]|$)"
    r"(?!\s+:(?:\s|$))"  # not the name of a "name : type" line
)
# Inline literals and roles (which may span lines), and `text <url>`_ links.
_QUOTED = re.compile(r"(``.*?``|:\w+:`[^`]*`|`[^`]*`_{0,2})", re.S)


def _escape_prose(text):
    parts = _QUOTED.split(text)
    return "".join(part if k % 2 else _TRAILING_UNDERSCORE.sub(r"\1\\_", part)
                   for k, part in enumerate(parts))


def _escape_trailing_underscores(app, what, name, obj, options, lines):
    prose = []  # indices of the lines that are neither code nor doctest
    literal_indent = None  # the indentation that a literal block is under
    in_doctest = False
    for i, line in enumerate(lines):
        stripped = line.strip()
        indent = len(line) - len(line.lstrip())
        if literal_indent is not None:
            if not stripped or indent > literal_indent:
                continue
            literal_indent = None
        if stripped.startswith((">>>", "...")):
            in_doctest = True
            continue
        if in_doctest:
            if stripped:
                continue  # the expected output of a doctest
            in_doctest = False
        prose.append(i)
        if stripped.endswith("::"):
            literal_indent = indent
    # Runs of consecutive prose lines are escaped together, so that an inline
    # literal broken across two lines stays a literal.
    runs, start = [], 0
    for k in range(1, len(prose) + 1):
        if k == len(prose) or prose[k] != prose[k - 1] + 1:
            runs.append(prose[start:k])
            start = k
    for run in runs:
        if run:
            text = _escape_prose("\n".join(lines[i] for i in run)).split("\n")
            for i, new_line in zip(run, text):
                lines[i] = new_line


# Methods inherited from scikit-learn (``score``, ``get_params``, ...) keep
# their docstrings, which refer to labels of scikit-learn's own documentation.
# Without network access (no intersphinx), resolve those few to links.
_SKLEARN_DOC = "https://scikit-learn.org/stable/"
_SKLEARN_LABELS = {
    ("ref", "accuracy_score"): "modules/model_evaluation.html#accuracy-score",
    ("ref", "metadata_routing"): "metadata_routing.html",
    ("term", "meta-estimator"): "glossary.html#term-meta-estimator",
}


def _sklearn_reference(app, env, node, contnode):
    target = _SKLEARN_LABELS.get((node.get("reftype"), node.get("reftarget")))
    if target is None:
        return None
    from docutils import nodes

    reference = nodes.reference("", "", internal=False, refuri=_SKLEARN_DOC + target)
    reference += contnode
    return reference


def _run_doctests(app):
    """Run the ``>>>`` examples of the hand-written pages; a failure warns."""
    import doctest

    from sphinx.util import logging

    logger = logging.getLogger(__name__)
    for page in ("user_guide.rst",):
        result = doctest.testfile(
            os.path.join(HERE, page), module_relative=False,
            optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE,
        )
        if result.failed:
            logger.warning("%d doctest(s) of docs/%s failed (output above).",
                           result.failed, page)


def setup(app):
    app.connect("builder-inited", _check_api_reference)
    app.connect("builder-inited", _check_module_map)
    app.connect("builder-inited", _run_doctests)
    app.connect("missing-reference", _sklearn_reference)
    # Before numpydoc's own handler (priority 500) parses the sections.
    app.connect("autodoc-process-docstring", _escape_trailing_underscores,
                priority=400)
    # Which installation is documented (the installed package, in CI).
    location = os.path.dirname(sklearn_perceptrons.__file__)
    print(f"sklearn_perceptrons {release} from {location}", file=sys.stderr)
