"""Tool schemas: parameters, required, defaults, types and importance weights (SPEC §3).

A list of function schemas (OpenAI ``{"type": "function", "function": {...}}``, a bare
``{"name", "description", "parameters"}`` as BFCL writes it, Anthropic's ``input_schema``,
MCP's ``inputSchema``, Gemini's function declarations, bare or as a tool's
``functionDeclarations``, with ``parameters`` or ``parametersJsonSchema``) compiles into a :class:`ToolSet`: a lookup from tool name to a
:class:`ToolSpec` with everything the comparison needs (once per content in a metric's memo).
"""

from __future__ import annotations

import json
import pickle
import reprlib
import sys
import warnings
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any, NamedTuple

from .calls import MAX_DEPTH, ToolCallParseError, ToolCallWarning
from .rules import ToolRules, rules_by_name
from .values import Memo, NameCanonicalizer, canon_exact, content_key, plain_json

__all__ = [
    "DEFAULT_TOOL",
    "ParamSpec",
    "ToolSpec",
    "ToolSet",
    "compile_tools",
    "merge_tools",
    "merge_plain_tools",
    "validate_weights",
    "SMALLEST_WEIGHT",
    "warn_unknown_weights",
    "type_ok",
    "type_check",
    "check_schema",
    "edit_distance",
    "TYPE_ALIASES",
    "SCHEMA_KEYWORDS",
    "NEAR_MISS_TARGETS",
]

#: BFCL's type names, and the upper-case names of Gemini's schema ``Type`` enum, read as JSON
#: Schema types.
TYPE_ALIASES = {
    "dict": "object",
    "float": "number",
    "tuple": "array",
    "str": "string",
    "int": "integer",
    "bool": "boolean",
    "list": "array",
    **{name.upper(): name for name in ("string", "number", "integer", "boolean", "array", "object", "null")},
    "TYPE_UNSPECIFIED": "any",
}

#: Where a function schema writes its parameters: OpenAI's and BFCL's key, Anthropic's, MCP's,
#: and Gemini's JSON Schema variant (REST and Python SDK spellings); a schema gives one of them.
PARAMETER_KEYS = ("parameters", "input_schema", "inputSchema", "parametersJsonSchema", "parameters_json_schema")
#: A Gemini ``Tool`` object's list of function declarations (REST and Python SDK spellings).
DECLARATION_KEYS = ("functionDeclarations", "function_declarations")
#: The fields of a Gemini ``Tool`` object (REST and Python SDK spellings): one with any of them
#: and no name is a tool object, standing for its function declarations (none for a built-in
#: tool such as Google Search, which declares no function).
GEMINI_TOOL_KEYS = frozenset({
    *DECLARATION_KEYS, "googleSearch", "google_search", "googleSearchRetrieval", "google_search_retrieval",
    "codeExecution", "code_execution", "urlContext", "url_context", "computerUse", "computer_use", "retrieval",
    "googleMaps", "google_maps", "enterpriseWebSearch", "enterprise_web_search", "fileSearch", "file_search",
})

class ParamSpec(NamedTuple):
    """One parameter of a tool: its JSON schema, weight and default (a tuple: 4x cheaper to build)."""

    name: str
    schema: Mapping[str, Any]
    weight: float
    has_default: bool
    default: Any
    #: ``type_ok(value, schema)`` as a function of the value, compiled once (see :func:`type_check`).
    check: Callable[[Any], bool]


class ToolSpec(NamedTuple):
    """Everything known about one tool: weight, parameters in declaration order, required."""

    name: str
    weight: float
    params: Mapping[str, ParamSpec]
    required: frozenset[str]
    #: Each argument's weight: its override, else its schema importance (1 when neither says).
    arg_weights: Mapping[str, float]
    #: The tool's argument rules (SPEC §6b), or None when every argument is compared exactly.
    rules: ToolRules | None = None

    def arg_weight(self, arg: str) -> float:
        """Weight of an argument: override, else schema importance, else 1."""
        return self.arg_weights.get(arg, 1.0)


#: The spec of a tool with no schema, weights or rules (tool weight 1, every argument 1): what
#: :meth:`ToolSet.spec_for_weights` gives for a name not in :attr:`ToolSet.weighted`.
DEFAULT_TOOL = ToolSpec("", 1.0, {}, frozenset(), {})


#: The largest weight accepted: sums over a large corpus of products ``w_t * w_a`` must stay
#: finite floats.
MAX_WEIGHT = 1e100
_WEIGHT_RANGE = f"must be a finite number from 0 to {MAX_WEIGHT:g}"


def _check_weight(value: Any, what: str) -> float:
    """``value`` as a weight (a float), else a ValueError naming ``what``."""
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        try:
            weight = float(value)
        except OverflowError:
            raise ValueError(f"weights: {what} {_WEIGHT_RANGE}, got an integer of {len(str(value))} digits") from None
        if 0 <= weight <= MAX_WEIGHT:  # not NaN, not infinite
            return weight
    raise ValueError(f"weights: {what} {_WEIGHT_RANGE}, got {value!r}")


def validate_weights(weights: Mapping[str, Any] | None) -> dict[str, dict[str, Any]]:
    """Normalise ``weights=`` to ``{tool: {"weight": w|None, "arguments": {arg: w}}}``.

    Raises
    ------
    ValueError
        Naming the tool, for a negative, non-finite or non-numeric weight or a bad shape.

    Examples
    --------
    >>> validate_weights({"delete_all": 10, "f": {"arguments": {"x": 2}}})
    {'delete_all': {'weight': 10.0, 'arguments': {}}, 'f': {'weight': None, 'arguments': {'x': 2.0}}}
    >>> validate_weights({"rm": -1})
    Traceback (most recent call last):
    ...
    ValueError: weights: tool 'rm' must be a finite number from 0 to 1e+100, got -1
    >>> validate_weights({1: 2})
    Traceback (most recent call last):
    ...
    ValueError: weights: tool names must be strings, got int 1
    """
    if weights is None:
        return {}
    weights = plain_json(weights)
    if not isinstance(weights, Mapping):
        raise ValueError(f"weights: expected a mapping of tool name to weight, got {type(weights).__name__}")
    out: dict[str, dict[str, Any]] = {}
    for tool, entry in weights.items():
        if not isinstance(tool, str):
            raise ValueError(f"weights: tool names must be strings, got {type(tool).__name__} {tool!r}")
        out[tool] = _tool_weights(tool, entry)
    return out


