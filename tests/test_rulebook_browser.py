"""The HTML documents in a real browser: headless Chromium (Debian's `chromium`, which .ci/run
installs) renders each one, takes a screenshot, prints it to PDF (the print stylesheet's page
breaks) and reports whether anything overflows the page's width. A document must also name no
resource outside itself. Without Chromium these tests fail: they are never skipped."""
from __future__ import annotations

import re
import subprocess
import tempfile
from pathlib import Path

import pytest

from baobei.cli import main

CHROMIUM = "/usr/bin/chromium"
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync"]
# written into the page by the copy the test opens: whether the page is wider than the window
PROBE = ("<script>document.body.setAttribute('data-overflow', "
         "String(document.documentElement.scrollWidth > window.innerWidth));</script>")


def chromium() -> str:
    if not Path(CHROMIUM).is_file():
        pytest.fail(f"{CHROMIUM} is missing: install Debian's chromium (apt-get install -y chromium; .ci/run does)",
                    pytrace=False)
    return CHROMIUM


def browse(page: Path, *args: str, width: int = 1200, height: int = 1600) -> subprocess.CompletedProcess:
    """One headless Chromium run on a file, with a profile folder of its own."""
    with tempfile.TemporaryDirectory(prefix="chromium-profile-") as profile:
        done = subprocess.run([chromium(), *FLAGS, f"--user-data-dir={profile}", f"--window-size={width},{height}",
                               *args, page.as_uri()], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    return done


def external_references(text: str) -> list[str]:
    """Every src= or href= that points outside the file (anything but #anchors and data: URLs),
    and every CSS url() or @import, which would load something too."""
    found = [url for url in re.findall(r"""(?:src|href)\s*=\s*["']?([^"'\s>]*)""", text, re.I)
             if not url.startswith(("#", "data:"))]
    found += re.findall(r"url\(\s*['\"]?(?!data:)[^)]*\)|@import", text, re.I)
    return found


def check_in_browser(page: Path, tmp_path: Path, sections: int) -> None:
    text = page.read_text(encoding="utf-8")
    assert external_references(text) == []
    shot = tmp_path / f"{page.stem}.png"
    browse(page, f"--screenshot={shot}")
    data = shot.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 10_000        # a real picture, not a blank one
    # nothing wider than the window, at a desktop's width and at a phone's
    for width in (1200, 420):
        probed = tmp_path / f"{page.stem}-probe.html"
        probed.write_text(text.replace("</body>", PROBE + "</body>"), encoding="utf-8")
        dom = browse(probed, "--dump-dom", width=width).stdout
        assert 'data-overflow="false"' in dom, f"{page.name} overflows at {width} px"
    # the print stylesheet starts every section on a page of its own
    pdf = tmp_path / f"{page.stem}.pdf"
    browse(page, f"--print-to-pdf={pdf}", "--no-pdf-header-footer")
    pages = len(re.findall(rb"/Type\s*/Page\b", pdf.read_bytes()))
    assert pages > sections, (pages, sections)


@pytest.mark.parametrize("variant", ["fr", "optional-powers"])
def test_the_rulebook_renders_in_chromium(variant, tmp_path, capsys):
    assert main(["rulebook", "--variant", variant, "--out", str(tmp_path)]) == 0
    capsys.readouterr()
    page = tmp_path / f"rulebook-{variant}.html"
    sections = page.read_text(encoding="utf-8").count('<section class="file"')
    assert sections >= 8
    check_in_browser(page, tmp_path, sections)


def test_the_report_renders_in_chromium(tmp_path, capsys):
    out = tmp_path / "report"
    assert main(["report", "--games", "4", "--players", "2", "--seed", "5", "--out", str(out), "--balance-games", "4",
                 "--check-players", "2", "--check-slots", "4"]) == 0
    capsys.readouterr()
    check_in_browser(out / "report.html", tmp_path, 0)


def test_the_check_finds_external_references():
    assert external_references('<a href="#x">x</a><img src="data:image/png;base64,AA">') == []
    assert external_references('<img src="plot.png"><a href="https://example.org">') == ["plot.png",
                                                                                          "https://example.org"]
    assert external_references("<style>body { background: url(x.png) }</style>")

