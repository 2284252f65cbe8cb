"""Schema of one store file. A change of :data:`SCHEMA_VERSION` means a full rebuild into a new file."""

from __future__ import annotations

import sqlite3

# 4: chunks_fts gained the ``stems`` column (text/stems.py). 5: ``graph_deps`` (the dependents of
# an edit by index) and the index of unresolved targets' last names (issue 15). 6: ``files_sha256``
# (an edit's contents cleanup looks up the hashes it released instead of scanning ``files``), added
# in place to a version-5 store (UPGRADES_IN_PLACE). 7: ``nodes_named``, the definitions of a name
# in the order the graph's name lookups read them (graph/program.py FactStore.named: the first
# lookup of a common name after a start walked every node of that name), added in place to 5 and 6.
# A store at an older version that is still readable (READABLE_SCHEMA_VERSIONS) keeps serving while
# it is rebuilt into a new file.
SCHEMA_VERSION = 7
# Versions this build can still read (search adapts to their columns; the graph reads of version 5
# are plain SQL that an older store answers without the new indexes, only slower), never write: a
# sync rebuilds them into a fresh store of SCHEMA_VERSION, and the old one is served until the
# catalog switches.
READABLE_SCHEMA_VERSIONS: tuple[int, ...] = (3, 4, 5, 6, SCHEMA_VERSION)
# Versions the writer brings to SCHEMA_VERSION in the store itself, in one transaction, instead of
# rebuilding (:func:`upgrade_in_place`): the statements that make the difference. Idempotent.
# The nodes another file can name (not a file or route, not a local or parameter, not a file-less
# node): the partial index's condition, which a query must repeat term for term (literals, not
# bound parameters) for the planner to use the index.
NAMED_DEFINITION_WHERE = (
    "file_key != 0 AND kind IS NOT NULL AND kind NOT IN ('local', 'parameter') "
    "AND label NOT IN ('File', 'Route')"
)
# every column the lookup reads, in its ORDER BY's order after the name: it never reads the table
NODES_NAMED_INDEX = (
    "CREATE INDEX IF NOT EXISTS nodes_named ON nodes(name, path, qualified_name, id, kind, properties, file_key, label) "
    f"WHERE {NAMED_DEFINITION_WHERE}"
)
UPGRADES_IN_PLACE: dict[int, tuple[str, ...]] = {
    5: ("CREATE INDEX IF NOT EXISTS files_sha256 ON files(sha256)", NODES_NAMED_INDEX),
    6: (NODES_NAMED_INDEX,),
}

# FTS5 columns, in order; bm25 weights per column live with the ranking code (search/lexical.py).
FTS_COLUMNS: tuple[str, ...] = ("name", "qualified", "signature", "doc", "body", "path", "stems")
# The columns of chunks_fts in a store of each readable version.
FTS_COLUMNS_BY_VERSION: dict[int, tuple[str, ...]] = {
    3: FTS_COLUMNS[:6],
    4: FTS_COLUMNS,
    5: FTS_COLUMNS,
    6: FTS_COLUMNS,
    SCHEMA_VERSION: FTS_COLUMNS,
}
# The last dot-separated component of an unresolved edge's written target, ASCII lower-cased
# (``a.b.Name`` -> ``name``), in SQL both SQLite and PostgreSQL evaluate: what
# ``edges_unresolved_name`` indexes, and a query must spell it exactly so to use that index
# (graph/queries.py ``unresolved_named``). rtrim strips the trailing characters that are not dots,
# leaving the prefix up to the last dot, which occurs nowhere else in the text (no ``substr``: the
# PostgreSQL dialect maps that to a function of its own, which an index of built-ins would not match).
TARGET_LAST_NAME_SQL = "lower(replace(target, rtrim(target, replace(target, '.', '')), ''))"

