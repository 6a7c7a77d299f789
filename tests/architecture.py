"""The product's import graph, read from the source with `ast` (nothing is imported).

Every `import` and `from … import` counts, wherever it stands (module level, inside a function, under
`if TYPE_CHECKING:`), and so does `importlib.import_module("literal")`: a lazy import is still an
import. Cycles are looked for among the imports that run when a module is loaded (module level, not
under `TYPE_CHECKING`), since only those can meet a half-initialised module.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

# The first-party packages whose imports are checked (the ones that may not exist yet are harmless).
PACKAGES = ("diagnosis", "blocks", "bot", "cli", "simulator", "playground", "mcp_face", "bench")
FIRST_PARTY = (*PACKAGES, "tests")


@dataclass(frozen=True)
class Import:
    importer: str
    imported: str
    line: int
    lazy: bool  # inside a function: runs when the function is first called
    type_only: bool  # under `if TYPE_CHECKING:`: never runs

    @property
    def at_load(self) -> bool:
        """Runs when the importer is loaded."""
        return not self.lazy and not self.type_only

    def where(self) -> str:
        return f"{self.importer}:{self.line} imports {self.imported}"


def module_name(root: Path, path: Path) -> str:
    parts = list(path.relative_to(root).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def source_files(root: Path, packages: Iterable[str] = PACKAGES) -> dict[str, Path]:
    """Module name -> file, for every module of the packages present under `root`."""
    found: dict[str, Path] = {}
    for package in packages:
        folder = root / package
        if folder.is_dir():
            for path in sorted(folder.rglob("*.py")):
                found[module_name(root, path)] = path
    return found


def _is_first_party(name: str) -> bool:
    return name.split(".")[0] in FIRST_PARTY


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _absolute(module: str, node: ast.ImportFrom, *, is_package: bool) -> str:
    if not node.level:
        return node.module or ""
    base = module.split(".")
    drop = node.level - (1 if is_package else 0)
    base = base[: len(base) - drop] if drop else base
    return ".".join([*base, node.module] if node.module else base)


class _Collector(ast.NodeVisitor):
    def __init__(self, module: str, *, is_package: bool, known: set[str]) -> None:
        self.module = module
        self.is_package = is_package
        self.known = known
        self.found: list[Import] = []
        self._function_depth = 0
        self._type_checking_depth = 0

    def _add(self, imported: str, line: int) -> None:
        if _is_first_party(imported):
            lazy, type_only = self._function_depth > 0, self._type_checking_depth > 0
            self.found.append(Import(self.module, imported, line, lazy=lazy, type_only=type_only))

    def visit_Import(self, node: ast.Import) -> None:
        for alias in node.names:
            self._add(alias.name, node.lineno)

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        base = _absolute(self.module, node, is_package=self.is_package)
        for alias in node.names:
            # `from a import b` loads module a.b when there is one, else takes a name from a.
            candidate = f"{base}.{alias.name}"
            self._add(candidate if candidate in self.known else base, node.lineno)

    def visit_Call(self, node: ast.Call) -> None:
        func = node.func
        name = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
        if name == "import_module" and node.args:
            first = node.args[0]
            if isinstance(first, ast.Constant) and isinstance(first.value, str):
                self._add(first.value, node.lineno)
        self.generic_visit(node)

    def visit_If(self, node: ast.If) -> None:
        if _is_type_checking(node.test):
            self._type_checking_depth += 1
            for statement in node.body:
                self.visit(statement)
            self._type_checking_depth -= 1
            for statement in node.orelse:
                self.visit(statement)
        else:
            self.generic_visit(node)

    def _function(self, node: ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda) -> None:
        self._function_depth += 1
        self.generic_visit(node)
        self._function_depth -= 1

    visit_FunctionDef = _function
    visit_AsyncFunctionDef = _function
    visit_Lambda = _function


def imports(root: Path, packages: Iterable[str] = PACKAGES) -> list[Import]:
    files = source_files(root, packages)
    known = set(files)
    found: list[Import] = []
    for module, path in files.items():
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        collector = _Collector(module, is_package=path.name == "__init__.py", known=known)
        collector.visit(tree)
        found.extend(collector.found)
    return found


def within(name: str, prefix: str) -> bool:
    return name == prefix or name.startswith(prefix + ".")


def cycles(found: Iterable[Import]) -> list[list[str]]:
    """The import cycles among `found`: each strongly connected group of modules (Tarjan), as one
    cycle through it from its smallest module, then the group's other members after a `|`."""
    graph: dict[str, set[str]] = {}
    for item in found:
        if item.imported != item.importer:
            graph.setdefault(item.importer, set()).add(item.imported)
            graph.setdefault(item.imported, set())
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    groups: list[list[str]] = []

    def connect(node: str) -> None:
        # Iterative Tarjan: the import graph can be deeper than Python's recursion limit allows.
        work: list[tuple[str, Iterator[str]]] = [(node, iter(sorted(graph[node])))]
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        while work:
            current, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph[child]))))
                elif child in on_stack:
                    low[current] = min(low[current], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[current])
            if low[current] == index[current]:
                group: list[str] = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    group.append(member)
                    if member == current:
                        break
                if len(group) > 1:
                    groups.append(sorted(group))

    for node in sorted(graph):
        if node not in index:
            connect(node)
    described: list[list[str]] = []
    for group in sorted(groups):
        cycle = _path_through(graph, group)
        others = sorted(set(group) - set(cycle))
        described.append([*cycle, "|", *others] if others else cycle)
    return described


def _path_through(graph: dict[str, set[str]], group: list[str]) -> list[str]:
    """One cycle inside a strongly connected group, from its smallest module back to it."""
    members = set(group)
    start = group[0]
    previous: dict[str, str] = {}
    frontier = [start]
    while frontier:
        following: list[str] = []
        for node in frontier:
            for child in sorted(graph[node] & members):
                if child == start:
                    path = [node]
                    while path[-1] != start:
                        path.append(previous[path[-1]])
                    return [*reversed(path), start]
                if child not in previous:
                    previous[child] = node
                    following.append(child)
        frontier = following
    return group
