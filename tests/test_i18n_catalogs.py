"""One voice: the wings' catalogs merge into one lookup, and a key declared twice is an error."""

from __future__ import annotations

import importlib
import sys
import textwrap

import pytest

from normkata.i18n import Catalogs, DuplicateKey, Text, strings, t


def test_a_key_declared_by_two_catalogs_is_an_error() -> None:
    lookup = Catalogs()
    lookup.add("normkata.one.catalog", {"a.b": Text("A", "甲")})
    with pytest.raises(DuplicateKey, match=r"'a\.b' is declared by both normkata\.one\.catalog and normkata\.two"):
        lookup.add("normkata.two.catalog", {"a.c": Text("C", "丙"), "a.b": Text("B", "乙")})


def test_a_catalog_module_redeclaring_a_key_fails_at_import(tmp_path, monkeypatch) -> None:
    taken = next(iter(strings()))
    (tmp_path / "stray_catalog.py").write_text(
        textwrap.dedent(f"""
        from normkata.i18n import Text, catalog

        CATALOG = catalog(__name__, {{{taken!r}: Text("again", "又一次")}})
        """),
        encoding="utf-8",
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    with pytest.raises(DuplicateKey, match="stray_catalog"):
        importlib.import_module("stray_catalog")
    sys.modules.pop("stray_catalog", None)
    assert strings()[taken].en != "again"


def test_every_wing_contributes_and_t_reads_them_all() -> None:
    from normkata.i18n import _CATALOGS

    strings()
    owners = set(_CATALOGS.owners.values())
    assert {f"normkata.i18n.catalogs.{wing}" for wing in ("grading", "labs", "record", "practice", "content")} <= owners
    assert t("report.verdict.pass", "zh", count="4 个用例中 3 个通过") == "通过：4 个用例中 3 个通过。"
    assert t("lab.written", "en") == "Wrote:"


def test_text_formats_in_either_language() -> None:
    text = Text("{n} case(s)", "{n} 个用例")
    assert text.format("en", n=2) == "2 case(s)" and text.format("zh", n=2) == "2 个用例"
    assert text.in_("zh") == "{n} 个用例" and Text.neutral("x") == Text("x", "x")
    with pytest.raises(AttributeError):
        text.en = "changed"  # type: ignore[misc]