def _tool_weights(tool: str, entry: Any) -> dict[str, Any]:
    """One tool's entry of ``weights=``: a number, or ``{"weight": w, "arguments": {arg: w}}``."""
    if not isinstance(entry, Mapping):
        return {"weight": _check_weight(entry, f"tool {tool!r}"), "arguments": {}}
    unknown = set(entry) - {"weight", "arguments"}
    if unknown:
        raise ValueError(f"weights: tool {tool!r} has unknown keys {sorted(unknown)}; expected 'weight' and 'arguments'")
    args = entry.get("arguments") or {}
    if not isinstance(args, Mapping):
        raise ValueError(f"weights: tool {tool!r}: 'arguments' must be a mapping")
    for arg in args:
        if not isinstance(arg, str):
            raise ValueError(f"weights: tool {tool!r}: argument names must be strings, got {type(arg).__name__} {arg!r}")
    weight = entry.get("weight")
    return {
        "weight": None if weight is None else _check_weight(weight, f"tool {tool!r}"),
        "arguments": {arg: _check_weight(w, f"tool {tool!r} argument {arg!r}") for arg, w in args.items()},
    }


def _function_of(schema: Any, where: str) -> Mapping[str, Any]:
    """A tool list's entry (at ``where``: ``"tools[3]"``) as its function object."""
    if type(schema) is not dict and not isinstance(schema, Mapping):  # (``type`` first: ABCs are slow)
        raise ValueError(f"{where}: expected a function schema object, got {type(schema).__name__}")
    if "function" in schema:
        function = schema["function"]
        if type(function) is dict or isinstance(function, Mapping):
            schema = function
    name = schema.get("name")
    if not isinstance(name, str) or not name:
        keys = ", ".join(repr(k) for k in list(schema)[:5]) or "none"
        raise ValueError(f"{where}: a function schema needs a non-empty 'name' (its keys: {keys})")
    return schema


def merge_tools(*layers: Sequence[Mapping[str, Any]] | None) -> list[Mapping[str, Any]]:
    """Merge lists of schemas by tool name, later layers winning (SPEC §2, per-example tools).

    Examples
    --------
    >>> merged = merge_tools([{"name": "a", "importance": 1}], [{"name": "a", "importance": 5}, {"name": "b"}])
    >>> [(t["name"], t.get("importance")) for t in merged]
    [('a', 5), ('b', None)]
    >>> merge_tools(5)
    Traceback (most recent call last):
    ...
    ValueError: tools: expected a list of function schemas, got int
    """
    return merge_plain_tools(*(None if layer is None else plain_json(layer) for layer in layers))


def merge_plain_tools(*layers: Sequence[Mapping[str, Any]] | None) -> list[Mapping[str, Any]]:
    """:func:`merge_tools` of layers already free of numpy values (:func:`plain_json`)."""
    by_name: dict[str, Mapping[str, Any]] = {}
    for layer in layers:
        if layer is None:
            continue
        if not isinstance(layer, (list, tuple)):
            raise ValueError(f"tools: expected a list of function schemas, got {type(layer).__name__}")
        here: dict[str, Mapping[str, Any]] = {}
        for where, schema in _declarations(layer):
            fn = _function_of(schema, where)
            name = fn["name"]
            if name in here and not _same_parameters(here[name], fn):
                warnings.warn(
                    f"tools: two schemas are named {name!r} with different parameters (or too large to compare); "
                    "the later one is used",
                    ToolCallWarning,
                    stacklevel=3,
                )
            here[name] = fn
            by_name[name] = schema
    return list(by_name.values())


def _declarations(tools: Sequence[Any]) -> Iterator[tuple[str, Any]]:
    """A tool list's function schemas, each with where it is (``"tools[3]"``): a Gemini ``Tool``
    object (``{"functionDeclarations": [...]}``, or a built-in tool such as ``{"googleSearch": {}}``:
    no name of its own) stands for its declarations (``"tools[3].functionDeclarations[1]"``)."""
    for i, schema in enumerate(tools):
        if not (isinstance(schema, Mapping) and "name" not in schema and "function" not in schema
                and not GEMINI_TOOL_KEYS.isdisjoint(schema)):
            yield f"tools[{i}]", schema
            continue
        key = next((k for k in DECLARATION_KEYS if schema.get(k) is not None), None)
        if key is None:  # a built-in tool (or declarations left unset): no function
            continue
        declarations = schema[key]
        if not isinstance(declarations, (list, tuple)):
            raise ValueError(f"tools[{i}].{key}: expected a list of function declarations, "
                             f"got {type(declarations).__name__}")
        for j, declaration in enumerate(declarations):
            yield f"tools[{i}].{key}[{j}]", declaration


def _parameters(fn: Mapping[str, Any]) -> Any:
    """A function schema's parameters as written: the one of :data:`PARAMETER_KEYS` it gives a
    value (a key holding None, as an SDK's dump writes a field left unset, gives none); two are
    refused (Gemini's ``parameters`` and ``parametersJsonSchema`` exclude each other; which one
    counts would be a guess)."""
    given = [key for key in PARAMETER_KEYS if fn.get(key) is not None]
    if len(given) > 1:
        raise ValueError(f"tool {fn.get('name')!r}: both {given[0]!r} and {given[1]!r} declare its parameters; "
                         "give one")
    return fn[given[0]] if given else None


#: The most pairs of nodes :func:`_same_parameters` compares before giving up.
_COMPARE_NODES = 1_000_000
_CONTAINERS = (Mapping, list, tuple)


