"""`baobei lsp` as a command: without the language server packages it says what to install."""
from __future__ import annotations

import subprocess
import sys


def test_without_the_language_server_packages_it_says_what_to_install():
    hide = "import sys; sys.modules['pygls'] = None; from baobei.cli import main; sys.exit(main(['lsp']))"
    done = subprocess.run([sys.executable, "-P", "-c", hide], capture_output=True, text=True, timeout=60)
    assert done.returncode == 2
    assert "pip install 'baobei[lsp]'" in done.stderr and "Traceback" not in done.stderr


def test_the_command_list_names_it():
    done = subprocess.run([sys.executable, "-P", "-m", "baobei.cli", "--help"], capture_output=True, text=True,
                          timeout=60)
    assert done.returncode == 0 and "lsp" in done.stdout
