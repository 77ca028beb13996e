"""``order="turns"`` (SPEC §5b): an example is a conversation, scored turn by turn.

A reference is ``{"turns": [turn, ...], "tools": [...]}`` (:func:`conversation`); a prediction
is a list with one entry per turn (:func:`turn_entries`). Calls pair only within one turn
index; the metric scores each turn as an example of its own
(:func:`~toolcall_f1.counting.count_example`) and :func:`combine` makes the example's
:class:`TurnsScore` of them: its counts are the exact sums over its turns, it is exact when
every turn is, and it keeps each turn's score (``details[i]["turns"][k]``).

This module reads and combines; :meth:`ToolCallMetric._score
<toolcall_f1.metric.ToolCallMetric>` reads each turn's calls with the metric's readers.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from .calls import ToolCallParseError
from .counting import Counts, Score, example_sums
from .values import DuplicateKeyError, loads_strict, plain_json
from .settings import digest

__all__ = ["TurnsScore", "combine", "conversation", "is_call_strings", "not_a_conversation", "turn_entries"]

_BLANK = " \t\r\n\ufeff"  # what may stand before JSON text's first character
_FORM = '{"turns": [turn, ...], "tools": [...]}'


def not_a_conversation(where: str) -> str:
    """The error for a reference holding ``"turns"`` under another order (SPEC §5b).

    Examples
    --------
    >>> print(not_a_conversation("references[2]"))
    references[2]: a reference whose "turns" holds a list is a conversation: order="turns" reads it (pass order="turns"; {"turns": {args}} would be a call to a tool named turns)
    """
    return (f'{where}: a reference whose "turns" holds a list is a conversation: order="turns" reads it '
            '(pass order="turns"; {"turns": {args}} would be a call to a tool named turns)')


def _json_text(value: Any) -> Any:
    """JSON text holding an object or an array → that value (the one decoder, without the size
    gate: size limits apply per turn); anything else as it is. A key given two values raises
    :class:`~toolcall_f1.calls.DuplicateKeyError`."""
    if type(value).__module__ == "numpy":
        value = plain_json(value)
    if not isinstance(value, str) or value.lstrip(_BLANK)[:1] not in ("{", "["):
        return value
    try:
        held = loads_strict(str(value).strip(_BLANK))
    except DuplicateKeyError:
        raise
    except (ValueError, RecursionError):
        return value
    return held if isinstance(held, (dict, list)) else value


def conversation(reference: Any, where: str) -> tuple[list[Any], Any]:
    """A reference under ``order="turns"`` → (its turns, its raw ``tools`` or None).

    Parameters
    ----------
    reference
        ``{"turns": [turn, ...], "tools": [...]}`` (``tools`` optional), or JSON text holding it.
    where
        How errors name the reference (``references[3]``).

    Returns
    -------
    tuple
        The turns (a list: each any reference value) and the conversation's tools as given.

    Raises
    ------
    ValueError
        For anything else, naming ``where`` and saying what ``order="turns"`` reads.

    Examples
    --------
    >>> conversation({"turns": [["f(a=1)"], []]}, "references[0]")
    ([['f(a=1)'], []], None)
    >>> conversation('{"turns": [[]], "tools": []}', "references[0]")
    ([[]], [])
    >>> conversation([("f", {})], "references[4]")
    Traceback (most recent call last):
    ...
    ValueError: references[4]: order="turns" reads a reference as {"turns": [turn, ...], "tools": [...]} (a conversation), got a list
    """
    try:
        value = _json_text(reference)
    except DuplicateKeyError as err:
        raise ValueError(f"{where}: {err.describe('the reference')}") from None
    if not isinstance(value, Mapping) or "turns" not in value:
        got = "a dict without \"turns\"" if isinstance(value, Mapping) else f"a {type(value).__name__}"
        raise ValueError(f'{where}: order="turns" reads a reference as {_FORM} (a conversation), got {got}')
    turns = value["turns"]
    if type(turns).__module__ == "numpy":
        turns = plain_json(turns)
    if not isinstance(turns, (list, tuple)):
        raise ValueError(f'{where}: order="turns" reads "turns" as a list of turns (each a reference), '
                         f"got {type(turns).__name__}")
    return list(turns), value.get("tools")


def turn_entries(prediction: Any, where: str) -> tuple[list[Any], ToolCallParseError | None]:
    """A prediction under ``order="turns"`` → its entries, one per turn.

    Parameters
    ----------
    prediction
        A list (or tuple, or numpy array) with one entry per turn, or JSON text holding one.
    where
        How errors name the prediction (``predictions[3]``).

    Returns
    -------
    tuple
        (the entries, None); or ``([], the error)`` for a prediction that cannot be read at all
        (JSON text giving a key two values, an input the evaluate adapter could not store): a
        parse error of the example, every turn unread.

    Raises
    ------
    ValueError
        For a prediction that is not a list (nor JSON text holding one), naming ``where``.

    Examples
    --------
    >>> turn_entries([["f(a=1)"], "[g()]"], "predictions[0]")
    ([['f(a=1)'], '[g()]'], None)
    >>> turn_entries('[["f(a=1)"], []]', "predictions[0]")
    ([['f(a=1)'], []], None)
    >>> turn_entries("[f(a=1)]", "predictions[2]")
    Traceback (most recent call last):
    ...
    ValueError: predictions[2]: order="turns" reads a prediction as a list with one entry per turn (or JSON text holding one), got a str
    """
    if isinstance(prediction, ToolCallParseError):  # stored by the evaluate adapter
        return [], prediction
    try:
        value = _json_text(prediction)
    except DuplicateKeyError as err:
        return [], err
    if not isinstance(value, (list, tuple)):
        raise ValueError(f'{where}: order="turns" reads a prediction as a list with one entry per turn '
                         f"(or JSON text holding one), got a {type(value).__name__}")
    return list(value), None


def is_call_strings(value: Any) -> bool:
    """Is ``value`` a list of strings — BFCL's multi-turn ground truth for a turn, or a turn's
    output given as call strings — each read as text, their calls in order?

    Examples
    --------
    >>> is_call_strings(["cd(folder='a')", "ls()"]), is_call_strings([]), is_call_strings("ls()")
    (True, False, False)
    """
    return isinstance(value, (list, tuple)) and bool(value) and all(isinstance(s, str) for s in value)


@dataclass(frozen=True, slots=True)
class TurnsScore(Score):
    """One conversation's :class:`~toolcall_f1.counting.Score` under ``order="turns"``: the
    turns' calls, pairs and counts side by side (indices into the example's ``preds`` and
    ``golds``, which hold every turn's calls in turn order), and each turn's own score.

    ``turns`` holds one :class:`~toolcall_f1.counting.Score` per reference turn, then one per
    prediction entry past the last reference turn (a turn with no gold calls); ``gold_turns``
    says how many are reference turns.
    """

    turns: tuple[Score, ...] = ()
    gold_turns: int = 0

    @property
    def first_failed_turn(self) -> int | None:
        """The index of the first turn that is not exact, or None."""
        return next((k for k, turn in enumerate(self.turns) if not turn.exact), None)

    @property
    def turn_counts(self) -> tuple[int, int]:
        """(exact reference turns, reference turns): what ``turn_exact_match`` sums."""
        return sum(turn.exact for turn in self.turns[: self.gold_turns]), self.gold_turns

    def to_dict(self) -> dict[str, Any]:
        """:meth:`Score.to_dict <toolcall_f1.counting.Score.to_dict>`, with each turn's details
        (``turns``: its counts, exact flag, pairs, unmatched calls) and ``first_failed_turn``.

        Examples
        --------
        >>> from toolcall_f1 import ToolCallMetric
        >>> d = ToolCallMetric(order="turns")([["f(a=1)"], []], {"turns": [["f(a=1)"], ["g()"]]}).to_dict()
        >>> [(t["tp"], t["fn"], t["exact"]) for t in d["turns"]], d["first_failed_turn"], d["exact"]
        ([(1.0, 0.0, True), (0.0, 1.0, False)], 1, False)
        """
        out = Score.to_dict(self)  # (a slots dataclass: no zero-argument super())
        out["turns"] = [turn.to_dict() for turn in self.turns]
        out["first_failed_turn"] = self.first_failed_turn
        return out


def combine(turns: Sequence[Score], gold_turns: int, tools_digest: str = "") -> TurnsScore:
    """The example's :class:`TurnsScore` from its turns' scores (SPEC §5b): calls side by side,
    counts summed exactly over every turn's fields, exact when every turn is exact, the first
    parse error its own (the example counts once in ``num_parse_errors``).

    Parameters
    ----------
    turns
        Each turn's score: the reference turns, then the prediction's entries past the last.
    gold_turns
        How many of ``turns`` are reference turns (what ``turn_exact_match`` counts).
    tools_digest
        The digest of the conversation's own tools ("" for none); with the turns' own, one
        digest names them all in the signature.

    Returns
    -------
    TurnsScore

    Examples
    --------
    >>> from toolcall_f1 import ToolCallMetric
    >>> m = ToolCallMetric()
    >>> s = combine([m("[f(a=1)]", "[f(a=1)]"), m("[]", "[g(b=2)]")], 2)
    >>> s.tp, s.fn, s.exact, s.first_failed_turn, s.turn_counts, [c.name for c in s.golds]
    (1.0, 1.0, False, 1, (1, 2), ['f', 'g'])
    """
    preds: list[Any] = []
    golds: list[Any] = []
    pairs: list[Any] = []
    unmatched_pred: list[int] = []
    unmatched_gold: list[int] = []
    rows: tuple[list[Any], list[Any], list[Any]] = ([], [], [])
    undeclared: list[Any] = []
    per_tool: dict[str, Counts] = {}
    for turn in turns:
        p, g = len(preds), len(golds)
        pairs += [(i + p, j + g, res) for i, j, res in turn.pairs]
        unmatched_pred += [i + p for i in turn.unmatched_pred]
        unmatched_gold += [j + g for j in turn.unmatched_gold]
        n_pairs, n_up = len(turn.pairs), len(turn.unmatched_pred)
        for part, segment in zip(rows, (turn.row_fields[:n_pairs], turn.row_fields[n_pairs:n_pairs + n_up],
                                        turn.row_fields[n_pairs + n_up:])):
            part += segment
        undeclared += turn.undeclared or [(False, ())] * len(turn.preds)
        preds += turn.preds
        golds += turn.golds
        for name, counts in turn.per_tool.items():
            known = per_tool.get(name)
            per_tool[name] = counts if known is None else known + counts
    row_fields = (*rows[0], *rows[1], *rows[2])
    tp, fp, fn = example_sums(f for row in row_fields for f in row)
    error = next((t.parse_error for t in turns if t.parse_error is not None), None)
    exact_pairs = -1 if error is not None else sum(res.exact for _, _, res in pairs)
    digests = sorted({d for d in (tools_digest, *(t.tools_digest for t in turns)) if d})
    return TurnsScore(
        tp, fp, fn, exact=all(t.exact for t in turns), parse_error=error,
        preds=tuple(preds), golds=tuple(golds), pairs=tuple(pairs),
        unmatched_pred=tuple(unmatched_pred), unmatched_gold=tuple(unmatched_gold),
        hallucinated_tools=sum(t.hallucinated_tools for t in turns),
        hallucinated_args=sum(t.hallucinated_args for t in turns),
        per_tool=per_tool, tools_digest=digests[0] if len(digests) == 1 else digest(digests) if digests else "",
        row_fields=row_fields, undeclared=tuple(undeclared) if any(t.undeclared for t in turns) else (),
        superset_match=exact_pairs == len(golds), subset_match=exact_pairs == len(preds),
        attempted=any(t.attempted for t in turns), turns=tuple(turns), gold_turns=gold_turns,
    )

