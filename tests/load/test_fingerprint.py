"""A load's fingerprint: one named shape, stored by a snapshot as a plain tuple."""

from __future__ import annotations

import pickle
from pathlib import Path

import pytest

from octui.load.fingerprint import NO_CONFIG, Fingerprint, invalid_config
from octui.session import Session

KEY = ("a.md", 10, 1, 2, 3)


def test_a_stored_fingerprint_is_read_back_equal_and_named() -> None:
    made = Fingerprint(b"cfg", (KEY,), (("b.md", "unreadable"),), ())
    plain = pickle.loads(pickle.dumps(tuple(made)))  # what a snapshot's header holds
    assert type(plain) is tuple and plain == made
    back = Fingerprint.stored(plain)
    assert back == made and back is not None and back.keys == (KEY,) and back.scanned


@pytest.mark.parametrize(
    "stored",
    [
        None,
        [b"cfg", (KEY,), (), ()],  # a list
        (b"cfg", (KEY,), ()),  # three parts
        (b"cfg", (KEY,), (), (), ()),  # five
        ("cfg", (KEY,), (), ()),  # the configuration as text
        (b"cfg", None, (), ()),  # not scanned: never a snapshot's
        (b"cfg", [KEY], (), ()),
        (b"cfg", (KEY,), [], ()),
        (b"cfg", (KEY,), (), None),
    ],
)
def test_a_stored_fingerprint_of_another_shape_is_refused(stored: object) -> None:
    assert Fingerprint.stored(stored) is None


def test_a_look_without_a_usable_configuration_is_not_a_scan(tmp_path: Path) -> None:
    session = Session(tmp_path)
    assert session.fingerprint() == NO_CONFIG and not NO_CONFIG.scanned
    (tmp_path / "opencontext.yaml").write_text("roles: [", encoding="utf-8")
    seen = session.fingerprint()
    assert seen == invalid_config(b"roles: [") and not seen.scanned
