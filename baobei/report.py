"""`baobei report`: one document a rules author reads.

The rules that differ between the editions side by side with their citations (the rules
they share once); the differences with their witness tables; the claims and their status; simulation figures per edition
with plots (matplotlib, PNG): round length, BAO calls and success, score
distribution, first-player advantage, rounds ended by the second recycle; and a
balance study of the first two variants (baobei/balance.py): each metric with its
interval, the difference and its verdict, with plots of the differences and of the
distributions.
"""
from __future__ import annotations

import html
import sys
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from baobei.checker.check import DEFAULT_TIMEOUT_MS, check
from baobei.checker.diff import diff
from baobei.checker.parallel import in_forked_workers
from baobei.checker.proofs import prove_all
from baobei.checker.report import witness_line
from baobei.checker.symbolic import Bounds
from baobei.dsl import ast
from baobei.dsl.errors import ConfigError
from baobei.dsl.loader import Config, load_edition_for, load_spec
from baobei.dsl.unparse import rule_body
from baobei.interpreter.progress import Phase
from baobei.interpreter.rules import load_rules
from baobei.interpreter.simulate import simulate
from baobei.variants import built_on


@dataclass
class Figures:
    variant: str
    stats: object
    round_turns: list[int] = field(default_factory=list)
    scores: list[int] = field(default_factory=list)
    first_wins: int = 0          # games won by the first player of the first round
    games: int = 0
    rounds: int = 0
    final_phase: int = 0
    seat_wins: Counter = field(default_factory=Counter)


def gather(config: Config, variant: str, players: int, games: int, seed: int, agents: list[str],
           progress: bool) -> Figures:
    rules = load_rules(config, variant)
    figures = Figures(variant, None)
    shown = [0.0]

    def on_game(record):
        figures.games += 1
        for played in record.rounds:
            figures.rounds += 1
            figures.round_turns.append(played.turns)
            figures.scores += list(played.scores.values())
            figures.final_phase += played.final_phase
        if record.winner is not None:
            figures.seat_wins[record.winner] += 1
            if record.rounds and record.rounds[0].first == record.winner:
                figures.first_wins += 1
        if progress and (time.perf_counter() - shown[0] > 0.5 or figures.games == games):
            shown[0] = time.perf_counter()
            _bar(figures.games, games, variant)

    from baobei.interpreter.workers import cores
    figures.stats = simulate(rules, players, games, seed, agents, on_game=on_game, workers=cores())
    if progress:
        print(file=sys.stderr)
    return figures


def figures_of_study(findings, side: int, players: int, seed: int, agents: list[str]) -> Figures:
    """A variant's simulation figures from the games the balance study played of it (baobei/
    balance.py sums what the simulation counts: rounds, their turns and scores, BAO calls and
    results, rounds ended by the second recycle, the opener's wins)."""
    from baobei.interpreter.simulate import Stats
    sums = findings.sums[side]
    variant = (findings.study.a, findings.study.b)[side].label
    turns = [value for value, count in sorted(sums.round_turns.counts.items()) for _ in range(count)]
    scores = [value for value, count in sorted(sums.round_scores.counts.items()) for _ in range(count)]
    games, rounds = sums.rounds.games, sums.rounds.a
    opener = sums.seat_wins.get(1)
    stats = Stats(variant, players, seed, list(agents), games=games, rounds=rounds, turns=sum(turns),
                  seconds=findings.seconds / 2,      # both variants' games were played together
                  bao_calls=sums.bao_calls.a, bao_cancelled=sums.bao_calls.a - sums.bao_success.b,
                  bao_successes=sums.bao_success.a, final_phase_rounds=sums.second_recycle.a)
    return Figures(variant, stats, turns, scores, opener.a if opener is not None else 0, games, rounds,
                   sums.second_recycle.a)


def _bar(done: int, total: int, label: str) -> None:
    width = 30
    filled = int(width * done / max(total, 1))
    print(f"\r  simulating {label} [{'#' * filled}{'.' * (width - filled)}] {done}/{total}", end="",
          file=sys.stderr, flush=True)


def paired_shares(axis, labels: list[str], left: tuple[str, list], right: tuple[str, list]) -> None:
    """Two bars per edition, both shares between 0 and 1."""
    x = range(len(labels))
    axis.bar([i - 0.2 for i in x], left[1], 0.4, label=left[0])
    axis.bar([i + 0.2 for i in x], right[1], 0.4, label=right[0])
    axis.set_xticks(list(x), labels)
    axis.set_ylim(0, 1)
    axis.legend()


