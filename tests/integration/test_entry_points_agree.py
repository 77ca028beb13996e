"""The same inputs give the same numbers through every entry point: the core ``compute()``,
the evaluate module, the CLI, the Trainer helper and the GRPO reward.

A reference is read one way everywhere: text must hold a call (prose there is a bug in the
data and raises), while an assistant *message* is read as a prediction is (prose in its
content expects no call). The Trainer helper's only difference is what it is given: a label
decoded from ``label_ids`` is the model's whole target turn, so it hands it to the metric as
that assistant message; references passed with ``references=`` are read as given.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import toolcall_f1
from toolcall_f1 import ToolCallMetric
from toolcall_f1.cli import build_parser, main
from toolcall_f1.rewards import ToolCallReward

pytestmark = pytest.mark.usefixtures("offline_hub")

NUMBERS = ("f1", "precision", "recall", "exact_match", "tp", "fp", "fn", "num_examples", "num_parse_errors")
PREDS = ["[ f ( x = 1 ) ]", "the sky is blue", "[ f ( x = 2 ) ]", "[ g ( ) ]"]
PROSE = "it is sunny"
#: the second reference is the assistant's text answer: no call expected
REFS: list[Any] = ["[ f ( x = 1 ) ]", {"role": "assistant", "content": PROSE},
                   {"role": "assistant", "content": "[ f ( x = 1 ) ]"}, [{"name": "g", "arguments": {}}]]


@pytest.fixture(scope="module")
def module() -> Any:
    return toolcall_f1.load(keep_in_memory=True)


def _cli(tmp_path: Path, capsys: pytest.CaptureFixture[str], refs: list[Any], *flags: str) -> tuple[int, Any, str]:
    """The CLI's exit status, its JSON result (None on an error) and its stderr."""
    path = tmp_path / "run.jsonl"
    path.write_text("".join(json.dumps({"prediction": p, "reference": r}) + "\n" for p, r in zip(PREDS, refs)))
    capsys.readouterr()
    rc = main(["score", "--input", str(path), "-o", "json", "--no-progress", *flags])
    out, err = capsys.readouterr()
    return rc, json.loads(out.strip().splitlines()[-1]) if rc == 0 else None, err


