"""The one cache policy: a bounded memo owned by a metric (never a module global).

A :class:`Memo` maps a content key (:func:`~toolcall_f1.plain.content_key`) to what was read
or compiled from that content; when full it is emptied and starts over. Each operation is one dict operation, so threads sharing a
metric cannot break it, and metrics in different threads share nothing.
"""

from __future__ import annotations

from typing import Any

__all__ = ["Memo"]


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
