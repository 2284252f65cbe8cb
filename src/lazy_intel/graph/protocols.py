"""What the language's object protocols give: iterating a value, entering it as a context manager,
subscripting it. A mixin of :class:`lazy_intel.graph.evaluate.Evaluator`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from lazy_intel.graph.traits import traits_of
from lazy_intel.graph.values import Value

if TYPE_CHECKING:
    from lazy_intel.graph.program import Program


class ProtocolMixin:
    p: Program

    if TYPE_CHECKING:  # provided by the evaluator

        def read(self, key: tuple[Any, ...]) -> Any: ...
        def iteration(self, value: Value) -> list[tuple[int, set[Value]]]: ...
        def member(self, value: Value, name: str) -> list[tuple[Value, int]]: ...
        def returns(self, node_id: int) -> set[Value]: ...
        def is_class(self, value: Value) -> bool: ...
        def class_subscripted(self, class_id: int) -> Value | None: ...
        def _as_receivers(
            self, method: Value, receivers: frozenset[int], results: set[Value]
        ) -> set[Value]: ...

    def elements(self, values: set[Value]) -> set[Value]:
        """What iterating ``values`` gives: a container's elements; for an instance, what its iteration
        protocol returns (an ``__iter__`` that is a generator or returns a container: its elements)."""
        out: set[Value] = set()
        for value in values:
            if value[0] == "cont":
                out |= value[2] if len(value) > 2 else self.read(("elt", value[1]))
            elif value[0] == "inst":
                for _, produced in self.iteration(value):
                    containers = {v for v in produced if v[0] == "cont"}
                    out |= (produced - containers) | self.elements(containers)
        return out

    def entered(self, values: set[Value]) -> set[Value]:
        """What ``with cm as x`` binds: for an instance of a class with a context-manager entry method
        (Python's ``__enter__``, else ``__aenter__``), what that method returns — ``self`` for most,
        which is the instance itself, also when the method is inherited (a ``TemporaryUploadedFile``
        entered through ``File.__enter__`` stays one); any other value (one from outside the
        project, ``open(…)``) as it is."""
        out: set[Value] = set()
        for value in values:
            got: set[Value] = set()
            if value[0] == "inst":
                for method in ("__enter__", "__aenter__"):
                    for found, _ in self.member(value, method):
                        if found[0] in ("def", "bm"):  # read against the instance entered
                            got |= self._as_receivers(found, frozenset({value[1]}), self.returns(found[1]))
                    if got:
                        break
            out |= got or {value}
        return out

    def subscripted(self, values: set[Value]) -> set[Value]:
        """``obj[key]``: for an instance of a class with a subscript method (Python's ``__getitem__``),
        what that method returns; else (or when it returns nothing known) the elements; a class
        subscripted, :meth:`class_subscripted`."""
        out: set[Value] = set()
        rest: set[Value] = set()
        for value in values:
            got: set[Value] = set()
            if self.is_class(value) and (item := self.class_subscripted(value[1])) is not None:
                out.add(item)
                continue
            entry = self.p.symbol(value[1]) if value[0] == "inst" else None
            method = traits_of(entry[0].lang).subscript if entry is not None else None
            if method:
                for found, _ in self.member(value, method):
                    if found[0] in ("def", "bm"):
                        got |= self.returns(found[1])
            if got:
                out |= got
            else:
                rest.add(value)
        return out | self.elements(rest)
