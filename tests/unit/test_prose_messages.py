"""An assistant message written as JSON in prose is read as the decoded message is.

Found by hypothesis (tests/property/test_parse_properties.py): a message with an empty
``tool_calls`` list followed by prose was a parse error, and a message whose text content
holds calls was read only by luck (the Python reader found the calls inside the JSON string).
"""

from __future__ import annotations

import pytest

from toolcall_f1 import Call, ToolCallParseError, parse_calls

CASES = [
    ('{"role": "assistant", "content": null, "tool_calls": []}\n\nAlso:\n', []),
    ('{"role": "assistant", "content": null, "tool_calls": []}\n\nAlso: x\n', []),
    ('Sure: {"role": "assistant", "tool_calls": [{"type": "function", "function": {"name": "g", "arguments": "{}"}}]} ok',
     [Call("g", {})]),
    ('{"role": "assistant", "content": "[f(a=1)]"}\nAlso:\n', [Call("f", {"a": 1})]),
    ('x {"name": "f", "arguments": {}} and {"role": "assistant", "content": "[g(a=1)]"}', [Call("f", {}), Call("g", {"a": 1})]),
    ('config: {"role": "admin", "level": 3}', []),  # not a message: prose, as before
]


@pytest.mark.parametrize(("text", "calls"), CASES, ids=range(len(CASES)))
def test_an_assistant_message_in_prose_reads_as_the_message(text: str, calls: list[Call]) -> None:
    assert parse_calls(text) == calls


def test_a_broken_message_in_prose_is_a_parse_error() -> None:
    with pytest.raises(ToolCallParseError, match="json"):
        parse_calls('{"role": "assistant", "tool_calls": [}\nAlso:\n')


# --- issue 26 item 7: calls joined by "and"; an invisible character in a call's name


@pytest.mark.parametrize("text", ["f(a=1) and g(b=2)", "`f(a=1)` and `g(b=2)`", "Call: f(a=1) and g(b=2)"])
def test_calls_joined_by_and_are_all_read(text: str) -> None:
    assert parse_calls(text) == [Call("f", {"a": 1}), Call("g", {"b": 2})]
    assert parse_calls(text, format="python") == [Call("f", {"a": 1}), Call("g", {"b": 2})]


@pytest.mark.parametrize("text", ["[f\u200b(a=1)]", "f\u200b(a=1)", "Sure: [f\u2060(a=1)]"])
def test_an_invisible_character_in_a_call_name_is_a_parse_error(text: str) -> None:
    for fmt in ("auto", "python"):
        with pytest.raises(ToolCallParseError, match="U\\+(200B|2060)"):
            parse_calls(text, format=fmt)