def _same_parameters(a: Mapping[str, Any], b: Mapping[str, Any]) -> bool:
    """Do two function schemas declare the same parameters (as ``==`` says)?

    Compared by an explicit walk that compares each pair of nodes once: ``==`` would compare
    a subschema shared by many parents once per path, exponential work for two equal
    schemas built separately ("doubling" DAGs), and it recurses.

    Past :data:`_COMPARE_NODES` pairs of nodes, False: the comparison only decides whether
    :func:`merge_tools` warns.
    """
    stack = [(_parameters(a), _parameters(b))]
    seen: set[tuple[int, int]] = set()
    while stack:
        x, y = stack.pop()
        if x is y or (id(x), id(y)) in seen:
            continue
        seen.add((id(x), id(y)))
        if len(seen) > _COMPARE_NODES:  # too large to compare: told apart (a warning), never refused
            return False
        if isinstance(x, Mapping) and isinstance(y, Mapping):
            if x.keys() != y.keys():
                return False
            stack.extend((x[k], y[k]) for k in x)
        elif isinstance(x, list) and isinstance(y, list) or isinstance(x, tuple) and isinstance(y, tuple):
            if len(x) != len(y):
                return False
            stack.extend(zip(x, y))
        elif isinstance(x, _CONTAINERS) or isinstance(y, _CONTAINERS) or x != y:  # (a list is never a tuple)
            return False
    return True


def _compile_one(fn: Mapping[str, Any], override: Mapping[str, Any] | None, rules: Mapping[str, Any] | None = None,
                 memo: dict[Any, bool] | None = None) -> ToolSpec:
    name = fn["name"]
    params = _parameters(fn)
    if params is None:
        params = {}
    if not isinstance(params, Mapping):
        raise ValueError(f"tool {name!r}: 'parameters' must be a JSON Schema object")
    where = f"tool {name!r}"
    _refuse_near_misses(fn, where, "in the function schema")
    _check_node(params, where, "parameters")
    props = params.get("properties") or {}
    required = params.get("required") or []
    if not isinstance(required, (list, tuple)) or not all(isinstance(r, str) for r in required):
        raise ValueError(f"{where}: 'required' must be a list of parameter names (strings)")
    specs: dict[str, ParamSpec] = {}
    arg_weights: dict[str, float] = {}
    matches: dict[str, Any] = {}  # the parameters' own rules (SPEC §6b)
    for pname, pschema in props.items():
        spec = specs[pname] = _param_spec(name, pname, pschema)
        arg_weights[pname] = spec.weight
        if "match" in pschema:
            matches[pname] = pschema["match"]
    tool_weight = _check_weight(fn["importance"], f"{where} importance") if "importance" in fn else 1.0
    if override:
        if override.get("weight") is not None:
            tool_weight = override["weight"]
        arg_weights.update(override.get("arguments") or {})
    _check_products(name, tool_weight, arg_weights)
    tool_rules = ToolRules.compile(name, rules, matches, memo) if rules or matches else None
    return _tuple(ToolSpec, (name, tool_weight, specs, frozenset(required), arg_weights, tool_rules))


#: A named tuple built from its fields' tuple at C speed (``ToolSpec(...)`` goes through a Python ``__new__``).
_tuple: Callable[..., Any] = tuple.__new__

#: The smallest normal float: a field weight below it (not 0) would be rounded to fewer bits.
SMALLEST_WEIGHT = sys.float_info.min


def _check_products(tool: str, tool_weight: float, arg_weights: Mapping[str, float]) -> None:
    """Each field's weight — ``w_t``, and ``w_t·w_a`` as a float product — is 0 or at least
    :data:`SMALLEST_WEIGHT` (SPEC §3); else a ValueError naming the tool (and argument): a
    subnormal or underflowed product would silently change the ratio of the counts."""
    if 0 < tool_weight < SMALLEST_WEIGHT:
        raise ValueError(f"weights: tool {tool!r} has weight {tool_weight!r}, below the smallest normal float "
                         f"({SMALLEST_WEIGHT!r}): use 0 or a larger weight (scale every weight up; only ratios matter)")
    for arg, weight in arg_weights.items():
        if tool_weight and weight and tool_weight * weight < SMALLEST_WEIGHT:  # (0 where it underflowed)
            raise ValueError(f"weights: tool {tool!r} argument {arg!r}: its field weight {tool_weight!r} × {weight!r} "
                             f"= {tool_weight * weight!r} is below the smallest normal float ({SMALLEST_WEIGHT!r}): "
                             "use 0 or larger weights (scale every weight up; only ratios matter)")


def _param_spec(tool: str, name: str, schema: Mapping[str, Any]) -> ParamSpec:
    declared: Any = schema.get("type")
    # the commonest schema (a known type name, no subschema) has nothing to check, and its check
    # is its type name's: what type_check compiles it to (tests/unit/test_schema_compile.py)
    plain = (type(declared) is str and declared in KNOWN_TYPES and _PLAIN_KEYS.issuperset(schema)
             and schema.get("nullable") is not True)
    if not plain:
        where = f"tool {tool!r} parameter {name!r}"
        check_schema(schema, where)
    weight = 1.0
    if "importance" in schema:
        weight = _check_weight(schema["importance"], f"tool {tool!r} argument {name!r} importance")
    check = _TYPE_CHECKS[TYPE_ALIASES.get(declared, declared)] if plain else type_check(schema, where)
    return _tuple(ParamSpec, (name, schema, weight, "default" in schema, schema.get("default"), check))


