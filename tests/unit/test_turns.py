"""``order="turns"`` (SPEC §5b): an example is a conversation, and calls pair only within a turn.

SPEC §9's worked examples as exact numbers; turns the prediction does not reach, entries past
the last gold turn, unreadable turns, per-turn details, ``turn_exact_match``, call decisions,
the references' and predictions' shapes (BFCL's multi-turn ground truth, JSON text, tools per
conversation and per turn) and the errors that name the example.
"""

from __future__ import annotations

import json
from typing import Any

import numpy as np
import pytest

from toolcall_f1 import Call, Tally, ToolCallMetric, ToolCallParseError

REF = {"turns": [["f(a=1)"], ["g(b=2)"]]}
TURNS = ToolCallMetric(order="turns")


def _counts(s: Any) -> tuple[float, float, float]:
    return s.tp, s.fp, s.fn


# --------------------------------------------------------------------------- SPEC §9


def test_every_turn_right_is_exact() -> None:
    r = TURNS.compute([[["f(a=1)"], ["g(b=2)"]]], [REF], return_details=True)
    assert (r["tp"], r["fp"], r["fn"], r["f1"], r["exact_match"]) == (2.0, 0.0, 0.0, 1.0, 1.0)
    assert r["turn_exact_match"] == 1.0
    assert r["details"][0]["first_failed_turn"] is None
    assert "|order:turns|" in r["signature"]


def test_calls_in_the_wrong_turns_never_pair() -> None:
    s = TURNS([["g(b=2)"], ["f(a=1)"]], REF)
    assert _counts(s) == (0.0, 2.0, 2.0) and s.first_failed_turn == 0 and not s.exact
    assert ToolCallMetric()("[g(b=2), f(a=1)]", "[f(a=1), g(b=2)]").f1 == 1.0  # flattened, both would pair


def test_a_turn_not_reached_has_no_predicted_calls() -> None:
    r = TURNS.compute([[["f(a=1)"]]], [REF], return_details=True)
    assert (r["tp"], r["fp"], r["fn"]) == (1.0, 0.0, 1.0)
    assert r["f1"] == pytest.approx(2 / 3) and r["f1"] == 2 / 3
    assert r["details"][0]["first_failed_turn"] == 1
    assert r["turn_exact_match"] == 0.5 and r["exact_match"] == 0.0
    assert not r["details"][0]["exact"]


# --------------------------------------------------------------------------- turns, one by one


def test_details_give_each_turns_counts_and_pairs() -> None:
    ref = {"turns": [["f(a=1)", "h()"], [], ["g(b=2)"]]}
    d = ToolCallMetric("arg", order="turns")([["f(a=2)", "h()"], "[]", ["g(b=2)"]], ref).to_dict()
    assert [(t["tp"], t["fp"], t["fn"], t["exact"]) for t in d["turns"]] == [
        (2.0, 1.0, 1.0, False), (0.0, 0.0, 0.0, True), (2.0, 0.0, 0.0, True)]
    assert [[p["gold"]["name"] for p in t["pairs"]] for t in d["turns"]] == [["f", "h"], [], ["g"]]
    assert (d["tp"], d["fp"], d["fn"]) == (4.0, 1.0, 1.0)  # the sums over the turns
    assert [p["gold"]["name"] for p in d["pairs"]] == ["f", "h", "g"]  # the example's pairs, turn by turn
    assert d["first_failed_turn"] == 0


def test_matching_within_a_turn_is_as_matching_says() -> None:
    # BFCL's book_seat case (the Space's greedy preset): greedy strands 12B, optimal pairs both
    ref = {"turns": [[{"book_seat": {"seat": ["12A", "12B"]}}, {"book_seat": {"seat": ["12A"]}}]]}
    pred = [['book_seat(seat="12A")', 'book_seat(seat="12B")']]
    greedy = ToolCallMetric(order="turns", reference_format="bfcl")(pred, ref)
    optimal = ToolCallMetric(order="turns", reference_format="bfcl", matching="optimal")(pred, ref)
    assert _counts(greedy) == (1.0, 1.0, 1.0) and _counts(optimal) == (2.0, 0.0, 0.0)


def test_entries_past_the_last_gold_turn_are_unmatched_predictions() -> None:
    r = TURNS.compute([[["f(a=1)"], ["g(b=2)"], ["h()"]]], [REF], return_details=True)
    d = r["details"][0]
    assert (r["tp"], r["fp"], r["fn"]) == (2.0, 1.0, 0.0)
    assert d["first_failed_turn"] == 2 and not d["exact"] and len(d["turns"]) == 3
    assert r["turn_exact_match"] == 1.0  # entries past the last gold turn never count there
    # an entry past the last gold turn with no call in it changes nothing
    s = TURNS([["f(a=1)"], ["g(b=2)"], "Done: all set."], REF)
    assert s.exact and s.first_failed_turn is None and _counts(s) == (2.0, 0.0, 0.0)


