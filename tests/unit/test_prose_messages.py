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
