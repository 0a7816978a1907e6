"""The reader on generated datasets: valid statements in any spelling ADAMS accepts, and garbage.

Property: whatever the text, ``parse_adm`` either returns an imported model or raises an
``AdmError`` that names a line and column inside the text; never another exception. Valid
statements written with random abbreviations, spacing, case, continuation lines and comments
read back to the numbers they were written with.
"""

from __future__ import annotations

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from multibody.io.adm import AdmError, parse_adm

numbers = st.floats(min_value=-1e3, max_value=1e3, allow_nan=False).map(lambda x: round(x, 6))


def abbreviation(keyword: str, shortest: int) -> st.SearchStrategy[str]:
    """``keyword`` cut to any length from ``shortest`` (its shortest unique prefix), in any case."""
    return st.tuples(st.integers(shortest, len(keyword)), st.booleans()).map(
        lambda cut: keyword[: cut[0]].lower() if cut[1] else keyword[: cut[0]]
    )


@st.composite
def marker_statement(draw: st.DrawFn, marker_id: int) -> tuple[str, tuple[float, float, float]]:
    """``MARKER/id, PART = 2, QP = x, y, z`` spelled at random, and its QP."""
    qp = (draw(numbers), draw(numbers), draw(numbers))
    space = draw(st.sampled_from(["", " ", "  "]))
    separator = draw(st.sampled_from([",", f"\n{space}, "]))
    zeros = "0" * draw(st.integers(0, 2))
    text = (
        f"{draw(abbreviation('MARKER', 3))}/{zeros}{marker_id}{separator}"
        f"{draw(abbreviation('PART', 2))}{space}={space}2"
        f"{separator}{draw(abbreviation('QP', 1))} = {qp[0]!r},{space}{qp[1]!r}, {qp[2]!r}"
        f"{draw(st.sampled_from(['', ' ! a comment', '!']))}"
    )
    return text, qp


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.lists(st.integers(3, 999), min_size=1, max_size=6, unique=True).flatmap(
        lambda ids: st.tuples(st.just(ids), st.tuples(*(marker_statement(i) for i in ids)))
    )
)
def test_valid_statements_read_back(drawn: tuple[list[int], tuple]) -> None:
    ids, statements = drawn
    text = "generated\nPART/1, GROUND\nPART/2, MASS = 1, CM = 1000, IP = 1, 1, 1\nMARKER/1000, PART = 2\n"
    text += "\n".join(statement for statement, _ in statements) + "\nEND\n"
    body = parse_adm(text).model.bodies["PART/2"]
    for marker_id, (_, qp) in zip(ids, statements):
        np.testing.assert_allclose(body.marker(f"MARKER/{marker_id}").position, qp, rtol=0, atol=1e-9)


VALID_LINES = [
    "PART/1, GROUND",
    "MARKER/1, PART = 1, QP = 0, 0, 0",
    "PART/2, MASS = 1, CM = 20, IP = 1, 1, 1",
    "MARKER/20, PART = 2, QP = 1, 0, 0",
    "JOINT/1, REVOLUTE, I = 20, J = 1",
    "SFORCE/2, ROTATIONAL, I = 20, J = 1, FUNCTION = -STEP(TIME, 0, 0, 1, 2) * AZ(20, 1)",
    "ACCGRAV/KGRAV = -9.81",
    "REQUEST/3, DISPLACEMENT, I = 20, J = 1, COMMENT = x y z (m)",
    "! comment",
    "",
]
garbage = st.text(
    alphabet=st.characters(codec="ascii", exclude_categories=("Cc",)) | st.sampled_from(",=/()!\\:\n"), max_size=40
)


damaged = st.tuples(st.sampled_from(VALID_LINES), st.integers(0, 80), st.integers(0, 5), garbage).map(
    lambda d: d[0][: d[1]] + d[3][:3] + d[0][d[1] + d[2] :]
)
"""A valid line with a few characters cut out and a few others put in."""


@settings(max_examples=300, deadline=None)
@given(st.lists(st.one_of(st.sampled_from(VALID_LINES), garbage, damaged), max_size=12))
def test_garbage_gives_a_located_error_or_a_model(lines: list[str]) -> None:
    text = "title\n" + "\n".join(lines) + "\n"
    try:
        imported = parse_adm(text)
    except AdmError as error:
        line_count = text.count("\n")
        assert 1 <= error.line <= line_count + 1, str(error)
        assert error.column >= 1, str(error)
        return
    for item in imported.report.items:
        assert 1 <= item.line <= text.count("\n") + 1
