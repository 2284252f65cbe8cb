"""Pictures of the code: the package graph as SVG/HTML/DOT/Mermaid, and the ``lazy-intel ui`` page.

Everything here is built on operation answers (``architecture``, ``callers``, ``callees``, ``impact``,
``search``, ``symbol``), never on a second reading of the graph: the picture shows what the answer
says, with the answer's coverage beside it.
"""