SCHEMA_SQL = """
CREATE TABLE meta (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
);

-- captured bytes, deduplicated by hash; only files of the current view are kept
CREATE TABLE contents (
    sha256 TEXT PRIMARY KEY,
    data   BLOB NOT NULL
);

CREATE TABLE files (
    id            INTEGER PRIMARY KEY,
    path          TEXT NOT NULL UNIQUE,
    sha256        TEXT NOT NULL,
    size          INTEGER NOT NULL,
    mtime_ns      INTEGER NOT NULL,
    captured_ns   INTEGER NOT NULL,
    lang          TEXT,
    status        TEXT NOT NULL,      -- indexed | too-large | binary | parse-error | excluded
    reason        TEXT,
    encoding      TEXT,               -- utf-8 | invalid-utf8 | NULL (not text)
    line_count    INTEGER NOT NULL DEFAULT 0,
    syntax_errors INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX files_sha256 ON files(sha256);

CREATE TABLE symbols (
    id              INTEGER PRIMARY KEY,
    file_id         INTEGER NOT NULL,
    ordinal         INTEGER NOT NULL,  -- position in the file's symbol list
    name            TEXT NOT NULL,
    qualified_name  TEXT NOT NULL,
    kind            TEXT NOT NULL,
    start_byte      INTEGER NOT NULL,
    end_byte        INTEGER NOT NULL,
    start_line      INTEGER NOT NULL,
    end_line        INTEGER NOT NULL,
    name_start_byte INTEGER NOT NULL,
    name_end_byte   INTEGER NOT NULL,
    signature       TEXT NOT NULL,
    doc             TEXT,
    parent_name     TEXT,
    parent_id       INTEGER
);
CREATE INDEX symbols_file ON symbols(file_id);
CREATE INDEX symbols_name ON symbols(name);
CREATE INDEX symbols_qualified ON symbols(qualified_name);

CREATE TABLE chunks (
    id          INTEGER PRIMARY KEY,
    file_id     INTEGER NOT NULL,
    symbol_id   INTEGER,
    start_byte  INTEGER NOT NULL,
    end_byte    INTEGER NOT NULL,
    start_line  INTEGER NOT NULL,
    end_line    INTEGER NOT NULL,
    window      INTEGER NOT NULL,
    content_sha TEXT NOT NULL,
    embed_sha   TEXT NOT NULL      -- hash of the text an embedder reads (search/vectors.py)
);
CREATE INDEX chunks_file ON chunks(file_id);
CREATE INDEX chunks_symbol ON chunks(symbol_id);
CREATE INDEX chunks_embed ON chunks(embed_sha);

-- the dense projection: one float32 row per distinct embedding text and embedding profile;
-- meta 'embedding_profile' names the only profile present (a change rebuilds this table)
CREATE TABLE vectors (
    embed_sha TEXT NOT NULL,
    profile   TEXT NOT NULL,
    data      BLOB NOT NULL,
    PRIMARY KEY (embed_sha, profile)
) WITHOUT ROWID;

CREATE VIRTUAL TABLE chunks_fts USING fts5(
    name, qualified, signature, doc, body, path, stems,
    tokenize = "unicode61 remove_diacritics 2 tokenchars '_'"
);

CREATE TABLE refs (
    id              INTEGER PRIMARY KEY,
    file_id         INTEGER NOT NULL,
    name            TEXT NOT NULL,
    kind            TEXT NOT NULL,
    start_byte      INTEGER NOT NULL,
    end_byte        INTEGER NOT NULL,
    line            INTEGER NOT NULL,
    name_start_byte INTEGER NOT NULL,
    name_end_byte   INTEGER NOT NULL,
    scope_name      TEXT,
    receiver        TEXT,
    callee          TEXT,               -- compact expression (JSON) when more than receiver.name
    args            TEXT                -- compact expressions (JSON list) of a call's arguments
);
CREATE INDEX refs_file ON refs(file_id);
CREATE INDEX refs_name ON refs(name);

CREATE TABLE imports (
    id         INTEGER PRIMARY KEY,
    file_id    INTEGER NOT NULL,
    module     TEXT NOT NULL,
    name       TEXT,
    alias      TEXT,
    start_byte INTEGER NOT NULL,
    end_byte   INTEGER NOT NULL,
    line       INTEGER NOT NULL,
    scope_name TEXT,
    wildcard   INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX imports_file ON imports(file_id);

-- values flowing into names: assignments, loop variables, parameters, returns (parse/facts.py)
CREATE TABLE flows (
    id             INTEGER PRIMARY KEY,
    file_id        INTEGER NOT NULL,
    kind           TEXT NOT NULL,
    scope_name     TEXT,
    target         TEXT,
    value          TEXT,
    annotation     TEXT,
    position       INTEGER NOT NULL,
    start_byte     INTEGER NOT NULL,
    end_byte       INTEGER NOT NULL,
    line           INTEGER NOT NULL,
    condition_path TEXT                -- space-separated control-flow node types, outermost first
);
CREATE INDEX flows_file ON flows(file_id);

-- the property graph (DESIGN §7). Node ids are stable hashes of what a node is (path, label,
-- qualified name, occurrence), so an edge from an unchanged file stays valid while the file it
-- points into is re-parsed. Rows are owned by a file through file_key (a stable hash of its path;
-- 0 for Module nodes, which are derived from the set of files).
CREATE TABLE nodes (
    id             INTEGER PRIMARY KEY,
    file_key       INTEGER NOT NULL,
    label          TEXT NOT NULL,
    labels         TEXT NOT NULL,      -- every label, space-delimited with a leading and trailing space
    name           TEXT NOT NULL,
    qualified_name TEXT NOT NULL,
    kind           TEXT,
    path           TEXT,
    lang           TEXT,
    start_byte     INTEGER,
    end_byte       INTEGER,
    start_line     INTEGER,
    end_line       INTEGER,
    properties     TEXT                -- JSON object
);
CREATE INDEX nodes_file ON nodes(file_key);
CREATE INDEX nodes_name ON nodes(name);
CREATE INDEX nodes_qualified ON nodes(qualified_name);
CREATE INDEX nodes_label ON nodes(label);
CREATE INDEX nodes_path ON nodes(path, start_byte);

CREATE TABLE edges (
    id         INTEGER PRIMARY KEY,
    file_key   INTEGER NOT NULL,       -- the file whose facts produced the edge
    type       TEXT NOT NULL,
    src        INTEGER NOT NULL,
    dst        INTEGER,                -- NULL: unresolved; target says what was written
    strategy   TEXT NOT NULL,
    confidence REAL NOT NULL,
    target     TEXT,
    path       TEXT,                   -- the site: file, byte span and line
    start_byte INTEGER,
    end_byte   INTEGER,
    line       INTEGER,
    properties TEXT                    -- JSON object
);
CREATE INDEX edges_src ON edges(src, type);
CREATE INDEX edges_dst ON edges(dst, type);
CREATE INDEX edges_file ON edges(file_key);
CREATE INDEX edges_unresolved ON edges(target) WHERE dst IS NULL;
CREATE INDEX edges_unresolved_name ON edges(({target_last_name})) WHERE dst IS NULL;

-- per file: what its resolution consulted, so a change re-resolves exactly the files it affects
CREATE TABLE graph_files (
    path          TEXT PRIMARY KEY,
    file_key      INTEGER NOT NULL,
    interface_sha TEXT NOT NULL,       -- digest of what other files may read from this one: the outline,
                                       -- then one "callable<TAB>digest" line per body (graph/model.py)
    definitions   TEXT NOT NULL,       -- its definitions' identities, one per line
    deps          TEXT NOT NULL        -- lookup tokens of its last resolution, one per line
);
CREATE INDEX graph_files_key ON graph_files(file_key);

-- graph_files.deps inverted, one row per (token, file): the files an edit's tokens invalidate, found
-- by index (graph/deps_index.py); filled in token order at the end of a full build
CREATE TABLE graph_deps (
    token    TEXT NOT NULL,
    file_key INTEGER NOT NULL,
    PRIMARY KEY (token, file_key)
) WITHOUT ROWID;
""".replace("{target_last_name}", TARGET_LAST_NAME_SQL)  # one spelling: queries must match the index
SCHEMA_SQL += NODES_NAMED_INDEX.replace(" IF NOT EXISTS", "") + ";\n"