class ToolSet:
    """Compiled schemas plus weight overrides, looked up by (canonical) tool name (picklable)."""

    __slots__ = ("by_key", "name_canon", "has_schema", "weighted", "rules", "by_rules", "rules_only", "ruled",
                 "callable_rules", "calls")
    rules: Mapping[str, Mapping[str, Any]]
    by_rules: Mapping[str, Mapping[str, Any]]
    rules_only: dict[str, ToolSpec]
    ruled: bool
    callable_rules: bool

    def __init__(
        self,
        tools: Sequence[Mapping[str, Any]],
        weights: Mapping[str, Mapping[str, Any]],
        name_canon: NameCanonicalizer = canon_exact,
        rules: Mapping[str, Mapping[str, Any]] | None = None,
        calls: dict[Any, bool] | None = None,
        extends: ToolSet | None = None,
    ) -> None:
        self.name_canon = name_canon
        self.has_schema = bool(tools)
        self.by_key: dict[str, ToolSpec] = {}
        #: The validated ``rules=`` setting (SPEC §6b), and the memo of callable rules' answers
        #: (those of ``extends``, the tool set this one extends, when given).
        self.rules = (rules or {}) if extends is None else extends.rules
        self.calls: dict[Any, bool] = (({} if calls is None else calls) if extends is None else extends.calls)
        same = extends if extends is not None and extends.name_canon is name_canon else None
        #: ``rules=`` by canonical tool name.
        self.by_rules = same.by_rules if same is not None else rules_by_name(self.rules, name_canon)
        by_canon = {name_canon(tool): entry for tool, entry in weights.items()} if weights else {}
        for where, schema in _declarations(tools):
            fn = _function_of(schema, where)
            key = name_canon(fn["name"])
            self.by_key[key] = _compile_one(fn, by_canon.get(key), self.by_rules.get(key), self.calls)
        #: Every tool with a schema, weights or rules (one with weights or rules only: without
        #: parameters), by canonical name; any other tool's spec is :data:`DEFAULT_TOOL`.
        self.weighted = dict(self.by_key)
        for tool, entry in weights.items():
            key = name_canon(tool)
            if key not in self.weighted:
                self.weighted[key] = _compile_one({"name": tool}, entry, self.by_rules.get(key), self.calls)
        self._add_rules_only(same)

    def _add_rules_only(self, extends: ToolSet | None) -> None:
        """The tools with rules only (no schema, no weights) into :attr:`weighted` — compiled
        once, by the tool set this one ``extends`` when there is one (a reference's own tools
        make a tool set per reference: the rules of every tool are not compiled again each time);
        and the flags :attr:`ruled` and :attr:`callable_rules`."""
        own = [spec.rules for spec in self.weighted.values() if spec.rules is not None]
        if extends is not None:
            self.rules_only = extends.rules_only
        else:
            self.rules_only = {key: _compile_one({"name": tool}, None, self.by_rules[key], self.calls)
                               for tool in self.rules if (key := self.name_canon(tool)) not in self.weighted}
        if self.rules_only:
            self.weighted = {**self.rules_only, **self.weighted}  # a tool declared here keeps its own spec
        #: Does any tool have rules (the one test the default route makes: SPEC §6b's branch), and
        #: any a callable one (then each computation needs its own memo: :meth:`for_computation`)?
        self.ruled = bool(own or self.rules_only)
        self.callable_rules = any(r.has_callable for r in own) or (
            extends.callable_rules if extends is not None
            else any(s.rules is not None and s.rules.has_callable for s in self.rules_only.values()))

    def for_computation(self) -> ToolSet:
        """The tool set one computation judges with: itself, or — when a rule is a callable —
        a copy with a fresh memo of its answers (SPEC §6b: called at most once per distinct
        pair of values within one ``compute()``, never remembered across them).

        Examples
        --------
        >>> ts = compile_tools([], {}, rules={"f": {"x": lambda p, g: p == g}})
        >>> fresh = ts.for_computation()
        >>> fresh is ts, fresh.calls is ts.calls, compile_tools([], {}).for_computation().ruled
        (False, False, False)
        """
        if not self.callable_rules:
            return self
        copy = object.__new__(ToolSet)
        for slot in ToolSet.__slots__:
            setattr(copy, slot, getattr(self, slot))
        copy.calls = {}
        rebound = {id(s): s._replace(rules=s.rules.bound(copy.calls)) for s in self.weighted.values() if s.rules}
        copy.by_key = {k: rebound.get(id(s), s) for k, s in self.by_key.items()}
        copy.weighted = {k: rebound.get(id(s), s) for k, s in self.weighted.items()}
        copy.rules_only = {k: rebound.get(id(s), s) for k, s in self.rules_only.items()}
        return copy

    def rules_of(self, name: str) -> ToolRules | None:
        """The rules of the tool ``name`` (SPEC §6b), or None."""
        return self.weighted.get(self.name_canon(name), DEFAULT_TOOL).rules

    def lookup(self, name: str) -> ToolSpec | None:
        """The schema of a declared tool, or None."""
        return self.by_key.get(self.name_canon(name))

    def spec_for_weights(self, name: str) -> ToolSpec:
        """A spec to read weights from: the schema's, a weights-only entry, or the default."""
        return self.weighted.get(self.name_canon(name), DEFAULT_TOOL)

    def param_order(self, name: str) -> list[str] | None:
        """Declared parameter names in order (for positional arguments), or None."""
        spec = self.lookup(name)
        return None if spec is None else list(spec.params)


