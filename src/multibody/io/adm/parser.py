"""Logical statement text -> ``Statement`` (name, id, typed arguments), by the keyword tables.

Unknown statements and keywords are not errors here: they are returned to the caller to be
listed in the import report. Text that cannot be read at all raises ``AdmSyntaxError`` with
its line and column and what was expected there.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from multibody.io.adm.errors import AdmSyntaxError
from multibody.io.adm.keywords import ABBREVIATIONS, Schema
from multibody.io.adm.lexer import StatementText

NUMBER = re.compile(r"[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?(?P<degrees>[dD](?![A-Za-z0-9_]))?")
WORD = re.compile(r"[A-Za-z][A-Za-z0-9_]*")
DIGITS = re.compile(r"\d+")
SPACE = re.compile(r"[ \t\f\r]*")


@dataclass(frozen=True)
class Argument:
    """A keyword's value and where it starts. ``value`` is True (flag), an int, a float, a tuple
    of those, a word (str), a tuple of words, or the text of an expression / of the rest."""

    keyword: str
    value: object
    line: int
    column: int
    offset: int = 0
    """Offset of the value in the statement text (an expression's own positions start here)."""


@dataclass(frozen=True)
class Unknown:
    """A statement, keyword or value the reader does not support, and where it is."""

    what: str
    line: int
    column: int


@dataclass(frozen=True)
class Statement:
    """One parsed statement. ``id`` is the integer id (None for ``UNITS/`` and the like);
    ``id_text`` the id as written (leading zeros kept)."""

    name: str
    id: int | None
    id_text: str
    arguments: dict[str, Argument]
    text: StatementText
    line: int
    column: int
    unknown: tuple[Unknown, ...] = field(default=())

    @property
    def label(self) -> str:
        """``PART/2`` (the id without leading zeros), or the bare name."""
        return self.name if self.id is None else f"{self.name}/{self.id}"

    def has(self, keyword: str) -> bool:
        return keyword in self.arguments

    def get(self, keyword: str, default: object = None) -> object:
        argument = self.arguments.get(keyword)
        return default if argument is None else argument.value


def resolve(word: str, choices: Schema | tuple[str, ...], preferred: dict[str, str] | None = None) -> str | None:
    """The keyword ``word`` abbreviates: an exact match, a preferred abbreviation, or the only
    choice starting with it; None if none does; ``AmbiguousKeyword`` if several do."""
    upper = word.upper()
    if upper in choices:
        return upper
    if preferred and upper in preferred:
        return preferred[upper]
    matches = [c for c in choices if c.startswith(upper)]
    if len(matches) > 1:
        raise AmbiguousKeyword(matches)
    return matches[0] if matches else None


class AmbiguousKeyword(Exception):
    """An abbreviation shared by several keywords."""

    def __init__(self, matches: list[str]) -> None:
        super().__init__(", ".join(matches))
        self.matches = matches


class _Cursor:
    """A position in a statement's text, raising located syntax errors."""

    def __init__(self, text: StatementText) -> None:
        self.source = text
        self.text = text.text
        self.at = 0

    def skip_space(self) -> None:
        self.at = SPACE.match(self.text, self.at).end()

    def done(self) -> bool:
        self.skip_space()
        return self.at >= len(self.text)

    def peek(self) -> str:
        self.skip_space()
        return self.text[self.at] if self.at < len(self.text) else ""

    def error(self, expected: str, offset: int | None = None) -> AdmSyntaxError:
        offset = self.at if offset is None else offset
        line, column = self.source.where(offset)
        found = self.text[offset : offset + 12] or "the end of the statement"
        return AdmSyntaxError(f"expected {expected}, found {found!r}", line, column, self.source.source)

    def match(self, pattern: re.Pattern[str], expected: str) -> re.Match[str]:
        self.skip_space()
        found = pattern.match(self.text, self.at)
        if found is None:
            raise self.error(expected)
        self.at = found.end()
        return found

    def where(self) -> tuple[int, int]:
        return self.source.where(self.at)


def parse_statement(text: StatementText, schemas: dict[str, Schema]) -> Statement | Unknown:
    """Parse one statement; an unknown statement name gives an ``Unknown`` (the whole statement)."""
    cursor = _Cursor(text)
    cursor.skip_space()
    line, column = cursor.where()
    name_word = cursor.match(WORD, "a statement name such as PART or MARKER").group()
    try:
        name = resolve(name_word, tuple(schemas))
    except AmbiguousKeyword as ambiguous:
        raise AdmSyntaxError(
            f"'{name_word}' abbreviates several statements ({ambiguous}); write more of the name",
            line,
            column,
            text.source,
        ) from None
    if name is None:
        return Unknown(f"statement {name_word.upper()}", line, column)
    id_value, id_text = None, ""
    keyword_follows = False  # ``INTEGRATOR/SI2``, ``SIMULATE/DYNAMIC``: a keyword right after the '/'
    if cursor.peek() == "/":
        cursor.at += 1
        if cursor.peek().isdigit():
            id_text = cursor.match(DIGITS, f"an integer id after '{name}/'").group()
            id_value = int(id_text)
        elif WORD.match(cursor.text, cursor.at):
            keyword_follows = True
        elif cursor.peek() not in ("", ",", "\\"):
            raise cursor.error(f"an integer id after '{name}/'")
    schema = schemas[name]
    arguments: dict[str, Argument] = {}
    unknown: list[Unknown] = []
    while not cursor.done():
        if keyword_follows:
            keyword_follows = False
        elif cursor.peek() not in (",", "\\"):
            raise cursor.error(f"',' before the next keyword of {name}")
        else:
            cursor.at += 1
        if cursor.done():
            break
        if cursor.peek() in (",", "\\"):
            continue
        key_line, key_column = cursor.where()
        key_word = cursor.match(WORD, f"a keyword of {name}").group()
        try:
            keyword = resolve(key_word, schema, ABBREVIATIONS.get(name))
        except AmbiguousKeyword as ambiguous:
            raise AdmSyntaxError(
                f"'{key_word}' abbreviates several keywords of {name} ({ambiguous}); write more of it",
                key_line,
                key_column,
                text.source,
            ) from None
        if keyword is None:
            unknown.append(Unknown(f"{name} keyword {key_word.upper()}", key_line, key_column))
            _skip_value(cursor, schema)
            continue
        if keyword in arguments:
            raise AdmSyntaxError(f"{name} keyword {keyword} given twice", key_line, key_column, text.source)
        kind = schema[keyword]
        if kind == "flag":
            if cursor.peek() == "=":
                raise cursor.error(f"',' after {keyword}, which takes no value")
            arguments[keyword] = Argument(keyword, True, key_line, key_column, cursor.at)
            continue
        if cursor.peek() != "=":
            raise cursor.error(f"'=' after {name} keyword {keyword}")
        cursor.at += 1
        cursor.skip_space()
        offset = cursor.at
        value_line, value_column = cursor.where()
        value = _value(cursor, kind, keyword, schema)
        arguments[keyword] = Argument(keyword, value, value_line, value_column, offset)
    return Statement(name, id_value, id_text, arguments, text, line, column, tuple(unknown))


def _value(cursor: _Cursor, kind: str, keyword: str, schema: Schema) -> object:
    if kind in ("real", "reals"):
        values = _numbers(cursor, keyword)
        if kind == "real":
            if len(values) != 1:
                raise cursor.error(f"one number for {keyword}, got {len(values)}")
            return values[0]
        return values
    if kind in ("int", "ints"):
        values = _integers(cursor, keyword)
        return values[0] if kind == "int" else values
    if kind == "word":
        return cursor.match(WORD, f"a name for {keyword}").group().upper()
    if kind == "words":
        words = [cursor.match(WORD, f"a name for {keyword}").group().upper()]
        while cursor.peek() == ":":
            cursor.at += 1
            words.append(cursor.match(WORD, f"a name after ':' in {keyword}").group().upper())
        return tuple(words)
    if kind == "expr":
        return _expression_text(cursor, keyword, schema)
    rest = cursor.text[cursor.at :].strip()
    cursor.at = len(cursor.text)
    return rest


def _numbers(cursor: _Cursor, keyword: str) -> tuple[float, ...]:
    values = [_number(cursor.match(NUMBER, f"a number for {keyword}"))]
    while _next_is(cursor, NUMBER):
        cursor.at += 1
        values.append(_number(cursor.match(NUMBER, f"a number for {keyword}")))
    return tuple(values)


def _number(found: re.Match[str]) -> float:
    text = found.group()
    if found.group("degrees"):
        return float(text[:-1]) * 3.141592653589793 / 180.0
    return float(text)


def _integers(cursor: _Cursor, keyword: str) -> tuple[int, ...]:
    values = [int(cursor.match(DIGITS, f"an integer id for {keyword}").group())]
    while _next_is(cursor, DIGITS):
        cursor.at += 1
        values.append(int(cursor.match(DIGITS, f"an integer id for {keyword}").group()))
    return tuple(values)


def _next_is(cursor: _Cursor, pattern: re.Pattern[str]) -> bool:
    """Whether a ',' follows and after it a value matching ``pattern`` that is not a keyword."""
    if cursor.peek() != ",":
        return False
    after = SPACE.match(cursor.text, cursor.at + 1).end()
    found = pattern.match(cursor.text, after)
    if found is None:
        return False
    following = SPACE.match(cursor.text, found.end()).end()
    return following >= len(cursor.text) or cursor.text[following] in ",\\"


def _expression_text(cursor: _Cursor, keyword: str, schema: Schema | None = None) -> str:
    """The raw text of a function expression: up to a ',' or '\\' outside parentheses, or the end.

    A continuation line's leading ',' is ADAMS's continuation mark, not a separator: the line's
    text is joined to the expression (the comma becomes a blank, so positions stay those of the
    file), inside parentheses or after an operator alike, ``1.0*`` / ``, 2.0`` as ``1.0*`` /
    ``, TIME``. It starts the next argument instead when the expression is complete and the line
    starts with ``WORD =`` or with a flag keyword of the statement (``schema``)."""
    start, depth = cursor.at, 0
    joined: list[int] = []  # offsets of continuation commas that belong to the expression
    while cursor.at < len(cursor.text):
        char = cursor.text[cursor.at]
        if char == "(":
            depth += 1
        elif char == ")":
            depth -= 1
            if depth < 0:
                raise cursor.error(f"no ')' without a matching '(' in the expression of {keyword}")
        elif char == "," and _continues(cursor, start, depth, schema):
            joined.append(cursor.at)
        elif char in ",\\" and depth == 0:
            break
        cursor.at += 1
    if depth > 0:
        raise cursor.error(f"')' to close the expression of {keyword}")
    text = cursor.text[start : cursor.at]
    for offset in joined:
        text = f"{text[: offset - start]} {text[offset - start + 1 :]}"
    text = text.strip()
    if not text:
        raise cursor.error(f"an expression for {keyword}", start)
    return text


CONTINUED = re.compile(r"(?:\*\*|[-+*/^(:])\s*$")
"""An expression that ends like this (an operator, '(' or IF's ':') goes on."""


def _starts_continuation_line(text: StatementText, at: int) -> bool:
    """Whether character ``at`` is the first non-blank one of a continuation line."""
    before = at - 1
    while before >= 0 and text.lines[before] == text.lines[at]:
        if not text.text[before].isspace():
            return False
        before -= 1
    return before >= 0


def _continues(cursor: _Cursor, start: int, depth: int, schema: Schema | None) -> bool:
    """Whether the ',' at ``cursor.at`` is the mark of a continuation line that continues the
    expression that began at ``start``."""
    at = cursor.at
    if not _starts_continuation_line(cursor.source, at):
        return False  # a ',' inside a line separates arguments
    so_far = cursor.text[start:at]
    if depth > 0 or not so_far.strip() or CONTINUED.search(so_far):
        return True
    after = SPACE.match(cursor.text, at + 1).end()
    word = WORD.match(cursor.text, after)
    if word is None:
        return True  # an operator, a number, a '(' go on with the expression
    following = SPACE.match(cursor.text, word.end()).end()
    if following < len(cursor.text) and cursor.text[following] == "=":
        return False  # ``, KEYWORD = value``
    try:
        is_keyword = schema is not None and resolve(word.group(), schema) is not None
    except AmbiguousKeyword:
        is_keyword = True
    return not is_keyword


def _skip_value(cursor: _Cursor, schema: Schema) -> None:
    """Step over the value (if any) of a keyword the reader does not know."""
    if cursor.peek() != "=":
        return
    cursor.at += 1
    _expression_text(cursor, "an unknown keyword", schema)
    while _next_is(cursor, NUMBER):
        cursor.at += 1
        cursor.match(NUMBER, "a number")