def _pyplot():
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        raise ConfigError("the report's plots need matplotlib: pip install 'baobei[report]'") from None
    return plt


def _saver(plt, out: Path, files: dict):
    def save(name: str, draw, size=(6, 3.4)) -> None:
        fig, axis = plt.subplots(figsize=size)
        draw(axis)
        fig.tight_layout()
        path = out / f"{name}.png"
        fig.savefig(path, dpi=110)
        plt.close(fig)
        files[name] = path.name
    return save


def plots(figures: list[Figures], out: Path) -> dict[str, str]:
    plt = _pyplot()
    files = {}
    save = _saver(plt, out, files)

    labels = [f.variant for f in figures]

    def round_length(axis):
        for f in figures:
            axis.hist(f.round_turns, bins=range(0, max(f.round_turns + [1]) + 2), alpha=0.6, label=f.variant)
        axis.set_xlabel("turns in a round")
        axis.set_ylabel("rounds")
        axis.set_title("Round length")
        axis.legend()

    def bao(axis):
        calls = [f.stats.bao_calls / max(f.rounds, 1) for f in figures]
        success = [f.stats.bao_success_rate for f in figures]
        paired_shares(axis, labels, ("BAO calls per round", calls), ("BAO success rate", success))
        axis.set_title("BAO")

    def scores(axis):
        for f in figures:
            axis.hist(f.scores, bins=30, alpha=0.6, label=f.variant)
        axis.set_xlabel("round score")
        axis.set_ylabel("player-rounds")
        axis.set_title("Score distribution")
        axis.legend()

    def first_player(axis):
        share = [f.first_wins / max(f.games, 1) for f in figures]
        fair = [1 / max(f.stats.players, 1) for f in figures]
        paired_shares(axis, labels, ("games won by the first player", share), ("a fair share", fair))
        axis.set_title("First-player advantage")

    def recycle(axis):
        share = [f.final_phase / max(f.rounds, 1) for f in figures]
        axis.bar(labels, share)
        axis.set_ylim(0, 1)
        axis.set_ylabel("share of rounds")
        axis.set_title("Rounds ended by the second recycle")

    rounds = sum(f.rounds for f in figures)
    games = ", ".join(f"{f.games} in {f.variant}" for f in figures)
    # a plot with nothing to show is a sentence saying why (Document.sections shows it in its place)
    empty = {
        "round-length": None if rounds else f"No round was played ({games} games): no round length to plot.",
        "bao": None if any(f.stats.bao_calls for f in figures) else
        f"No player called BAO in the simulated games ({games} games, {rounds} rounds): no BAO calls or success "
        f"rate to plot.",
        "scores": None if any(f.scores for f in figures) else f"No round was scored ({games} games): no scores to plot.",
        "first-player": None if any(f.games for f in figures) else "No game was played: no first-player share to plot.",
        "second-recycle": None if any(f.final_phase for f in figures) else
        "No simulated round ended by the second recycle (" + ", ".join(f"0 of {f.rounds} rounds in {f.variant}"
                                                                        for f in figures) + "): nothing to plot.",
    }
    for name, draw in (("round-length", round_length), ("bao", bao), ("scores", scores),
                       ("first-player", first_player), ("second-recycle", recycle)):
        if empty[name]:
            files[name] = Empty(empty[name])
        else:
            save(name, draw)
    return files


@dataclass
class Empty:
    """A plot not drawn, and why: the document shows the sentence instead of an empty picture."""
    why: str


# ---- the balance study of the first two variants ----------------------------------------------------

BALANCE_IMAGES = {"balance-rates": "Balance: rates, the difference in points with its 95% interval",
                  "balance-means": "Balance: means and spreads, the difference in % of the first variant's value",
                  "balance-distributions": "Balance: distributions, the share of each bin"}


def balance_study(config: Config, variants: list[str], games: int, players: int, seed: int, agents: list[str],
                  progress: bool):
    from baobei.balance import Side, Study, run_study
    from baobei.interpreter.workers import cores
    a, b = (Side.of(v, load_rules(config, v)) for v in variants[:2])
    return run_study(Study(a, b, max(games, 2), players, tuple(agents), seed), workers=cores(), progress=progress)


