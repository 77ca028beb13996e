"""A response template follows the readers' one rule for a key written twice (SPEC §2): the
same value again is one key, a different value a parse error — where transformers' own parsers
keep the last value silently."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("transformers.utils.chat_parsing")

from toolcall_f1 import Call, ToolCallMetric, ToolCallParseError, parse_calls  # noqa: E402

TEMPLATES: dict[str, dict[str, Any]] = json.loads(
    (Path(__file__).parent.parent / "data" / "response_templates.json").read_text("utf-8"))["templates"]

GPT_OSS = '<|channel|>commentary to=functions.f <|constrain|>json<|message|>{{"a": {}, "a": {}}}<|call|>'
COHERE = '<|START_ACTION|>[{{"tool_call_id": "0", "tool_name": "f", "parameters": {{"a": {}, "a": {}}}}}]<|END_ACTION|>'
QWEN3 = "<tool_call>\n<function=f>\n<parameter=a>\n{}\n</parameter>\n<parameter=a>\n{}\n</parameter>\n</function>\n</tool_call>"
QWEN3_JSON = '<tool_call>\n<function=f>\n<parameter=o>\n{{"a": {}, "a": {}}}\n</parameter>\n</function>\n</tool_call>'

CASES = [("gpt_oss", GPT_OSS, Call("f", {"a": 1})), ("cohere", COHERE, Call("f", {"a": 1})),
         ("qwen3", QWEN3, Call("f", {"a": 1})), ("qwen3", QWEN3_JSON, Call("f", {"o": {"a": 1}}))]
IDS = ["gpt-oss-json", "cohere-json", "qwen3-parameters", "qwen3-json-value"]


@pytest.mark.parametrize(("template", "text", "call"), CASES, ids=IDS)
def test_a_key_given_two_different_values_in_a_template_region_is_a_parse_error(template, text, call) -> None:
    # each read as f(a=2) (or f(o={'a': 2})): transformers keeps the last value
    with pytest.raises(ToolCallParseError, match=r"^tmpl:[0-9a-f]{8}: duplicate (key|parameter) 'a' with different values"):
        parse_calls(text.format(1, 2), format=TEMPLATES[template])
    score = ToolCallMetric(prediction_format=TEMPLATES[template])(text.format(1, 2), [call])
    assert score.parse_error is not None and "duplicate" in score.parse_error


@pytest.mark.parametrize(("template", "text", "call"), CASES, ids=IDS)
def test_a_key_given_the_same_value_twice_in_a_template_region_is_one_key(template, text, call) -> None:
    assert parse_calls(text.format(1, 1), format=TEMPLATES[template]) == [call]


def test_xml_values_that_are_not_json_are_still_read_as_text() -> None:
    text = QWEN3.format("Paris", "Paris")
    assert parse_calls(text, format=TEMPLATES["qwen3"]) == [Call("f", {"a": "Paris"})]
    with pytest.raises(ToolCallParseError, match="duplicate parameter 'a'"):
        parse_calls(QWEN3.format("Paris", "London"), format=TEMPLATES["qwen3"])
