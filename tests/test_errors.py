"""Each error family, with its message and location (see docs/errors.md)."""
from __future__ import annotations

import re

import pytest

from baobei.checker.check import check
from baobei.cli import main
from baobei.dsl.edition import load_edition
from baobei.dsl.errors import ConfigError, EditionError, SolverError
from baobei.dsl.loader import load_config, load_edition_for, load_spec

from conftest import ROOT


TABLES = "deal: {2: 5, 3: 4, 4: 4, 5: 4, 6: 4}\nthreshold: {2: 100, 3: 100, 4: 100, 5: 100, 6: 100}\n"


def edition_error(tmp_path, config, text: str) -> EditionError:
    path = tmp_path / "edition.yaml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(EditionError) as caught:
        load_edition(path, load_spec(config, "fr"))
    return caught.value


def test_E300_an_edition_counting_an_unknown_card(tmp_path, config):
    error = edition_error(tmp_path, config, "edition: odd\ndeck: {bird1: 60, dodo: 6}\n" + TABLES)
    assert error.code == "E300" and "'dodo'" in error.message
    assert (error.loc.line, error.loc.column) == (2, 19)


def test_E300_a_deck_that_cannot_deal_the_table(tmp_path, config):
    error = edition_error(tmp_path, config, "deck: {bird1: 22}\n" + TABLES)
    assert "cannot deal 4 cards to 6 players" in error.message and error.loc.line == 2


def test_E310_a_config_with_an_unknown_key(tmp_path):
    (tmp_path / "baobei.yaml").write_text("layers: [core, fr]\nlayer: house\n", encoding="utf-8")
    with pytest.raises(ConfigError) as caught:
        load_config(cwd=tmp_path)
    assert caught.value.code == "E310" and "unknown key 'layer'" in caught.value.message
    assert caught.value.loc.line == 2


def test_E310_an_unknown_layer(capsys):
    assert main(["simulate", "--variant", "xx", "--games", "1"]) == 2
    err = capsys.readouterr().err
    assert "error[E310]" in err and "no spec files for layer 'xx'" in err


def test_E410_an_unreadable_move_is_a_refused_step(tmp_path, capsys):
    path = tmp_path / "s.yaml"
    path.write_text("variants: [fr]\nplayers: [Ana, Ben]\nlayouts: {Ana: [bird1], Ben: [bird2]}\n"
                    "deck: [bird3]\ndiscard: [bird4]\nactive: Ana\nsteps:\n  - Ana: pluck Ben\n", encoding="utf-8")
    assert main(["scenario", str(path)]) == 1
    assert "step 1 (Ana: pluck Ben): refused: 'pluck': 'Ben' is not a slot" in capsys.readouterr().out


def test_E500_a_gap_met_in_play(spec_copy, capsys):
    path = spec_copy / "de.bao"
    text = path.read_text(encoding="utf-8")
    start = text.index("rule power.movement_limit.whole_turn")
    end = text.index("# ---- added cards")
    path.write_text(text[:start] + text[end:], encoding="utf-8")
    code = main(["simulate", "--spec", str(spec_copy), "--variant", "de", "--players", "3", "--games", "40",
                 "--seed", "1", "--failures", str(spec_copy.parent)])
    err = capsys.readouterr().err
    assert code == 2 and "error[E500]" in err and "no rule decides 'limited'" in err
    assert re.search(r"game \d+ \(seed \d+\), round \d+, move \d+ '", err)     # where it was met


def test_E510_an_invariant_broken_in_play(spec_copy, capsys):
    (spec_copy / "house.bao").write_text('layer house\ninvariant house.nobody_holds_five_cards\n'
                                         '  assumed "broken on purpose"\n'
                                         '  holds all p in players: cards(p) != 5\n', encoding="utf-8")
    code = main(["simulate", "--spec", str(spec_copy), "--variant", "house", "--players", "2", "--games", "3",
                 "--seed", "1", "--check", "--config", str(_config_for(spec_copy)), "--failures", str(spec_copy.parent)])
    out = capsys.readouterr().out
    # a broken invariant is a finding of --check (exit 1), reported with its code and location
    assert code == 1 and "error[E510]" in out and "invariant house.nobody_holds_five_cards" in out


def _config_for(spec_copy):
    path = spec_copy.parent / "baobei.yaml"
    path.write_text(f"spec: {spec_copy}\nvariants: {{house: [core, fr, house]}}\n", encoding="utf-8")
    return path


def test_E600_a_spec_the_checker_cannot_translate(spec_copy):
    (spec_copy / "house.bao").write_text('layer house\nvar seen : list[card] = held\n', encoding="utf-8")
    config = load_config(spec=str(spec_copy), layers=["core", "fr", "house"])
    spec = load_spec(config)
    with pytest.raises(SolverError) as caught:
        check(spec, load_edition_for(config, spec), "house")
    assert caught.value.code == "E600" and "'seen' holds a list" in caught.value.message
    assert caught.value.loc.file.endswith("house.bao") and caught.value.loc.line == 2


def test_the_errors_page_documents_every_code():
    page = (ROOT / "docs" / "errors.md").read_text(encoding="utf-8")
    for code in ("E100", "E200", "E210", "E220", "E230", "E300", "E310", "E400", "E410", "E500", "E510", "E600"):
        assert f"## {code}" in page
