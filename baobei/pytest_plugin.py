"""pytest plugin: scenario files are test items, one per file and variant.

Installed with baobei (entry point `pytest11`), so a rules author's repository
runs its scenarios with plain `pytest`. Which folders hold scenarios is the ini
option `baobei_scenarios` (default: every folder named `scenarios`); the rules are
the project's, as for the command line: the baobei.yaml of the folder pytest runs
in (or above it) decides the spec folder, the layers and the edition. A broken
config fails every scenario file with its location. A failure shows the step, the
expectation and the state of the table.
"""
from __future__ import annotations

from pathlib import Path

import pytest

_CONFIG_KEY = pytest.StashKey()


def pytest_addoption(parser) -> None:
    parser.addini("baobei_scenarios", "folders whose .yaml files are baobei scenarios", type="paths",
                  default=[])


def project_config(config):
    """The baobei config of this pytest run (read once), or the BaobeiError that reading it raised."""
    if _CONFIG_KEY not in config.stash:
        from baobei.dsl.errors import BaobeiError
        from baobei.dsl.loader import load_config
        try:
            config.stash[_CONFIG_KEY] = load_config(cwd=Path(config.invocation_params.dir))
        except BaobeiError as error:
            config.stash[_CONFIG_KEY] = error
    return config.stash[_CONFIG_KEY]


def pytest_report_header(config) -> str:
    found = project_config(config)
    from baobei.dsl.errors import BaobeiError
    if isinstance(found, BaobeiError):
        return f"baobei: {found.render().splitlines()[0]}"
    return f"baobei: {found.describe()}"


def _is_scenario(path: Path, config) -> bool:
    if path.suffix not in (".yaml", ".yml"):
        return False
    roots = config.getini("baobei_scenarios")
    if roots:
        return any(root in path.parents for root in map(Path, roots))
    return "scenarios" in path.parts


def pytest_collect_file(parent, file_path: Path):
    if _is_scenario(file_path, parent.config):
        return ScenarioFile.from_parent(parent, path=file_path)
    return None


class ScenarioFile(pytest.File):
    def collect(self):
        from baobei.interpreter.scenario import load_scenario
        found = project_config(self.config)
        if isinstance(found, Exception):
            raise found
        scenario = load_scenario(self.path)
        for variant in scenario.variants:
            yield ScenarioItem.from_parent(self, name=variant, scenario=scenario, variant=variant)

    def repr_failure(self, excinfo):
        from baobei.dsl.errors import BaobeiError
        if isinstance(excinfo.value, BaobeiError):
            return excinfo.value.render()
        return super().repr_failure(excinfo)


class ScenarioFailed(Exception):
    pass


class ScenarioItem(pytest.Item):
    def __init__(self, *, scenario, variant, **kwargs):
        super().__init__(**kwargs)
        self.scenario = scenario
        self.variant = variant
        # pytest-lsp's run wrapper fails on an item without fixture arguments (it returns
        # before it yields): a scenario has none
        self.funcargs: dict = {}

    def runtest(self) -> None:
        from baobei.interpreter.scenario import run_scenario, variant_rules
        rules = variant_rules(self.scenario, self.variant, project_config(self.config))
        result = run_scenario(self.scenario, rules)
        if not result.passed:
            raise ScenarioFailed(result)

    def repr_failure(self, excinfo):
        if isinstance(excinfo.value, ScenarioFailed):
            result = excinfo.value.args[0]
            from baobei.dsl.errors import shown_path
            lines = [f"{shown_path(self.scenario.path)} [{self.variant}] {self.scenario.title}", result.message]
            if result.round is not None:
                lines.append(describe_table(result.round))
            return "\n".join(lines)
        from baobei.dsl.errors import BaobeiError
        if isinstance(excinfo.value, BaobeiError):
            return excinfo.value.render()
        return super().repr_failure(excinfo)

    def reportinfo(self):
        return self.path, None, f"{self.path.name} [{self.variant}]"


def describe_table(rnd) -> str:
    """The table as a rules author reads it: layouts, piles, whose turn, what is awaited."""
    lines = ["table:"]
    for player in rnd.players:
        cards = ", ".join("_" if c is None else c.kind.name for c in player.layout)
        lines.append(f"  {player.name}: [{cards}]")
    lines.append(f"  deck (top first): {[c.kind.name for c in reversed(rnd.deck)]}")
    lines.append(f"  discard (top last): {[c.kind.name for c in rnd.discard]}")
    if rnd.under:
        lines.append(f"  under the discard: {[c.kind.name for c in rnd.under]}")
    lines.append(f"  active: {rnd.active.name}; waiting for: {rnd.describe_pending()}")
    return "\n".join(lines)
