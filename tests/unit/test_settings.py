"""``Settings``: one table validates every field (the error texts pinned), ``replace``,
hashing, pickling, and the signature — equal to what the metric wrote before Settings, for
many combinations; ``ToolCallMetric.scores`` and its ``on_error`` hook."""

from __future__ import annotations

import itertools
import pickle
from typing import Any

import pytest

from toolcall_f1 import Settings, ToolCallMetric, ToolCallParseError
from toolcall_f1.settings import OUTPUT_OPTIONS, check_choice, digest, keyword_error

WEATHER = {"name": "get_weather", "parameters": {"properties": {"city": {"type": "string"}}, "required": ["city"]}}

BAD_VALUES = [
    ("level", "token", ValueError, "level: unknown value 'token'; expected one of 'call', 'arg'"),
    ("level", None, ValueError, "level: unknown value None; expected one of 'call', 'arg'"),
    ("matching", "best", ValueError, "matching: unknown value 'best'; expected one of 'greedy', 'optimal'"),
    ("canonicalizer", "fuzzy", ValueError,
     "canonicalizer: unknown name 'fuzzy'; expected one of 'default', 'bfcl', 'exact' or a callable str -> str"),
    ("canonicalizer", 5, ValueError, "canonicalizer: expected a name or a callable str -> str, got int"),
    ("name_canonicalizer", "dots", ValueError,
     "name_canonicalizer: unknown name 'dots'; expected one of 'exact', 'underscore' or a callable str -> str"),
    ("name_canonicalizer", [], ValueError, "name_canonicalizer: expected a name or a callable str -> str, got list"),
    ("prediction_format", "jsno", ValueError, "prediction_format: unknown value 'jsno'; expected one of 'python', "),
    ("reference_format", "xml", ValueError, "reference_format: unknown value 'xml'; expected one of 'python', "),
    ("on_parse_error", "ignore", ValueError, "on_parse_error: unknown value 'ignore'; expected one of 'count', 'raise'"),
    ("tools", 5, ValueError, "tools: expected a list of function schemas, got int"),
    ("weights", {"rm": -1}, ValueError, "weights: tool 'rm' must be a finite number from 0 to 1e+100, got -1"),
    ("weights", [1], ValueError, "weights: expected a mapping of tool name to weight, got list"),
]


@pytest.mark.parametrize("name, value, error, message", BAD_VALUES, ids=[f"{b[0]}={b[1]!r}" for b in BAD_VALUES])
def test_every_field_refuses_a_bad_value_with_the_same_text_everywhere(
    name: str, value: Any, error: type, message: str
) -> None:
    """Settings, replace() and the metric's constructor give one message (prefix-matched for
    the format lists, which grow)."""
    for build in (lambda: Settings(**{name: value}), lambda: Settings().replace(**{name: value}),
                  lambda: ToolCallMetric(**{name: value})):
        with pytest.raises(error) as caught:
            build()
        assert str(caught.value).startswith(message)


@pytest.mark.parametrize("name", [n for n in Settings.names() if n not in ("tools", "weights", "rules")])
def test_allowed_names_are_accepted_and_listed_in_the_error(name: str) -> None:
    allowed = Settings.allowed(name)
    assert allowed and all(getattr(Settings(**{name: v}), name) == v for v in allowed)
    with pytest.raises(ValueError) as caught:
        Settings(**{name: "no such value"})
    assert ", ".join(map(repr, allowed)) in str(caught.value)


def test_the_edges_read_their_choices_from_allowed() -> None:
    from toolcall_f1.cli import build_parser

    parser = build_parser()
    score = next(a for a in parser._subparsers._group_actions[0].choices.values())  # type: ignore[union-attr]
    choices = {a.dest: tuple(a.choices) for a in score._actions if a.choices}
    for name in ("level", "matching", "order", "canonicalizer", "name_canonicalizer", "prediction_format",
                 "reference_format", "on_parse_error"):
        assert choices[name] == Settings.allowed(name)


def test_allowed_refuses_a_field_without_a_fixed_set() -> None:
    for name in ("tools", "weights", "nope"):
        with pytest.raises(ValueError, match=f"^{name}: no fixed set of values; fields with one: 'level'"):
            Settings.allowed(name)


def test_none_means_the_default_where_the_constructor_took_none() -> None:
    assert Settings(canonicalizer=None, name_canonicalizer=None, tools=None, weights=None) == Settings()
    assert (Settings().canonicalizer, Settings().name_canonicalizer, Settings().tools, Settings().weights) == (
        "default", "exact", [], {})


def test_replace_checks_only_its_changes_and_names_the_nearest_field() -> None:
    base = Settings(level="arg", tools=[WEATHER], weights={"get_weather": 2})
    changed = base.replace(matching="optimal")
    assert changed == Settings(level="arg", matching="optimal", tools=[WEATHER], weights={"get_weather": 2})
    assert changed.tools is base.tools and base.matching == "greedy"  # a copy: the original is unchanged
    with pytest.raises(TypeError, match=r"^Settings.replace\(\) got an unexpected keyword argument 'tool'; "
                                        r"did you mean 'tools'\?$"):
        base.replace(tool=[])
    with pytest.raises(AttributeError):
        base.level = "call"  # type: ignore[misc]


