"""Model-output text → calls: the public face of the readers (SPEC §2).

One reader per format, in one registry (:data:`~toolcall_f1.reading.REGISTRY`): the plain
formats (Python call syntax, JSON, OpenAI, Anthropic, BFCL, ``"auto"``) are read by
:mod:`toolcall_f1.reading`, and so are the model families' markers (its rows
:data:`~toolcall_f1.reading.FAMILIES`). :data:`FORMATS` names every format.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from .calls import Call
from .reading import (
    REGISTRY,
    BlockReader,
    Context,
    Family,
    Reader,
    find_marker,
    parse_text,
    prepare_text,
    read_any,
    reader_for,
)
from .schema import compile_tools, merge_tools
from .values import resolve_name_canonicalizer

__all__ = [
    "parse_calls", "FORMATS", "Context", "parse_text", "read_any", "reader_for", "find_marker", "prepare_text",
    "register_format", "unregister_format",
]  # fmt: skip

#: Every format's reader by name (aliases included), in registration order: a read-only view
#: of the registry; extend it with :func:`register_format`.
FORMATS: Mapping[str, Reader] = REGISTRY.formats


def register_format(
    name: str,
    reader: Reader,
    *,
    aliases: Sequence[str] = (),
    markers: Sequence[Any] = (),
    blocks: BlockReader | None = None,
) -> Reader:
    """Add a text reader to the registry, under ``name`` and its ``aliases``: one
    :class:`~toolcall_f1.reading.Family` row.

    Parameters
    ----------
    name
        The format's name, as given to ``parse_calls(format=...)`` / ``prediction_format``.
    reader
        ``reader(text, context) -> list[Call]``; raises :class:`ToolCallParseError`.
    aliases
        Other names for the same reader.
    markers
        Strings (literal) or compiled patterns that announce this family's calls; ``"auto"``
        finds the earliest marker of any family in one scan and hands the text to its reader.
    blocks
        ``blocks(text, context) -> [(start, end, calls), ...] | None``: the stretches of text
        the family's calls stand in. With it, ``"auto"`` also reads the text around those
        blocks (calls in other formats, other families' markers), in order; without it, the
        text after the family's first marker is left to ``reader`` alone.

    Returns
    -------
    Reader
        ``reader`` itself (so this can wrap a definition).

    Raises
    ------
    ValueError
        When the name is empty.

    Examples
    --------
    >>> def read_shout(text, ctx):
    ...     return [Call(text.split("!CALL ", 1)[1].strip(), {})]
    >>> _ = register_format("shout_demo", read_shout, markers=["!CALL "])
    >>> parse_calls("ok !CALL ping")
    [ping()]
    >>> unregister_format("shout_demo")
    >>> register_format("", read_shout)
    Traceback (most recent call last):
    ...
    ValueError: register_format: a format needs a non-empty name
    """
    REGISTRY.add(Family(name, blocks=blocks, reader=reader, aliases=tuple(aliases), markers=tuple(markers)))
    return reader


def unregister_format(name: str) -> None:
    """Remove a format registered with :func:`register_format`: its name, its aliases and
    its markers (other names of the same reader, registered separately, stay).

    Examples
    --------
    >>> unregister_format("no_such_format")
    """
    REGISTRY.remove(name)


def parse_calls(
    output: Any,
    format: Any = "auto",
    tools: Sequence[Mapping[str, Any]] | None = None,
    *,
    name_canonicalizer: str | Callable[[str], str] | None = None,
) -> list[Call]:
    """Read the tool calls in a model's output.

    Parameters
    ----------
    output
        Model-output text, or any structured call shape (a message dict, a list of calls).
    format
        ``"auto"`` (detect), or a name in :data:`FORMATS` (``"python"``, ``"json"``,
        ``"openai"``, ``"hermes"``, ``"harmony"``, ``"qwen3_coder"``, ... — the README's table
        lists them all, with the text each reads); or the model's own
        response template (a dict, or a tokenizer carrying ``.response_template``), read with
        transformers' parser (needs transformers >= 5.13). Applies to text; structured input
        is read the same way in every mode.
    tools
        Tool schemas; needed to name positional arguments.
    name_canonicalizer
        How tool names are looked up in ``tools`` (``"exact"``, ``"underscore"``, callable).

    Returns
    -------
    list[Call]
        The calls, in the order written. Prose without a call gives ``[]``.

    Raises
    ------
    ToolCallParseError
        When the output attempts a call that cannot be read (broken JSON, unbalanced brackets,
        arithmetic, a list of strings, over 1 MB or 64 levels deep).
    ValueError
        For an unknown format.

    Examples
    --------
    >>> parse_calls("[get_weather(city='Paris')]")
    [get_weather(city='Paris')]
    >>> parse_calls('<tool_call>{"name": "f", "arguments": {"x": 1}}</tool_call>')
    [f(x=1)]
    >>> tools = [{"name": "f", "parameters": {"type": "dict", "properties": {"x": {"type": "integer"}}}}]
    >>> parse_calls("f(5)", tools=tools)
    [f(x=5)]
    >>> parse_calls("[f(x=__import__('os').system('ls'))]")
    Traceback (most recent call last):
    ...
    toolcall_f1.calls.ToolCallParseError: python: a call used as a value is not a literal value (in "__import__('os').system('ls')")
    """
    name_fn = resolve_name_canonicalizer(name_canonicalizer)
    ctx = Context.of(compile_tools(merge_tools(tools), {}, name_fn)) if tools else Context()
    return read_any(output, format, ctx)
