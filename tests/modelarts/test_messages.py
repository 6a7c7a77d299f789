"""The zh, en and ja catalogues say the same things with the same placeholders."""

from __future__ import annotations

import re
import string
from pathlib import Path

from diagnosis.knowledge.exitcodes import EXIT_READINGS, MEMORY_KILL, OTHER_EXIT
from diagnosis.modelarts import rules
from diagnosis.modelarts.messages import CATALOGUE

PACKAGE = Path(__file__).resolve().parents[2] / "diagnosis" / "modelarts"


def _placeholders(template: str) -> set[str]:
    return {name for _text, name, _spec, _conv in string.Formatter().parse(template) if name}


def test_catalogues_have_the_same_keys_and_placeholders() -> None:
    zh = CATALOGUE["zh"]
    for lang in ("en", "ja"):
        assert set(CATALOGUE[lang]) == set(zh), lang
        for key, template in zh.items():
            assert _placeholders(CATALOGUE[lang][key]) == _placeholders(template), (lang, key)


def test_every_key_the_code_asks_for_exists() -> None:
    used: set[str] = set()
    for path in PACKAGE.rglob("*.py"):
        used |= set(re.findall(r"""\bt\(\s*"([a-z_]+\.[A-Za-z0-9_.]+)\"""", path.read_text(encoding="utf-8")))
    assert used, "no message keys found"
    missing = sorted(key for key in used if key not in CATALOGUE["zh"])
    assert missing == []


def test_every_rule_has_a_meaning_and_its_fixes() -> None:
    for rule in (*rules.RULES, rules.GENERIC_EXCEPTION):
        assert rule.meaning_key in CATALOGUE["zh"], rule.name
        for fix_id in rule.fixes:
            assert f"fix.{fix_id}" in CATALOGUE["zh"], (rule.name, fix_id)
    for reading in (*EXIT_READINGS.values(), OTHER_EXIT, MEMORY_KILL):
        assert reading.meaning_id in CATALOGUE["zh"]
        assert all(f"fix.{fix_id}" in CATALOGUE["zh"] for fix_id in reading.fix_ids)
    assert all(f"fix.{fix_id}" in CATALOGUE["zh"] for fix_id in rules.FIXES)


def test_next_steps_carry_their_reason() -> None:
    for key, template in CATALOGUE["zh"].items():
        if key.startswith(("next.retry", "next.full_log", "next.warning", "direction.")):
            assert "（原因：" in template, key
    assert all(
        CATALOGUE["zh"][key].startswith("建议排查方向：")
        for key in CATALOGUE["zh"]
        if key.startswith("direction.")
    )
