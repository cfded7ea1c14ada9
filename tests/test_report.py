"""The report: one HTML (or Markdown) document with the rules side by side, the differences,
the claims, and simulation figures with their plots for both editions."""
from __future__ import annotations

import re
from collections import Counter
from types import SimpleNamespace

from baobei.cli import main
from baobei.report import Empty, Figures, plots

from conftest import ROOT


def test_html_report_with_plots_for_both_editions(tmp_path, capsys):
    out = tmp_path / "report"
    code = main(["report", "--games", "6", "--players", "2", "--seed", "9", "--out", str(out),
                 "--check-players", "3", "--check-slots", "4"])
    assert code == 0 and "seed 9" in capsys.readouterr().out
    page = (out / "report.html").read_text(encoding="utf-8")
    for image in ("round-length", "bao", "scores", "first-player", "second-recycle", "balance-rates",
                  "balance-means", "balance-distributions"):
        if (out / f"{image}.png").exists():
            assert (out / f"{image}.png").stat().st_size > 1000
        else:   # nothing to plot: a sentence says why, in the figure's place
            assert re.search(r"<p>[^<]*: No [^<]*nothing to plot\.</p>|<p>[^<]*: No [^<]*to plot\.</p>", page), image
    # the plots are embedded: the page is whole on its own
    assert page.count("src='data:image/png;base64,") == len(list(out.glob("*.png")))
    assert "<h2>Claims</h2>" in page and "score.negative_bao_always_succeeds" in page
    assert "Differences between fr and de" in page and "legal pluck" in page
    assert "The rules side by side" in page and "pluck.double.on_a_regular_discard" in page
    assert "Il existe exactement trois modes de déclenchement" in page
    # a rule both editions share is shown once, one that differs side by side; paths from the project's folder
    shared = page[page.index("<h3>The same in fr, de</h3>"):]
    assert shared.count("<td>bao.end_of_own_turn</td>") == 1 and "<td>pluck.double.own_draw</td>" not in shared
    differing = page[page.index("<h3>Where they differ</h3>"):page.index("<h3>The same in fr, de</h3>")]
    assert "<td>pluck.double.own_draw</td>" in differing and "<td>bao.end_of_own_turn</td>" not in differing
    assert "[core, spec/core/bao.bao:" in shared and str(ROOT) not in page
    assert "<h2>Balance: fr vs de</h2>" in page and "BAO success rate" in page and "p (Holm)" in page
    # the balance study plays as many games as the simulation: its games are the simulation's
    assert "Simulation: 6 games per edition, 2 players, agents memory, seed 9 (the balance study" in page
    simulation = page[page.index("<h2>Simulation</h2>"):]
    assert "<td>fr</td><td>6</td>" in simulation and "<td>de</td><td>6</td>" in simulation


def test_markdown_report(tmp_path, capsys):
    out = tmp_path / "md"
    assert main(["report", "--format", "md", "--variant", "de", "--games", "3", "--players", "3",
                 "--seed", "1", "--out", str(out), "--agents", "random", "--check-players", "3",
                 "--check-slots", "4"]) == 0
    text = (out / "report.md").read_text(encoding="utf-8")
    assert text.startswith("# BAO BEI") and "| claim | de |" in text and "![Score distribution](scores.png)" in text
    assert "| rule | de |" in text
    assert "Differences" not in text


def test_an_empty_plot_is_a_sentence_saying_why(tmp_path):
    stats = SimpleNamespace(bao_calls=0, bao_success_rate=0.0, players=2)
    figures = [Figures(v, stats, round_turns=[12, 15], scores=[3, 9, 4, 20], games=1, rounds=2, final_phase=0,
                       seat_wins=Counter()) for v in ("fr", "de")]
    images = plots(figures, tmp_path)
    assert images["round-length"] == "round-length.png" and (tmp_path / "scores.png").exists()
    assert isinstance(images["second-recycle"], Empty) and not (tmp_path / "second-recycle.png").exists()
    assert images["second-recycle"].why == ("No simulated round ended by the second recycle (0 of 2 rounds in fr, "
                                            "0 of 2 rounds in de): nothing to plot.")
    assert isinstance(images["bao"], Empty) and "No player called BAO" in images["bao"].why
