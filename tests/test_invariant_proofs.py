"""Invariants are proved, not assumed (checker/proofs.py, induction.py): the editions prove theirs,
a house layer that breaks an inherited one gets a finding with the place, the moves and a
replayable scenario, an undecided proof is never a pass, and proofs come back from the cache."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from baobei.checker.check import Checker, add_proofs, Report
from baobei.checker.proofs import (InvariantFailure, TableProof, cached_proof, keep_proof, proof_key, prove_all,
                                   proof_slots, prove_table, proved_everywhere)
from baobei.checker.symbolic import Bounds
from baobei.cli import main
from baobei.dsl.loader import load_config, load_edition_for, load_spec

from conftest import SPEC

SMALL = Bounds(players=3, slots=4)

HOUSE = '''layer house
# the German double pluck on another player's discard, added to the French rules
rule pluck.double.on_a_regular_discard
  assumed "house rule: the German double pluck on a discard"
  allow pluck when count(targets) == 2 and reference.how in {discarded, replaced} and actor != active
remove claim pluck.no_double_pluck_on_a_discard
'''


def _loaded(config, variant):
    spec = load_spec(config, variant)
    return spec, load_edition_for(config, spec)


def test_both_editions_prove_every_invariant_at_every_table_size(config):
    specs = [_loaded(config, variant) for variant in ("fr", "de")]
    for (spec, _), proofs in zip(specs, prove_all(specs, SMALL, 20_000)):
        assert [proof.players for proof in proofs] == [2, 3]
        assert all(proof.failures == [] for proof in proofs)
        assert proved_everywhere(spec, proofs) == list(spec.invariants) and len(spec.invariants) >= 7


def test_a_proof_reasons_about_tables_where_a_round_can_start(config):
    spec, edition = _loaded(config, "fr")
    # a 2-player deal is 5 cards: 4 slots could hold no round, and a proof there would say nothing
    assert edition.deal[2] == 5 and proof_slots(Bounds(2, 4), edition, 2) == 6
    assert proof_slots(Bounds(2, 8), edition, 2) == 8


@pytest.fixture()
def house(tmp_path):
    (tmp_path / "house.bao").write_text(HOUSE, encoding="utf-8")
    (tmp_path / "baobei.yaml").write_text(f"spec: {SPEC}\nlayers: [core, fr, house]\n", encoding="utf-8")
    return tmp_path


def test_a_house_layer_that_breaks_an_inherited_invariant_gets_a_finding(house, capsys, monkeypatch):
    monkeypatch.chdir(house)
    code = main(["check", "--variant", "house", "--players", "2", "--slots", "4", "--json", "--failures", "failed"])
    data = json.loads(capsys.readouterr().out)
    assert code == 1 and not data["ok"]
    variant = data["variants"][0]
    statuses = {item["name"]: item["status"] for item in variant["invariants"]}
    assert statuses.pop("pluck.double_only_after_own_draw") == "fails"
    assert set(statuses.values()) == {"proved"}
    proof = [f for f in variant["findings"] if f["kind"] == "invariant"][0]
    assert proof["decision"] == "invariant pluck.double_only_after_own_draw"
    assert proof["rules"][0]["loc"].endswith("spec/fr.bao:18:1")
    assert any(move.startswith("pluck at") for move in proof["witness"]["moves"])
    assert sum(len(cards) for cards in proof["witness"]["layouts"].values()) > 0
    # random play breaks it too, and leaves the round as a scenario that fails the same way
    played = [f for f in variant["findings"] if f["kind"] == "play"][0]
    assert "pluck.double_only_after_own_draw" in played["message"] and played["scenario"]
    assert main(["scenario", played["scenario"]]) == 1
    assert "invariant pluck.double_only_after_own_draw" in capsys.readouterr().out
    # the claims assume the other invariants only (the proofs come back from the cache)
    spec, edition = _loaded(load_config(cwd=house), "house")
    proofs = prove_all([(spec, edition)], Bounds(2, 4), 20_000)[0]
    assert all(proof.cached for proof in proofs)
    proved = proved_everywhere(spec, proofs)
    assert "pluck.double_only_after_own_draw" not in proved and len(proved) == len(spec.invariants) - 1
    checker = Checker(spec, edition, Bounds(2, 4), proved=proved)
    assert len(checker.base) == len(checker.constraints) + len(proved)
    assert set(checker.invariant_terms) == set(proved)


POWER_HOUSE = '''layer house
# the toco toucan's power, played by a house rule that also raises the shield: with no BAO called,
# the shield then belongs to no caller
replace power add_card "add an unknown card from the draw pile to an opponent"
  assumed "house rule: the toucan raises the shield"
  set shield = true
  ask user: add, skip
end
'''


def test_a_power_that_breaks_an_invariant_gets_a_finding_naming_it(tmp_path):
    """Every power a queued card can have is explored: a house layer whose toucan (a power the proofs
    once never ran, when every queued power ran the first power's body) raises the shield without a
    BAO breaks bao.shield_belongs_to_a_caller in that power, and the proof says where."""
    (tmp_path / "house.bao").write_text(POWER_HOUSE, encoding="utf-8")
    (tmp_path / "baobei.yaml").write_text(f"spec: {SPEC}\nlayers: [core, fr, house]\n", encoding="utf-8")
    spec, edition = _loaded(load_config(cwd=tmp_path), "house")
    proof = prove_table(spec, edition, Bounds(2, 6), 2, 20_000)
    assert "bao.shield_belongs_to_a_caller" not in proof.proved
    found = [f for f in proof.failures if f.invariant == "bao.shield_belongs_to_a_caller" and f.status == "fails"]
    in_power = [f for f in found if f.start == "the power add_card (2 players)"]
    assert in_power, [(f.start, f.where) for f in found]
    failure = in_power[0]
    assert failure.where.startswith("power add_card (") and "house.bao:7:" in failure.where
    assert failure.witness["power"] == "add_card" and failure.witness["user"] in failure.witness["players"]
    assert failure.witness["vars"]["bao"] is None and failure.witness["vars"]["shield"] is False
    # the other invariants do not depend on it, and still hold
    assert "bao.only_a_final_phase_voids_a_bao" in proof.proved


def test_an_undecided_proof_is_a_finding_and_never_a_pass(config):
    spec, edition = _loaded(config, "fr")
    proof = prove_table(spec, edition, Bounds(2, 6), 2, timeout_ms=1)
    assert proof.failures and {f.status for f in proof.failures} <= {"unknown", "fails"}
    assert proved_everywhere(spec, [proof]) != list(spec.invariants)
    report = Report("fr", "")
    add_proofs(report, spec, [proof])
    assert report.findings and {status for _, status, _ in report.invariants} != {"proved"}


def test_a_second_check_takes_its_proofs_from_the_cache(config, capsys):
    args = ["check", "--variant", "fr", "--players", "2", "--slots", "4", "--games", "1"]
    assert main(args) == 0
    capsys.readouterr()
    assert main(args) == 0
    second = capsys.readouterr().out
    invariants = len(_loaded(config, "fr")[0].invariants)
    assert f"{invariants} proved" in second and "1 of 1 table sizes from the cache" in second
    assert main(args + ["--no-cache", "--progress"]) == 0
    shown = capsys.readouterr()
    assert "table sizes from the cache" not in shown.out and "(0 of " in shown.out     # no proof, no answer
    assert "proving the invariants: 1 of 1 table sizes proved here" in shown.err     # the proofs' progress


def test_a_proof_starts_from_the_facts_its_own_variant_found_before(config, tmp_path, monkeypatch):
    """Houdini starts from the facts the variant's last proof at this table kept: it asks fewer
    queries than from every candidate, and fewer than when the spec's invariants are candidates
    again (as they are from another variant's facts: some are not inductive alone at a cut point,
    and would only be dropped again), with the same invariants proved."""
    from baobei.checker import induction
    from baobei.dsl import cache
    monkeypatch.setenv(cache.ENV, str(tmp_path / "cache"))
    spec, edition = _loaded(config, "fr")
    cold = prove_table(spec, edition, Bounds(2, 6), 2, 20_000)
    real = induction.prove_at
    monkeypatch.setattr(induction, "prove_at", lambda *args, **options: real(*args, **{**options, "own": False}))
    others = prove_table(spec, edition, Bounds(2, 6), 2, 20_000)
    monkeypatch.setattr(induction, "prove_at", real)
    own = prove_table(spec, edition, Bounds(2, 6), 2, 20_000)
    assert cold.proved == others.proved == own.proved == list(spec.invariants)
    assert not cold.failures and not others.failures and not own.failures
    assert own.queries < others.queries < cold.queries


def test_a_damaged_or_foreign_cached_proof_is_not_read_back(config, tmp_path, monkeypatch):
    from baobei.dsl import cache
    monkeypatch.setenv(cache.ENV, str(tmp_path / "cache"))
    spec, edition = _loaded(config, "fr")
    key = proof_key(spec, edition, Bounds(2, 4), 2, 20_000)
    proof = TableProof(2, 6, ["bao.shield_belongs_to_a_caller"], [], 3, 0.5)
    keep_proof(key, proof, spec)
    assert cached_proof(key, spec).proved == proof.proved
    (tmp_path / "cache" / f"invariants-{key}.json").write_text("{damaged", encoding="utf-8")
    assert cached_proof(key, spec) is None
    # a proof with failures names places in its own spec's files: a copy elsewhere proves again
    failing = TableProof(2, 6, [], [InvariantFailure("x", "fails", "procedure turn (spec/x.bao:1:1)", "", [],
                                                     "a turn", None)], 3, 0.5)
    keep_proof(key, failing, spec)
    assert cached_proof(key, spec).failures
    # an undecided proof is not kept: the next run asks Z3 again (a busy machine ran out of time)
    other = proof_key(spec, edition, Bounds(2, 4), 2, 5_000)
    keep_proof(other, TableProof(2, 6, [], [InvariantFailure("x", "unknown", "procedure turn (spec/x.bao:1:1)",
                                                            "", [], "a turn", None)], 3, 0.5), spec)
    assert cached_proof(other, spec) is None
    spec.key, kept = "another spec's files", spec.key
    try:
        assert cached_proof(key, spec) is None
    finally:
        spec.key = kept


def test_a_proof_is_keyed_on_what_the_declarations_say_not_on_citations_or_claims(config, spec_copy):
    """Editing a citation or a claim reuses the proofs; editing a rule, or the order rules are
    tried in, proves again."""
    spec, edition = _loaded(config, "fr")
    key = proof_key(spec, edition, SMALL, 2, 20_000)
    path = spec_copy / "core" / "round.bao"
    text = path.read_text(encoding="utf-8")
    citation = 'cite fr "Un joueur ne possédant aucune carte compte zéro point."'
    assert citation in text
    claims = spec_copy / "core" / "pluck.bao"
    claim = "claim pluck.zero_cards_never_pluck"
    assert claim in claims.read_text(encoding="utf-8")

    def key_after(edited_path, old, new):
        original = edited_path.read_text(encoding="utf-8")
        edited_path.write_text(original.replace(old, new, 1), encoding="utf-8")
        try:
            copy, copy_edition = _loaded(load_config(spec=str(spec_copy)), "fr")
            return proof_key(copy, copy_edition, SMALL, 2, 20_000)
        finally:
            edited_path.write_text(original, encoding="utf-8")
    assert key_after(path, "", "") == key                           # a copy elsewhere: the same question
    assert key_after(path, citation, citation + "\n  # a note") == key
    assert key_after(path, citation, 'cite fr "Règle d\'or : CARTE VISIBLE → DÉPLUMAGE → POUVOIRS."') == key
    assert key_after(claims, claim, claim + "_renamed") == key
    assert key_after(path, "= count s in p.slots: s.occupied", "= count s in p.slots: not s.occupied") != key
    text = claims.read_text(encoding="utf-8")
    start = text.index("rule pluck.on_own_draw")
    middle = text.index("\n\n", start) + 2
    end = text.index("\n\n", middle) + 2
    assert text[middle:].startswith("rule pluck.on_a_regular_discard")
    assert key_after(claims, text[start:end], text[middle:end] + text[start:middle]) != key     # tried in another order


def test_a_move_the_rules_ask_for_but_never_allow_is_a_finding(config, spec_copy):
    spec, edition = _loaded(config, "fr")
    assert Checker(spec, edition, SMALL).asked_kinds()
    shipped = Checker(spec, edition, SMALL)
    for kind in shipped.asked_kinds():
        shipped.check_ever_legal(kind)
    assert shipped.report.findings == []
    path = spec_copy / "core" / "round.bao"
    text = path.read_text(encoding="utf-8")
    start = text.index("rule keep.replace_an_own_card")
    path.write_text(text[:start] + text[text.index("\n\n", start) + 2:], encoding="utf-8")
    spec, edition = _loaded(load_config(spec=str(spec_copy)), "fr")
    checker = Checker(spec, edition, SMALL)
    for kind in checker.asked_kinds():
        checker.check_ever_legal(kind)
    assert [(f.kind, f.decision) for f in checker.report.findings] == [("never", "legal keep")]
    # a decline both rulebooks refuse everywhere (skipping a power) is no finding
    assert "skip" not in checker.asked_kinds()


def test_a_rule_that_reads_a_second_target_without_counting_them_plays(spec_copy, capsys):
    """A mutant of the blind swap's rule without count(targets) == 2: a move with one target reads
    `second.owner` of none, which is none's owner, not an internal error."""
    path = spec_copy / "core" / "powers.bao"
    text = path.read_text(encoding="utf-8")
    old = "allow swap when power == blind_swap and count(targets) == 2 and"
    assert old in text
    path.write_text(text.replace(old, "allow swap when power == blind_swap and"), encoding="utf-8")
    code = main(["simulate", "--spec", str(spec_copy), "--variant", "fr", "--players", "3", "--games", "20",
                 "--seed", "3", "--workers", "1"])
    assert code == 0, capsys.readouterr().err