def test_an_empty_reference_turn_counts_in_turn_exact_match() -> None:
    ref = {"turns": [[], ["g()"]]}
    r = TURNS.compute([["No call needed.", "[g()]"], ["[f()]", "[g()]"]], [ref, ref])
    assert r["turn_exact_match"] == 0.75 and r["exact_match"] == 0.5
    assert TURNS.compute([[]], [{"turns": []}])["turn_exact_match"] == 1.0  # no reference turn
    assert "turn_exact_match" not in ToolCallMetric().compute(["[f()]"], ["[f()]"])


def test_unreadable_turns_count_the_example_once_and_are_never_exact() -> None:
    ref = {"turns": [[], ["g()"], ["f(a=1)"]]}
    pred = ["[f(", ["[g()]"], ["[f(a=1)]", "<tool_call>{broken</tool_call>"]]
    r = TURNS.compute([pred], [ref], return_details=True)
    d = r["details"][0]
    assert r["num_parse_errors"] == 1  # two turns unreadable, one example
    assert [t["exact"] for t in d["turns"]] == [False, True, False]  # unreadable, even against an empty turn
    assert [t["parse_error"] is not None for t in d["turns"]] == [True, False, True]
    assert (r["tp"], r["fp"], r["fn"]) == (1.0, 0.0, 1.0)  # none of the last entry's calls counted
    assert d["parse_error"] == d["turns"][0]["parse_error"]  # the first unreadable turn's, naming it
    assert d["parse_error"].startswith("predictions[0][0]: python: unbalanced brackets")
    assert d["turns"][2]["parse_error"].startswith("predictions[0][2]: hermes: ")
    assert (d["superset_match"], d["subset_match"]) == (False, False)
    with pytest.raises(ToolCallParseError, match=r"^predictions\[0\]\[0\]: python: unbalanced brackets"):
        ToolCallMetric(order="turns", on_parse_error="raise").compute([pred], [ref])


def test_coverage_flags_are_taken_over_the_whole_example() -> None:
    s = TURNS([["f(a=1)", "x()"], ["g(b=2)"]], REF)
    assert (s.superset_match, s.subset_match, s.exact) == (True, False, False)
    s = TURNS([["f(a=1)"]], REF)
    assert (s.superset_match, s.subset_match, s.exact) == (False, True, False)


def test_call_decisions_look_at_every_turn() -> None:
    refs = [{"turns": [[], ["g()"]]}, {"turns": [[], ["g()"]]}, {"turns": [[], []]}, {"turns": [[], []]}]
    preds = [["Sure.", "[g()]"], ["Sure.", "Done."], ["Hi.", "[x()]"], ["Hi.", "Bye."]]
    d = TURNS.compute(preds, refs)["call_decision"]
    assert [d[k] for k in ("expected_and_called", "expected_not_called", "unexpected_called",
                           "unexpected_not_called")] == [1, 1, 1, 1]
    # under a named format, prose that "auto" reads as no call is an abstention, in any turn
    named = ToolCallMetric(order="turns", prediction_format="bfcl").compute(preds, refs)["call_decision"]
    assert named["unexpected_not_called"] == 1 and named["accuracy"] == 0.5


# --------------------------------------------------------------------------- shapes


def test_json_text_references_and_predictions() -> None:
    pred, ref = [["f(a=1)"], ["g(b=2)"]], REF
    want = TURNS.compute([pred], [ref])
    assert TURNS.compute([json.dumps(pred)], [json.dumps(ref)]) == want
    assert TURNS.compute([np.array(["[f(a=1)]", "[g(b=2)]"])], [ref]) == want  # a datasets column, numpy format


def test_an_entry_may_be_text_structured_calls_or_a_message() -> None:
    pred = ['<tool_call>{"name": "f", "arguments": {"a": 1}}</tool_call>',
            {"role": "assistant", "content": None, "tool_calls": [
                {"type": "function", "function": {"name": "g", "arguments": '{"b": 2}'}}]}]
    assert TURNS(pred, REF).exact
    assert TURNS([[Call("f", {"a": 1})], [("g", {"b": 2})]], {"turns": [[("f", {"a": 1})], "[g(b=2)]"]}).exact


def test_string_turns_are_python_calls_read_as_plain_values_with_defaults() -> None:
    tools = [{"name": "f", "parameters": {"type": "dict", "properties": {
        "a": {"type": "integer"}, "unit": {"type": "string", "default": "c"}}}}]
    ref = {"turns": [["f(1)"], [{"f": {"a": [2], "unit": ["c", ""]}}]], "tools": tools}
    m = ToolCallMetric(order="turns", reference_format="bfcl")  # turn 1 is a BFCL answer; turn 0 is plain
    assert m([["f(a=1, unit='c')"], ["f(a=2)"]], ref).exact  # f(1): positional, named through the tools
    assert m([["f(a=1)"], ["f(a=2)"]], ref).exact  # a default filled for the plain turn
    assert not m([["f(a=1, unit='k')"], ["f(a=2)"]], ref).exact