def balance_forests(findings, out: Path) -> dict[str, str]:
    """The balance study's rates and means: each difference with its interval."""
    plt = _pyplot()
    files = {}
    save = _saver(plt, out, files)
    a, b = findings.study.a.label, findings.study.b.label
    compared = [row for row in findings.rows if row.comparison is not None and row.metric.kind != "distribution"]

    def forest(axis, rows, scale_of, unit: str) -> None:
        rows = [row for row in rows if scale_of(row)]
        for y, row in enumerate(rows):
            low, high = row.comparison.interval()
            scale = scale_of(row)
            color = "tab:red" if row.verdict == "significant" else "tab:gray"
            axis.plot([low * scale, high * scale], [y, y], color=color)
            axis.plot([row.comparison.difference * scale], [y], "o", color=color)
        axis.axvline(0, color="black", linewidth=0.8)
        axis.set_yticks(range(len(rows)), [row.metric.label for row in rows], fontsize=7)
        axis.set_xlabel(f"{b} - {a} ({unit}); red: significant")
        axis.invert_yaxis()

    shares = [row for row in compared if row.metric.kind == "share"]
    means = [row for row in compared if row.metric.kind != "share" and row.a.value]
    if shares:
        save("balance-rates", lambda axis: forest(axis, shares, lambda row: 100, "points"),
             size=(7, 0.28 * len(shares) + 1.2))
    else:
        files["balance-rates"] = Empty(f"No rate could be compared in {findings.played} games per variant: nothing "
                                       f"to plot.")
    if means:
        save("balance-means", lambda axis: forest(axis, means, lambda row: 100 / abs(row.a.value), "% of " + a),
             size=(7, 0.28 * len(means) + 1.2))
    else:
        files["balance-means"] = Empty(f"No mean of {a} differs from zero in {findings.played} games per variant, "
                                       f"so none can be shown as a share of it: nothing to plot.")
    return files


