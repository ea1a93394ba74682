"""The Pydantic front-matter model lives apart from the plain model, and agrees with it."""

from __future__ import annotations

import subprocess
import sys

from octui.core.model import KNOWN_FIELDS, OBJECT_FIELDS
from octui.core.validation import FrontMatter


def test_known_fields_are_the_models_fields_in_bundle_order() -> None:
    assert tuple(FrontMatter.model_fields) == OBJECT_FIELDS
    assert frozenset(FrontMatter.model_fields) == KNOWN_FIELDS


def test_the_plain_model_and_the_loader_import_no_pydantic() -> None:
    code = (
        "import sys\n"
        "import octui.core.model, octui.load.config, octui.load.frontmatter, octui.load.loader\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] == 'pydantic'))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