def test_equal_settings_hash_equal_and_key_a_dict() -> None:
    a = Settings(tools=[WEATHER], weights={"get_weather": 2})
    b = Settings(tools=[dict(WEATHER)], weights={"get_weather": 2.0})
    assert a == b and hash(a) == hash(b) and {a: 1}[b] == 1
    assert a != Settings(tools=[WEATHER]) and a != Settings(weights={"get_weather": 2})
    assert a != a.replace(level="arg")
    fn = str.lower
    assert Settings(canonicalizer=fn) == Settings(canonicalizer=fn) != Settings(canonicalizer=str.upper)


def test_settings_keep_their_own_copy_of_the_tools() -> None:
    tools = [{"name": "f", "parameters": {"properties": {"x": {}}}}]
    s = Settings(tools=tools)
    tools[0]["name"] = "g"
    assert s.tools[0]["name"] == "f"


def test_settings_pickle() -> None:
    s = Settings(level="arg", canonicalizer="bfcl", tools=[WEATHER], weights={"get_weather": 3})
    back = pickle.loads(pickle.dumps(s))
    assert back == s and back.signature() == s.signature() and back.tools == s.tools


def _old_signature(level: str, matching: str, canon: Any, names: Any, pred: str, ref: str, tools: Any,
                   weights: Any, digests: list[str]) -> str:
    """The metric's signature as ``_signature`` joined it by hand before Settings (f305f82),
    with the ``order:`` field (issue 22) after ``match:``."""
    from toolcall_f1.schema import merge_tools, validate_weights
    from toolcall_f1.values import canonicalizer_name, name_canonicalizer_name

    tools, weights = merge_tools(tools), validate_weights(weights)
    digests = sorted({d for d in digests if d})
    w = digest([tools, weights, digests]) if (tools or weights or digests) else "none"
    return "|".join([f"level:{level}", f"match:{matching}", "order:any", f"canon:{canonicalizer_name(canon)}",
                     f"names:{name_canonicalizer_name(names)}", f"pred:{pred}", f"ref:{ref}", f"w:{w}", "v:0.1.0"])


COMBINATIONS = list(itertools.product(
    ("call", "arg"), ("greedy", "optimal"), (None, "default", "bfcl", "exact", str.lower), (None, "underscore"),
    ("auto", "json"), ("auto", "bfcl"), (None, [WEATHER]), (None, {"get_weather": 2}), ([], ["", "abcd1234"]),
))


@pytest.mark.parametrize("combo", COMBINATIONS[::7], ids=lambda c: "-".join(str(getattr(x, "__name__", x))[:8] for x in c))
def test_signature_is_what_the_metric_wrote_before(combo: tuple[Any, ...]) -> None:
    level, matching, canon, names, pred, ref, tools, weights, digests = combo
    want = _old_signature(*combo)
    settings = Settings(level=level, matching=matching, canonicalizer=canon, name_canonicalizer=names,
                        prediction_format=pred, reference_format=ref, tools=tools, weights=weights)
    assert settings.signature(digests) == want
    # written once: what compute() returns when no reference brings its own tools (a copy's too)
    assert settings.base_signature == settings.signature() == settings.replace().base_signature
    assert pickle.loads(pickle.dumps(settings)).base_signature == settings.base_signature
    metric = ToolCallMetric(level, matching=matching, canonicalizer=canon, name_canonicalizer=names,
                            prediction_format=pred, reference_format=ref, tools=tools, weights=weights)
    assert metric.signature(example_tools_digests=digests) == want
    # the same settings as call keywords over a bare metric
    over = ToolCallMetric(level, matching=matching, canonicalizer=canon, name_canonicalizer=names)
    assert over.signature(prediction_format=pred, reference_format=ref, tools=tools, weights=weights,
                          example_tools_digests=digests) == want


def test_the_signatures_pinned_in_the_docs() -> None:
    assert Settings().signature() == "level:call|match:greedy|order:any|canon:default|names:exact|pred:auto|ref:auto|w:none|v:0.1.0"
    assert ToolCallMetric(weights={"f": 2}).signature() == Settings(weights={"f": 2}).signature()


def test_the_metric_is_its_settings() -> None:
    s = Settings(level="arg", matching="optimal", tools=[WEATHER])
    metric = ToolCallMetric.from_settings(s)
    assert metric.settings == s == ToolCallMetric("arg", matching="optimal", tools=[WEATHER]).settings
    assert (metric.level, metric.matching, metric.tools) == ("arg", "optimal", s.tools)
    assert pickle.loads(pickle.dumps(metric)).settings == s


