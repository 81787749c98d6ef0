# Authors: The sklearn_perceptrons developers
# SPDX-License-Identifier: BSD-3-Clause
"""What a new user meets in the first hour says what to do: importing from
an unbuilt source tree, a misspelt parameter."""

import os
import shutil
import subprocess
import sys

import pytest

import sklearn_perceptrons
from sklearn_perceptrons import (
    KernelPerceptron,
    MarginPerceptron,
    OneVsAllPerceptron,
    OneVsOnePerceptron,
    Perceptron,
    SecondOrderPerceptron,
    VotedPerceptron,
)
from sklearn_perceptrons.distributed import ParameterMixing

PUBLIC = [KernelPerceptron, MarginPerceptron, OneVsAllPerceptron,
          OneVsOnePerceptron, Perceptron, SecondOrderPerceptron,
          VotedPerceptron, ParameterMixing]


@pytest.mark.parametrize("cls", PUBLIC, ids=lambda c: c.__name__)
def test_a_misspelt_parameter_names_the_class(cls):
    with pytest.raises(TypeError) as error:
        cls(n_job=2)
    message = str(error.value)
    assert message.startswith(f"{cls.__name__}.__init__()")
    assert "n_job" in message and "_Base" not in message


def test_importing_an_unbuilt_source_tree_says_what_to_do(tmp_path):
    # The package's sources as a clone has them: no compiled module.
    package = os.path.dirname(sklearn_perceptrons.__file__)
    shutil.copytree(package, tmp_path / "sklearn_perceptrons",
                    ignore=shutil.ignore_patterns("*.so", "*.pyd", "*.c",
                                                  "__pycache__"))
    (tmp_path / "setup.py").write_text("")
    result = subprocess.run(
        [sys.executable, "-c", "import sklearn_perceptrons"], cwd=tmp_path,
        capture_output=True, text=True,
        env={**os.environ, "PYTHONPATH": ""},
    )
    assert result.returncode != 0
    last = result.stderr.strip().splitlines()
    error = "\n".join(last[last.index(next(line for line in last
                                           if line.startswith("ImportError"))):])
    assert "is imported from" in error and "a source tree" in error
    assert "python setup.py build_ext --inplace" in error
    assert "run Python from another folder" in error