def index_statements(table: str) -> list[tuple[str, str]]:
    """``(name, CREATE INDEX statement)`` of each secondary index the schema gives ``table``, in
    name order (what ``sqlite_master`` lists for a fresh store)."""
    found = []
    for text in SCHEMA_SQL.split(";"):
        statement = "\n".join(line.split("--", 1)[0] for line in text.splitlines())
        words = statement.split()
        if words[:2] == ["CREATE", "INDEX"] and words[3] == "ON" and words[4].split("(", 1)[0] == table:
            found.append((words[2], " ".join(statement.split())))
    return sorted(found)


def table_statement(table: str) -> str:
    """The schema's ``CREATE TABLE`` statement for ``table`` (comments dropped)."""
    for text in SCHEMA_SQL.split(";"):
        statement = " ".join("\n".join(line.split("--", 1)[0] for line in text.splitlines()).split())
        words = statement.split()
        if words[:2] == ["CREATE", "TABLE"] and words[2] == table:
            return statement
    raise KeyError(table)


# Per-file tables: deleting a file means deleting its rows from each of these.
FILE_TABLES: tuple[str, ...] = ("symbols", "chunks", "refs", "imports", "flows")


# a checkpointed write-ahead log is truncated back to at most this many bytes
WAL_SIZE_LIMIT = 64 * 1024 * 1024
# Page cache of one connection, KiB. Every read view is a connection of its own, opened and closed
# per request, and the writer's lives for one sync: with at most a few requests at once, the
# server's SQLite page caches stay under a few times this (SQLite's own default is about 2 MB).
CACHE_KIB = 2048
BULK_CACHE_KIB = 64 * 1024  # a full rebuild, for the length of the build only (issue 14: peak RSS)