def compile_tools(
    tools: Sequence[Mapping[str, Any]],
    weights: Mapping[str, Mapping[str, Any]],
    name_canon: NameCanonicalizer = canon_exact,
    *,
    cache: Memo | None = None,
    rules: Mapping[str, Mapping[str, Any]] | None = None,
    calls: dict[Any, bool] | None = None,
    extends: ToolSet | None = None,
) -> ToolSet:
    """Compile schemas and (validated) weights into a :class:`ToolSet`; with ``cache`` (a
    metric's :class:`~toolcall_f1.values.Memo`), once per content (:func:`~toolcall_f1.values.content_key`).
    ``rules``: the validated ``rules=`` setting (:func:`~toolcall_f1.rules.validate_rules`),
    compiled per tool with its parameters' ``"match"``; ``calls``: the memo its callable rules
    share (a computation's, :meth:`ToolSet.for_computation`; without it the tool set's own).
    ``extends``: a tool set these schemas are laid over (a reference's own tools over the call's):
    its rules, memo and compiled rules-only tools are this one's (``rules`` and ``calls`` unread).

    Raises
    ------
    ValueError
        For a malformed schema or importance, naming the tool and the key (SPEC §3: refused,
        not guessed): a property schema that is not an object, a ``type`` that is no type name
        or list of them, ``anyOf``/``oneOf`` that is not a list, ``properties`` that is not an
        object, or a near-miss of a keyword the schema lacks (:data:`NEAR_MISS_TARGETS`, within
        Damerau–Levenshtein distance 2, not itself one of :data:`SCHEMA_KEYWORDS` nor an
        ``x-`` extension).

    Warns
    -----
    ToolCallWarning
        For a type name no JSON Schema (or BFCL) type has (``"integr"``): it is not checked.

    Examples
    --------
    >>> compile_tools([{"name": "f", "parameters": {"properties": {"x": {"type": "integer"}}}}], {}).param_order("f")
    ['x']
    >>> compile_tools([{"name": "f", "parameters": {"properties": {"x": "integer"}}}], {})
    Traceback (most recent call last):
    ...
    ValueError: tool 'f': property 'x' must have a schema object such as {"type": "integer"}, got 'integer' (at parameters.properties)
    >>> compile_tools([{"name": "f", "paramters": {"properties": {"x": {"type": "integer"}}}}], {})
    Traceback (most recent call last):
    ...
    ValueError: tool 'f': unknown key 'paramters' (in the function schema): did you mean 'parameters'? (a misspelled keyword would be ignored: malformed schemas are refused)
    """
    held = (tools, weights) if not rules else (tools, weights, rules)
    content = None if cache is None else content_key(held)  # None: not plain data, not remembered
    if cache is None or content is None or extends is not None:
        return ToolSet(tools, weights, name_canon, rules, calls, extends)
    compiled = cache.get((content, id(name_canon)))
    if compiled is None or compiled.name_canon is not name_canon:  # a later function may reuse an id
        # built from a private copy (the key's own bytes): subschemas compile when a value first
        # reaches them, and the caller's dicts may have been changed by then (found by review)
        own_tools, own_weights, *own_rules = pickle.loads(content)
        compiled = ToolSet(own_tools, own_weights, name_canon, *own_rules)
        cache.put((content, id(name_canon)), compiled)
    return compiled


def warn_unknown_weights(toolset: ToolSet, weights: Mapping[str, Mapping[str, Any]]) -> None:
    """Warn (never raise) for ``weights`` naming a tool that none of the schemas declares, or
    an argument its tool does not declare — likely a misspelling. Nothing is checked without
    schemas.

    Examples
    --------
    >>> import warnings
    >>> ts = compile_tools([{"name": "f", "parameters": {"properties": {"x": {}}}}], {})
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     warn_unknown_weights(ts, validate_weights({"g": 2, "f": {"arguments": {"y": 3}}}))
    >>> [str(w.message) for w in caught]  # doctest: +NORMALIZE_WHITESPACE
    ["weights: tool 'g' is not among the tool schemas (its weight still applies)",
     "weights: tool 'f' has no parameter 'y' (its weight still applies)"]
    """
    if not toolset.has_schema:
        return
    for tool, entry in weights.items():
        spec = toolset.lookup(tool)
        if spec is None:
            warnings.warn(f"weights: tool {tool!r} is not among the tool schemas (its weight still applies)",
                          ToolCallWarning, stacklevel=3)
            continue
        for arg in entry.get("arguments") or {}:
            if arg not in spec.params:
                warnings.warn(f"weights: tool {tool!r} has no parameter {arg!r} (its weight still applies)",
                              ToolCallWarning, stacklevel=3)


# --------------------------------------------------------------------------- types

#: The type names read (JSON Schema's and BFCL's aliases); any other name is not checked.
KNOWN_TYPES = frozenset({"string", "integer", "number", "boolean", "null", "array", "object", "any", *TYPE_ALIASES})
#: A schema node reached through this many unions (counted along the whole path, across ``items``
#: and ``properties`` too) may not hold another: checking a value recurses once per union, whatever the value.
MAX_UNION_DEPTH = 64
_SCHEMA_NODES = 100_000
_SUBSCHEMAS = frozenset({"items", "properties", "anyOf", "oneOf"})

#: Every keyword a function schema or a JSON Schema node may hold (JSON Schema's, OpenAPI's,
#: OpenAI's, Anthropic's, MCP's and BFCL's, plus ``importance``): none is a misspelling.
SCHEMA_KEYWORDS = frozenset({
    # JSON Schema (draft 4 to 2020-12)
    "$schema", "$id", "id", "$ref", "$defs", "definitions", "$anchor", "$dynamicRef", "$dynamicAnchor",
    "$recursiveRef", "$recursiveAnchor", "$vocabulary", "$comment", "type", "enum", "const", "multipleOf",
    "maximum", "exclusiveMaximum", "minimum", "exclusiveMinimum", "maxLength", "minLength", "pattern",
    "maxItems", "minItems", "uniqueItems", "maxContains", "minContains", "maxProperties", "minProperties",
    "required", "dependentRequired", "properties", "patternProperties", "additionalProperties",
    "propertyNames", "items", "prefixItems", "additionalItems", "contains", "unevaluatedItems",
    "unevaluatedProperties", "allOf", "anyOf", "oneOf", "not", "if", "then", "else", "dependentSchemas",
    "dependencies", "format", "contentEncoding", "contentMediaType", "contentSchema", "title",
    "description", "default", "deprecated", "readOnly", "writeOnly", "examples",
    # OpenAPI and Gemini's schema objects
    "example", "nullable", "discriminator", "xml", "externalDocs", "propertyOrdering",
    # function schemas: OpenAI, Anthropic, MCP, BFCL
    "function", "name", "parameters", "strict", "input_schema", "inputSchema", "outputSchema",
    "parametersJsonSchema", "parameters_json_schema", "responseJsonSchema", "response_json_schema", "behavior",
    "annotations", "cache_control", "_meta", "icons", "response", "returns", "optional",
    # this metric's weights (SPEC §3)
    "importance",
})
#: The keywords whose misspelling would silently change a score (SPEC §3): a key within
#: Damerau–Levenshtein distance 2 of one, where that one is absent, is refused.
NEAR_MISS_TARGETS = ("parameters", "properties", "required", "type", "items", "importance", "parametersJsonSchema")
#: Keys a parameter's schema may hold that need no check beyond its type name.
_PLAIN_KEYS = SCHEMA_KEYWORDS - _SUBSCHEMAS


