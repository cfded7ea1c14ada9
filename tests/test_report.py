"""The report: one HTML (or Markdown) document with the rules side by side, the differences,
the claims, and simulation figures with their plots for both editions."""
from __future__ import annotations

from baobei.cli import main


def test_html_report_with_plots_for_both_editions(tmp_path, capsys):
    out = tmp_path / "report"
    code = main(["report", "--games", "6", "--players", "2", "--seed", "9", "--out", str(out),
                 "--check-players", "3", "--check-slots", "4"])
    assert code == 0 and "seed 9" in capsys.readouterr().out
    page = (out / "report.html").read_text(encoding="utf-8")
    for image in ("round-length", "bao", "scores", "first-player", "second-recycle", "balance-rates",
                  "balance-means", "balance-distributions"):
        assert (out / f"{image}.png").stat().st_size > 1000
        assert f"src='{image}.png'" in page
    assert "<h2>Claims</h2>" in page and "score.negative_bao_always_succeeds" in page
    assert "Differences between fr and de" in page and "legal pluck" in page
    assert "The rules side by side" in page and "pluck.double.on_a_regular_discard" in page
    assert "Il existe exactement trois modes de déclenchement" in page
    assert "<h2>Balance: fr vs de</h2>" in page and "BAO success rate" in page and "p (Holm)" in page


def test_markdown_report(tmp_path, capsys):
    out = tmp_path / "md"
    assert main(["report", "--format", "md", "--variant", "de", "--games", "3", "--players", "3",
                 "--seed", "1", "--out", str(out), "--agents", "random", "--check-players", "3",
                 "--check-slots", "4"]) == 0
    text = (out / "report.md").read_text(encoding="utf-8")
    assert text.startswith("# BAO BEI") and "| claim | de |" in text and "![Score distribution](scores.png)" in text
    assert "Differences" not in text