def connect(
    path: str, *, readonly: bool = False, timeout_s: float = 30.0, bulk: bool = False
) -> sqlite3.Connection:
    """Open a store file. Readers use ``mode=ro``; the writer enables WAL and normal sync.

    ``bulk`` is for a fresh store file that no reader can see yet (a full rebuild before the catalog
    names it): no fsync, since only a power cut (not a killed process) can lose a write SQLite handed
    to the kernel, and then the file is an orphan to delete. It keeps a write-ahead log, so each of
    the build's batch commits is atomic even for a process killed mid-write, and a killed build can
    continue from its last commit (``service/indexing/resume.py``).
    Every connection states its page cache (:data:`CACHE_KIB`, :data:`BULK_CACHE_KIB`) and maps no
    file (``mmap_size=0``: pages are read into the cache, so an I/O error stays an error SQLite reports
    rather than a signal in a mapped page).
    """
    if readonly:
        conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=timeout_s, check_same_thread=False)
    else:
        conn = sqlite3.connect(path, timeout=timeout_s, check_same_thread=False)
        if bulk:
            # before the first page is written (switching to WAL writes it): frees pages back later
            conn.execute("PRAGMA auto_vacuum=INCREMENTAL")
            conn.execute("PRAGMA journal_mode=WAL")
            conn.execute("PRAGMA synchronous=OFF")
            conn.execute(f"PRAGMA cache_size=-{BULK_CACHE_KIB}")
        else:
            conn.execute("PRAGMA journal_mode=WAL")
            conn.execute("PRAGMA synchronous=NORMAL")
            conn.execute(f"PRAGMA journal_size_limit={WAL_SIZE_LIMIT}")
    conn.isolation_level = None  # explicit BEGIN/COMMIT only
    conn.execute("PRAGMA busy_timeout=30000")
    if not bulk:
        conn.execute(f"PRAGMA cache_size=-{CACHE_KIB}")
    conn.execute("PRAGMA mmap_size=0")
    return conn


def finish_bulk(conn: sqlite3.Connection) -> None:
    """Make a bulk-built store durable and switch it to WAL before readers may open it."""
    conn.execute("PRAGMA synchronous=FULL")
    conn.execute("PRAGMA journal_mode=WAL")
    conn.execute(f"PRAGMA journal_size_limit={WAL_SIZE_LIMIT}")
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")


UPGRADED_FROM_KEY = "schema_upgraded_from"  # meta: the version a store was upgraded in place from


def upgrade_in_place(conn: sqlite3.Connection) -> int | None:
    """Bring a store of a version in :data:`UPGRADES_IN_PLACE` to :data:`SCHEMA_VERSION` in one write
    transaction (readers keep reading the version they opened; WAL); returns the version it was, or
    ``None`` when there was nothing to do. The caller holds the writer lock."""
    row = conn.execute("SELECT value FROM meta WHERE key='schema_version'").fetchone()
    version = int(row[0]) if row and str(row[0]).isdigit() else None
    if version is None or version not in UPGRADES_IN_PLACE:
        return None
    conn.execute("BEGIN IMMEDIATE")
    try:
        for statement in UPGRADES_IN_PLACE[version]:
            conn.execute(statement)
        conn.executemany(
            "INSERT INTO meta(key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value=excluded.value",
            [("schema_version", str(SCHEMA_VERSION)), (UPGRADED_FROM_KEY, str(version))],
        )
        conn.execute("COMMIT")
    except BaseException:
        conn.execute("ROLLBACK")
        raise
    return version


def create_schema(conn: sqlite3.Connection) -> None:
    conn.executescript(SCHEMA_SQL)
    conn.execute("INSERT INTO meta(key, value) VALUES ('schema_version', ?)", (str(SCHEMA_VERSION),))
    conn.execute("INSERT INTO meta(key, value) VALUES ('generation', '0')")


# meta keys of a full build's journal in its fresh store (SQLite: service/indexing/resume.py;
# PostgreSQL: store/pg/build.py); the final publication deletes them
BUILD_PROFILE_KEY = "build_profile"
BUILD_FILES_KEY = "build_files"
