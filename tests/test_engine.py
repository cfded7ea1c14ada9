"""The compiled engine: the module generated from a spec is cached by content (an edited copy gets
its own, a damaged entry is made again, an unwritable cache folder is no error), the same seed
plays the same games in any process, a trace sink sees what happens, and a procedure the
machinery runs mid-action may not ask for a move."""
from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from baobei.dsl import cache, loader
from baobei.dsl.errors import SpecTypeError
from baobei.dsl.loader import load_config, load_spec
from baobei.interpreter import program as programs
from baobei.interpreter import trace
from baobei.interpreter.game import new_round
from baobei.interpreter.rules import load_rules
from baobei.interpreter.simulate import simulate
from baobei.interpreter.state import Rng
from baobei.interpreter.table import round_from_table

from conftest import ROOT, edit


@pytest.fixture
def cache_folder(tmp_path, monkeypatch):
    """An empty cache folder, and nothing kept in this process from before."""
    folder = tmp_path / "cache"
    monkeypatch.setenv(cache.ENV, str(folder))
    monkeypatch.setattr(loader, "_SPECS", {})
    monkeypatch.setattr(loader, "_EDITIONS", {})
    monkeypatch.setattr(programs, "_PROGRAMS", {})
    return folder


def _modules(folder) -> list:
    return sorted(p.name for p in folder.glob("rules-*.py"))


def test_a_spec_copy_and_an_edited_copy_get_modules_of_their_own(cache_folder, spec_copy):
    load_rules(load_config(cwd=ROOT), "fr")
    first = _modules(cache_folder)
    load_rules(load_config(spec=str(spec_copy)), "fr")
    second = _modules(cache_folder)
    assert len(first) == 1 and len(second) == 2        # the copy's files are other files
    edit(spec_copy / "core" / "cards.bao", "card bird5  value 5,", "card bird5  value 4,")
    rules = load_rules(load_config(spec=str(spec_copy)), "fr")
    assert len(_modules(cache_folder)) == 3
    assert rules.program.kinds["bird5"].value == 4


def test_the_cached_module_is_read_back_and_says_where_each_function_comes_from(cache_folder):
    rules = load_rules(load_config(cwd=ROOT), "fr")
    source = (cache_folder / _modules(cache_folder)[0]).read_text(encoding="utf-8")
    assert "procedure turn (" in source and "spec/core/round.bao:" in source
    assert "# rule pluck.on_own_draw (" in source
    again = programs.load_module(rules.spec, rules.program.module.KEY)   # from the cache, not generated
    assert again.KEY == rules.program.module.KEY and again.__file__.endswith(".py")


def test_a_damaged_cache_entry_is_made_again(cache_folder):
    rules = load_rules(load_config(cwd=ROOT), "de")
    key = rules.program.module.KEY
    for entry in cache_folder.glob("rules-*"):
        entry.write_bytes(b"\x00 not a module at all")
    for entry in cache_folder.glob("spec-*.pickle"):
        entry.write_bytes(b"not a pickle")
    module = programs.load_module(rules.spec, key)
    assert module.KEY == key
    assert "def proc_turn" in next(cache_folder.glob("rules-*.py")).read_text(encoding="utf-8")
    loader._SPECS.clear()
    spec = load_spec(load_config(cwd=ROOT), "de")
    assert spec.key == rules.spec.key and "pluck.double.on_a_regular_discard" in spec.rules


def test_an_edit_of_one_file_parses_that_file_alone_in_the_next_process(cache_folder, spec_copy, monkeypatch):
    """Each file's syntax tree is kept in the cache folder by its path and text: after an edit,
    the next process parses only the file it changed; a damaged entry is parsed again."""
    from baobei.dsl import parser
    parsed = []
    real = parser.parse_text
    monkeypatch.setattr(parser, "parse_text", lambda text, path: parsed.append(path) or real(text, path))
    monkeypatch.setattr(parser, "_PARSED", {})
    config = load_config(spec=str(spec_copy))
    files = sorted(str(path) for path in [*spec_copy.glob("core/*.bao"), spec_copy / "fr.bao"])

    def next_process():
        loader._SPECS.clear()
        parser._PARSED.clear()
        parsed.clear()
        return load_spec(config, "fr")
    first = next_process()
    assert sorted(parsed) == files
    pluck = spec_copy / "core" / "pluck.bao"
    pluck.write_text("# a line added above every declaration\n" + pluck.read_text(encoding="utf-8"), encoding="utf-8")
    second = next_process()
    assert parsed == [str(pluck)]
    assert second.rules["pluck.on_own_draw"].loc.line == first.rules["pluck.on_own_draw"].loc.line + 1
    for entry in cache_folder.glob("parsed-*.pickle"):
        entry.write_bytes(b"not a pickle")
    edit(pluck, "# a line added above every declaration", "# the line edited")
    third = next_process()
    assert sorted(parsed) == files and sorted(third.rules) == sorted(first.rules)


def test_an_entry_of_another_key_is_not_trusted(cache_folder):
    rules = load_rules(load_config(cwd=ROOT), "fr")
    key = rules.program.module.KEY
    for entry in cache_folder.glob("rules-*.py"):
        text = entry.read_text(encoding="utf-8")
        entry.write_text(text.replace(f"KEY = {key!r}", "KEY = 'someone else'"), encoding="utf-8")
    for entry in cache_folder.glob("rules-*.code"):
        entry.unlink()
    assert programs.load_module(rules.spec, key).KEY == key


