"""The one cache policy: a bounded memo owned by a metric (never a module global).

A :class:`Memo` maps a content key to what was read or compiled from that content; when full
it is emptied and starts over. Each operation is one dict operation, so threads sharing a
metric cannot break it, and metrics in different threads share nothing.
"""

from __future__ import annotations

import marshal
from typing import Any

__all__ = ["Memo", "content_key"]


def content_key(value: Any, max_bytes: int | None = None) -> bytes | None:
    """The ``marshal`` bytes of a value: two values of plain data (exact dict, list, tuple,
    str, int, float, bool, None) that could read differently never share them (``1``, ``1.0``
    and ``True`` differ, as do tuples and lists, and key orders), and equal bytes load back
    as equal data. Written in C, several times faster than ``json.dumps``. Format version 2:
    later versions mark shared objects and interned strings, so equal data could get
    different bytes depending on where it came from.

    None (not remembered) for what marshal does not write, data nested too deeply, or bytes
    over ``max_bytes``. marshal writes buffers (numpy arrays) as their raw bytes: key only
    plain data by it.

    Examples
    --------
    >>> content_key([{"x": 1}]) == content_key([{"x": 1.0}]), content_key([{"x": 1}]) == content_key([{"x": 1}])
    (False, True)
    >>> import json
    >>> shared = "query"; content_key({shared: [shared]}) == content_key(json.loads('{"query": ["query"]}'))
    True
    >>> content_key({1, object()}) is None, content_key("x" * 100, max_bytes=10) is None
    (True, True)
    """
    try:
        key = marshal.dumps(value, 2)
    except ValueError:  # an object marshal does not write, or nested too deep for it
        return None
    return key if max_bytes is None or len(key) <= max_bytes else None


class Memo:
    """A dict of at most ``size`` entries, emptied when full.

    Examples
    --------
    >>> memo = Memo(2)
    >>> memo.put("a", 1); memo.put("b", 2); memo.get("a")
    1
    >>> memo.put("c", 3); memo.get("a") is None, memo.get("c")   # full: emptied first
    (True, 3)
    """

    __slots__ = ("_data", "size")

    def __init__(self, size: int) -> None:
        self.size = size
        self._data: dict[Any, Any] = {}

    def get(self, key: Any) -> Any:
        """The value remembered for ``key``, or None."""
        return self._data.get(key)

    def put(self, key: Any, value: Any) -> None:
        """Remember ``value`` for ``key`` (emptying the memo first when it is full)."""
        if len(self._data) >= self.size:
            self._data.clear()
        self._data[key] = value

    def __len__(self) -> int:
        return len(self._data)
