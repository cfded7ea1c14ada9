"""Typed syntax tree of the rules language. Every node knows where it was written.

Expressions get a `type` from the resolver (dsl/resolve.py); names get a `ref`
saying what they denote. Both backends (the interpreter's compiler and the Z3
checker) walk these same trees.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .errors import Loc


# ---- types -------------------------------------------------------------------

@dataclass(frozen=True)
class Type:
    name: str                       # int, bool, player, slot, card, family, power, reference, an enum
    elem: "Type | None" = None      # for name == "list"

    def __str__(self) -> str:
        return f"list[{self.elem}]" if self.name == "list" else self.name

    @property
    def nullable(self) -> bool:
        return self.name not in ("int", "bool", "list")


INT = Type("int")
BOOL = Type("bool")
PLAYER = Type("player")
SLOT = Type("slot")
CARD = Type("card")
FAMILY = Type("family")
POWER = Type("power")
REFERENCE = Type("reference")
NONE = Type("none")


def list_of(elem: Type) -> Type:
    return Type("list", elem)


# ---- citations -----------------------------------------------------------------

@dataclass
class Cite:
    edition: str
    text: str
    loc: Loc


@dataclass
class Assumed:
    text: str
    loc: Loc


@dataclass
class Reading:
    """The choice the spec makes where the rulebooks leave room or contradict each other."""

    text: str
    loc: Loc


Source = Cite | Assumed | Reading


# ---- expressions -----------------------------------------------------------------

@dataclass(eq=False)
class Expr:
    loc: Loc

    def __post_init__(self) -> None:
        self.type: Type | None = None


@dataclass(eq=False)
class IntLit(Expr):
    value: int


@dataclass(eq=False)
class BoolLit(Expr):
    value: bool


@dataclass(eq=False)
class NoneLit(Expr):
    pass


@dataclass(eq=False)
class Name(Expr):
    name: str

    def __post_init__(self) -> None:
        super().__post_init__()
        # ("local"|"param"|"var"|"define"|"decision"|"global"|"const", detail)
        self.ref: tuple[str, Any] | None = None


@dataclass(eq=False)
class Attr(Expr):
    obj: Expr
    name: str


@dataclass(eq=False)
class Call(Expr):
    name: str
    args: list[Expr]

    def __post_init__(self) -> None:
        super().__post_init__()
        self.ref: tuple[str, Any] | None = None   # ("define"|"decision"|"builtin"|"legal"|"fires", detail)


@dataclass(eq=False)
class Unary(Expr):
    op: str          # "not" | "neg"
    operand: Expr


@dataclass(eq=False)
class Binary(Expr):
    op: str          # and or implies == != < <= > >= + - * in
    left: Expr
    right: Expr


@dataclass(eq=False)
class SetLit(Expr):
    items: list[Expr]


@dataclass(eq=False)
class Quant(Expr):
    kind: str        # all any count sum first
    var: str
    domain: Expr
    body: Expr


@dataclass(eq=False)
class IfExpr(Expr):
    cond: Expr
    then: Expr
    other: Expr


def children(expr: Expr) -> list[Expr]:
    """The direct sub-expressions of an expression."""
    if isinstance(expr, Attr):
        return [expr.obj]
    if isinstance(expr, (Call,)):
        return list(expr.args)
    if isinstance(expr, Unary):
        return [expr.operand]
    if isinstance(expr, Binary):
        return [expr.left, expr.right]
    if isinstance(expr, SetLit):
        return list(expr.items)
    if isinstance(expr, Quant):
        return [expr.domain, expr.body]
    if isinstance(expr, IfExpr):
        return [expr.cond, expr.then, expr.other]
    return []


def walk(expr: Expr):
    """Every sub-expression of an expression, itself first."""
    stack = [expr]
    while stack:
        node = stack.pop()
        yield node
        stack.extend(children(node))


# ---- statements --------------------------------------------------------------------

@dataclass(eq=False)
class Stmt:
    loc: Loc


@dataclass(eq=False)
class Asked:
    asker: Expr | None          # None: anyone
    kinds: list[str]


@dataclass(eq=False)
class Ask(Stmt):
    asked: list[Asked]


@dataclass(eq=False)
class ResolvePowers(Stmt):
    pass


@dataclass(eq=False)
class If(Stmt):
    branches: list[tuple[Expr, list[Stmt]]]
    otherwise: list[Stmt]


@dataclass(eq=False)
class For(Stmt):
    var: str
    domain: Expr
    body: list[Stmt]


@dataclass(eq=False)
class While(Stmt):
    cond: Expr
    body: list[Stmt]


def walk_statements(body: list[Stmt]):
    """Every statement of a body, those inside if, for and while blocks included, in order."""
    for stmt in body:
        yield stmt
        if isinstance(stmt, If):
            for _, branch in stmt.branches:
                yield from walk_statements(branch)
            yield from walk_statements(stmt.otherwise)
        elif isinstance(stmt, (For, While)):
            yield from walk_statements(stmt.body)


@dataclass(eq=False)
class Set(Stmt):
    target: str                 # a variable, or a player variable when `owner` is set
    owner: Expr | None
    value: Expr


@dataclass(eq=False)
class Let(Stmt):
    name: str
    value: Expr


@dataclass(eq=False)
class CallProc(Stmt):
    name: str
    args: list[Expr]


@dataclass(eq=False)
class Draw(Stmt):
    count: Expr
    player: Expr
    seen: bool
    how: str | None


@dataclass(eq=False)
class Flip(Stmt):
    how: str


@dataclass(eq=False)
class Discard(Stmt):
    source: Expr | None         # None: the first held card
    how: str


@dataclass(eq=False)
class Bury(Stmt):
    source: Expr | None         # None: every held card


@dataclass(eq=False)
class Place(Stmt):
    slot: Expr
    viewer: Expr | str          # an expression, "everyone" or "nobody"


@dataclass(eq=False)
class TakeTop(Stmt):
    pass


@dataclass(eq=False)
class Swap(Stmt):
    first: Expr
    second: Expr


@dataclass(eq=False)
class Move(Stmt):
    source: Expr
    dest: Expr


@dataclass(eq=False)
class Reveal(Stmt):
    slot: Expr
    viewer: Expr | str
    how: str | None


@dataclass(eq=False)
class CloseReference(Stmt):
    pass


@dataclass(eq=False)
class Shuffle(Stmt):
    pass


@dataclass(eq=False)
class Deal(Stmt):
    count: Expr


# ---- declarations -----------------------------------------------------------------

@dataclass(eq=False)
class Decl:
    loc: Loc                    # from its first word to the end of its name: where a complaint points
    name: str
    sources: list[Source] = field(default_factory=list)
    replace: bool = False
    layer: str = ""
    name_loc: Loc | None = None     # the name alone
    extent: Loc | None = None       # the whole declaration

    kind = "decl"               # the namespace a layer names it by


@dataclass(eq=False)
class LayerDecl(Decl):
    kind = "layer"


@dataclass(eq=False)
class FamilyDecl(Decl):
    description: str = ""
    kind = "family"


@dataclass(eq=False)
class CardDecl(Decl):
    value: int = 0
    family: str = ""
    power: str | None = None
    kind = "card"


@dataclass(eq=False)
class EnumDecl(Decl):
    values: list[str] = field(default_factory=list)
    kind = "enum"


@dataclass(eq=False)
class VarDecl(Decl):
    per_player: bool = False
    game: bool = False
    type: Type = INT
    init: Expr | None = None
    kind = "var"


@dataclass(eq=False)
class Param:
    name: str
    type: Type
    loc: Loc


@dataclass(eq=False)
class DefineDecl(Decl):
    params: list[Param] = field(default_factory=list)
    body: Expr | None = None
    kind = "define"


@dataclass(eq=False)
class DecisionDecl(Decl):
    params: list[Param] = field(default_factory=list)
    type: Type = INT
    kind = "decision"


@dataclass(eq=False)
class Verdict:
    allow: bool
    moves: list[str]          # the move kinds this rule decides
    loc: Loc


@dataclass(eq=False)
class Fire:
    role: Expr
    user: Expr
    rank: int
    loc: Loc


@dataclass(eq=False)
class Value:
    decision: str
    params: list[str]
    value: Expr
    loc: Loc


@dataclass(eq=False)
class RuleDecl(Decl):
    level: int = 1              # 0 default, 1 rule, 2 exception
    body: Verdict | Fire | Value | None = None
    when: Expr | None = None
    kind = "rule"

    @property
    def level_name(self) -> str:
        return ("default", "rule", "exception")[self.level]


@dataclass(eq=False)
class ClaimDecl(Decl):
    expr: Expr | None = None
    kind = "claim"


@dataclass(eq=False)
class InvariantDecl(Decl):
    expr: Expr | None = None
    kind = "invariant"


@dataclass(eq=False)
class ProcedureDecl(Decl):
    params: list[Param] = field(default_factory=list)
    body: list[Stmt] = field(default_factory=list)
    kind = "procedure"


@dataclass(eq=False)
class PowerDecl(Decl):
    description: str = ""
    body: list[Stmt] = field(default_factory=list)
    kind = "power"


@dataclass(eq=False)
class HandlerDecl(Decl):
    anytime: bool = False
    body: list[Stmt] = field(default_factory=list)
    kind = "on"


@dataclass(eq=False)
class PrecedenceDecl(Decl):
    """`precedence HIGHER over LOWER`: where both rules (of one level) apply, HIGHER decides.
    Its name is "HIGHER over LOWER"."""

    higher: str = ""
    lower: str = ""
    kind = "precedence"


@dataclass(eq=False)
class RemoveDecl(Decl):
    target_kind: str = ""
    kind = "remove"


@dataclass
class Mention:
    """A name written outside an expression: a move kind, a card's family or power, an `as HOW`,
    a set variable, a decided decision, a called procedure, an enum value or type. Editors
    navigate by them; expressions carry their own positions."""
    kind: str       # move family power enum_value var player_var decision procedure type
    name: str
    loc: Loc
    definition: bool = False    # where the name is declared (an enum's values)


@dataclass
class SpecFile:
    path: str
    layer: str | None
    decls: list[Decl]
    mentions: list[Mention] = field(default_factory=list)


# ---- comparing trees -----------------------------------------------------------------

# Fields that say where or in which layer something was written, not what it says (a file's
# mentions are its names' positions).
_PLACE_FIELDS = frozenset({"loc", "layer", "name_loc", "extent", "mentions"})


def same_tree(a: Any, b: Any) -> bool:
    """Whether two syntax trees say the same, whatever their positions and the resolver's
    annotations (types and references are attributes, not fields, so they are not compared)."""
    if type(a) is not type(b):
        return False
    if isinstance(a, (list, tuple)):
        return len(a) == len(b) and all(same_tree(x, y) for x, y in zip(a, b))
    if isinstance(a, Loc):
        return True
    if hasattr(a, "__dataclass_fields__") and not isinstance(a, Type):
        return all(same_tree(getattr(a, name), getattr(b, name))
                   for name in a.__dataclass_fields__ if name not in _PLACE_FIELDS)
    return a == b
