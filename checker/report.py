"""Text output of `check` and `diff` for a rules author (JSON output is the reports' as_json)."""
from __future__ import annotations

from .check import Finding, Report, RuleInfo
from .diff import DiffReport


def witness_line(witness: dict | None) -> str:
    if not witness:
        return ""
    parts = [" ".join(f"{name} [{', '.join(cards)}]" for name, cards in witness["layouts"].items())]
    parts.append(f"active {witness['active']}")
    if "move" in witness:
        parts.append(f"move {witness['move']}")
    ref = witness.get("reference")
    if ref:
        parts.append(f"reference {ref['card']} ({ref['how']}{' by ' + ref['by'] if ref['by'] else ''}"
                     f"{', open' if ref['open'] else ''})")
    if witness.get("held"):
        parts.append(f"held {', '.join(witness['held'])}")
    if witness.get("power"):
        parts.append(f"power {witness['power']} used by {witness['user']}")
    notable = {k: v for k, v in witness.get("vars", {}).items() if v not in (None, False, 0)}
    if notable:
        parts.append("vars " + ", ".join(f"{k}={_value(v)}" for k, v in notable.items()))
    for name, values in witness.get("player_vars", {}).items():
        parts.append(f"{name} " + ", ".join(f"{p}={v}" for p, v in values.items()))
    if witness.get("moved_by_powers"):
        parts.append("moved by powers " + ", ".join(
            f"{slot} (turn {m['turn']}, sequence {m['sequence']}, by {m['by']})"
            for slot, m in witness["moved_by_powers"].items()))
    if "turn" in witness:
        parts.append(f"turn {witness['turn']}, sequence {witness['sequence']}")
    if witness.get("changed_by_others"):
        parts.append("changed by others this action: " + ", ".join(witness["changed_by_others"]))
    return " | ".join(parts)


def _value(value) -> str:
    if isinstance(value, dict):
        return f"{value.get('card')} ({value.get('how')} by {value.get('by')})"
    return str(value)


def rule_lines(rule: RuleInfo, indent: str = "    ") -> list[str]:
    lines = [f"{indent}{rule.name}  [{rule.level}, layer {rule.layer}]  {rule.loc}"]
    lines += [f"{indent}  {cite}" for cite in rule.cites]
    return lines


def finding_lines(finding: Finding) -> list[str]:
    lines = [f"  {finding.kind.upper()} {finding.decision}: {finding.message}"]
    for rule in finding.rules:
        lines += rule_lines(rule)
    if finding.witness:
        lines.append(f"    witness: {witness_line(finding.witness)}")
    if finding.query and finding.kind == "unknown":
        lines.append(f"    query: {finding.query}")
    if finding.scenario:
        lines.append(f"    scenario: {finding.scenario}")
    return lines


def check_text(report: Report, layers: list[str]) -> str:
    lines = [f"check {report.variant} (layers {', '.join(layers)}; edition {report.edition}"
             + (f", assumed: {', '.join(report.assumed)}" if report.assumed else "") + ")",
             f"  tables: {report.bounds}"]
    statuses = [status for _, status, _ in report.claims]
    summary = ", ".join(f"{statuses.count(s)} {word}" for s, word in
                        (("holds", "hold"), ("fails", "fail"), ("unknown", "unknown")) if statuses.count(s))
    lines.append(f"  claims: {summary or 'none'}")
    for name, status, loc in report.claims:
        lines.append(f"    {status:8} {name}  ({loc})")
    if report.effects:
        primitives = [r for r in report.effects if r.where == "the primitives"]
        uses = [r for r in report.effects if r.where != "the primitives"]
        proved = sum(r.status == "proved" for r in uses)
        lines.append(f"    effects: {sum(r.status == 'proved' for r in primitives)}/{len(primitives)} primitives keep "
                     f"every card; {proved}/{len(uses)} uses in move handlers proved from the moves' legality")
        for result in uses:
            if result.status != "proved":
                lines.append(f"      {result.status}: {result.where}: {result.what}")
    statuses = [status for _, status, _ in report.invariants]
    summary = ", ".join(f"{statuses.count(s)} {s}" for s in ("proved", "fails", "unknown") if statuses.count(s))
    lines.append(f"  invariants, proved inductive at every table size: {summary or 'none'}"
                 + (f" ({report.proofs})" if report.proofs else ""))
    for name, status, loc in report.invariants:
        lines.append(f"    {status:8} {name}  ({loc})")
    if report.play:
        lines.append(f"  random play: {report.play}")
    if report.readings:
        lines.append(f"  readings the spec takes where the texts leave room: {len(report.readings)}")
        for reading in report.readings:
            lines += rule_lines(reading)
    if report.findings:
        lines.append(f"  findings: {len(report.findings)}")
        for finding in report.findings:
            lines += finding_lines(finding)
    else:
        lines.append("  findings: none (no overlap, no gap, no dead rule, no move never allowed)")
    lines.append(f"  {answers_line(report.answers, report.cached, report.queries)}, {report.seconds:.1f} s")
    return "\n".join(lines)


def answers_line(answers: int, cached: int, queries: int) -> str:
    """How the questions were answered: from the cache (checker/answers.py) or by Z3 here."""
    return f"{answers} answers: {cached} from the cache, {answers - cached} solved here ({queries} queries)"


def diff_text(report: DiffReport) -> str:
    a, b = report.a, report.b
    lines = [f"diff {a} {b}", f"  tables: {report.bounds}"]
    for title, items in (("only in " + b, report.added), ("only in " + a, report.removed),
                         ("changed", report.changed)):
        if items:
            lines.append(f"  {title}: {len(items)}")
            lines += [f"    {item}" for item in items]
    lines.append(f"  differences: {len(report.findings)}")
    for number, finding in enumerate(report.findings, start=1):
        lines.append(f"  {number}. {finding.title}  (from {', '.join(c.split(' ', 1)[1] for c in finding.causes)})")
        for item in finding.classes:
            lines.append(f"     - {item.message}")
            for side, rules in item.rules.items():
                for rule in rules:
                    lines.append(f"         {side}: {rule.name}  {rule.loc}")
                    lines += [f"           {cite}" for cite in rule.cites]
            lines.append(f"         witness: {witness_line(item.witness)}")
            for number_, (message, witness) in enumerate(item.more, start=2):
                shown = "" if message == item.message else f"{message}; "
                lines.append(f"         witness {number_}: {shown}{witness_line(witness)}")
            if item.scenario:
                lines.append(f"         scenario: {item.scenario}")
            elif item.emitted:
                if item.decision.startswith("body "):
                    reason = "no short play from the witness's table made anything a scenario checks differ"
                elif not item.decision.startswith("value"):
                    reason = "no short play found that shows it; the witness table stands alone"
                elif item.read_by_rules:
                    reason = "a decision other rules read: see their scenarios"
                else:
                    reason = ("a decision only procedures read: no short play from a table with the witness's "
                              "variables made anything a scenario checks differ")
                lines.append(f"         scenario: none ({reason})")
    for unknown in report.unknown:
        lines.append(f"  UNKNOWN {unknown}")
    if report.uncompared:
        lines.append("  not compared by their effect on play (what players know, a variable's first value, an enum, "
                     "or a body the comparison could not follow to its end): run scenarios and recorded games to see it")
        lines += [f"    {entry}" for entry in report.uncompared]
    if report.unproved:
        lines.append(f"  invariants not proved inductive, so not assumed: {', '.join(report.unproved)}")
    lines.append(f"  {answers_line(report.answers, report.cached, report.queries)}, {report.seconds:.1f} s")
    return "\n".join(lines)