def test_an_unwritable_cache_folder_is_no_error(tmp_path, monkeypatch):
    blocked = tmp_path / "file"
    blocked.write_text("a file where the cache folder would be", encoding="utf-8")
    monkeypatch.setenv(cache.ENV, str(blocked / "cache"))
    monkeypatch.setattr(loader, "_SPECS", {})
    monkeypatch.setattr(loader, "_EDITIONS", {})
    monkeypatch.setattr(programs, "_PROGRAMS", {})
    stats = simulate(load_rules(load_config(cwd=ROOT), "fr"), 2, 2, 3, ["random"])
    assert stats.games == 2


def test_the_same_seed_plays_the_same_games_in_any_process():
    """Nothing depends on the hashes of objects or strings (they change from process to process)."""
    script = ("import json; from pathlib import Path; from baobei.dsl.loader import load_config; "
              "from baobei.interpreter.rules import load_rules; from baobei.interpreter.simulate import simulate; "
              "s = simulate(load_rules(load_config(cwd=Path(%r)), 'de'), 4, 4, 11, ['random', 'memory']); "
              "print(json.dumps([s.rounds, s.turns, s.moves, s.bao_calls, s.wins]))" % str(ROOT))
    results = set()
    for hash_seed in ("1", "2"):
        env = {**os.environ, "PYTHONHASHSEED": hash_seed}
        # -P: the installed package, not the source folder of the working directory
        run = subprocess.run([sys.executable, "-P", "-c", script], env=env, capture_output=True, text=True)
        assert run.returncode == 0, run.stderr
        results.add(run.stdout)
    assert len(results) == 1 and json.loads(results.pop())[1] > 0


def test_a_trace_sink_sees_the_moves_their_effects_and_the_decisions(config):
    rules = load_rules(config, "fr")
    rnd = round_from_table(rules, {"players": ["Ana", "Ben"], "layouts": {"Ana": ["bird3", "bird7"],
                                                                           "Ben": ["bird3", "bird9"]},
                                   "deck": ["bird3", "bird1", "bird2"], "discard": ["bird10"], "active": "Ana"})
    events = []
    rnd.trace = events.append
    from baobei.interpreter.moves import parse_move
    for text in ("draw", "pluck Ben.1", "give 2"):
        rnd.apply(parse_move("Ana", text, rnd.by_name))
    judged = [e for e in events if isinstance(e, trace.Judged)]
    assert [(e.move, e.legal) for e in judged] == [("Ana: draw", True), ("Ana: pluck Ben.1", True),
                                                    ("Ana: give 2", True)]
    assert judged[1].rule == "pluck.on_own_draw"
    moved = [(e.card, e.source, e.dest) for e in events if isinstance(e, trace.Moved)]
    assert ("bird3", "deck", "held") in moved and ("bird3", "Ben.1", "discard") in moved
    assert ("bird7", "Ana.2", "Ben.1") in moved
    assert any(isinstance(e, trace.ReferenceSet) and e.how == "removed" for e in events)
    assert isinstance(events[-1], trace.Waiting) and events[-1].clauses == (("Ana", ("bao", "end")),)


def test_a_procedure_run_in_the_middle_of_an_action_may_not_ask(spec_copy):
    path = spec_copy / "core" / "deck.bao"
    edit(path, "  if a_card_to_draw then\n    shuffle", "  ask active: pass\n  if a_card_to_draw then\n    shuffle")
    with pytest.raises(SpecTypeError) as caught:
        load_rules(load_config(spec=str(spec_copy)), "fr")
    assert "procedure 'recycle' may not ask for a move" in caught.value.message
    assert caught.value.loc.file.endswith("deck.bao") and caught.value.loc.line > 0


def test_a_copy_of_a_round_plays_on_like_the_round(config):
    rules = load_rules(config, "de")
    rng = Rng(8)
    rnd = new_round(rules, ["A", "B", "C"], rng, first=0, totals={})
    while rnd.turn < 4:
        rnd.apply(rng.choice([m for m in rnd.legal_moves() if m.kind != "bao"]))
    twin = rnd.clone()
    assert twin.describe_pending() == rnd.describe_pending() and twin.position() == rnd.position()
    assert [[c and c.kind for c in p.layout] for p in twin.players] == \
        [[c and c.kind for c in p.layout] for p in rnd.players]
    move = rnd.legal_moves()[0]
    twin.apply(twin.legal_moves()[0])
    assert str(twin.history[-1]) == str(move) and len(rnd.history) == len(twin.history) - 1


def test_a_closed_round_is_freed_as_soon_as_it_is_dropped(config):
    """The play search drops thousands of rounds in the middle of play: closed, none of them is
    left to the cyclic garbage collector (whose passes cost the search more than the play)."""
    import gc
    rules = load_rules(config, "fr")
    rng = Rng(3)

    def dropped_in_play(close: bool) -> int:
        """The objects the cyclic collector finds after a round in play is dropped."""
        gc.collect()
        rnd = new_round(rules, ["A", "B", "C"], rng, first=0, totals={})
        while rnd.turn < 4:
            rnd.apply(rng.choice([m for m in rnd.legal_moves() if m.kind != "bao"]))
        if close:
            rnd.close()
        del rnd
        return gc.collect()
    enabled = gc.isenabled()
    gc.disable()
    try:
        assert dropped_in_play(close=False) > 0      # a round in play refers to itself
        assert dropped_in_play(close=True) == 0
    finally:
        if enabled:
            gc.enable()