def test_a_turns_own_tools_win_for_that_turn_only() -> None:
    talk = [{"name": "f", "importance": 2}]
    ref = {"turns": [["f()"], {"calls": ["f()"], "tools": [{"name": "f", "importance": 5}]}, ["f()"]], "tools": talk}
    d = TURNS([[], [], []], ref).to_dict()
    assert [t["fn"] for t in d["turns"]] == [2.0, 5.0, 2.0]
    r = TURNS.compute([[[], [], []]], [ref])
    assert r["fn"] == 9.0 and r["signature"] != TURNS.compute([[[], [], []]], [{"turns": ref["turns"]}])["signature"]


def test_a_conversations_tools_are_remembered_with_the_calls_settings() -> None:
    ref = {"turns": [["f(a=1)"]], "tools": [{"name": "f", "parameters": {"properties": {"a": {"type": "integer"}}}}]}
    pred = ["Sure:\n```python\n[f(a=1)]\n```"]  # "auto" reads it, "bfcl" does not
    m = ToolCallMetric(order="turns")
    assert m.compute([pred], [ref])["num_parse_errors"] == 0
    assert m.compute([pred], [ref], prediction_format="bfcl")["num_parse_errors"] == 1
    assert m.compute([pred], [ref])["num_parse_errors"] == 0


def test_a_reference_group_streams_with_a_conversation() -> None:
    refs = [{"turns": [["f()"]], "group": "a"}, {"turns": [["f()"]], "group": "a"}]
    r = TURNS.compute([[["f()"]], [[]]], refs, pass_k=(1,))
    assert r["pass_k"]["pass@1"] == 0.5


def test_sizes_are_limited_per_entry() -> None:
    big = "x" * 600_000
    pred = json.dumps([[f"f(a='{big}')"], [f"g(b='{big}')"]])  # over 1 MB as a whole, each entry under it
    ref = {"turns": [[("f", {"a": big})], [("g", {"b": big})]]}
    assert len(pred) > 1_000_000 and TURNS.compute([pred], [ref])["exact_match"] == 1.0
    over = TURNS([["f(a='" + "x" * 1_100_000 + "')"], ["g(b=2)"]], REF)
    assert over.parse_error is not None and over.turns[1].exact and not over.turns[0].exact


def test_tallies_merge_turns() -> None:
    a, b = Tally(), Tally()
    a.add(TURNS([["f(a=1)"]], REF))
    b.add(TURNS([["f(a=1)"], ["g(b=2)"]], REF))
    assert (a + b).result("-")["turn_exact_match"] == 0.75 == TURNS.compute(
        [[["f(a=1)"]], [["f(a=1)"], ["g(b=2)"]]], [REF, REF])["turn_exact_match"]


# --------------------------------------------------------------------------- errors


def test_a_reference_that_is_no_conversation_names_the_example() -> None:
    with pytest.raises(ValueError, match=r'^references\[1\]: order="turns" reads a reference as \{"turns"'):
        TURNS.compute([[], []], [REF, [("f", {})]])
    with pytest.raises(ValueError, match=r'^references\[0\]: order="turns" reads "turns" as a list of turns'):
        TURNS.compute([[]], [{"turns": {"a": 1}}])
    with pytest.raises(ValueError, match=r"^references\[0\]: python: unbalanced brackets"):
        TURNS.compute([[]], [{"turns": [["f(a=1"]]}])


def test_a_conversation_under_another_order_says_order_turns_reads_it() -> None:
    for order in ("any", "strict"):
        with pytest.raises(ValueError, match=r'^references\[0\]: .*conversation: order="turns" reads it'):
            ToolCallMetric(order=order).compute([[]], [REF])
        with pytest.raises(ValueError, match=r'order="turns" reads it'):
            ToolCallMetric(order=order).compute([[]], [json.dumps(REF)])
    # {"turns": {args}} stays a call to a tool named turns
    assert ToolCallMetric()("[turns(a=1)]", {"turns": {"a": 1}}).exact


def test_a_prediction_that_is_no_list_names_the_example() -> None:
    with pytest.raises(ValueError, match=r'^predictions\[1\]: order="turns" reads a prediction as a list'):
        TURNS.compute([[], "[f(a=1)]"], [REF, REF])
    # JSON text of the list giving a key two values is a parse error of the prediction
    s = TURNS('[[{"name": "f", "arguments": {"a": 1}, "name": "g"}], []]', REF)
    assert s.parse_error is not None and "duplicate key 'name'" in s.parse_error and _counts(s) == (0.0, 0.0, 2.0)


def test_order_turns_is_a_per_call_keyword() -> None:
    m = ToolCallMetric()
    assert m.compute([[["f(a=1)"], ["g(b=2)"]]], [REF], order="turns")["f1"] == 1.0
    assert m([["f(a=1)"]], REF, order="turns").f1 == pytest.approx(2 / 3)
    assert "order:turns" in m.signature(order="turns")
