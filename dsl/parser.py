"""Spec text -> syntax tree (dsl/ast.py), with positions and readable syntax errors."""
from __future__ import annotations

import functools
import hashlib
import pickle
from collections import OrderedDict
from pathlib import Path

from lark import Lark, Token, Transformer, Tree, v_args
from lark import __version__ as LARK_VERSION
from lark.exceptions import UnexpectedCharacters, UnexpectedEOF, UnexpectedInput, UnexpectedToken, VisitError
from lark.parsers.lalr_analysis import Shift

from . import ast, cache
from .errors import Loc, SpecSyntaxError

GRAMMAR = Path(__file__).with_name("grammar.lark")

# How a terminal is named in an error message.
_READABLE = {
    "NAME": "a name",
    "STRING": 'a quoted string',
    "INT": "a number",
    "CMP": "a comparison (== != < <= > >=)",
    "$END": "the end of the file",
}


@functools.lru_cache(maxsize=1)
def _lark() -> Lark:
    # cache=True keeps the built LALR tables in the temp folder: building them takes a second.
    return Lark(GRAMMAR.read_text(encoding="utf-8"), parser="lalr", propagate_positions=True,
                maybe_placeholders=False, cache=True)


def _readable(terminal: str) -> str:
    if terminal in _READABLE:
        return _READABLE[terminal]
    for term in _lark().terminals:
        if term.name == terminal:
            pattern = term.pattern
            if pattern.type == "str":
                return f"'{pattern.value}'"
    return terminal.lower()


def parse_text(text: str, path: str) -> ast.SpecFile:
    try:
        tree = _lark().parse(text)
    except UnexpectedInput as error:
        raise _syntax_error(error, text, path) from None
    except RecursionError:
        raise SpecSyntaxError("nested too deeply to read", Loc(path, 1, 1)) from None
    builder = _Builder(path)
    return _spec_file(path, [_build(builder, child, path) for child in tree.children], builder)


def parse_text_recovering(text: str, path: str) -> tuple[ast.SpecFile, list[SpecSyntaxError]]:
    """The declarations that can be read, and an error for each one that cannot: after a syntax
    error the parser drops the declaration it was in and goes on at the next line that begins
    a declaration (an editor shows every broken declaration at once, not only the first)."""
    errors: list[SpecSyntaxError] = []
    resumed = [-1]      # where reading last went on: never twice at the same place

    def on_error(error: UnexpectedInput) -> bool:
        found = _syntax_error(error, text, path)
        if not any(e.loc == found.loc and e.message == found.message for e in errors):
            errors.append(found)
        return _skip_to_next_declaration(error, text, resumed)

    try:
        children = _lark().parse(text, on_error=on_error).children
    except UnexpectedInput:     # the error is already recorded; nothing more can be read
        children = []
    except RecursionError:
        errors.append(SpecSyntaxError("nested too deeply to read", Loc(path, 1, 1)))
        children = []
    builder = _Builder(path)
    decls = []
    for child in children:
        try:
            decls.append(_build(builder, child, path))
        except SpecSyntaxError as error:
            errors.append(error)
    return _spec_file(path, decls, builder), errors


def _build(builder: "_Builder", tree: Tree, path: str) -> ast.Decl:
    """One declaration's syntax tree (a builder error is the user's: it says what is wrong)."""
    try:
        return builder.transform(tree)
    except VisitError as error:
        if isinstance(error.orig_exc, SpecSyntaxError):
            raise error.orig_exc from None
        if not isinstance(error.orig_exc, RecursionError):
            raise
        raise SpecSyntaxError("nested too deeply to read", Loc(path, 1, 1)) from None
    except RecursionError:
        raise SpecSyntaxError("nested too deeply to read", Loc(path, 1, 1)) from None


def _spec_file(path: str, decls: list, builder: "_Builder") -> ast.SpecFile:
    layer = next((d.name for d in decls if isinstance(d, ast.LayerDecl)), None)
    return ast.SpecFile(path=path, layer=layer, decls=[d for d in decls if not isinstance(d, ast.LayerDecl)],
                        mentions=builder.mentions)


# ---- recovery after a syntax error ---------------------------------------------------------

