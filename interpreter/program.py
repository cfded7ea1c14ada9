"""A spec's rules as a loaded Python module, and what the engine reads from it.

The module is generated once per spec content (generate.py) and kept in the user's
cache folder (dsl/cache.py) under a key made of the spec's own key (its files) and
the generator's source: an edited spec, a copy or a house layer gets its own module,
a new baobei version writes new ones. A cache entry is imported only if it says it
is the module of that key; a broken or stale one is written again; an unwritable
cache folder means the module is compiled in memory.
"""
from __future__ import annotations

import hashlib
import importlib.util
import marshal
import pickle
import sys
import types
from pathlib import Path

from baobei.dsl import ast, cache
from baobei.dsl.model import Spec


HERE = Path(__file__).parent
GENERATOR = [HERE / name for name in ("expressions.py", "enumerate.py", "generate.py", "moves.py")]


class RuleRef:
    """A rule as the generated code returns it: its name, its verdict (legality rules) and its
    declaration."""

    __slots__ = ("decl", "name", "allow")

    def __init__(self, decl: ast.RuleDecl):
        self.decl = decl
        self.name = decl.name
        self.allow = decl.body.allow if isinstance(decl.body, ast.Verdict) else None

    def __repr__(self) -> str:
        return f"RuleRef({self.name})"


class Program:
    """The executable rules of one spec."""

    def __init__(self, spec: Spec, module: types.ModuleType):
        self.spec = spec
        self.module = module
        self.ns = module.__dict__
        for table, names in module.RULE_TABLES.items():
            self.ns[table] = tuple(RuleRef(spec.rules[name]) for name in names)
        self.kinds = {name: self.ns["K_" + name] for name in spec.cards}
        self.var_names = tuple(spec.vars)
        self.round_class = _round_class(self.var_names)
        self.player_var_names = tuple(spec.player_vars)
        self.procedures = module.PROCEDURES          # name -> (function, whether it can ask)
        self.handlers = module.HANDLERS
        self.powers = module.POWERS
        self.anytime = module.ANYTIME
        self.legal = module.LEGAL                    # kind -> the rule deciding a move of it (S, C)
        self.applicable = module.APPLICABLE          # kind -> every rule of it that applies (S, C)
        self.fires = module.FIRES                    # (role, function) for each role rules fire
        self.fired_powers = module.FIRED             # (S, C, log) -> every power that fires (all roles at once)
        self.init_vars = module.init_vars
        self.init_player_vars = module.init_player_vars
        self.by_priority = module.by_priority       # (S, C, players) -> the players in the order of priority
        self.sites = module.SITES                    # every ask site (legality.Site), by its index
        self.recycle = module.PROCEDURES["recycle"][0]
        self.action_end = module.PROCEDURES["action_end"][0]
        self._lambdas: dict = {}     # id(expr) -> (expr, its function): each compiled once
        self.kept: dict = {}         # what an agent derives from the program once, under a name of its own

    def define(self, name: str):
        """The function (S, C, *arguments) of a definition."""
        return self.module.DEFINES[name]

    def decision(self, name: str):
        """The function (S, C, *arguments) of a decision (an error in play when no rule decides)."""
        return self.module.DECISIONS[name]

    def lambda_(self, expr: ast.Expr):
        """A function (S, C, L) -> value of any expression of the spec on a round, in a move's
        context (C), with the names L gives for locals (invariants, witness search, why).
        Compiled once per expression (random play watches the spec's invariants every round)."""
        found = self._lambdas.get(id(expr))
        if found is not None:
            return found[1]
        from .expressions import Compiler, Env, context_of
        compiler = Compiler(self.spec, {role: fn.__name__ for role, fn in self.fires})
        names = {}
        for node in ast.walk(expr):
            if isinstance(node, ast.Name) and node.ref and node.ref[0] == "local":
                names[node.name] = _local(node)
        code = compiler.expr(expr, Env(names=names, context=context_of("C")))
        name = f"lambda_{len(self._lambdas) + 1}"
        source = "\n".join([f"def {name}(S, C, L):"] + ["    " + line for line in code.lines] +
                           [f"    return {code.value}"])
        exec(compile(source, f"<expression {name}>", "exec"), self.ns)
        function = self.ns.pop(name)
        self._lambdas[id(expr)] = (expr, function)     # (the expression kept, so its id is never reused)
        return function


