"""Small fixture projects for the real language servers, and what each operation must find in them.

Every server sees the same little program — an abstract shape, a square implementing it, a
function adding two areas, a caller, and one deliberate error — in its own language.
"""

from __future__ import annotations

from dataclasses import dataclass

PYTHON = {
    "shapes.py": (
        "class Shape:\n"
        "    def area(self) -> float:\n"
        "        raise NotImplementedError\n"
        "\n"
        "\n"
        "class Square(Shape):\n"
        "    def __init__(self, side: float) -> None:\n"
        "        self.side = side\n"
        "\n"
        "    def area(self) -> float:\n"
        "        return self.side * self.side\n"
        "\n"
        "\n"
        "def total_area(a: Shape, b: Shape) -> float:\n"
        '    """Sum of two areas."""\n'
        "    return a.area() + b.area()\n"
    ),
    "main.py": (
        "from shapes import Square, total_area\n"
        "\n"
        "\n"
        "def run() -> float:\n"
        "    return total_area(Square(2.0), Square(3.0))\n"
        "\n"
        "\n"
        "broken: str = run()\n"
    ),
    "syntax_error.py": "def oops(:\n    pass\n",
}

CPP = {
    "compile_flags.txt": "-std=c++17\n",
    "shapes.h": (
        "#pragma once\n"
        "struct Shape {\n"
        "  virtual ~Shape() = default;\n"
        "  virtual double area() const = 0;\n"
        "};\n"
        "struct Square : Shape {\n"
        "  explicit Square(double side) : side_(side) {}\n"
        "  double area() const override { return side_ * side_; }\n"
        "  double side_;\n"
        "};\n"
        "double total_area(const Shape& a, const Shape& b);\n"
    ),
    "main.cpp": (
        '#include "shapes.h"\n'
        "\n"
        "double total_area(const Shape& a, const Shape& b) {\n"
        "  return a.area() + b.area();\n"
        "}\n"
        "\n"
        "int main() {\n"
        "  Square s(2.0);\n"
        "  Square t(3.0);\n"
        "  int broken = missing_function(1);\n"
        "  return static_cast<int>(total_area(s, t)) + broken;\n"
        "}\n"
    ),
}

TYPESCRIPT = {
    "tsconfig.json": '{"compilerOptions": {"strict": true, "target": "es2020", "module": "commonjs"}}\n',
    "shapes.ts": (
        "export interface Shape {\n"
        "  area(): number;\n"
        "}\n"
        "\n"
        "export class Square implements Shape {\n"
        "  constructor(private side: number) {}\n"
        "  area(): number {\n"
        "    return this.side * this.side;\n"
        "  }\n"
        "}\n"
        "\n"
        "export function totalArea(a: Shape, b: Shape): number {\n"
        "  return a.area() + b.area();\n"
        "}\n"
    ),
    "main.ts": (
        'import { Square, totalArea } from "./shapes";\n'
        "\n"
        "function run(): number {\n"
        "  return totalArea(new Square(2), new Square(3));\n"
        "}\n"
        "\n"
        "const broken: string = run();\n"
        "export { broken };\n"
    ),
}


@dataclass(frozen=True)
class Case:
    """Ask ``operation`` at ``needle`` (+``delta`` characters) in ``file``; expect an item in
    ``expect_path`` whose text contains ``expect_text`` (starting on 1-based ``expect_line`` if given)."""

    operation: str
    file: str
    needle: str | None
    expect_path: str
    expect_text: str
    delta: int = 0
    direction: str | None = None
    include_declaration: bool = True
    query: str | None = None
    expect_line: int | None = None


PYTHON_CASES = (
    Case("definition", "main.py", "total_area(Square", "shapes.py", "def total_area(a: Shape, b: Shape)"),
    Case("references", "shapes.py", "total_area(a", "main.py", "return total_area(Square(2.0)"),
    Case(
        "references",
        "shapes.py",
        "total_area(a",
        "main.py",
        "return total_area(Square(2.0)",
        include_declaration=False,
    ),
    Case(
        "implementations",
        "shapes.py",
        "area(self) -> float:\n        raise",
        "shapes.py",
        "def area(self) -> float:",
        expect_line=10,
    ),
    Case("hover", "main.py", "total_area(Square", "main.py", "total_area"),
    Case("signature_help", "main.py", "Square(2.0), Square(3.0))", "main.py", "b: Shape", delta=0),
    Case("document_symbols", "shapes.py", None, "shapes.py", "total_area"),
    Case("workspace_symbols", "shapes.py", None, "shapes.py", "total_area", query="total_area"),
    Case("call_hierarchy", "shapes.py", "total_area(a", "main.py", "run", direction="incoming"),
    Case("call_hierarchy", "shapes.py", "total_area(a", "shapes.py", "area", direction="outgoing"),
)

