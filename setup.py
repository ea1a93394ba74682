"""Build hook: ship the sample repository inside the package.

The canonical copy is the top-level ``sample-repo/`` folder. A regular build copies it
to ``octui/sample_repo`` in the build tree, so ``pip install .`` followed by ``octui``
works anywhere; an editable install finds ``sample-repo/`` beside the package at run
time instead (``octui.tui.sample``). Everything else is declared in pyproject.toml.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

HERE = Path(__file__).resolve().parent
SAMPLE = HERE / "sample-repo"


class build_py_with_sample(build_py):
    def run(self) -> None:
        super().run()
        if not SAMPLE.is_dir():
            return
        target = Path(self.build_lib) / "octui" / "sample_repo"
        if target.exists():
            shutil.rmtree(target)
        shutil.copytree(SAMPLE, target, ignore=shutil.ignore_patterns("__pycache__"))


setup(cmdclass={"build_py": build_py_with_sample})
