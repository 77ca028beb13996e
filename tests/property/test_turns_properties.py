"""Property tests for ``order="turns"`` (SPEC §5b).

A conversation of one turn scores exactly as ``"any"`` scores that turn's calls; a conversation
is the exact sum of its turns scored alone; scaling the weights changes no ratio under every
order.
"""

from __future__ import annotations

from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from toolcall_f1 import Call, ToolCallMetric
from toolcall_f1.counting import Counts
from toolcall_f1.settings import ORDERS

from .test_order_properties import LEVEL, PROPS, WEIGHTS, _scaled, examples

MATCHING = st.sampled_from(["greedy", "optimal"])
#: a conversation: several examples, each one turn; the prediction may stop early or run past
CONVERSATIONS = st.tuples(st.lists(examples(), min_size=0, max_size=4), st.integers(-1, 1))


def _conversation(turns: list[tuple[list[Call], list[Call]]], reach: int) -> tuple[list[Any], dict[str, Any]]:
    """(the prediction's entries, the reference): ``reach`` -1 drops the last entry, 1 adds one."""
    entries: list[Any] = [p for p, _ in turns]
    if reach < 0:
        entries = entries[:-1]
    elif reach > 0:
        entries.append([Call("s", {"q": 1})])
    return entries, {"turns": [g for _, g in turns]}


@PROPS
@given(example=examples(), level=LEVEL, matching=MATCHING, weights=WEIGHTS)
def test_one_turn_equals_order_any(example: tuple[list[Call], list[Call]], level: str, matching: str,
                                   weights: dict[str, Any]) -> None:
    preds, golds = example
    any_ = ToolCallMetric(level, matching=matching, weights=weights)
    turns = ToolCallMetric(level, matching=matching, weights=weights, order="turns")
    a, t = any_(preds, golds), turns([preds], {"turns": [golds]})
    assert (t.tp, t.fp, t.fn, t.exact, t.superset_match, t.subset_match, t.attempted) == (
        a.tp, a.fp, a.fn, a.exact, a.superset_match, a.subset_match, a.attempted)
    assert [p[:2] for p in t.pairs] == [p[:2] for p in a.pairs] and t.per_tool == a.per_tool
    want, got = any_.compute([preds], [golds]), turns.compute([[preds]], [{"turns": [golds]}])
    assert got.pop("turn_exact_match") == want["exact_match"]
    assert got.pop("signature").replace("order:turns", "order:any") == want.pop("signature")
    assert got == want


@PROPS
@given(conversation=CONVERSATIONS, level=LEVEL, matching=MATCHING, weights=WEIGHTS)
def test_a_conversation_is_the_sum_of_its_turns(conversation: Any, level: str, matching: str,
                                                weights: dict[str, Any]) -> None:
    entries, ref = _conversation(*conversation)
    any_ = ToolCallMetric(level, matching=matching, weights=weights)
    s = ToolCallMetric(level, matching=matching, weights=weights, order="turns")(entries, ref)
    n = max(len(entries), len(ref["turns"]))
    alone = [any_(entries[k] if k < len(entries) else [], ref["turns"][k] if k < len(ref["turns"]) else [])
             for k in range(n)]
    assert s.counts == Counts.total(a.counts for a in alone)
    assert [t.counts for t in s.turns] == [a.counts for a in alone]
    assert s.exact == all(a.exact for a in alone)
    assert s.first_failed_turn == next((k for k, a in enumerate(alone) if not a.exact), None)
    assert s.turn_counts == (sum(a.exact for a in alone[:len(ref["turns"])]), len(ref["turns"]))
    assert Counts.total(s.row_counts()) == s.counts  # the example's rows read out its counts


@PROPS
@given(conversations=st.lists(CONVERSATIONS, min_size=1, max_size=3), level=LEVEL, weights=WEIGHTS,
       c=st.sampled_from([0.25, 0.5, 2, 8]), order=st.sampled_from(ORDERS))
def test_scaling_weights_changes_no_ratio_under_every_order(conversations: list[Any], level: str,
                                                            weights: dict[str, Any], c: float, order: str) -> None:
    pairs = [_conversation(*conv) for conv in conversations]
    if order == "turns":
        preds, refs = [p for p, _ in pairs], [r for _, r in pairs]
    else:  # every turn an example of its own
        preds = [p for conv in conversations for p, _ in conv[0]]
        refs = [g for conv in conversations for _, g in conv[0]]
        if not preds:
            preds, refs = [[]], [[]]
    base = ToolCallMetric(level, order=order, matching="optimal", weights=weights).compute(preds, refs)
    scaled = ToolCallMetric(level, order=order, matching="optimal", weights=_scaled(weights, c)).compute(preds, refs)
    for key in ("f1", "precision", "recall", "exact_match", "superset_match", "subset_match", "call_decision"):
        assert scaled[key] == base[key]
    assert scaled.get("turn_exact_match") == base.get("turn_exact_match")
    assert (scaled["tp"], scaled["fp"], scaled["fn"]) == (base["tp"] * c, base["fp"] * c, base["fn"] * c)