CPP_CASES = (
    Case("definition", "main.cpp", "total_area(s, t)", "main.cpp", "double total_area(const Shape& a"),
    Case("references", "main.cpp", "total_area(s, t)", "main.cpp", "static_cast<int>(total_area(s, t))"),
    Case(
        "references",
        "main.cpp",
        "total_area(s, t)",
        "main.cpp",
        "static_cast<int>(total_area(s, t))",
        include_declaration=False,
    ),
    Case("implementations", "shapes.h", "area() const = 0", "shapes.h", "double area() const override"),
    Case("hover", "main.cpp", "total_area(s, t)", "main.cpp", "total_area"),
    Case("signature_help", "main.cpp", "s, t))", "main.cpp", "const Shape &b"),
    Case("document_symbols", "main.cpp", None, "main.cpp", "total_area"),
    Case("workspace_symbols", "main.cpp", None, "main.cpp", "total_area", query="total_area"),
    Case("diagnostics", "main.cpp", None, "main.cpp", "missing_function"),
    Case("call_hierarchy", "main.cpp", "total_area(const", "main.cpp", "main", direction="incoming"),
    Case("call_hierarchy", "main.cpp", "total_area(const", "shapes.h", "area", direction="outgoing"),
    Case("type_hierarchy", "shapes.h", "Square : Shape", "shapes.h", "Shape", direction="supertypes"),
    Case("type_hierarchy", "shapes.h", "Shape {", "shapes.h", "Square", direction="subtypes"),
)

TYPESCRIPT_CASES = (
    Case("definition", "shapes.ts", "area() + b", "shapes.ts", "area(): number;"),
    Case("references", "shapes.ts", "totalArea(a", "main.ts", "return totalArea(new Square(2)"),
    Case(
        "references",
        "shapes.ts",
        "totalArea(a",
        "main.ts",
        "return totalArea(new Square(2)",
        include_declaration=False,
    ),
    Case("implementations", "shapes.ts", "Shape {", "shapes.ts", "export class Square implements Shape"),
    Case("hover", "main.ts", "totalArea(new", "main.ts", "totalArea(a: Shape, b: Shape): number"),
    Case("signature_help", "main.ts", "new Square(2), new", "main.ts", "totalArea(a: Shape, b: Shape)"),
    Case("document_symbols", "shapes.ts", None, "shapes.ts", "totalArea"),
    Case("workspace_symbols", "shapes.ts", None, "shapes.ts", "totalArea", query="totalArea"),
    Case("diagnostics", "main.ts", None, "main.ts", "not assignable to type 'string'"),
    Case("call_hierarchy", "shapes.ts", "totalArea(a", "main.ts", "run", direction="incoming"),
    Case("call_hierarchy", "shapes.ts", "totalArea(a", "shapes.ts", "area", direction="outgoing"),
)

JEDI_CASES = (
    *PYTHON_CASES,
    Case("diagnostics", "syntax_error.py", None, "syntax_error.py", "error"),
)
BASEDPYRIGHT_CASES = (
    *PYTHON_CASES,
    Case("diagnostics", "main.py", None, "main.py", '"str"'),
)

SERVERS: dict[str, tuple[dict[str, str], tuple[Case, ...]]] = {
    "jedi": (PYTHON, JEDI_CASES),
    "basedpyright": (PYTHON, BASEDPYRIGHT_CASES),
    "clangd": (CPP, CPP_CASES),
    "typescript": (TYPESCRIPT, TYPESCRIPT_CASES),
}


def position_of(text: str, needle: str, delta: int = 0) -> tuple[int, int]:
    """Zero-based line and UTF-16 character of ``needle`` (+``delta``) in ``text``."""
    index = text.index(needle) + delta
    before = text[:index]
    line = before.count("\n")
    column = before.rsplit("\n", 1)[-1]
    return line, len(column.encode("utf-16-le")) // 2
