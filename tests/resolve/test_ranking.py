"""Lexical ranking (SPEC §3) and the order of the bundle's objects."""

from __future__ import annotations

from pathlib import Path

import pytest
from repo_builder import included_keys, make_repo, obj, resolve_at

from octui.core.tokens import stem, tokenize
from octui.resolve.ranking import WEIGHTS


@pytest.mark.parametrize(
    ("word", "stemmed"),
    [
        ("policies", "policy"),
        ("processing", "process"),
        ("refunds", "refund"),
        ("class", "class"),
        ("bus", "bus"),
        ("ring", "ring"),
        ("updated", "updat"),
        ("charges", "charge"),
        ("tied", "tied"),
        ("flies", "fly"),
    ],
)
def test_stem(word: str, stemmed: str) -> None:
    assert stem(word) == stemmed


def test_tokenize() -> None:
    assert tokenize("The Refund-Policies, for a customer!") == {"refund", "policy", "customer"}
    assert tokenize("snake_case x 42 ab") == {"snake", "case", "42", "ab"}
    assert tokenize("ＲＥＦＵＮＤ Straße") == {"refund", "strasse"}
    assert tokenize("") == frozenset()
    assert tokenize("is it to the of") == frozenset()


def test_weights_table() -> None:
    assert WEIGHTS == {
        "applies_to": 8,
        "tags": 6,
        "title": 5,
        "id": 4,
        "summary": 3,
        "type": 2,
        "content": 1,
    }


def test_every_field_weight(tmp_path: Path) -> None:
    root = make_repo(
        tmp_path,
        {
            "x.md": obj(
                "refund",
                applies_to=["refunds"],
                tags=["Refund"],
                title="Refunding",
                summary="refunded",
                type="refund",
                content="refund refund refund",
            )
        },
    )
    inc = resolve_at(root, task="refunds").included[0]
    assert inc.score == 8 + 6 + 5 + 4 + 3 + 2 + 1
    assert set(inc.matched) == set(WEIGHTS)
    assert inc.matched["title"] == ["refund"]


def test_distinct_task_tokens_per_field(tmp_path: Path) -> None:
    root = make_repo(tmp_path, {"x.md": obj("x", title="refund policy", content="nothing")})
    inc = resolve_at(root, task="refund refunds policies policy").included[0]
    assert inc.score == 2 * 5
    assert inc.matched == {"title": ["policy", "refund"]}


def test_content_capped_at_three(tmp_path: Path) -> None:
    root = make_repo(tmp_path, {"x.md": obj("x", content="alpha beta gamma delta epsilon")})
    inc = resolve_at(root, task="alpha beta gamma delta epsilon").included[0]
    assert inc.score == 3
    assert len(inc.matched["content"]) == 3


def test_precise_title_beats_long_content(tmp_path: Path) -> None:
    root = make_repo(
        tmp_path,
        {
            "a.md": obj("a", content="refund chargeback dispute bank card " * 50),
            "b.md": obj("b", title="Chargeback"),
        },
    )
    assert included_keys(resolve_at(root, task="refund chargeback dispute bank card")) == [
        "b@1",
        "a@1",
    ]


def test_floor_for_l0_l1_only(tmp_path: Path) -> None:
    root = make_repo(
        tmp_path,
        {
            "m.md": obj("mission", layer="L0"),
            "v.md": obj("voice", layer="L1"),
            "l2.md": obj("other", layer="L2"),
            "big.md": obj(
                "big", layer="L1", title="refund", tags=["refund"], applies_to=["refund"]
            ),
        },
        {"ranking": {"floor": 7}},
    )
    res = resolve_at(root, task="refund")
    scores = {i.obj.id: i.score for i in res.included}
    assert scores == {"mission": 7, "voice": 7, "other": 0, "big": 19}


def test_bundle_order(tmp_path: Path) -> None:
    root = make_repo(
        tmp_path,
        {
            "l1.md": obj("zz.identity", layer="L1"),
            "l0.md": obj("zz.mission", layer="L0", authority="historical"),
            "hi.md": obj("hi", title="refund", tags=["refund"], authority="observed"),
            "b.md": obj("b", title="refund", authority="approved"),
            "a.md": obj("a", title="refund", authority="approved"),
            "c.md": obj("c", title="refund", authority="canonical"),
            "none.md": obj("none"),
        },
    )
    res = resolve_at(root, task="refund")
    assert included_keys(res) == [
        "zz.mission@1",  # L0 first, whatever its score and authority
        "zz.identity@1",  # then L1
        "hi@1",  # then score desc
        "c@1",  # equal score: authority rank
        "a@1",  # equal authority: id ascending
        "b@1",
        "none@1",
    ]


def test_version_desc_among_same_id_historical(tmp_path: Path) -> None:
    root = make_repo(
        tmp_path,
        {
            "v1.md": obj("p", version=1),
            "v2.md": obj("p", version=2),
            "v3.md": obj("p", version=3, supersedes=["p"]),
        },
    )
    res = resolve_at(root, include_historical=True)
    assert included_keys(res) == ["p@3", "p@2", "p@1"]


def test_ranking_never_decides_access(tmp_path: Path) -> None:
    root = make_repo(
        tmp_path,
        {"a.md": obj("a", title="refund", classification="restricted", layer="L0")},
        {"roles": {"reader": {}}},
    )
    res = resolve_at(root, task="refund")
    assert res.included == []
    assert res.exclusions[0].reason.value == "classification-denied"


def test_empty_task_scores_zero_but_floor(tmp_path: Path) -> None:
    root = make_repo(tmp_path, {"a.md": obj("a", title="x"), "m.md": obj("m", layer="L0")})
    res = resolve_at(root, task="")
    assert [(i.obj.id, i.score, i.matched) for i in res.included] == [("m", 10, {}), ("a", 0, {})]