def edit_distance(a: str, b: str) -> int:
    """The Damerau–Levenshtein distance of two strings: insertions, deletions, substitutions
    and transpositions of adjacent characters, unrestricted (Lowrance and Wagner's algorithm).

    Examples
    --------
    >>> edit_distance("paramters", "parameters"), edit_distance("requried", "required"), edit_distance("ca", "abc")
    (1, 1, 2)
    """
    far = len(a) + len(b)
    last_row: dict[str, int] = {}  # each character's last row in ``a``
    d = [[far] * (len(b) + 2)] + [[far] + list(range(len(b) + 1))] + [[far, i] + [0] * len(b) for i in range(1, len(a) + 1)]
    for i in range(1, len(a) + 1):
        last_col = 0  # the last column in this row whose character matched
        for j in range(1, len(b) + 1):
            i1, j1 = last_row.get(b[j - 1], 0), last_col
            same = a[i - 1] == b[j - 1]
            if same:
                last_col = j
            d[i + 1][j + 1] = min(d[i][j] + (not same), d[i + 1][j] + 1, d[i][j + 1] + 1,
                                  d[i1][j1] + (i - i1 - 1) + 1 + (j - j1 - 1))
        last_row[a[i - 1]] = i
    return d[len(a) + 1][len(b) + 1]


def _refuse_near_misses(node: Mapping[str, Any], where: str, at: str) -> None:
    """A ValueError for a key of ``node`` that reads as a misspelled :data:`NEAR_MISS_TARGETS`
    keyword the node lacks; other unknown keys (and vendor extensions ``x-…``) are ignored."""
    if SCHEMA_KEYWORDS.issuperset(node):  # (the common case: every key a keyword, found at C speed)
        return
    for key in node:
        if type(key) is not str or key in SCHEMA_KEYWORDS or key.startswith("x-"):
            continue
        for target in NEAR_MISS_TARGETS:
            if target not in node and abs(len(key) - len(target)) <= 2 and edit_distance(key, target) <= 2:
                raise ValueError(f"{where}: unknown key {key!r} ({at}): did you mean {target!r}? "
                                 "(a misspelled keyword would be ignored: malformed schemas are refused)")


def _check_node(node: Mapping[str, Any], where: str, at: str) -> None:
    """Refuse a schema node's malformed keywords (SPEC §3): a ``type`` that is no type name or
    list of them, ``anyOf``/``oneOf`` that is not a list, ``properties`` that is not an object
    of schema objects, and near-miss keys (:func:`_refuse_near_misses`)."""
    if "type" in node:
        declared = node["type"]
        if type(declared) is not str and not (isinstance(declared, (list, tuple)) and all(type(t) is str for t in declared)):
            raise ValueError(f"{where}: 'type' must be a type name or a list of type names, "
                             f"got {reprlib.repr(declared)} (at {at})")
    for word in ("anyOf", "oneOf"):
        if word in node and not isinstance(node[word], (list, tuple)):
            raise ValueError(f"{where}: {word!r} must be a list of schemas, got {type(node[word]).__name__} (at {at})")
    if "properties" in node:
        props = node["properties"]
        if type(props) is not dict and not isinstance(props, Mapping):
            raise ValueError(f"{where}: 'properties' must be an object of parameter schemas, "
                             f"got {type(props).__name__} (at {at})")
        for key, prop in props.items():
            if type(prop) is not dict and not isinstance(prop, Mapping):
                hint = f' such as {{"type": {json.dumps(prop)}}}' if isinstance(prop, str) and len(prop) < 40 else ""
                raise ValueError(f"{where}: property {key!r} must have a schema object{hint}, "
                                 f"got {reprlib.repr(prop)} (at {at}.properties)")
    _refuse_near_misses(node, where, f"at {at}")


def _union(schema: Mapping[str, Any]) -> list[Any] | tuple[Any, ...] | None:
    """The union a value must pass one member of: ``anyOf``, else ``oneOf`` (non-empty), or None."""
    members = schema.get("anyOf") or schema.get("oneOf")
    return members if isinstance(members, (list, tuple)) and members else None


_UNIONS_TOO_DEEP = f"unions (anyOf/oneOf) nested deeper than {MAX_UNION_DEPTH} levels"


def _children(node: Mapping[str, Any], at: str) -> list[tuple[Any, str, bool]]:
    """Every subschema (a superset of what ``type_ok`` reads): ``(schema, where, is a union member)``."""
    out: list[tuple[Any, str, bool]] = []
    items = node.get("items")
    if isinstance(items, Mapping):
        out.append((items, f"{at}.items", False))
    props = node.get("properties")
    if isinstance(props, Mapping):
        out.extend((v, f"{at}.{k}", False) for k, v in props.items())
    for word in ("anyOf", "oneOf"):
        members = node.get(word)
        if isinstance(members, (list, tuple)):
            out.extend((m, f"{at}.{word}[{i}]", True) for i, m in enumerate(members))
    return out


