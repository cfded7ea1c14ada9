"""Every error of a project, by file: the spec's (merged over the variants that read a file,
saying which variants when not all of them), the files in no layer, the YAML files'."""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from baobei.dsl.errors import BaobeiError

from .project import Analysis, Project, resolved
from .yamlfiles import edition_errors, kind_of, scenario_errors


@dataclass
class Problem:
    error: BaobeiError
    note: str = ""              # e.g. "(variant de)": only these variants find it
    information: bool = False   # not an error: something the editor should know


def problems(project: Project, analysis: Analysis, texts: dict[str, str]) -> dict[str, list[Problem]]:
    found: dict[str, list[Problem]] = {}
    config_path = str(project.config_path)
    if analysis.config_error is not None:
        _add(found, config_path, Problem(analysis.config_error))
    merged: dict[tuple, tuple[BaobeiError, str, list[str]]] = {}
    for variant in analysis.variants:
        for error in variant.errors:
            path = _file_of(error, config_path)
            loc = error.loc
            key = (path, error.code, error.message, loc and (loc.line, loc.column, loc.end_line, loc.end_column))
            merged.setdefault(key, (error, path, []))[2].append(variant.variant.name)
    for error, path, names in merged.values():
        readers = [v.variant.name for v in analysis.variants_with(path)] or [v.variant.name for v in analysis.variants]
        note = f"({'variants' if len(names) > 1 else 'variant'} {', '.join(names)})" if set(readers) - set(names) else ""
        _add(found, path, Problem(error, note))
    for path, (_, errors) in analysis.loose.items():
        for error in errors:
            _add(found, path, Problem(error))
        _add(found, path, Problem(BaobeiError(
            f"this file is in no layer of {Path(config_path).name}: only its syntax is checked"), information=True))
    for path, text in texts.items():
        kind = kind_of(path, analysis.config)
        if kind == "edition":
            errors = edition_errors(path, text, analysis)
        elif kind == "scenario":
            errors = scenario_errors(path, text, analysis)
        else:
            continue
        seen = set()
        for error in errors:
            if (error.message, error.loc) not in seen:
                seen.add((error.message, error.loc))
                _add(found, path, Problem(error))
    return found


def _file_of(error: BaobeiError, config_path: str) -> str:
    """The file an error is in; one of the spec as a whole (no line) is shown on baobei.yaml."""
    if error.loc is not None and error.loc.line:
        return resolved(error.loc.file)
    return config_path


def _add(found: dict, path: str, problem: Problem) -> None:
    found.setdefault(path, []).append(problem)
