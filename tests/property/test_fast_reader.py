"""The fast Python-call reader agrees with the ``ast`` reader on every text it accepts.

``reading._fast_python_calls`` is an optimisation only: for any text it either returns None
(the ``ast`` reader decides) or exactly the calls the ``ast`` reader would return.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from .strategies import call_lists, render_python
from toolcall_f1.calls import ToolCallParseError
from toolcall_f1.reading import (
    _FAST_TOKEN,
    Context,
    _calls_from_expr,
    _fast_python_calls,
    _parse_expr,
    python_whole,
)


def _ast_reader(text: str) -> Any:
    """The ``ast`` route of ``_python_whole`` (without the fast path in front of it)."""
    try:
        body = _parse_expr(text, "python")
        return [(c.name, dict(c.arguments)) for c in _calls_from_expr(body, Context(), "python", text, dicts=True)]
    except ToolCallParseError as err:
        return err


def _agrees(text: str) -> None:
    fast = _fast_python_calls(text)
    if fast is None:
        return
    expected = _ast_reader(text)
    assert not isinstance(expected, Exception), (text, expected)
    # repr tells 1 from 1.0 and True, -0.0 from 0.0, a list from a tuple
    assert repr([(c.name, dict(c.arguments)) for c in fast]) == repr(expected), text


EDGES = [
    "[f(a=1)]", "f(a=1)", "[ ]", "[f()]", "[f( )]", "[ f ( a = 1 ) ]", "[f(),]", "[f(a=1,)]",
    "[a.b.c(d=1)]", "[a . b(c=1)]", "[a.if(c=1)]", "[True(a=1)]", "[f(True=1)]", "[f(__debug__=1)]",
    "[f(a=-0)]", "[f(a=-0.0)]", "[f(a=+5)]", "[f(a=--5)]", "[f(a=- 5)]", "[f(a=-(1))]", "[f(a=-True)]",
    "[f(a=1e400)]", "[f(a=1e-400)]", "[f(a=1.)]", "[f(a=.5)]", "[f(a=00)]", "[f(a=007)]",
    "[f(a=007.5)]", "[f(a=00e1)]", "[f(a=1_000)]", "[f(a=1j)]", "[f(a=0x10)]", "[f(a=1.e5)]",
    "[f(a=" + "9" * 5000 + ")]", "[f(a=123456789012345678901234567890)]",
    "[f(a=True, b=False, c=None, d=x, e=match, g=print)]", "[f(a=await)]", "[f(a=lambda: 1)]",
    "[f(a=(1))]", "[f(a=(1,))]", "[f(a=())]", "[f(a=(1,2,),)]", "[f(a=((1, 2)))]",
    "[f(a={'x': 1, 'x': 2})]", "[f(a={})]", "[f(a={'a': [1, {'b': (2, 3)}]})]", "[f(a={a: 1})]",
    "[f(a={1: 2})]", "[f(a={1, 2})]", "[f(a={'a'})]", "[f(a={**b})]",
    "[f(a=1, a=1)]", "[f(a=1, a=2)]", "[f(1)]", "[f(*x)]", "[f(**x)]", "[f(a=[1,])]", "[f(a=[,])]",
    "[f(a=[1,,2])]", "[f(a=1) g(b=2)]", "[f(a=1), 'x']", "[1]", "[f]", "[f(a=1)(b=2)]",
    "[f(a=1).g()]", "[f(a=1)][0]", "[f(a=1)] + [g()]", "f\n(a=1)", "f(\na=1\n)", "[f(\na=1,\nb=2\n)]",
    "[f(a='x\ny')]", "[f(a='x\ry')]", "[f(a='x\x0cy')]", "[f(a='x\x1ay')]", "[f(a='\u2028')]",
    "[f(a='é')]", "[f(a='\ud800')]", "[f(a='x\x00')]", "[f(a=\x0c1)]", "[f(a=b'x')]", "[f(a=u'x')]",
    "[f(a='a' 'b')]", "[f(a='''x''')]", "[f(a=\"\")]", "[f(a='\"')]", "[f(a=')]", "[f(a=\"it's\")]",
    "[f(a='\\n')]", "[f(a=x.y)]", "[f(a=x[0])]", "[f(a=g())]", "[f(a=1 if x else 2)]",
    "[café(a=1)]", "[f(café=1)]", "[f(a=ﬁ)]", "[f(a=1)\t]", "[\rf(a=1)\r]", "[f(a=1)\x0c]",
    "[f(a=1) # c\n]", "[f(a=1) \\\n]", "[f(a=" + "[" * 58 + "]" * 58 + ")]",
    "[f(a=" + "[" * 62 + "]" * 62 + ")]", "[f(a=" + "[" * 70 + "]" * 70 + ")]",
    # a run of digits is one token (the old tokenizer was quadratic on it)
    "[f(a=" + "0" * 5000 + ")]", "[f(a=0" + "0" * 50 + "1)]", "[f(a=" + "0" * 50 + ".5)]", "[f(a=1e5e5)]",
    "[f(a=1e)]", "[f(a=1.5.5)]", "[f(a=0" + "0" * 50 + "e1)]",
    # the argument loop reads strings and plain integers itself (leading zeros, empty strings)
    "[f(a='', b=\"\", c=0, d=10, e=01, f=0.5, g=-3, h='x' , i=7 )]", "[f(a=0)]", "[f(a=01)]", "[f(a=')]",
    "[f(a=1" + "0" * 4300 + ")]", "[f(a=1x)]", "[f(a='x'y)]", "[f(a=\"x\"\"y\")]",
]


@pytest.mark.parametrize("text", EDGES)
def test_edge_cases(text: str) -> None:
    _agrees(text)


def test_everyday_calls_take_the_fast_path() -> None:
    assert _fast_python_calls("[get_weather(city='Paris', days=3), math.factorial(number=5)]") is not None
    assert _fast_python_calls("f(a=[1, -2.5, {'k': None}], b=(1,), c=x)") is not None


def test_tokens_are_those_of_the_ast_reader_s_grammar() -> None:
    """Each token kind once (the tokenizer's branches start with distinct characters, so
    their order changes no token)."""
    text = "[a.b(c='x', d=\"y\", e=1.5e3, f=.5, g=10, h=[-1, {'k': (None,)}])] é"
    assert _FAST_TOKEN.findall(text) == [
        "[", "a", ".", "b", "(", "c", "=", "'x'", ",", "d", "=", '"y"', ",", "e", "=", "1.5e3", ",",
        "f", "=", ".5", ",", "g", "=", "10", ",", "h", "=", "[", "-", "1", ",", "{", "'k'", ":", "(",
        "None", ",", ")", "}", "]", ")", "]", "é",
    ]


def test_plain_values_are_read_as_the_ast_reader_reads_them() -> None:
    calls = _fast_python_calls("[f(a='', b=\"q\", c=0, d=10, e=2.5, f=True)]")
    assert calls is not None
    assert repr(dict(calls[0].arguments)) == "{'a': '', 'b': 'q', 'c': 0, 'd': 10, 'e': 2.5, 'f': True}"
    assert _fast_python_calls("[f(a=01)]") is None and _fast_python_calls("[f(a=')]") is None


def test_a_bracket_then_a_name_is_python_and_a_bracket_then_an_object_is_json() -> None:
    assert python_whole("[f(a=1)]", Context(), plain=True)[0].name == "f"
    assert python_whole('[ {"name": "g", "arguments": {}}]', Context(), plain=True)[0].name == "g"
    with pytest.raises(ToolCallParseError, match="json"):  # read as JSON: the JSON error is kept
        python_whole('[ {"name": "g", "arguments": }]', Context(), plain=True)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(call_lists)
def test_rendered_calls(cs: Any) -> None:
    _agrees(render_python(cs))


_PIECES = list("[](){},:=.+-_'\" \n\t\rabxyz0123456789e#\\*") + [
    "True", "None", "if", "lambda", "1.5", "'s'", '"d"', "f(", "a=", "é", "\x0c", "\x00",
]


@settings(max_examples=600, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.sampled_from(EDGES + ["[get_weather(city='Paris', days=3)]", "[f(a=[1, {'b': (2, 'c')}], d=-1e3)]"]),
    st.lists(st.tuples(st.integers(0, 200), st.sampled_from(_PIECES), st.booleans()), max_size=4),
)
def test_mutated_texts(seed: str, edits: list[tuple[int, str, bool]]) -> None:
    text = seed
    for pos, piece, insert in edits:
        pos %= len(text) + 1
        text = text[:pos] + piece + text[pos:] if insert else text[:pos] + text[pos + 1 :]
    _agrees(text)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.sampled_from(EDGES + ['[{"name": "f", "arguments": {}}]', '{"name": "f"}', "python\n[f(a=1)]\n```"]),
    st.sampled_from(["`", "```", "```python\n", "` ", "`\n"]),
)
def test_a_text_opening_with_a_backtick_is_never_a_whole_call_form(body: str, fence: str) -> None:
    """``read_plain`` reads a text that opens with a backtick (a fence) as prose first, without
    trying it as one call form: Python and JSON have no backticks, so that try always fails."""
    with pytest.raises(ToolCallParseError):
        python_whole(fence + body, Context(), plain=True)