def test_every_entry_point_gives_the_core_numbers(module: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    metric = ToolCallMetric("arg")
    want = metric.compute(PREDS, REFS, per_tool=True)
    assert want["num_examples"] == 4 and (want["tp"], want["fp"], want["fn"]) == (4.0, 1.0, 1.0)
    via_evaluate = module.compute(predictions=PREDS, references=REFS, level="arg", per_tool=True)
    rc, via_cli, _ = _cli(tmp_path, capsys, REFS, "--level", "arg", "--per-tool")
    assert rc == 0
    for got in (via_evaluate, via_cli):
        assert {k: got[k] for k in NUMBERS} == {k: want[k] for k in NUMBERS}
        assert got["per_tool"] == want["per_tool"]
    rewards = ToolCallReward("arg")(prompts=["p"] * 4, completions=PREDS, reference=REFS)
    assert rewards == [metric(p, r).f1 for p, r in zip(PREDS, REFS)] == [1.0, 1.0, 0.5, 1.0]


def test_a_prose_reference_text_raises_everywhere(module: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    refs = [REFS[0], PROSE, *REFS[2:]]
    message = "references\\[1\\]: auto: no call can be read from this reference text"
    with pytest.raises(ValueError, match=message):
        ToolCallMetric().compute(PREDS, refs)
    with pytest.raises(ValueError, match=message):
        module.compute(predictions=PREDS, references=refs)
    with pytest.raises(ValueError, match="column 'reference', row 1.*no call can be read from this reference text"):
        ToolCallReward()(prompts=["p"] * 4, completions=PREDS, reference=refs)
    rc, _, err = _cli(tmp_path, capsys, refs)
    assert rc == 2 and "run.jsonl:2: reference: auto: no call can be read" in err


def test_the_trainer_reads_labels_as_replies_and_references_as_given() -> None:
    pytest.importorskip("transformers")
    from toolcall_f1.trainer import make_compute_metrics

    from .tiny_models import word_tokenizer

    texts = [r if isinstance(r, str) else r["content"] if isinstance(r, dict) else "[ g ( ) ]" for r in REFS]
    tok = word_tokenizer({w for t in [*PREDS, *texts] for w in t.split()})
    rows = [list(tok(t)["input_ids"]) for t in PREDS]
    labels = [list(tok(t)["input_ids"]) for t in texts]
    width = max(map(len, rows + labels))
    pad = lambda rs: np.array([r + [-100] * (width - len(r)) for r in rs])  # noqa: E731
    want = ToolCallMetric().compute(PREDS, [{"role": "assistant", "content": t} for t in texts])
    got = make_compute_metrics(tok, strip_prompt="none", metric=ToolCallMetric())((pad(rows), pad(labels)))
    assert {k: got[k] for k in NUMBERS} == {k: want[k] for k in NUMBERS}
    given = make_compute_metrics(tok, strip_prompt="none", references=REFS, metric=ToolCallMetric())((pad(rows), pad(labels)))
    assert {k: given[k] for k in NUMBERS} == {k: v for k, v in ToolCallMetric().compute(PREDS, REFS).items() if k in NUMBERS}
    with pytest.raises(ValueError, match=r"references\[1\]: auto: no call can be read"):
        make_compute_metrics(tok, strip_prompt="none", references=texts, metric=ToolCallMetric())((pad(rows), pad(labels)))


def test_the_cli_points_a_pip_user_to_help_they_have(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The footer under the table and ``score --help`` name no file of the repository (a pip
    user has none): the footer points to ``score --help``, whose epilog says what each number means."""
    path = tmp_path / "run.jsonl"
    path.write_text(json.dumps({"prediction": PREDS[0], "reference": REFS[0]}) + "\n")
    assert main(["score", "--input", str(path), "--no-progress"]) == 0
    footer = capsys.readouterr().out
    assert "toolcall-f1 score --help" in footer
    with pytest.raises(SystemExit):
        build_parser().parse_args(["score", "--help"])
    help_text = capsys.readouterr().out
    assert "what the numbers mean:" in help_text
    for text in (footer, help_text):
        assert "examples/" not in text and ".md" not in text


#: SPEC §2 "Messages" (issue 26 item 4): a message's calls are its tool_calls when there are any,
#: else its content is read as model output — what an OpenAI SDK's model_dump() gives when the
#: server's parser found nothing. Before, these scored 0.0 in the metric, evaluate and the CLI.
MESSAGES = [
    {"content": "[ f ( x = 1 ) ]", "tool_calls": None},
    {"role": "assistant", "content": "[ f ( x = 1 ) ]", "tool_calls": []},
    {"role": "assistant", "content": [{"type": "text", "text": "Sure."}, {"type": "text", "text": "[f(x=1)]"}],
     "tool_calls": None},
    {"role": "assistant", "content": None, "function_call": {"name": "f", "arguments": '{"x": 1}'}},
]


def test_a_message_without_tool_calls_is_read_from_its_content_everywhere(
        module: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    refs = [[{"name": "f", "arguments": {"x": 1}}]] * len(MESSAGES)
    want = ToolCallMetric().compute(MESSAGES, refs)
    assert (want["f1"], want["tp"], want["num_parse_errors"]) == (1.0, 4.0, 0)
    got = module.compute(predictions=MESSAGES, references=refs)
    assert {k: got[k] for k in NUMBERS} == {k: want[k] for k in NUMBERS}
    path = tmp_path / "messages.jsonl"
    path.write_text("".join(json.dumps({"prediction": p, "reference": r}) + "\n" for p, r in zip(MESSAGES, refs)))
    capsys.readouterr()
    assert main(["score", "--input", str(path), "-o", "json", "--no-progress"]) == 0
    via_cli = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert {k: via_cli[k] for k in NUMBERS} == {k: want[k] for k in NUMBERS}
    assert ToolCallReward()(prompts=["p"] * 4, completions=[[{**m, "role": "assistant"}] for m in MESSAGES], reference=refs) == [1.0] * 4
    # a message's own role still decides: another role's content holds no call
    assert ToolCallMetric()({"role": "user", "content": "[f(x=1)]"}, refs[0]).tp == 0.0
    # {"content": {args}} stays BFCL's call to a tool named "content"
    assert toolcall_f1.parse_calls({"content": {"a": 1}}) == [toolcall_f1.Call("content", {"a": 1})]


#: SPEC §2 "JSON text" (issue 26 item 5): a reference, its tools or a per-example
#: {"calls", "tools"} object written as JSON text (what the README advises for a datasets
#: column) is the value it holds. Before, the object raised "unrecognised call object" in every
#: entry point, and tools as JSON text were refused by compute() and the CLI's --tools-field.
JSON_TOOLS = [{"type": "function", "function": {"name": "f", "parameters": {
    "type": "object", "properties": {"x": {"type": "integer"}, "y": {"type": "integer", "default": 0}}}}}]
JSON_PREDS = ["[f(1)]", "[f(x=1, y=0)]", "[f(x=2)]"]  # a positional argument: named through the tools


def _json_refs() -> list[Any]:
    return [json.dumps({"calls": "[f(x=1)]", "tools": JSON_TOOLS}),
            json.dumps({"calls": [{"name": "f", "arguments": {"x": 1}}], "tools": json.dumps(JSON_TOOLS)}),
            {"calls": [{"name": "f", "arguments": {"x": 1}}], "tools": json.dumps(JSON_TOOLS)}]


def test_json_text_references_and_tools_are_the_values_they_hold_everywhere(
        module: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    decoded = [{"calls": "[f(x=1)]", "tools": JSON_TOOLS}, *[{"calls": [{"name": "f", "arguments": {"x": 1}}],
                                                             "tools": JSON_TOOLS}] * 2]
    want = ToolCallMetric().compute(JSON_PREDS, decoded)
    assert (want["tp"], want["fp"], want["fn"], want["num_parse_errors"]) == (2.0, 1.0, 1.0, 0)
    refs = _json_refs()
    got = {"core": ToolCallMetric().compute(JSON_PREDS, refs),
           "evaluate": module.compute(predictions=JSON_PREDS, references=refs)}
    path = tmp_path / "json_text.jsonl"
    path.write_text("".join(json.dumps({"prediction": p, "reference": r}) + "\n" for p, r in zip(JSON_PREDS, refs)))
    capsys.readouterr()
    assert main(["score", "--input", str(path), "-o", "json", "--no-progress"]) == 0
    got["cli"] = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    for name, result in got.items():
        assert {k: result[k] for k in [*NUMBERS, "signature"]} == {k: want[k] for k in [*NUMBERS, "signature"]}, name
    assert ToolCallReward()(prompts=["p"] * 3, completions=JSON_PREDS, reference=refs) == [1.0, 1.0, 0.0]
    # tools as JSON text: compute()'s and the constructor's, evaluate's, the CLI's --tools-field, the reward's column
    plain = [[{"name": "f", "arguments": {"x": 1}}]] * 3
    want = ToolCallMetric(tools=JSON_TOOLS).compute(JSON_PREDS, plain)
    assert ToolCallMetric().compute(JSON_PREDS, plain, tools=json.dumps(JSON_TOOLS)) == want
    assert ToolCallMetric(tools=json.dumps(JSON_TOOLS)).compute(JSON_PREDS, plain) == want
    via_evaluate = module.compute(predictions=JSON_PREDS, references=plain, tools=json.dumps(JSON_TOOLS))
    assert {k: via_evaluate[k] for k in NUMBERS} == {k: want[k] for k in NUMBERS}
    lines = [{"prediction": p, "reference": r, "tools": json.dumps(JSON_TOOLS)} for p, r in zip(JSON_PREDS, plain)]
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    assert main(["score", "--input", str(path), "-o", "json", "--no-progress", "--tools-field", "tools"]) == 0
    via_cli = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    per_example = ToolCallMetric().compute(JSON_PREDS, [{"calls": r, "tools": JSON_TOOLS} for r in plain])
    assert {k: via_cli[k] for k in [*NUMBERS, "signature"]} == {k: per_example[k] for k in [*NUMBERS, "signature"]}
    assert (via_cli["tp"], via_cli["fp"]) == (want["tp"], want["fp"]) == (2.0, 1.0)
    assert ToolCallReward()(prompts=["p"] * 3, completions=JSON_PREDS, reference=plain,
                            tools=[json.dumps(JSON_TOOLS)] * 3) == [1.0, 1.0, 0.0]
    # other text stays text: a JSON string of a call list is its text, Python syntax is read as such
    assert ToolCallMetric().compute(["[f(x=1)]"], ['"[f(x=1)]"'])["f1"] == 1.0


def test_json_text_giving_a_key_two_values_names_the_example_everywhere(
        module: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    twice = '[{"name": "f", "parameters": {}, "name": "g"}]'
    refs = [[("f", {})], {"calls": [("f", {})], "tools": twice}]
    message = r"references\[1\]: duplicate key 'name' in tools"
    with pytest.raises(ValueError, match=message):
        ToolCallMetric().compute(["[f()]"] * 2, refs)
    with pytest.raises(ValueError, match=message):
        module.compute(predictions=["[f()]"] * 2, references=refs)
    with pytest.raises(ValueError, match=r"column 'reference', row 1.*duplicate key 'name' in tools"):
        ToolCallReward()(prompts=["p"] * 2, completions=["[f()]"] * 2, reference=refs)
    with pytest.raises(ValueError, match="^duplicate key 'name' in tools"):
        ToolCallMetric().compute(["[f()]"], [[("f", {})]], tools=twice)
    ref_text = '{"calls": [], "calls": [{"name": "f", "arguments": {}}], "tools": []}'
    with pytest.raises(ValueError, match=r"references\[0\]: json: duplicate key 'calls' with different values"):
        ToolCallMetric().compute(["[f()]"], [ref_text])
    path = tmp_path / "twice.jsonl"
    path.write_text(json.dumps({"prediction": "[f()]", "reference": [], "tools": twice}) + "\n"
                    + json.dumps({"prediction": "[f()]", "reference": ref_text, "tools": "[]"}) + "\n"
                    + json.dumps({"prediction": "[f()]", "reference": ref_text}) + "\n")
    capsys.readouterr()
    assert main(["score", "--input", str(path), "--no-progress", "--tools-field", "tools"]) == 2
    err = capsys.readouterr().err
    assert "twice.jsonl:1: duplicate key 'name' in the tools field" in err
    assert "twice.jsonl:2: duplicate key 'calls' in the reference" in err
    assert "twice.jsonl:3: reference: json: duplicate key 'calls' with different values" in err


#: order="strict" and order="turns" (SPEC §5b) through every entry point: per order, the
#: predictions and references (under "turns": conversations, the predictions one entry per turn —
#: lists, BFCL's call strings, JSON text — and a reference as JSON text)
ORDERED: dict[str, tuple[list[Any], list[Any]]] = {
    "strict": (["[a(), b(x=1), c()]", "[f(x=1), f(x=2)]", "[g()]"],
               [[{"name": "b", "arguments": {"x": 1}}, {"name": "a", "arguments": {}}], "[f(x=2), f(x=1)]",
                [{"name": "g", "arguments": {}}]]),
    "turns": ([[["f(a=1)"], ["g(b=2)"]], [["g(b=2)"], ["f(a=1)"]], json.dumps([["f(a=1)"]]),
               [["f(a=1)"], "[g(b=3)]", ["h()"]]],
              [{"turns": [["f(a=1)"], ["g(b=2)"]]}, {"turns": [["f(a=1)"], ["g(b=2)"]]},
               json.dumps({"turns": [["f(a=1)"], ["g(b=2)"]], "tools": []}),
               {"turns": [[{"name": "f", "arguments": {"a": 1}}], "[g(b=2)]"]}]),
}


class _CharTokenizer:
    """One id per character (0 pads): any text, JSON of a list of turns too, decodes as given."""

    pad_token_id = 0

    def batch_decode(self, rows: Any, skip_special_tokens: bool = True) -> list[str]:
        return ["".join(chr(i) for i in row if i > 0) for row in rows]


def _char_ids(texts: list[str]) -> Any:
    width = max(map(len, texts))
    return np.array([[ord(c) for c in t] + [-100] * (width - len(t)) for t in texts])


@pytest.mark.parametrize("order", list(ORDERED))
@pytest.mark.parametrize("level", ["call", "arg"])
def test_every_entry_point_gives_the_core_numbers_under_each_order(
        order: str, level: str, module: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from toolcall_f1.trainer import make_compute_metrics

    preds, refs = ORDERED[order]
    numbers = [*NUMBERS, "superset_match", "subset_match", "call_decision", "signature"]
    numbers += ["turn_exact_match"] if order == "turns" else []
    want = ToolCallMetric(level, order=order).compute(preds, refs, per_tool=True)
    if order == "strict":
        assert want["f1"] < ToolCallMetric(level).compute(preds, refs)["f1"]
    else:
        assert (want["tp"], want["exact_match"], want["turn_exact_match"]) == (
            {"call": 4.0, "arg": 9.0}[level], 0.25, 0.5)
    via_evaluate = module.compute(predictions=preds, references=refs, level=level, order=order, per_tool=True)
    path = tmp_path / "ordered.jsonl"
    path.write_text("".join(json.dumps({"prediction": p, "reference": r}) + "\n" for p, r in zip(preds, refs)))
    capsys.readouterr()
    assert main(["score", "--input", str(path), "-o", "json", "--no-progress", "--level", level, "--order", order,
                 "--per-tool"]) == 0
    via_cli = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    texts = [p if isinstance(p, str) else json.dumps(p) for p in preds]  # what a model generates: text
    helper = make_compute_metrics(_CharTokenizer(), strip_prompt="none", references=refs, level=level, order=order,
                                  per_tool=True)
    helper((_char_ids(texts), _char_ids(texts)))
    results = {"evaluate": via_evaluate, "cli": via_cli, "trainer": helper.last_result}
    if order == "turns":  # labels decoded: a conversation's JSON text is the reference
        labels = [r if isinstance(r, str) else json.dumps(r) for r in refs]
        decoded = make_compute_metrics(_CharTokenizer(), strip_prompt="none", level=level, order=order, per_tool=True)
        decoded((_char_ids(texts), _char_ids(labels)))
        results["trainer, labels"] = decoded.last_result
    for name, got in results.items():
        assert {k: got[k] for k in numbers} == {k: want[k] for k in numbers}, name
        assert got["per_tool"] == want["per_tool"], name
    rewards = ToolCallReward(level, order=order)(prompts=["p"] * len(preds), completions=preds, reference=refs)
    assert rewards == [ToolCallMetric(level, order=order)(p, r).f1 for p, r in zip(preds, refs)]


#: Argument rules (SPEC §6b): every entry point gives the core's numbers for the same rules.
RULE_PREDS = ["[f(x=1.004, rid='a', tags=['b', 'a'])]", "[f(x=2, rid='b', tags=['a'])]", "[g(n=3)]"]
RULE_REFS: list[Any] = ["[f(x=1.0, rid='z', tags=['a', 'b'])]", "[f(x=2.5, rid='y', tags=['a'])]", "[g(n=4)]"]
RULES = {"f": {"x": {"abs_tol": 0.01}, "rid": "ignore", "tags": "unordered"}, "g": {"*": {"rel_tol": 0.3}}}


def test_every_entry_point_gives_the_core_numbers_under_rules(module: Any, tmp_path: Path,
                                                              capsys: pytest.CaptureFixture[str]) -> None:
    numbers = (*NUMBERS, "signature")
    for level in ("call", "arg"):
        want = ToolCallMetric(level, rules=RULES).compute(RULE_PREDS, RULE_REFS)
        assert want["exact_match"] == 2 / 3 and ToolCallMetric(level).compute(RULE_PREDS, RULE_REFS)["exact_match"] == 0
        assert "|rules:" in want["signature"]
        given = ToolCallMetric(level).compute(RULE_PREDS, RULE_REFS, rules=RULES)
        via_evaluate = module.compute(predictions=RULE_PREDS, references=RULE_REFS, level=level, rules=RULES)
        path = tmp_path / "run.jsonl"
        path.write_text("".join(json.dumps({"prediction": p, "reference": r}) + "\n" for p, r in zip(RULE_PREDS, RULE_REFS)))
        rules_file = tmp_path / "rules.json"
        rules_file.write_text(json.dumps(RULES))
        via_cli = []
        for rules_option in (json.dumps(RULES), str(rules_file)):
            capsys.readouterr()
            assert main(["score", "--input", str(path), "-o", "json", "--no-progress", "--level", level,
                         "--rules", rules_option]) == 0
            via_cli.append(json.loads(capsys.readouterr().out.strip().splitlines()[-1]))
        for got in (given, via_evaluate, *via_cli):
            assert {k: got[k] for k in numbers} == {k: want[k] for k in numbers}
        rewards = ToolCallReward(level, rules=RULES)(prompts=["p"] * 3, completions=RULE_PREDS, reference=RULE_REFS)
        assert rewards == [ToolCallMetric(level, rules=RULES)(p, r).f1 for p, r in zip(RULE_PREDS, RULE_REFS)]
        assert rewards[:2] != [ToolCallMetric(level)(p, r).f1 for p, r in zip(RULE_PREDS[:2], RULE_REFS[:2])]


def test_a_callable_rule_gives_one_number_where_an_entry_point_can_carry_it(module: Any) -> None:
    """A callable cannot be written on the command line; every Python entry point takes it."""
    rules = {"f": {"x": lambda p, g: abs(p - g) <= 0.5}, "g": {"n": lambda p, g: p % 2 == g % 2}}
    want = ToolCallMetric("arg", rules=rules).compute(RULE_PREDS, RULE_REFS)
    assert (want["tp"], want["fp"], want["fn"]) == (6.0, 4.0, 4.0)  # x agrees twice (2 vs 2.5 too); n's parity not
    via_evaluate = module.compute(predictions=RULE_PREDS, references=RULE_REFS, level="arg", rules=rules)
    assert {k: via_evaluate[k] for k in NUMBERS} == {k: want[k] for k in NUMBERS}
    rewards = ToolCallReward("arg", rules=rules)(prompts=["p"] * 3, completions=RULE_PREDS, reference=RULE_REFS)
    assert rewards == [ToolCallMetric("arg", rules=rules)(p, r).f1 for p, r in zip(RULE_PREDS, RULE_REFS)]
    assert rewards == [0.5, 0.75, 0.5]


def test_the_trainer_helper_gives_the_core_numbers_under_rules() -> None:
    pytest.importorskip("transformers")
    from toolcall_f1.trainer import make_compute_metrics

    from .tiny_models import word_tokenizer

    preds = [" ".join(p) for p in RULE_PREDS]  # one character a word: the tiny tokenizer's vocabulary
    tok = word_tokenizer({w for t in preds for w in t.split()})
    rows = [list(tok(t)["input_ids"]) for t in preds]
    width = max(map(len, rows))
    pad = np.array([r + [-100] * (width - len(r)) for r in rows])
    decoded = tok.batch_decode([[i for i in r if i >= 0] for r in pad.tolist()], skip_special_tokens=True)
    want = ToolCallMetric("arg", rules=RULES).compute(decoded, RULE_REFS)
    for rules_given in ({"rules": RULES}, {}):
        metric = ToolCallMetric("arg", rules=RULES) if not rules_given else ToolCallMetric("arg")
        got = make_compute_metrics(tok, strip_prompt="none", references=RULE_REFS, metric=metric,
                                   **rules_given)((pad, pad))
        assert {k: got[k] for k in NUMBERS} == {k: want[k] for k in NUMBERS}
    got = make_compute_metrics(tok, strip_prompt="none", references=RULE_REFS, level="arg", rules=RULES)((pad, pad))
    assert {k: got[k] for k in NUMBERS} == {k: want[k] for k in NUMBERS}
