"""A small thread-safe least-recently-used map, for values that never change once computed (kept per process)."""

from __future__ import annotations

import threading
import weakref
from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import ClassVar, Generic, TypeVar

Value = TypeVar("Value")


class LruCache(Generic[Value]):
    """At most ``maxsize`` entries (never None); ``get_or_build`` computes a missing value outside the lock (two
    threads may both build one on a miss; the values are equal, the last one stays)."""

    _all: ClassVar[weakref.WeakSet[LruCache]] = weakref.WeakSet()

    def __init__(self, maxsize: int):
        self.maxsize = maxsize
        self._entries: OrderedDict[Hashable, Value] = OrderedDict()
        self._lock = threading.Lock()
        LruCache._all.add(self)

    @classmethod
    def clear_all(cls) -> None:
        """Empty every cache of this process (the test suite does between tests, whose database is rolled back
        to an earlier state: something a running deployment never sees)."""
        for cache in list(cls._all):
            cache.clear()

    def get_or_build(
        self, key: Hashable, build: Callable[[], Value], *, keep: Callable[[], bool] | None = None
    ) -> Value:
        """The value of ``key``, built on a miss and kept unless ``keep()`` (asked after building) says no: for a
        value whose key is read from the database, which may have changed while the value was built."""
        value = self.get(key)
        if value is None:
            value = build()
            if keep is None or keep():
                self.put(key, value)
        return value

    def get(self, key: Hashable) -> Value | None:
        with self._lock:
            if key not in self._entries:
                return None
            self._entries.move_to_end(key)
            return self._entries[key]

    def put(self, key: Hashable, value: Value) -> None:
        with self._lock:
            self._entries[key] = value
            self._entries.move_to_end(key)
            while len(self._entries) > self.maxsize:
                self._entries.popitem(last=False)

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()

    def __len__(self) -> int:
        return len(self._entries)
