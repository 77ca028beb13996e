"""The model's own response template as a prediction format (transformers' ``parse_response``).

transformers (≥ 5.13) reads a model's raw output back into a chat message with a declarative
*response template*: a dict a tokenizer carries as ``tokenizer.response_template`` (vLLM
shares the format). Given as ``prediction_format`` (or ``parse_calls(format=...)``), such a
template makes a :class:`TemplateReader` (the registry's reader for a format that is not a
name, :meth:`toolcall_f1.reading.Registry.reader`, checks the text's limits and hands it to
one): the text goes through transformers' own parser and
the ``tool_calls`` of the message it returns become the calls, read by the same structured
coercion as any OpenAI-style tool call.

transformers is imported only when a template is used, so ``import toolcall_f1`` stays light;
without it (or with a version older than :data:`MIN_TRANSFORMERS`) an :class:`ImportError`
says what to install.

A template reads ``tool_calls`` only where the template puts them; what it does not mark as
a call is no call. As a prediction format, its reading is cross-checked against ``"auto"`` on
the same text (:mod:`toolcall_f1.reading`; SPEC §2): where they differ, ``"auto"``'s calls are
used unless it finds none or cannot read the text, with a warning. Within the reader, these
rules keep a template's reading from becoming a silent misread:

- a template without a ``tool_calls`` field is refused (it could only ever read zero calls);
- an output that ends inside a tool-call region whose template gives a closing delimiter is a
  parse error (a generation cut at max tokens), unless the region's content is JSON or a Python
  call list — self-delimiting content that only parses when complete. That exception is for
  models whose closing delimiter is their stop token (gpt-oss ``<|call|>``), which inference
  servers drop from the text;
- a key written twice with different values in a tool-call region is a parse error, as in
  every other reader (:func:`~toolcall_f1.calls.put_once`), where transformers' parsers keep
  the last value: the region's text is read again with the strict JSON decoder (``json``
  content) or its tag pattern (``xml-inline`` content, its values by the template's value
  parser). JSON in a dialect transformers rewrites first (``unquoted_keys``,
  ``string_delims``: Gemma 4's template) and ``kv-lines`` content are not read again: for
  Gemma 4, the ``"gemma4"`` format reads the same text with the rule.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import warnings
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from .calls import Call, ToolCallWarning, coerce_structured
from .values import JSON_DECODER, DuplicateKeyError, ToolCallParseError, put_once

__all__ = ["MIN_TRANSFORMERS", "TemplateReader", "TemplateWarning", "located", "resolve_format", "template_reader"]

#: The oldest transformers with ``transformers.utils.chat_parsing`` (response templates).
MIN_TRANSFORMERS = "5.13"

#: The message key (and template field) that holds the tool calls.
TOOL_FIELD = "tool_calls"

# transformers' parser scans the rest of the text for every delimiter at each region, so one
# long feed costs (regions x length); fed in pieces, each scan stops at the piece's end. A feed
# that produced no event (a delimiter held back, or text nobody keeps) doubles the next piece,
# so a delimiter that stays undecided is not re-scanned once per small piece.
_PIECE = 1024

# Errors transformers' parser raises on text a template cannot read: bad JSON (ValueError),
# a transform naming a missing capture (KeyError), content of the wrong shape (TypeError,
# IndexError), JSON nested past the interpreter's limit (RecursionError).
_PARSE_ERRORS = (ValueError, KeyError, TypeError, IndexError, RecursionError)

# Content parsers that fail on a cut-off region, so a region left open at the end is complete.
_SELF_DELIMITING = ("json", "python-call-list")


class TemplateWarning(ToolCallWarning):
    """A response template's reading of a text and ``"auto"``'s differ (the cross-check of
    SPEC §2); the metric names the example it is about (:func:`located`)."""


@contextlib.contextmanager
def located(where: str) -> Iterator[None]:
    """Within it, a :class:`TemplateWarning` is issued with ``where`` (``predictions[3]``: the
    example, by its index in the corpus) before its text; other warnings pass as they are.
    The metric reads a prediction under a template within it.

    Examples
    --------
    >>> with warnings.catch_warnings(record=True) as seen:
    ...     warnings.simplefilter("always")
    ...     with located("predictions[3]"):
    ...         warnings.warn("tmpl:0123abcd: the response template read no call", TemplateWarning)
    >>> str(seen[0].message)
    'predictions[3]: tmpl:0123abcd: the response template read no call'
    """
    with warnings.catch_warnings(record=True) as seen:
        yield
    for w in seen:
        message = TemplateWarning(f"{where}: {w.message}") if isinstance(w.message, TemplateWarning) else w.message
        warnings.warn_explicit(message, w.category, w.filename, w.lineno, source=w.source)


def _transformers_parser() -> tuple[Any, Any, str]:
    """``(ResponseParser, load_response_template, version)`` from transformers, or a clear error."""
    need = f"transformers>={MIN_TRANSFORMERS}"
    try:
        import transformers
    except ImportError:
        raise ImportError(
            f"prediction_format: reading a response template needs {need} "
            f"(pip install '{need}'); transformers is not installed"
        ) from None
    version = str(getattr(transformers, "__version__", "unknown"))
    try:
        from transformers.utils.chat_parsing import ResponseParser
        from transformers.utils.chat_parsing.response_templates import load_response_template
    except ImportError:
        raise ImportError(
            f"prediction_format: reading a response template needs {need} "
            f"(pip install -U '{need}'); transformers {version} has no response-template parser"
        ) from None
    return ResponseParser, load_response_template, version


def _template_of(value: Any) -> Mapping[str, Any]:
    """The template dict in ``value``: the dict itself or its ``.response_template``."""
    if isinstance(value, Mapping):
        return value
    if hasattr(value, "response_template"):
        template = value.response_template
        if template is None:
            raise ValueError(
                f"prediction_format: {type(value).__name__} has response_template=None; "
                "give a format name or a response template dict"
            )
        if not isinstance(template, Mapping):
            raise ValueError(
                f"prediction_format: {type(value).__name__}.response_template must be a dict, "
                f"got {type(template).__name__}"
            )
        return template
    raise ValueError(
        "prediction_format: expected a format name, a response template dict or an object "
        f"with .response_template (a tokenizer), got {type(value).__name__}"
    )


def _digest(template: Mapping[str, Any]) -> str:
    try:
        text = json.dumps(template, sort_keys=True, ensure_ascii=True, separators=(",", ":"))
    except (TypeError, ValueError, RecursionError) as err:
        raise ValueError(f"prediction_format: a response template must be JSON data: {err}") from None
    return hashlib.sha256(text.encode("ascii")).hexdigest()[:8]


class TemplateReader:
    """Read model output with a transformers response template; a prediction format.

    Called like every reader, ``reader(text, context)``, it returns the calls of the
    message's ``tool_calls``. ``str(reader)`` is its name in signatures and errors:
    ``tmpl:`` and 8 hex digits of a SHA-256 of the template's JSON (keys sorted), so the
    same template always gets the same name.

    Parameters
    ----------
    template
        A response template dict (``tokenizer.response_template``), or an object carrying
        one as ``.response_template``.

    Raises
    ------
    ImportError
        When transformers (>= :data:`MIN_TRANSFORMERS`) is not installed.
    ValueError
        For a template transformers refuses, one without a ``tool_calls`` field, or a value
        that is no template.

    Examples
    --------
    >>> TemplateReader({"start_anchor": "<|assistant|>", "fields": {"content": {}}})
    Traceback (most recent call last):
    ...
    ValueError: prediction_format: the response template has no 'tool_calls' field (fields: 'content'); it cannot read a tool call
    >>> TemplateReader(object())
    Traceback (most recent call last):
    ...
    ValueError: prediction_format: expected a format name, a response template dict or an object with .response_template (a tokenizer), got object
    """

    __slots__ = ("_check_open", "_compiled", "_parser", "_tool", "name", "template")

    def __init__(self, template: Any) -> None:
        spec = _template_of(template)
        fields = spec.get("fields")
        if not isinstance(fields, Mapping) or not isinstance(fields.get(TOOL_FIELD), Mapping):
            names = ", ".join(repr(str(k)) for k in fields) if isinstance(fields, Mapping) else "none"
            raise ValueError(
                f"prediction_format: the response template has no {TOOL_FIELD!r} field "
                f"(fields: {names}); it cannot read a tool call"
            )
        self.name = "tmpl:" + _digest(spec)
        self.template = spec
        self._parser, load, _ = _transformers_parser()
        try:
            self._compiled = load(dict(spec))
        except (ValueError, KeyError, TypeError) as err:
            raise ValueError(f"prediction_format: transformers refused the response template: {err}") from None
        tool = self._tool = fields[TOOL_FIELD]
        closes = "close" in tool or "close_pattern" in tool
        opens = "open" in tool or "open_pattern" in tool
        self._check_open = opens and closes and tool.get("content", "text") not in _SELF_DELIMITING

    @property
    def response_template(self) -> Mapping[str, Any]:
        """The template (so a reader is itself an object carrying one)."""
        return self.template

    def __str__(self) -> str:
        return self.name

    def __repr__(self) -> str:
        return f"TemplateReader({self.name})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, TemplateReader) and other.name == self.name

    def __hash__(self) -> int:
        return hash(self.name)

    def message(self, text: str) -> dict[str, Any]:
        """The message transformers reads from ``text`` (the model's output, prompt removed).

        The text's size and nesting limits are checked where it enters, before this reader
        sees it (``parse_calls``, the metric: the registry's reader for a template).

        Raises
        ------
        ToolCallParseError
            When transformers cannot read the text with this template, or it ends inside a tool
            call (see the module notes).
        """
        parser = self._parser(self._compiled, prefix="")
        regions = _ToolRegions()
        try:
            self._feed(parser, text, regions)
            if regions.open and self._check_open:
                # Still inside a call at the end; a delimiter ending exactly there may only be
                # held back, undecided: one more character settles it without changing calls.
                regions.see(parser.feed("\x00"))
                if regions.open:
                    raise ToolCallParseError(
                        f"the output ends inside a {TOOL_FIELD!r} region (no closing delimiter; "
                        "cut off at max tokens?)",
                        format=self.name,
                        snippet=text[-200:],
                    )
            message, final = parser.finalize()
            regions.see(final)
            for raw in regions.closed:
                _check_repeated_keys(raw, self._tool, self.name)
        except _PARSE_ERRORS as err:
            if isinstance(err, ToolCallParseError):
                raise
            reason = str(err).splitlines()[0] if str(err) else type(err).__name__
            raise ToolCallParseError(f"transformers could not read it: {reason}", format=self.name,
                                     snippet=text[:200]) from None
        return message

    @staticmethod
    def _feed(parser: Any, text: str, regions: _ToolRegions) -> None:
        """Feed ``text`` in pieces, ``regions`` following the tool-call regions."""
        pos, piece = 0, _PIECE
        while pos < len(text):
            events = parser.feed(text[pos : pos + piece])
            pos += piece
            piece = _PIECE if events else piece * 2
            regions.see(events)

    def __call__(self, text: str, ctx: Any = None) -> list[Call]:
        """The calls in ``text``: the message's ``tool_calls``, coerced like OpenAI tool calls.

        Raises
        ------
        ToolCallParseError
            As :meth:`message`, and for ``tool_calls`` that are not calls.
        """
        return self.calls_of(self.message(text))

    def calls_of(self, message: Mapping[str, Any]) -> list[Call]:
        """The calls of a message this reader returned: its ``tool_calls``, coerced.

        Raises
        ------
        ToolCallParseError
            For ``tool_calls`` that are not calls.
        """
        calls = message.get(TOOL_FIELD)
        if calls is None or calls == []:
            return []
        return coerce_structured(calls, fmt=self.name)


class _ToolRegions:
    """transformers' events for the tool-call field, followed: whether a region is open, and
    the raw text of each region closed (what its content parser read)."""

    __slots__ = ("closed", "open", "raw")

    def __init__(self) -> None:
        self.open = False
        self.raw: list[str] = []
        self.closed: list[str] = []

    def see(self, events: Sequence[Mapping[str, Any]]) -> None:
        for event in events:
            if event.get("field") != TOOL_FIELD:
                continue
            kind = event.get("type")
            if kind == "region_open":
                self.open, self.raw = True, []
            elif kind == "region_chunk":
                self.raw.append(str(event.get("text", "")))
            elif kind == "region_close":
                self.open = False
                self.closed.append("".join(self.raw))
                self.raw = []


def _check_repeated_keys(raw: str, tool: Mapping[str, Any], name: str) -> None:
    """Raise when a tool-call region's text ``raw`` writes a key twice with different values
    (transformers kept the last): JSON content read again with the strict decoder, ``xml-inline``
    content by its tag pattern and value parser (see the module notes for what is not read)."""
    content, args = tool.get("content", "text"), tool.get("content_args") or {}
    try:
        if content == "json" and not _rewritten_json(args):
            _strict_json(raw)
        elif content == "xml-inline" and not args.get("merge_duplicates") and args.get("tag_pattern"):
            _xml_inline_keys(raw, args["tag_pattern"], args.get("value_parser"))
    except DuplicateKeyError as err:
        raise ToolCallParseError(f"{err.reason} (transformers keeps the last)", format=name, snippet=raw[:200]) from None


def _rewritten_json(args: Mapping[str, Any]) -> bool:
    """Is JSON read with these parser ``args`` in a dialect transformers rewrites before decoding
    (``unquoted_keys``, ``string_delims``: Gemma 4's)? Such text is not read again here."""
    return bool(args.get("unquoted_keys") or args.get("string_delims"))


def _strict_json(raw: str) -> None:
    """Decode ``raw`` with the strict decoder for its one rule (a key given two values); text
    that is not JSON here was read by transformers' own rules, not this one."""
    try:
        JSON_DECODER.decode(raw.strip())
    except DuplicateKeyError:
        raise
    except (ValueError, RecursionError):
        pass


def _xml_inline_keys(raw: str, pattern: str, value_parser: Any) -> None:
    """The ``key``/``value`` pairs transformers' ``xml-inline`` parser reads from ``raw`` (the
    same pattern and flags), each key once by :func:`put_once`'s rule."""
    import regex  # transformers' own regular expressions (a dependency of it)
    from transformers.utils.chat_parsing.content_parsers import parse_content

    json_values = isinstance(value_parser, Mapping) and value_parser.get("name") == "json" and not _rewritten_json(
        value_parser.get("args") or {})
    seen: dict[str, Any] = {}
    for m in regex.finditer(pattern, raw, flags=regex.DOTALL):
        key, text = m.groupdict().get("key"), m.groupdict().get("value") or ""
        if key is None:
            continue  # transformers refuses such a pattern itself
        if json_values:
            _strict_json(text)
        value = text if not isinstance(value_parser, Mapping) else parse_content(
            text, value_parser.get("name", "text"), value_parser.get("args") or {})
        put_once(seen, key, value, "xml-inline", "parameter")


def template_reader(value: Any) -> TemplateReader:
    """A :class:`TemplateReader` for ``value`` (itself when it is one already)."""
    return value if isinstance(value, TemplateReader) else TemplateReader(value)


def resolve_format(value: Any, names: Sequence[str], what: str) -> str | TemplateReader:
    """A format setting checked: a name among ``names``, or a response template's reader.

    Raises
    ------
    ValueError
        For an unknown name, or a value that is no usable template.
    ImportError
        For a template without transformers (>= :data:`MIN_TRANSFORMERS`).

    Examples
    --------
    >>> resolve_format("auto", ("auto", "json"), "prediction_format")
    'auto'
    >>> resolve_format("jsno", ("auto", "json"), "prediction_format")
    Traceback (most recent call last):
    ...
    ValueError: prediction_format: unknown value 'jsno'; expected one of 'auto', 'json', or a response template
    """
    if isinstance(value, str):
        if value not in names:
            raise ValueError(
                f"{what}: unknown value {value!r}; expected one of "
                + ", ".join(repr(n) for n in names) + ", or a response template"
            )
        return value
    return template_reader(value)