@functools.lru_cache(maxsize=1)
def keywords() -> tuple[str, ...]:
    """Every word the grammar reserves somewhere (a name may still be one where it is not expected)."""
    return tuple(sorted(t.pattern.value for t in _lark().terminals
                        if t.pattern.type == "str" and t.pattern.value.isidentifier()))


@functools.lru_cache(maxsize=1)
def declaration_keywords() -> frozenset[str]:
    """The words a declaration begins with (read from the grammar's own tables)."""
    lark = _lark()
    table = lark.parser.parser.parser.parse_table
    accepted = table.states[table.start_states["start"]]
    words = {term.pattern.value for term in lark.terminals if term.pattern.type == "str"}
    return frozenset(word for word in words if word.upper() in accepted)


def _skip_to_next_declaration(error: UnexpectedInput, text: str, resumed: list[int]) -> bool:
    """Drop the declaration being read and go on at the next line that begins one: the error's
    own line when it begins a declaration (a block missing its `end` reads the next declaration's
    first word as a name), else a later one."""
    parser = error.interactive_parser
    if parser is None:
        return False
    state = parser.parser_state
    while len(state.state_stack) > 1 and not _begins_declarations(state, state.state_stack[-1]):
        state.state_stack.pop()
        state.value_stack.pop()
    if isinstance(error, UnexpectedToken):
        if error.token.type == "$END":
            return True
        start = error.token.start_pos
    else:
        start = error.pos_in_stream
    line_start = text.rfind("\n", 0, start) + 1
    resume = _next_declaration_start(text, max(line_start, resumed[0] + 1))
    resumed[0] = resume
    counter = parser.lexer_thread.state.line_ctr
    if resume < counter.char_pos:      # back to where the error's line begins a declaration
        counter.char_pos, counter.line_start_pos = resume, line_start
        counter.line, counter.column = error.line, resume - line_start + 1
    else:
        counter.feed(text[counter.char_pos:resume])
    return True


def _begins_declarations(state, number) -> bool:
    """Whether the parser, in this state, reads a new declaration (it shifts the word 'layer',
    which nothing but a declaration begins with; a state that only reduces on it is inside one)."""
    action = state.parse_conf.states[number].get("LAYER")
    return action is not None and action[0] is Shift


def _next_declaration_start(text: str, offset: int) -> int:
    """The offset of the first line at or after `offset` whose first word begins a declaration."""
    keywords = declaration_keywords()
    line_start = text.rfind("\n", 0, offset) + 1
    while line_start < len(text):
        line_end = text.find("\n", line_start)
        line_end = len(text) if line_end < 0 else line_end
        stripped = text[line_start:line_end].lstrip()
        first = stripped.split(None, 1)[0] if stripped else ""
        at = line_start + (len(text[line_start:line_end]) - len(stripped))
        if first in keywords and at >= offset:
            return at
        line_start = line_end + 1
    return len(text)


_PARSED: dict[tuple[str, str], bytes] = {}


def parse_file(path: str | Path) -> ast.SpecFile:
    """The file's syntax tree; a file already parsed with the same path and text comes from a
    cache, here or in the cache folder, so that an edit parses only the files it changed (a fresh
    copy each time: the resolver annotates the trees it is given)."""
    path = Path(path)
    text = _read_text(path)
    key = (str(path), hashlib.sha1(text.encode("utf-8")).hexdigest())
    if key in _PARSED:
        return pickle.loads(_PARSED[key])
    # Lark's version too: another one may place the same text's nodes otherwise (their end columns)
    name = f"parsed-{cache.digest(cache.language_version(), LARK_VERSION, *key)}.pickle"
    data = cache.read(name)
    tree = _unpickled(data) if data is not None else None
    if tree is None:
        tree = parse_text(text, str(path))
        data = pickle.dumps(tree, protocol=pickle.HIGHEST_PROTOCOL)
        cache.write(name, data)
    _PARSED[key] = data
    return tree


def _unpickled(data: bytes) -> ast.SpecFile | None:
    try:
        tree = pickle.loads(data)
    except Exception:  # noqa: BLE001 - a damaged entry is parsed again
        return None
    return tree if isinstance(tree, ast.SpecFile) else None


