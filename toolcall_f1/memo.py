"""The one cache policy: a bounded memo owned by a metric (never a module global).

A :class:`Memo` maps a content key to what was read or compiled from that content; when full
it is emptied and starts over. Each operation is one dict operation, so threads sharing a
metric cannot break it, and metrics in different threads share nothing.
"""

from __future__ import annotations

import io
import pickle
from typing import Any

__all__ = ["Memo", "content_key"]


class _PlainPickler(pickle.Pickler):
    """Plain data only: the C pickler writes exact dict, list, tuple, str, int, float, bool,
    None (bytes, sets) itself and asks ``reducer_override`` about any other object: refused."""

    def reducer_override(self, obj: Any) -> Any:
        raise pickle.PicklingError(f"not plain data: {type(obj).__name__}")


def content_key(value: Any, max_bytes: int | None = None) -> bytes | None:
    """The ``pickle`` bytes of plain data (exact dict, list, tuple, str, int, float, bool,
    None), from one C pass that also checks it is plain data: two values that could read
    differently never share them (``1``, ``1.0`` and ``True`` differ, as do tuples and lists,
    and key orders), and equal bytes load back as equal data (``pickle.loads(key)`` is a
    private copy of the value: what a metric compiles and keeps is built from it).

    Not ``marshal``: its newer formats mark objects by reference count (the same object gets
    other bytes once something else holds it), its older ones copy a shared object for each
    parent (40 doubling unions: 2**40 copies). pickle writes a shared object once; the same
    data shared differently (built in code, not read from JSON) may get other bytes: read again.

    None (not remembered) for anything else (a numpy value, a mapping: what it pickles as need
    not be what it reads as), data nested too deeply, or bytes over ``max_bytes``.

    Examples
    --------
    >>> content_key([{"x": 1}]) == content_key([{"x": 1.0}]), content_key([{"x": 1}]) == content_key([{"x": 1}])
    (False, True)
    >>> content_key([lambda: 1]) is None, content_key("x" * 100, max_bytes=10) is None
    (True, True)
    """
    out = io.BytesIO()
    try:
        _PlainPickler(out, protocol=5).dump(value)
    except (pickle.PicklingError, RecursionError):  # not plain data, or too deep
        return None
    key = out.getvalue()
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
