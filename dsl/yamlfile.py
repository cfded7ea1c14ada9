"""YAML input with positions: data from yaml.safe_load, lines and columns from the
composed node tree, so that every complaint can name the file, key and line.
"""
from __future__ import annotations

from pathlib import Path

import yaml

from .errors import BaobeiError, Loc

# The safe loader (what yaml.safe_load uses), on libyaml's C parser where PyYAML has it: a
# tenth of the time on the project's scenario files, the same data, marks and errors.
SAFE_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


class YamlDoc:
    def __init__(self, path: str, data, root: yaml.Node | None, lines: list[str]):
        self.path = path
        self.data = data
        self.root = root
        self.lines = lines

    def loc(self, *keys) -> Loc:
        """Where the value at this path of keys and list indexes is written (or its nearest parent)."""
        mark, _ = self._find(keys)
        if mark is None:
            return Loc(self.path, 1, 1)
        return Loc(self.path, mark.line + 1, mark.column + 1)

    def span(self, *keys) -> Loc:
        """The value at this path of keys itself, from its first character to its last."""
        mark, node = self._find(keys)
        if mark is None or node is None:
            return self.loc(*keys)
        start, end = node.start_mark, node.end_mark
        return Loc(self.path, start.line + 1, start.column + 1, end.line + 1, end.column + 1)

    def _find(self, keys):
        """The mark to show for the path (a mapping value's key) and the value's node."""
        node, mark = self.root, None
        for key in keys:
            found = None
            if isinstance(node, yaml.MappingNode):
                for key_node, value_node in node.value:
                    if key_node.value == str(key):
                        found, mark = value_node, key_node.start_mark
                        break
            elif isinstance(node, yaml.SequenceNode) and isinstance(key, int) and 0 <= key < len(node.value):
                found = node.value[key]
                mark = found.start_mark
            if found is None:
                return mark, None
            node = found
        return mark, node


def read_yaml(path: str | Path, error: type[BaobeiError]) -> YamlDoc:
    path = str(path)
    try:
        text = Path(path).read_text(encoding="utf-8")
    except UnicodeDecodeError:
        raise error("the file is not UTF-8 text", Loc(path)) from None
    except OSError as problem:
        raise error(f"cannot read the file: {problem.strerror}", Loc(path)) from None
    return parse_yaml(text, path, error)


def parse_yaml(text: str, path: str, error: type[BaobeiError]) -> YamlDoc:
    try:
        data = yaml.load(text, Loader=SAFE_LOADER)        # yaml.safe_load, with libyaml's parser
        root = yaml.compose(text, Loader=SAFE_LOADER)
    except yaml.MarkedYAMLError as problem:
        mark = problem.problem_mark or problem.context_mark
        loc = Loc(path, mark.line + 1, mark.column + 1) if mark else Loc(path)
        raise error(f"not valid YAML: {problem.problem or problem.context}", loc) from None
    except yaml.YAMLError as problem:
        raise error(f"not valid YAML: {problem}", Loc(path)) from None
    except RecursionError:
        raise error("not valid YAML: nested too deeply", Loc(path)) from None
    _no_duplicate_keys(root, path, error)
    return YamlDoc(path, data, root, text.splitlines())


def _no_duplicate_keys(node, path: str, error: type[BaobeiError]) -> None:
    """A key written twice would silently drop a value (and a check with it)."""
    stack = [node]
    while stack:
        node = stack.pop()
        if isinstance(node, yaml.MappingNode):
            seen = set()
            for key_node, value_node in node.value:
                if isinstance(key_node, yaml.ScalarNode):
                    if key_node.value in seen:
                        mark = key_node.start_mark
                        raise error(f"key '{key_node.value}' is written twice in the same mapping",
                                    Loc(path, mark.line + 1, mark.column + 1))
                    seen.add(key_node.value)
                stack.append(value_node)
        elif isinstance(node, yaml.SequenceNode):
            stack.extend(node.value)