def check_schema(schema: Any, where: str) -> None:
    """Check a parameter's schema before any value is judged against it.

    Raises a ``ValueError`` naming the place for a schema that contains itself, unions
    nested deeper than :data:`MAX_UNION_DEPTH`, ``items``/``properties`` nested deeper than
    any value can reach (more than :data:`~toolcall_f1.calls.MAX_DEPTH` levels below the
    parameters object, as a value's depth counts from the arguments object; a tool set must
    pickle), or over 100,000 subschemas (counted per path, as checking a value against unions
    walks paths); a schema that passes makes :func:`type_check` raise only for a value whose
    check would take over :data:`MAX_CHECK_STEPS` steps. Also refuses, at every node, the
    malformed keywords :func:`compile_tools` lists (SPEC §3). Warns (:class:`ToolCallWarning`)
    for an unknown type name (it is not checked).

    Examples
    --------
    >>> loop = {"type": "array"}
    >>> loop["items"] = loop
    >>> check_schema(loop, "tool 'f' parameter 'x'")
    Traceback (most recent call last):
    ...
    ValueError: tool 'f' parameter 'x': the schema contains itself (at x.items)
    """
    name = where.rsplit(" ", 1)[-1].strip("'")
    on_path: set[int] = set()
    # A parameter's schema is level 1, as its value is one level below the arguments object:
    # a node past MAX_DEPTH levels could only be reached by a value nested deeper than any can be.
    stack: list[tuple[Any, str, int, int, bool]] = [(schema, name, 0, 1, False)]
    visits = 0
    while stack:
        node, at, unions, levels, leaving = stack.pop()
        if leaving:
            on_path.discard(id(node))
            continue
        if type(node) is not dict and not isinstance(node, Mapping):  # (``type`` first: ABCs are slow)
            continue
        if id(node) in on_path:
            raise ValueError(f"{where}: the schema contains itself (at {at})")
        if unions >= MAX_UNION_DEPTH and _union(node) is not None:
            raise ValueError(f"{where}: {_UNIONS_TOO_DEEP} (at {at})")
        if levels > MAX_DEPTH:
            raise ValueError(f"{where}: items/properties nested deeper than {MAX_DEPTH} levels (at {at})")
        visits += 1  # a subschema shared by several parents counts once per path: checking a value walks paths
        if visits > _SCHEMA_NODES:
            raise ValueError(f"{where}: the schema has more than {_SCHEMA_NODES} subschemas")
        _check_node(node, where, at)
        declared = node.get("type")
        names: Sequence[Any] = declared if isinstance(declared, (list, tuple)) else [declared]
        for t in names:
            if isinstance(t, str) and t not in KNOWN_TYPES:
                warnings.warn(f"{where}: unknown type {t!r} at {at} (values are not checked against it)",
                              ToolCallWarning, stacklevel=5)
        on_path.add(id(node))
        stack.append((node, at, unions, levels, True))
        for child, child_at, is_member in _children(node, at)[::-1]:
            stack.append((child, child_at, unions + is_member, levels + (not is_member), False))


def type_ok(value: Any, schema: Any) -> bool:
    """Does ``value`` satisfy the schema's ``type`` (with ``items``/``properties``/unions)?

    Only ``type``, ``items``, ``properties``, ``anyOf``/``oneOf`` and type lists are read;
    BFCL's names are aliases (``dict``, ``float``, ``tuple``, ``any``). Undeclared types,
    unknown type names and undeclared object keys are not checked. The same rule as
    :func:`type_check`, which compiles a schema once for many values.

    Raises
    ------
    ValueError
        For unions nested deeper than :data:`MAX_UNION_DEPTH` (or a union containing itself).

    Examples
    --------
    >>> type_ok(10, {"type": "integer"}), type_ok(10.0, {"type": "integer"}), type_ok(True, {"type": "integer"})
    (True, False, False)
    >>> type_ok(2, {"type": "float"}), type_ok([1, "x"], {"type": "array", "items": {"type": "integer"}})
    (True, False)
    >>> type_ok({"a": 1}, {"type": "dict", "properties": {"a": {"type": "string"}}})
    False
    >>> type_ok(None, {"anyOf": [{"type": "string"}, {"type": "null"}]}), type_ok(1.5, {"type": ["string", "null"]})
    (True, False)
    """
    return type_check(schema)(value)


def type_check(schema: Any, where: str = "schema") -> Callable[[Any], bool]:
    """:func:`type_ok` for one schema, as a function of the value.

    Subschemas (items, properties, union members) are compiled when a value first reaches
    them (a schema may contain itself); the checks are small objects, so they pickle.
    Checking one value takes at most :data:`MAX_CHECK_STEPS` steps (an array's or object's
    entries, a union's members: each member checks the whole value, so a wide union times a
    large value could otherwise take minutes).

    Raises
    ------
    ValueError
        For unions nested deeper than :data:`MAX_UNION_DEPTH`, when a value reaches them.
    ToolCallParseError
        For a value whose check would take more than :data:`MAX_CHECK_STEPS` steps (naming
        ``where``): a metric counts such a prediction as unreadable, as it does one over 1 MB.

    Examples
    --------
    >>> type_check({"type": "int"})(3), type_check({"type": "integer"})(True)
    (True, False)
    >>> type_check({"type": "array", "items": {"type": "string"}})(["a", 1])
    False
    >>> deep = {"type": "integer"}
    >>> for _ in range(MAX_UNION_DEPTH + 1):
    ...     deep = {"anyOf": [deep]}
    >>> type_check(deep)(1)
    Traceback (most recent call last):
    ...
    ValueError: schema: unions (anyOf/oneOf) nested deeper than 64 levels
    """
    check = _compile(schema, 0)
    return check if isinstance(check, (_IsA, _Anything)) else _Budgeted(check, where)


#: The most steps (entries of arrays and objects, members of unions) one value's type check takes.
MAX_CHECK_STEPS = 4_000_000


class _OverBudget(Exception):
    """A check ran out of steps: each compound check spends one per entry (an array's items, an
    object's keys, a union's members) from the one-item list ``left`` (:class:`_Budgeted` names
    the schema)."""


def _spend(left: list[int], steps: int) -> None:
    """Take ``steps`` from the one-item list ``left``; none left is :class:`_OverBudget`."""
    left[0] -= steps
    if left[0] < 0:
        raise _OverBudget