def balance_distributions(findings, out: Path) -> dict[str, str]:
    """The balance study's distributions: the share of each bin, side by side (the costliest
    plot of the report: a panel per distribution)."""
    plt = _pyplot()
    files = {}
    save = _saver(plt, out, files)
    a, b = findings.study.a.label, findings.study.b.label
    distributions = [row for row in findings.rows if row.metric.kind == "distribution" and row.comparison is not None]
    if not distributions:
        files["balance-distributions"] = Empty(f"No distribution could be compared in {findings.played} games per "
                                               f"variant: nothing to plot.")
        return files

    def histograms(axis) -> None:
        axis.axis("off")
        figure = axis.figure
        columns = 2
        rows = -(-len(distributions) // columns)
        for index, row in enumerate(distributions):
            panel = figure.add_subplot(rows, columns, index + 1)
            test = row.comparison
            x = range(len(test.bins))
            panel.bar([i - 0.2 for i in x], test.shares_a, 0.4, label=a)
            panel.bar([i + 0.2 for i in x], test.shares_b, 0.4, label=b)
            panel.set_xticks(list(x), [f"{lo}" if lo == hi else f"{lo}-{hi}" for lo, hi in test.bins],
                             fontsize=6, rotation=60)
            panel.set_title(f"{row.metric.label.split(':')[0]} ({row.verdict})", fontsize=8)
            panel.legend(fontsize=6)
    save("balance-distributions", histograms, size=(8, 3.2 * max(1, -(-len(distributions) // 2))))
    return files


def balance_blocks(findings, images: dict) -> list:
    from baobei.balance import metrics_table, notable
    study = findings.study
    blocks = [("p", f"{findings.played} games per variant, {study.players} players, agents {','.join(study.agents)}, "
                    f"seed {study.seed}. 95% intervals; verdicts Holm-corrected over the metrics at level "
                    f"{findings.level:g} (docs/balance.md). Larger studies: baobei balance {study.a.label} "
                    f"{study.b.label} --games N."),
              ("table", *metrics_table(findings))]
    sentences = notable(findings)
    blocks += [("p", line[0].upper() + line[1:] + ".") for line in sentences] or [("p", "No significant difference.")]
    blocks += [_figure(images[name], caption) for name, caption in BALANCE_IMAGES.items()]
    return blocks


def _figure(image, caption: str) -> tuple:
    """A plot, or the sentence saying why there is none."""
    if isinstance(image, Empty):
        return ("p", f"{caption}: {image.why}")
    return ("img", image, caption)


# ---- the document --------------------------------------------------------------------------------

def project_path(loc, root: Path | None) -> str:
    """A location as `file:line:col` relative to the project's folder (where baobei.yaml is), wherever the
    report is written from: the same report from any folder."""
    import os
    text = str(loc.file)
    if root is not None and os.path.isabs(text):
        relative = os.path.relpath(text, root)
        if not relative.startswith(".."):
            text = relative
    return f"{text}:{loc.line}:{loc.column}" if loc.line else text


def rules_side_by_side(specs: dict, root: Path | None = None) -> list[dict]:
    """One row per rule name: its text and citations in each edition, and whether every variant has the
    same rule (the same text: shown once)."""
    names = []
    for spec in specs.values():
        for name in spec.rules:
            if name not in names:
                names.append(name)
    rows = []
    for name in names:
        row = {"name": name, "cells": {}}
        for variant, spec in specs.items():
            rule = spec.rules.get(name)
            if rule is None:
                row["cells"][variant] = None
                continue
            cites = [f'{s.edition}: "{s.text}"' if isinstance(s, ast.Cite) else f'assumed: "{s.text}"'
                     for s in rule.sources]
            row["cells"][variant] = {"text": f"{rule.level_name} {rule_body(rule)}", "layer": rule.layer,
                                     "loc": project_path(rule.loc, root), "cites": cites}
        cells = list(row["cells"].values())
        row["same"] = all(c is not None for c in cells) and len({(c["text"], c["loc"]) for c in cells}) == 1
        rows.append(row)
    return rows


def build(config: Config, variants: list[str], out: Path, fmt: str, games: int, players: int, seed: int,
          agents: list[str], progress: bool, bounds: Bounds = Bounds(), balance_games: int | None = None) -> Path:
    """`balance_games`: games per variant of the balance study (default: `games`; 0: none)."""
    started = time.perf_counter()
    out.mkdir(parents=True, exist_ok=True)
    specs = {v: load_spec(config, v) for v in variants}
    editions = {v: load_edition_for(config, s) for v, s in specs.items()}
    proofs = prove_all([(specs[v], editions[v]) for v in variants], bounds, DEFAULT_TIMEOUT_MS, progress=progress)
    phase = Phase(f"checking {', '.join(variants)}", "checks", enabled=progress)
    # the variants side by side, each in a worker of its own, a house variant after its base, as
    # `baobei check` checks them
    reports = in_forked_workers(_checked, [(specs[v], editions[v], v, bounds, proof, index % 2 == 1)
                                           for index, (v, proof) in enumerate(zip(variants, proofs))],
                                on_progress=phase.progress, after=built_on(config, variants))
    checks = dict(zip(variants, reports))
    phase.finish()
    differences = diff((variants[0], specs[variants[0]]), (variants[1], specs[variants[1]]),
                       editions[variants[0]], bounds, progress=progress,
                       proofs=(proofs[0], proofs[1])) if len(variants) > 1 else None
    balance_games = games if balance_games is None else balance_games
    balance = None
    if len(variants) > 1 and balance_games:
        balance = balance_study(config, variants, balance_games, players, seed, agents, progress)
    # the balance study plays seeded games of the first two variants with the simulation's settings:
    # when it plays as many as the simulation would, its games are the simulation's (played once)
    shared = balance is not None and balance.played == games
    figures = [figures_of_study(balance, index, players, seed, agents) if shared and index < 2 else
               gather(config, v, players, games, seed, agents, progress) for index, v in enumerate(variants)]
    phase = Phase("drawing the plots", "plots", enabled=progress)
    # three groups of plots side by side, the longest first: the balance study's distributions,
    # the simulation's plots, the balance study's rates and means. matplotlib is imported here
    # first, once (a missing one is told before any worker starts, and the workers inherit it)
    _pyplot()
    images = {}
    groups = [(plots, figures, out)]
    if balance is not None:
        groups = [(balance_distributions, balance, out)] + groups + [(balance_forests, balance, out)]
    for drawn in in_forked_workers(_drawn, groups):
        images.update(drawn)
    phase.finish(f"{len(images)} plots")
    document = Document(variants, specs, editions, checks, differences, figures, images,
                        dict(games=games, players=players, seed=seed, agents=agents, shared=shared),
                        time.perf_counter() - started, balance, config.config_dir or config.spec_dir.parent, out)
    path = out / ("report.html" if fmt == "html" else "report.md")
    path.write_text(document.html() if fmt == "html" else document.markdown(), encoding="utf-8")
    return path


def _drawn(group, data, out: Path) -> dict:
    """The files of one group of plots: plots, balance_forests or balance_distributions (in a
    worker of its own: the fork hands it the function and the data, only the file names come back)."""
    return group(data, out)


def _checked(spec, edition, variant: str, bounds: Bounds, proofs: list, backwards: bool):
    return check(spec, edition, variant, bounds, DEFAULT_TIMEOUT_MS, proofs, backwards=backwards)


@dataclass
class Document:
    variants: list[str]
    specs: dict
    editions: dict
    checks: dict
    differences: object
    figures: list[Figures]
    images: dict
    settings: dict
    seconds: float
    balance: object = None       # the balance study's findings (two variants or more)
    root: Path | None = None     # the project's folder: locations are shown relative to it
    out: Path | None = None      # where the plots are: the HTML embeds them

    # each section as (heading, [blocks]); a block is ("p", text) ("table", header, rows) ("img", file, caption)
    def sections(self) -> list[tuple[str, list]]:
        sections = [("BAO BEI — rules report", [
            ("p", f"Variants: {', '.join(self.variants)}. Edition: "
                  + "; ".join(f"{v}: {e.name} (assumed: {', '.join(e.assumed) or 'nothing'})"
                              for v, e in self.editions.items()) + "."),
            ("p", f"Simulation: {self.settings['games']} games per edition, {self.settings['players']} players, "
                  f"agents {','.join(self.settings['agents'])}, seed {self.settings['seed']}"
                  + (" (the balance study's games)" if self.settings.get("shared") else "") + ". "
                  f"Built in {self.seconds:.0f} s."),
        ])]
        sections.append(("Claims", [("table", ["claim"] + self.variants, self._claim_rows())]))
        if self.differences is not None:
            blocks = []
            for number, finding in enumerate(self.differences.findings, start=1):
                blocks.append(("h3", f"{number}. {finding.title}"))
                blocks.append(("p", "From: " + ", ".join(c.split(" ", 1)[1] for c in finding.causes)))
                rows = []
                for item in finding.classes:
                    sides = "; ".join(f"{side}: " + ", ".join(r.name for r in rules)
                                      for side, rules in item.rules.items())
                    rows.append([item.message, sides, witness_line(item.witness)])
                blocks.append(("table", ["what differs", "deciding rules", "witness table"], rows))
            sections.append((f"Differences between {self.variants[0]} and {self.variants[1]}", blocks))
        stats_rows = []
        for f in self.figures:
            s = f.stats
            stats_rows.append([f.variant, str(s.games), str(s.rounds), f"{s.turns_per_round:.1f}",
                               f"{s.bao_calls / max(f.rounds, 1):.2f}", f"{s.bao_success_rate:.0%}",
                               f"{f.first_wins / max(f.games, 1):.0%}", f"{f.final_phase / max(f.rounds, 1):.0%}",
                               f"{s.games_per_second:.0f}"])
        blocks = [("table", ["edition", "games", "rounds", "turns/round", "BAO/round", "BAO success",
                             "first player wins", "2nd recycle", "games/s"], stats_rows)]
        captions = {"round-length": "Round length", "bao": "BAO calls and success rate",
                    "scores": "Score distribution", "first-player": "First-player advantage",
                    "second-recycle": "Rounds ended by the second recycle"}
        for name, caption in captions.items():
            blocks.append(_figure(self.images[name], caption))
        sections.append(("Simulation", blocks))
        if self.balance is not None:
            study = self.balance.study
            sections.append((f"Balance: {study.a.label} vs {study.b.label}", balance_blocks(self.balance, self.images)))
        sections.append(("The rules side by side", self._rule_blocks()))
        return sections

    def _rule_blocks(self) -> list:
        """The rules that differ between the variants side by side; those every variant shares once."""
        def cell_text(cell) -> str:
            return "—" if cell is None else f"{cell['text']}\n[{cell['layer']}, {cell['loc']}]\n" + "\n".join(cell["cites"])

        rows = rules_side_by_side(self.specs, self.root)
        differing = [[row["name"]] + [cell_text(row["cells"][v]) for v in self.variants] for row in rows
                     if not row["same"]]
        shared = [[row["name"], cell_text(row["cells"][self.variants[0]])] for row in rows if row["same"]]
        if len(self.variants) == 1:
            return [("table", ["rule", self.variants[0]], shared)]
        return [("p", f"{len(differing)} rules differ between {', '.join(self.variants)} (present in one only, or "
                      f"written differently): side by side. The {len(shared)} rules they share are shown once, "
                      f"after them."),
                ("h3", "Where they differ"),
                ("table", ["rule"] + self.variants, differing),
                ("h3", f"The same in {', '.join(self.variants)}"),
                ("table", ["rule", "in every variant"], shared)]

    def _claim_rows(self) -> list[list[str]]:
        names = []
        for report in self.checks.values():
            for name, _, _ in report.claims:
                if name not in names:
                    names.append(name)
        rows = []
        for name in names:
            row = [name]
            for variant in self.variants:
                status = {n: s for n, s, _ in self.checks[variant].claims}.get(name, "—")
                row.append(status)
            rows.append(row)
        findings = sum(len(r.findings) for r in self.checks.values())
        rows.append([f"(findings of check: {findings})"] + ["" for _ in self.variants])
        return rows

    def markdown(self) -> str:
        lines = []
        for index, (heading, blocks) in enumerate(self.sections()):
            lines.append(("# " if index == 0 else "## ") + heading)
            lines.append("")
            for block in blocks:
                if block[0] == "p":
                    lines += [block[1], ""]
                elif block[0] == "h3":
                    lines += [f"### {block[1]}", ""]
                elif block[0] == "img":
                    lines += [f"![{block[2]}]({block[1]})", ""]
                else:
                    _, header, rows = block
                    lines.append("| " + " | ".join(header) + " |")
                    lines.append("|" + "---|" * len(header))
                    for row in rows:
                        lines.append("| " + " | ".join(c.replace("|", "\\|").replace("\n", "<br>") for c in row) + " |")
                    lines.append("")
        return "\n".join(lines)

    def _embedded(self, name: str) -> str:
        """A plot as a data: URL, so that the HTML file is whole on its own (moved, mailed, opened offline)."""
        import base64
        data = (self.out / name).read_bytes() if self.out is not None else b""
        return "data:image/png;base64," + base64.b64encode(data).decode("ascii")

    def html(self) -> str:
        e = html.escape
        parts = ["<!doctype html><html lang='en'><head><meta charset='utf-8'>"
                 "<meta name='viewport' content='width=device-width, initial-scale=1'><title>BAO BEI rules report</title>",
                 "<style>body{font-family:sans-serif;max-width:1200px;margin:2em auto;padding:0 1em}"
                 "table{border-collapse:collapse;margin:1em 0;font-size:.9em}td,th{border:1px solid #ccc;"
                 "padding:.3em .5em;vertical-align:top;text-align:left}th{background:#f3f3f3}"
                 "td{white-space:pre-wrap;overflow-wrap:anywhere}table{table-layout:fixed;width:100%}img{max-width:48%;margin:.5em}figure{display:inline-block;"
                 "width:48%;margin:0}figcaption{font-size:.85em;color:#555}</style></head><body>"]
        for index, (heading, blocks) in enumerate(self.sections()):
            parts.append(f"<h{1 if index == 0 else 2}>{e(heading)}</h{1 if index == 0 else 2}>")
            for block in blocks:
                if block[0] == "p":
                    parts.append(f"<p>{e(block[1])}</p>")
                elif block[0] == "h3":
                    parts.append(f"<h3>{e(block[1])}</h3>")
                elif block[0] == "img":
                    parts.append(f"<figure><img src='{self._embedded(block[1])}' alt='{e(block[2])}' "
                                 f"style='max-width:100%'><figcaption>{e(block[2])}</figcaption></figure>")
                else:
                    _, header, rows = block
                    parts.append("<table><tr>" + "".join(f"<th>{e(h)}</th>" for h in header) + "</tr>")
                    for row in rows:
                        parts.append("<tr>" + "".join(f"<td>{e(c)}</td>" for c in row) + "</tr>")
                    parts.append("</table>")
        parts.append("</body></html>")
        return "\n".join(parts)