def test_call_keywords_change_a_copy_and_lay_tools_over_the_metrics() -> None:
    other = {"name": "g", "parameters": {"properties": {"y": {"type": "integer"}}}}
    metric = ToolCallMetric(tools=[WEATHER], weights={"get_weather": 2})
    result = metric.compute(["[g(y=1)]"], [[("g", {"y": 1})]], tools=[other], weights={"g": 3})
    want = Settings(tools=[WEATHER, other], weights={"get_weather": 2, "g": 3}).signature()
    assert result["signature"] == want and result["tp"] == 3.0
    assert metric.settings == Settings(tools=[WEATHER], weights={"get_weather": 2})  # unchanged


def test_names_and_output_options() -> None:
    assert Settings.names() == ("level", "matching", "order", "canonicalizer", "name_canonicalizer", "prediction_format",
                                "reference_format", "on_parse_error", "tools", "weights", "rules")
    assert Settings.names(per_call=True) == ("order", "prediction_format", "reference_format", "tools", "weights",
                                             "rules")
    assert not set(OUTPUT_OPTIONS) & set(Settings.names())


def test_check_choice_and_keyword_error() -> None:
    assert check_choice("a", ("a", "b"), "x") == "a"
    with pytest.raises(ValueError, match=r"^x: unknown value 'c'; expected one of 'a', 'b'$"):
        check_choice("c", ("a", "b"), "x")
    assert str(keyword_error("f()", "levle", Settings.names())) == (
        "f() got an unexpected keyword argument 'levle'; did you mean 'level'?")


# --------------------------------------------------------------------------- scores()


def test_scores_is_the_stream_compute_folds() -> None:
    metric = ToolCallMetric("arg", tools=[WEATHER])
    preds = ["[get_weather(city='Paris')]", "[get_weather(city='Rome')]", "[]"]
    refs = [[("get_weather", {"city": "Paris"})]] * 2 + [[]]
    streamed = list(metric.scores(preds, refs))
    assert streamed == metric.score_all(preds, refs) == [metric(p, r, index=i) for i, (p, r) in enumerate(zip(preds, refs))]
    result = metric.compute(preds, refs)
    assert (result["tp"], result["fp"], result["fn"]) == (
        sum(s.tp for s in streamed), sum(s.fp for s in streamed), sum(s.fn for s in streamed))


def test_scores_streams_iterators_without_holding_them() -> None:
    taken: list[int] = []

    def preds() -> Any:
        for i in range(3):
            taken.append(i)
            yield "[f()]"

    stream = ToolCallMetric().scores(preds(), iter([[("f", {})]] * 3))
    assert taken == [] and next(stream).exact and taken == [0]
    assert len(list(stream)) == 2


@pytest.mark.parametrize("n_pred, n_ref", [(3, 2), (2, 3)])
def test_scores_checks_lengths(n_pred: int, n_ref: int) -> None:
    metric = ToolCallMetric()
    message = f"^predictions and references differ in length: {n_pred} vs {n_ref}$"
    with pytest.raises(ValueError, match=message):
        metric.scores(["[]"] * n_pred, [[]] * n_ref)  # sized: before anything is scored
    with pytest.raises(ValueError, match=message):
        list(metric.scores(iter(["[]"] * n_pred), iter([[]] * n_ref)))  # streamed: when one runs out
    with pytest.raises(TypeError, match="^predictions: expected a list with one entry per example, got a single str"):
        metric.scores("[f()]", [[]])


def test_on_error_gets_each_bad_example_and_skips_it() -> None:
    seen: list[tuple[int, str]] = []
    metric = ToolCallMetric(tools=[WEATHER])
    refs = [None, "[f(", [("get_weather", {"city": "Paris"})], {"calls": [], "tools": 5}]
    scores = list(metric.scores(["[]"] * 4, refs, on_error=lambda i, err: seen.append((i, str(err)))))
    assert len(scores) == 1 and scores[0].fn == 1.0
    assert [i for i, _ in seen] == [0, 1, 3]
    assert seen[0][1].startswith("references[0]: the reference is missing (None)")
    assert seen[1][1] == "references[1]: python: unbalanced brackets (in '[f(')"


def test_on_error_raising_stops_and_without_it_the_error_is_raised() -> None:
    metric = ToolCallMetric(on_parse_error="raise")

    def stop(index: int, err: Exception) -> None:
        raise RuntimeError(f"stopped at {index}")

    with pytest.raises(RuntimeError, match="^stopped at 1$"):
        list(metric.scores(["[f()]", "[f("], [[("f", {})]] * 2, on_error=stop))
    with pytest.raises(ToolCallParseError, match=r"^predictions\[1\]: python: unbalanced brackets"):
        list(metric.scores(["[f()]", "[f("], [[("f", {})]] * 2))


def test_scores_takes_any_setting_for_its_examples() -> None:
    metric = ToolCallMetric()
    [call] = metric.scores(["[f(x=2, y=1)]"], [[("f", {"x": 1, "y": 1})]])
    [arg] = metric.scores(["[f(x=2, y=1)]"], [[("f", {"x": 1, "y": 1})]], level="arg")
    assert (call.tp, arg.tp) == (0.0, 2.0)
    with pytest.raises(TypeError, match="did you mean 'level'"):
        metric.scores([], [], levle="arg")