def _round_class(var_names: tuple[str, ...]):
    """engine.Round with the spec's variables as slots (v_NAME): the state one flat structure."""
    from .engine import Round
    return type("Round", (Round,), {"__slots__": tuple("v_" + name for name in var_names),
                                    "__module__": Round.__module__, "__doc__": Round.__doc__})


def _local(node: ast.Name):
    from .expressions import View
    return View(f"L[{node.name!r}]", none=True, new=node.type.name == "slot")


_PROGRAMS: dict[str, Program] = {}
KEPT = 16
_VERSION: list[str] = []


def generator_version() -> str:
    if not _VERSION:
        _VERSION.append(cache.sources_digest(GENERATOR))
    return _VERSION[0]


def program_of(spec: Spec) -> Program:
    """The program of a spec: from this process, from the cache folder, or generated now. A spec
    read from files has the loader's key; one read otherwise (an editor's unsaved texts) is keyed
    by its own content."""
    content = spec.key or _content(spec)
    key = cache.digest(generator_version(), content) if content else ""
    found = _PROGRAMS.get(key) if key else None
    if found is not None and found.spec is spec:
        return found
    program = Program(spec, load_module(spec, key))
    if key:
        _PROGRAMS[key] = program
    while len(_PROGRAMS) > KEPT:          # a long session (an editor's) keeps the last ones only
        del _PROGRAMS[next(iter(_PROGRAMS))]
    return program


def _content(spec: Spec) -> str:
    try:
        return hashlib.sha256(pickle.dumps(spec, protocol=pickle.HIGHEST_PROTOCOL)).hexdigest()
    except RecursionError:    # too deep to write out: generated in memory, each time
        return ""


def load_module(spec: Spec, key: str) -> types.ModuleType:
    """The spec's module: its compiled code from the cache folder, else generated (and kept there,
    the source beside its compiled code, so that a reader can open it and tracebacks show it)."""
    if not key:
        return _module(compile(_generate(spec, key), "<rules in memory>", "exec"), key)
    source_name = f"rules-{key}.py"
    code_name = f"rules-{key}.{sys.implementation.cache_tag}.code"
    module = _cached(code_name, key)
    if module is not None:
        return module
    source = _generate(spec, key)
    path = cache.write(source_name, source.encode("utf-8"))
    code = compile(source, str(path) if path is not None else f"<rules {key}>", "exec")
    if path is not None:
        cache.write(code_name, importlib.util.MAGIC_NUMBER + marshal.dumps(code))
    return _module(code, key)


def _generate(spec: Spec, key: str) -> str:
    from .generate import generate     # the generator is imported only when there is something to write
    return generate(spec, key)


def _cached(name: str, key: str) -> types.ModuleType | None:
    """The module of this key from its cached compiled code, if that is there, is this Python's and
    runs, and the module says it is of this key; else None (and it is made again)."""
    data = cache.read(name)
    magic = importlib.util.MAGIC_NUMBER
    if data is None or not data.startswith(magic):
        return None
    try:
        module = _module(marshal.loads(data[len(magic):]), key)
    except Exception:  # noqa: BLE001 - a damaged entry is written again
        return None
    return module if getattr(module, "KEY", None) == key else None


def _module(code, key: str) -> types.ModuleType:
    module = types.ModuleType(f"baobei_rules_{key or 'memory'}")
    module.__file__ = code.co_filename
    exec(code, module.__dict__)
    return module