def _read_text(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except UnicodeDecodeError as error:
        raise SpecSyntaxError(f"the file is not UTF-8 text ({error.reason})", Loc(str(path))) from None
    except OSError as error:
        raise SpecSyntaxError(f"cannot read the file: {error.strerror}", Loc(str(path))) from None


# An editor parses every version of the file being typed: the cache keeps the latest few.
_RECOVERED: OrderedDict[tuple[str, str], bytes] = OrderedDict()
_RECOVERED_KEPT = 256


def parse_text_recovering_cached(text: str, path: str) -> tuple[ast.SpecFile, list[SpecSyntaxError]]:
    """parse_text_recovering, from a cache for a text already read (a fresh copy each time)."""
    key = (path, hashlib.sha1(text.encode("utf-8")).hexdigest())
    if key in _RECOVERED:
        _RECOVERED.move_to_end(key)
    else:
        _RECOVERED[key] = pickle.dumps(parse_text_recovering(text, path))
        if len(_RECOVERED) > _RECOVERED_KEPT:
            _RECOVERED.popitem(last=False)
    return pickle.loads(_RECOVERED[key])


def parse_file_recovering(path: str | Path) -> tuple[ast.SpecFile, list[SpecSyntaxError]]:
    try:
        text = _read_text(Path(path))
    except SpecSyntaxError as error:
        return ast.SpecFile(str(path), None, []), [error]
    return parse_text_recovering_cached(text, str(path))


def _syntax_error(error: UnexpectedInput, text: str, path: str) -> SpecSyntaxError:
    line = getattr(error, "line", 0) or 0
    column = getattr(error, "column", 0) or 0
    lines = text.splitlines()
    source_line = lines[line - 1] if 0 < line <= len(lines) else ""
    end = (line, column + 1)      # one character, unless the error is a whole token or the end
    if isinstance(error, UnexpectedToken):
        expected = _summarise({_readable(t) for t in error.accepts or error.expected})
        if error.token.type == "$END":
            found = "end of the file"
            if lines:
                line, column = len(lines), len(lines[-1]) + 1
                source_line = lines[-1]
            end = (line, column)
        else:
            found = f"'{error.token}'"
            end = (error.token.end_line or line, error.token.end_column or column + 1)
        message = f"unexpected {found}; expected {_join(expected)}"
    elif isinstance(error, UnexpectedCharacters):
        expected = _summarise({_readable(t) for t in error.allowed or ()})
        char = text[error.pos_in_stream] if error.pos_in_stream < len(text) else "?"
        message = f"unexpected character {char!r}"
        if expected:
            message += f"; expected {_join(expected)}"
    elif isinstance(error, UnexpectedEOF):
        expected = _summarise({_readable(t) for t in error.expected})
        message = f"unexpected end of the file; expected {_join(expected)}"
        if lines:
            line, column = len(lines), len(lines[-1]) + 1
            source_line = lines[-1]
        end = (line, column)
    else:  # pragma: no cover - lark has no other kinds
        message = str(error)
    return SpecSyntaxError(message, Loc(path, line, column, *end), source_line=source_line)


_DECLARATION_WORDS = {"'family'", "'card'", "'enum'", "'var'", "'game'", "'define'", "'decision'",
                      "'rule'", "'exception'", "'default'", "'claim'", "'invariant'", "'procedure'",
                      "'power'", "'on'", "'remove'", "'replace'", "'layer'", "'precedence'"}
_STATEMENT_WORDS = {"'ask'", "'resolve'", "'if'", "'for'", "'while'", "'set'", "'let'", "'draw'", "'flip'",
                    "'discard'", "'bury'", "'place'", "'take'", "'swap'", "'move'", "'reveal'", "'close'",
                    "'shuffle'", "'deal'"}


def _summarise(expected: set[str]) -> list[str]:
    """Most useful first; whole families of keywords collapse into one phrase."""
    tail = []
    if len(expected & _DECLARATION_WORDS) > 4:
        expected -= _DECLARATION_WORDS
        tail.append("a new declaration")
    if len(expected & _STATEMENT_WORDS) > 4:
        expected -= _STATEMENT_WORDS
        tail.append("a statement")
    words = sorted(expected, key=lambda item: (not item.startswith(("a ", "the ")), item))
    return words + tail


def _join(items: list[str]) -> str:
    if len(items) > 12:
        items = items[:12] + ["..."]
    return ", ".join(items) if items else "something else"


def _loc(path: str, item) -> Loc:
    if isinstance(item, _Word):
        return item.loc
    if isinstance(item, Token):
        return Loc(path, item.line or 0, item.column or 0, item.end_line or 0, item.end_column or 0)
    meta = getattr(item, "meta", None)
    if meta is not None and not getattr(meta, "empty", True):
        return Loc(path, meta.line, meta.column, meta.end_line, meta.end_column)
    return Loc(path)


class _Word(str):
    """A dotted name with where it is written."""

    def __new__(cls, text: str, loc: Loc):
        word = super().__new__(cls, text)
        word.loc = loc
        return word


def _unquote(token: Token) -> str:
    body = str(token)[1:-1]
    return body.replace('\\"', '"').replace("\\\\", "\\")


@v_args(meta=True)
class _Builder(Transformer):
    """Builds ast nodes. Each method gets the tree's meta (positions) and children."""

    def __init__(self, path: str):
        super().__init__()
        self.path = path
        self.mentions: list[ast.Mention] = []

    def L(self, meta) -> Loc:
        if meta is not None and not getattr(meta, "empty", True):
            return Loc(self.path, meta.line, meta.column, meta.end_line, meta.end_column)
        return Loc(self.path)

    def mention(self, kind: str, token, definition: bool = False) -> None:
        self.mentions.append(ast.Mention(kind, str(token), _loc(self.path, token), definition))

    def declared(self, cls, meta, name, sources, replace, **fields) -> ast.Decl:
        """A declaration, located from its first word to the end of its name."""
        name_loc = _loc(self.path, name)
        start = self.L(meta)
        header = Loc(self.path, start.line, start.column, name_loc.end_line, name_loc.end_column)
        return cls(header, str(name), sources, replace, name_loc=name_loc, extent=start, **fields)

    # -- helpers --------------------------------------------------------------
    @staticmethod
    def _split(children):
        """(replace flag, sources, other children) of a declaration."""
        replace = False
        sources, rest = [], []
        for child in children:
            if isinstance(child, Token) and child.type == "REPLACE":
                replace = True
            elif isinstance(child, (ast.Cite, ast.Assumed, ast.Reading)):
                sources.append(child)
            else:
                rest.append(child)
        return replace, sources, rest

    # -- top level -------------------------------------------------------------
    def layer_decl(self, meta, children):
        return self.declared(ast.LayerDecl, meta, children[0], [], False)

    def family_decl(self, meta, children):
        replace, sources, rest = self._split(children)
        description = _unquote(rest[1]) if len(rest) > 1 else ""
        return self.declared(ast.FamilyDecl, meta, rest[0], sources, replace, description=description)

    def card_decl(self, meta, children):
        replace, sources, rest = self._split(children)
        name = rest[0]
        decl = self.declared(ast.CardDecl, meta, name, sources, replace)
        seen = set()
        for field_kind, value, loc in rest[1:]:
            if field_kind in seen:
                raise SpecSyntaxError(f"card '{name}' gives its {field_kind} twice", loc)
            seen.add(field_kind)
            setattr(decl, field_kind, value)
        for needed in ("value", "family"):
            if needed not in seen:
                raise SpecSyntaxError(f"card '{name}' needs a {needed}", decl.loc)
        return decl

    def card_value(self, meta, children):
        return ("value", children[0], self.L(meta))

    def card_family(self, meta, children):
        self.mention("family", children[0])
        return ("family", str(children[0]), self.L(meta))

    def card_power(self, meta, children):
        self.mention("power", children[0])
        return ("power", str(children[0]), self.L(meta))

    def signed_int(self, meta, children):
        text = "".join(str(c) for c in children)
        return int(text)

    def enum_decl(self, meta, children):
        replace, sources, rest = self._split(children)
        for value in rest[1:]:
            self.mention("enum_value", value, definition=True)
        return self.declared(ast.EnumDecl, meta, rest[0], sources, replace, values=[str(v) for v in rest[1:]])

    def var_decl(self, meta, children):
        replace, sources, rest = self._split(children)
        game = False
        if isinstance(rest[0], Token) and rest[0].type == "GAME":
            game = True
            rest = rest[1:]
        (per_player, name), type_, init = rest
        return self.declared(ast.VarDecl, meta, name, sources, replace, per_player=per_player, game=game,
                         type=type_, init=init)

    def var_plain(self, meta, children):
        return (False, children[0])

    def var_player(self, meta, children):
        return (True, children[0])

    def define_decl(self, meta, children):
        replace, sources, rest = self._split(children)
        params = rest[1] if len(rest) == 3 else []
        return self.declared(ast.DefineDecl, meta, rest[0], sources, replace, params=params, body=rest[-1])

    def decision_decl(self, meta, children):
        replace, sources, rest = self._split(children)
        params = rest[1] if len(rest) == 3 else []
        return self.declared(ast.DecisionDecl, meta, rest[0], sources, replace, params=params, type=rest[-1])

    def rule_decl(self, meta, children):
        replace, sources, rest = self._split(children)
        level, name, (body, when) = rest
        return self.declared(ast.RuleDecl, meta, name, sources, replace, level=level, body=body, when=when)

    def level(self, meta, children):
        return {"default": 0, "rule": 1, "exception": 2}[str(children[0])]

    def verdict_body(self, meta, children):
        verdict = children[0]
        moves = [str(c) for c in children[1:] if isinstance(c, Token)]
        for move in (c for c in children[1:] if isinstance(c, Token)):
            self.mention("move", move)
        rest = [c for c in children[1:] if not isinstance(c, Token)]
        when = rest[0] if rest else None
        return ast.Verdict(str(verdict) == "allow", moves, self.L(meta)), when

    def verdict(self, meta, children):
        return children[0]

    def fire_body(self, meta, children):
        role, user, rank = children[0], children[1], int(children[2])
        when = children[3] if len(children) > 3 else None
        return ast.Fire(role, user, rank, self.L(meta)), when

    def value_body(self, meta, children):
        self.mention("decision", children[0])
        name = str(children[0])
        rest = children[1:]
        params: list[str] = []
        if rest and isinstance(rest[0], tuple) and rest[0][0] == "args":
            for arg in rest[0][1]:
                if not isinstance(arg, ast.Name):
                    raise SpecSyntaxError("a decision rule names its parameters, e.g. score(p) = ...", arg.loc)
                params.append(arg.name)
            rest = rest[1:]
        value = rest[0]
        when = rest[1] if len(rest) > 1 else None
        return ast.Value(name, params, value, self.L(meta)), when

    def when(self, meta, children):
        return children[0]

    def claim_decl(self, meta, children):
        replace, sources, rest = self._split(children)
        return self.declared(ast.ClaimDecl, meta, rest[0], sources, replace, expr=rest[1])

    def invariant_decl(self, meta, children):
        replace, sources, rest = self._split(children)
        return self.declared(ast.InvariantDecl, meta, rest[0], sources, replace, expr=rest[1])

    def precedence_decl(self, meta, children):
        replace, sources, rest = self._split(children)
        higher, lower = rest
        return self.declared(ast.PrecedenceDecl, meta, self.both(higher, lower), sources, replace,
                             higher=str(higher), lower=str(lower))

    def remove_precedence(self, meta, children):
        higher, lower = children
        return self.declared(ast.RemoveDecl, meta, self.both(higher, lower), [], False, target_kind="precedence")

    def both(self, higher, lower) -> "_Word":
        """The name of a precedence, 'HIGHER over LOWER', located from the first to the second."""
        first, second = _loc(self.path, higher), _loc(self.path, lower)
        return _Word(f"{higher} over {lower}", Loc(self.path, first.line, first.column, second.end_line,
                                                  second.end_column))

    def remove_decl(self, meta, children):
        kind = str(children[0])
        if kind in ("exception", "default"):
            kind = "rule"
        return self.declared(ast.RemoveDecl, meta, children[1], [], False, target_kind=kind)

    def decl_kind(self, meta, children):
        return children[0]

    def dotted(self, meta, children):
        return _Word(".".join(str(c) for c in children), self.L(meta))

    # -- procedures -------------------------------------------------------------
    def procedure_decl(self, meta, children):
        replace, sources, rest = self._split(children)
        params: list[ast.Param] = []
        body = rest[1:]
        if body and isinstance(body[0], list) and all(isinstance(p, ast.Param) for p in body[0]):
            params, body = body[0], body[1:]
        return self.declared(ast.ProcedureDecl, meta, rest[0], sources, replace, params=params, body=list(body))

    def power_decl(self, meta, children):
        replace, sources, rest = self._split(children)
        return self.declared(ast.PowerDecl, meta, rest[0], sources, replace,
                         description=_unquote(rest[1]), body=list(rest[2:]))

    def handler_decl(self, meta, children):
        replace, sources, rest = self._split(children)
        anytime = len(rest) > 1 and isinstance(rest[1], Token) and rest[1].type == "ANYTIME"
        body = rest[2:] if anytime else rest[1:]
        return self.declared(ast.HandlerDecl, meta, rest[0], sources, replace, anytime=anytime, body=list(body))

    def ask_stmt(self, meta, children):
        return ast.Ask(self.L(meta), list(children))

    def asked(self, meta, children):
        asker = children[0]
        for kind in children[1:]:
            self.mention("move", kind)
        return ast.Asked(asker, [str(k) for k in children[1:]])

    def asker(self, meta, children):
        child = children[0]
        if isinstance(child, Token) and child.type == "ANYONE":
            return None
        return child

    def resolve_stmt(self, meta, children):
        return ast.ResolvePowers(self.L(meta))

    def if_stmt(self, meta, children):
        cond = children[0]
        body, branches, otherwise = [], [], []
        for child in children[1:]:
            if isinstance(child, tuple) and child[0] == "elif":
                branches.append((child[1], child[2]))
            elif isinstance(child, tuple) and child[0] == "else":
                otherwise = child[1]
            else:
                body.append(child)
        return ast.If(self.L(meta), [(cond, body)] + branches, otherwise)

    def elif_part(self, meta, children):
        return ("elif", children[0], list(children[1:]))

    def else_part(self, meta, children):
        return ("else", list(children))

    def for_stmt(self, meta, children):
        return ast.For(self.L(meta), str(children[0]), children[1], list(children[2:]))

    def while_stmt(self, meta, children):
        return ast.While(self.L(meta), children[0], list(children[1:]))

    def set_stmt(self, meta, children):
        (owner, name), value = children
        return ast.Set(self.L(meta), name, owner, value)

    def lvalue(self, meta, children):
        if len(children) == 1:
            self.mention("var", children[0])
            return (None, str(children[0]))
        self.mention("player_var", children[1])
        owner = ast.Name(_loc(self.path, children[0]), str(children[0]))
        return (owner, str(children[1]))

    def let_stmt(self, meta, children):
        return ast.Let(self.L(meta), str(children[0]), children[1])

    def call_stmt(self, meta, children):
        self.mention("procedure", children[0])
        return ast.CallProc(self.L(meta), str(children[0]), children[1][1])

    def draw_stmt(self, meta, children):
        count, player, seen = children[0], children[1], children[2]
        how = children[3] if len(children) > 3 else None
        return ast.Draw(self.L(meta), count, player, seen, how)

    def seen(self, meta, children):
        return str(children[0]) == "seen"

    def as_how(self, meta, children):
        self.mention("enum_value", children[0])
        return str(children[0])

    def flip_stmt(self, meta, children):
        return ast.Flip(self.L(meta), children[0])

    def card_source(self, meta, children):
        child = children[0]
        if isinstance(child, Token) and child.type == "HELD":
            return None
        return child

    def discard_stmt(self, meta, children):
        return ast.Discard(self.L(meta), children[0], children[1])

    def bury_stmt(self, meta, children):
        return ast.Bury(self.L(meta), children[0])

    def place_stmt(self, meta, children):
        return ast.Place(self.L(meta), children[1], children[2])

    def viewer(self, meta, children):
        child = children[0]
        if isinstance(child, Token) and child.type in ("EVERYONE", "NOBODY"):
            return str(child)
        return child

    def take_stmt(self, meta, children):
        return ast.TakeTop(self.L(meta))

    def swap_stmt(self, meta, children):
        return ast.Swap(self.L(meta), children[0], children[1])

    def move_stmt(self, meta, children):
        return ast.Move(self.L(meta), children[0], children[1])

    def reveal_stmt(self, meta, children):
        how = children[2] if len(children) > 2 else None
        return ast.Reveal(self.L(meta), children[0], children[1], how)

    def close_stmt(self, meta, children):
        return ast.CloseReference(self.L(meta))

    def shuffle_stmt(self, meta, children):
        return ast.Shuffle(self.L(meta))

    def deal_stmt(self, meta, children):
        return ast.Deal(self.L(meta), children[0])

    # -- citations, types, params -------------------------------------------------------
    def cite(self, meta, children):
        return ast.Cite(str(children[0]), _unquote(children[1]), self.L(meta))

    def assumed(self, meta, children):
        return ast.Assumed(_unquote(children[0]), self.L(meta))

    def reading(self, meta, children):
        return ast.Reading(_unquote(children[0]), self.L(meta))

    def type(self, meta, children):
        if len(children) == 1 and isinstance(children[0], ast.Type):
            return ast.list_of(children[0])
        self.mention("type", children[0])
        return ast.Type(str(children[0]))

    def params(self, meta, children):
        return list(children)

    def param(self, meta, children):
        return ast.Param(str(children[0]), children[1], self.L(meta))

    # -- expressions -----------------------------------------------------------------
    def implies(self, meta, children):
        return ast.Binary(self.L(meta), "implies", children[0], children[1])

    def or_expr(self, meta, children):
        return self._chain("or", meta, children)

    def and_expr(self, meta, children):
        return self._chain("and", meta, children)

    def _chain(self, op, meta, children):
        expr = children[0]
        for right in children[1:]:
            expr = ast.Binary(self.L(meta), op, expr, right)
        return expr

    def not_(self, meta, children):
        return ast.Unary(self.L(meta), "not", children[0])

    def comparison(self, meta, children):
        left, op, right = children
        return ast.Binary(self.L(meta), str(op), left, right)

    def member(self, meta, children):
        return ast.Binary(self.L(meta), "in", children[0], children[1])

    def sum_expr(self, meta, children):
        return self._arith(meta, children)

    def product(self, meta, children):
        return self._arith(meta, children)

    def _arith(self, meta, children):
        expr = children[0]
        for index in range(1, len(children), 2):
            expr = ast.Binary(self.L(meta), str(children[index]), expr, children[index + 1])
        return expr

    def add_op(self, meta, children):
        return children[0]

    def mul_op(self, meta, children):
        return children[0]

    def neg(self, meta, children):
        operand = children[-1]
        if isinstance(operand, ast.IntLit):
            return ast.IntLit(self.L(meta), -operand.value)
        return ast.Unary(self.L(meta), "neg", operand)

    def attribute(self, meta, children):
        return ast.Attr(self.L(meta), children[0], str(children[1]))

    def int_lit(self, meta, children):
        return ast.IntLit(self.L(meta), int(children[0]))

    def true_lit(self, meta, children):
        return ast.BoolLit(self.L(meta), True)

    def false_lit(self, meta, children):
        return ast.BoolLit(self.L(meta), False)

    def none_lit(self, meta, children):
        return ast.NoneLit(self.L(meta))

    def name(self, meta, children):
        return ast.Name(self.L(meta), str(children[0]))

    def call(self, meta, children):
        return ast.Call(self.L(meta), str(children[0]), children[1][1])

    def quant_call(self, meta, children):
        return ast.Call(self.L(meta), str(children[0]), children[1][1])

    def quant(self, meta, children):
        return str(children[0])

    def args(self, meta, children):
        return ("args", [c for c in children if c is not None])

    def set_lit(self, meta, children):
        return ast.SetLit(self.L(meta), list(children))

    def quantifier(self, meta, children):
        kind, var, domain, body = children
        return ast.Quant(self.L(meta), kind, str(var), domain, body)

    def if_expr(self, meta, children):
        return ast.IfExpr(self.L(meta), children[0], children[1], children[2])