def _compile(schema: Any, unions: int) -> _Check:
    """The check of one schema node, reached through ``unions`` nested unions."""
    if type(schema) is not dict and not isinstance(schema, Mapping):  # (``type`` first: ABCs are slow)
        return _anything
    declared = schema.get("type")
    if schema.get("nullable") is True and declared is not None:  # OpenAPI's (Gemini's) way to allow null
        declared = [*(declared if isinstance(declared, (list, tuple)) else [declared]), "null"]
    if type(declared) is str and "anyOf" not in schema and "oneOf" not in schema:
        return _type_name_check(declared, schema, unions)  # the commonest schema, in short
    of_type: _Check
    if isinstance(declared, (list, tuple)):
        of_type = _Node(None, [_type_name_check(name, schema, unions) for name in declared])
    else:
        of_type = _type_name_check(declared, schema, unions)
    members = _union(schema)
    if members is None:
        return of_type
    if unions >= MAX_UNION_DEPTH:
        raise ValueError(f"schema: {_UNIONS_TOO_DEEP}")
    return _Node([_Lazy(member, unions + 1) for member in members], [of_type])


def _type_name_check(name: Any, schema: Mapping[str, Any], unions: int) -> _Check:
    """The check of one type name of ``schema`` (an array's with its items, an object's with its properties)."""
    if not isinstance(name, str):
        return _anything  # no type declared, or not a name
    name = TYPE_ALIASES.get(name, name)
    if name == "array":
        items = schema.get("items")
        if isinstance(items, Mapping):
            return _ArrayCheck(_Lazy(items, unions))
    elif name == "object":
        props = schema.get("properties")
        if isinstance(props, Mapping):
            return _ObjectCheck({key: _Lazy(prop, unions) for key, prop in props.items()})
    return _TYPE_CHECKS.get(name, _anything)  # a type name we do not know is not checked


class _Check:
    """A compiled check: ``ok(value, left)`` spends steps from the one-item list ``left``."""

    __slots__ = ()

    def ok(self, value: Any, left: list[int]) -> bool:
        raise NotImplementedError


class _Budgeted:
    """The check :func:`type_check` returns for a schema with subschemas: each value checked
    within :data:`MAX_CHECK_STEPS` steps, else a parse error naming ``where``."""

    __slots__ = ("check", "where")

    def __init__(self, check: _Check, where: str) -> None:
        self.check = check
        self.where = where

    def __call__(self, value: Any) -> bool:
        try:
            return self.check.ok(value, [MAX_CHECK_STEPS])
        except _OverBudget:  # the value's fault as much as the schema's: a prediction's is counted
            raise ToolCallParseError(f"{self.where}: checking one value's type takes over {MAX_CHECK_STEPS:,} "
                                     "steps (anyOf/oneOf unions too wide for a value this large)",
                                     format="schema") from None


class _Anything(_Check):
    """No type declared (or one not known): every value passes."""

    __slots__ = ()

    def __call__(self, value: Any) -> bool:
        return True

    def ok(self, value: Any, left: list[int]) -> bool:
        return True


_anything = _Anything()


class _IsA(_Check):
    """An instance of one of ``kinds``, where a bool is not an integer or a number."""

    __slots__ = ("kinds",)

    def __init__(self, *kinds: type) -> None:
        self.kinds = kinds

    def __call__(self, value: Any) -> bool:
        return isinstance(value, self.kinds) and (type(value) is not bool or bool in self.kinds)

    def ok(self, value: Any, left: list[int]) -> bool:
        return self(value)


_TYPE_CHECKS: dict[str, _Check] = {
    "string": _IsA(str),
    "integer": _IsA(int),
    "number": _IsA(int, float),
    "boolean": _IsA(bool),
    "null": _IsA(type(None)),
    "array": _IsA(list, tuple),
    "object": _IsA(Mapping),
    "any": _anything,
}


class _Lazy(_Check):
    """The check of a subschema, compiled when a value first reaches it."""

    __slots__ = ("schema", "unions", "check")

    def __init__(self, schema: Any, unions: int) -> None:
        self.schema = schema
        self.unions = unions
        self.check: _Check | None = None

    def ok(self, value: Any, left: list[int]) -> bool:
        if self.check is None:
            self.check = _compile(self.schema, self.unions)
        return self.check.ok(value, left)

    def __reduce__(self) -> tuple[Any, ...]:  # the schema, not its compiled chain (far deeper)
        return _Lazy, (self.schema, self.unions)


class _Node(_Check):
    """A schema with a union or a type list: the value passes one of the union's ``members``
    (when there is a union) and one of the ``types``."""

    __slots__ = ("members", "types")

    def __init__(self, members: list[_Lazy] | None, types: list[_Check]) -> None:
        self.members = members
        self.types = types

    def ok(self, value: Any, left: list[int]) -> bool:
        _spend(left, len(self.types) + (0 if self.members is None else len(self.members)))
        if self.members is not None and not any(member.ok(value, left) for member in self.members):
            return False
        return any(check.ok(value, left) for check in self.types)


class _ArrayCheck(_Check):
    """A list or tuple whose every item passes ``item_ok``."""

    __slots__ = ("item_ok",)

    def __init__(self, item_ok: _Check) -> None:
        self.item_ok = item_ok

    def ok(self, value: Any, left: list[int]) -> bool:
        if not isinstance(value, (list, tuple)):
            return False
        _spend(left, len(value))
        item_ok = self.item_ok.ok
        for item in value:
            if not item_ok(item, left):
                return False
        return True


class _ObjectCheck(_Check):
    """A mapping whose declared keys pass their own checks (other keys are not checked)."""

    __slots__ = ("prop_ok",)

    def __init__(self, prop_ok: dict[str, _Check]) -> None:
        self.prop_ok = prop_ok

    def ok(self, value: Any, left: list[int]) -> bool:
        if type(value) is not dict and not isinstance(value, Mapping):  # (``type`` first: ABCs are slow)
            return False
        _spend(left, len(value))
        for key, item in value.items():
            check = self.prop_ok.get(key)
            if check is not None and not check.ok(item, left):
                return False
        return True
