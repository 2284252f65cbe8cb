"""Functions every PostgreSQL store uses, in the shared ``lazy_intel`` schema (created once per database).

They give PostgreSQL the SQLite semantics the rest of the code relies on (GLOB, ``substr`` with a
negative start, ``json_extract``, ``json_group_array``), and build the full-text columns from the
token texts our own tokenizer wrote (``search/tokens.py``): those texts are lower-case tokens
separated by single spaces, so splitting on spaces *is* the tokenization FTS5 applies
(``unicode61`` with ``_`` a token character) — both backends index exactly the same tokens.

A ``tsvector`` keeps at most 256 positions per lexeme and positions up to 16,383; the exact count
of a lexeme past 255 occurrences in a column is kept beside it (:func:`fts_overflow`), so BM25 term
frequencies are exact. Phrase matching uses positions, so a phrase beyond token 16,383 of one
column (an 8,000-byte chunk holds at most about 8,000 tokens) would not be found.
"""

from __future__ import annotations

FUNCTIONS_VERSION = "6"

FUNCTIONS_SQL = r"""
CREATE SCHEMA IF NOT EXISTS lazy_intel;

CREATE OR REPLACE FUNCTION lazy_intel.fts_vector(t text) RETURNS tsvector
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT coalesce(string_agg(quote_literal(w) || ':' || ps, ' ')::tsvector, ''::tsvector)
  FROM (
    SELECT w, string_agg(least(n, 16383)::text, ',' ORDER BY n) AS ps
    FROM unnest(string_to_array(t, ' ')) WITH ORDINALITY AS u(w, n)
    WHERE w <> ''
    GROUP BY w
  ) x
$$;

CREATE OR REPLACE FUNCTION lazy_intel.fts_length(t text) RETURNS integer
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT count(*)::integer FROM unnest(string_to_array(t, ' ')) AS w WHERE w <> ''
$$;

-- {"<column index>:<lexeme>": count} for lexemes a column holds more than 255 times
CREATE OR REPLACE FUNCTION lazy_intel.fts_overflow(cols text[]) RETURNS jsonb
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT CASE WHEN count(*) = 0 THEN NULL ELSE jsonb_object_agg(k, n) END FROM (
    SELECT (c.i - 1)::text || ':' || w AS k, count(*) AS n
    FROM unnest(cols) WITH ORDINALITY AS c(t, i), unnest(string_to_array(c.t, ' ')) AS w
    WHERE w <> ''
    GROUP BY c.i, w HAVING count(*) > 255
  ) x
$$;

-- occurrences of the token sequence ``tokens`` in ``v`` (already filtered to the query's lexemes)
CREATE OR REPLACE FUNCTION lazy_intel.fts_instances(v tsvector, tokens text[], overflow jsonb, col integer)
RETURNS integer LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $$
DECLARE
  first_pos smallint[];
  rest smallint[];
  n integer := 0;
  p smallint;
  ok boolean;
  k integer;
BEGIN
  IF array_length(tokens, 1) = 1 THEN
    IF overflow IS NOT NULL AND overflow ? (col::text || ':' || tokens[1]) THEN
      RETURN (overflow ->> (col::text || ':' || tokens[1]))::integer;
    END IF;
    SELECT coalesce(cardinality(positions), 0) INTO n FROM unnest(v) WHERE lexeme = tokens[1];
    RETURN coalesce(n, 0);
  END IF;
  SELECT positions INTO first_pos FROM unnest(v) WHERE lexeme = tokens[1];
  IF first_pos IS NULL THEN RETURN 0; END IF;
  FOREACH p IN ARRAY first_pos LOOP
    ok := true;
    FOR k IN 2 .. array_length(tokens, 1) LOOP
      SELECT positions INTO rest FROM unnest(v) WHERE lexeme = tokens[k];
      IF rest IS NULL OR NOT ((p + k - 1)::smallint = ANY(rest)) THEN ok := false; EXIT; END IF;
    END LOOP;
    IF ok THEN n := n + 1; END IF;
  END LOOP;
  RETURN n;
END $$;

-- SQLite's GLOB as an anchored regular expression; NULL when the pattern can match nothing (an
-- unclosed [ set). * any run, ? one character, [set] [^set] with ranges, ] first in a set literal.
CREATE OR REPLACE FUNCTION lazy_intel.glob_regex(p text) RETURNS text
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $$
DECLARE
  out text := '^';
  i integer := 1;
  n integer := length(p);
  c text;
  j integer;
  body text;
  cls text;
  k integer;
  lo text;
  hi text;
BEGIN
  WHILE i <= n LOOP
    c := substr(p, i, 1);
    IF c = '*' THEN
      out := out || '.*';
    ELSIF c = '?' THEN
      out := out || '.';
    ELSIF c = '[' THEN
      j := i + 1;
      cls := '';
      IF j <= n AND substr(p, j, 1) = '^' THEN cls := '^'; j := j + 1; END IF;
      body := '';
      IF j <= n AND substr(p, j, 1) = ']' THEN body := ']'; j := j + 1; END IF;
      WHILE j <= n AND substr(p, j, 1) <> ']' LOOP
        body := body || substr(p, j, 1);
        j := j + 1;
      END LOOP;
      IF j > n THEN RETURN NULL; END IF;  -- no closing ]: SQLite matches nothing
      k := 1;
      WHILE k <= length(body) LOOP
        lo := substr(body, k, 1);
        IF k + 2 <= length(body) AND substr(body, k + 1, 1) = '-' THEN
          hi := substr(body, k + 2, 1);
          IF lo <= hi THEN
            cls := cls || CASE WHEN lo ~ '[A-Za-z0-9]' THEN lo ELSE '\' || lo END || '-'
                       || CASE WHEN hi ~ '[A-Za-z0-9]' THEN hi ELSE '\' || hi END;
          END IF;
          k := k + 3;
        ELSE
          cls := cls || CASE WHEN lo ~ '[A-Za-z0-9]' THEN lo ELSE '\' || lo END;
          k := k + 1;
        END IF;
      END LOOP;
      IF cls = '' THEN RETURN NULL; END IF;
      out := out || CASE WHEN cls = '^' THEN '.' ELSE '[' || cls || ']' END;
      i := j;
    ELSIF c ~ '[A-Za-z0-9]' THEN
      out := out || c;
    ELSE
      out := out || '\' || c;
    END IF;
    i := i + 1;
  END LOOP;
  RETURN out || '$';
END $$;

CREATE OR REPLACE FUNCTION lazy_intel.glob_match(v text, p text) RETURNS boolean
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$ SELECT coalesce(v ~ lazy_intel.glob_regex(p), false) $$;

DO $$ BEGIN
  IF NOT EXISTS (SELECT 1 FROM pg_operator o JOIN pg_namespace n ON n.oid = o.oprnamespace
                 WHERE n.nspname = 'lazy_intel' AND o.oprname = '@~@') THEN
    CREATE OPERATOR lazy_intel.@~@ (LEFTARG = text, RIGHTARG = text, FUNCTION = lazy_intel.glob_match);
  END IF;
END $$;

-- SQLite's substr: 1-based; a negative start counts from the end, and the part of the range before
-- the first character is cut from the length (substr('a', -3, 2) = '')
CREATE OR REPLACE FUNCTION lazy_intel.substr(s text, start bigint) RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT pg_catalog.substr(s, greatest(CASE WHEN start < 0 THEN length(s) + start + 1 ELSE start END, 1)::integer)
$$;
CREATE OR REPLACE FUNCTION lazy_intel.substr(s text, start bigint, len bigint) RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT CASE WHEN q.l <= 0 THEN '' ELSE pg_catalog.substr(s, q.p::integer, q.l::integer) END
  FROM (SELECT greatest(b.p, 1) AS p, CASE WHEN b.p < 1 THEN len + b.p - 1 ELSE len END AS l
        FROM (SELECT CASE WHEN start < 0 THEN length(s) + start + 1 ELSE start END AS p) b) q
$$;
-- ... and of a BLOB, in bytes (the dense projection reads chunk texts out of ``contents.data``)
CREATE OR REPLACE FUNCTION lazy_intel.substr(s bytea, start bigint, len bigint) RETURNS bytea
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT CASE WHEN q.l <= 0 THEN ''::bytea ELSE pg_catalog.substr(s, q.p::integer, q.l::integer) END
  FROM (SELECT greatest(b.p, 1) AS p, CASE WHEN b.p < 1 THEN len + b.p - 1 ELSE len END AS l
        FROM (SELECT CASE WHEN start < 0 THEN length(s) + start + 1 ELSE start END AS p) b) q
$$;

-- json_extract(text, '$.key'): scalars as text (numbers and booleans as SQLite would print them)
CREATE OR REPLACE FUNCTION lazy_intel.json_extract(doc text, path text) RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT CASE jsonb_typeof(v) WHEN 'string' THEN v #>> '{}' WHEN 'null' THEN NULL
              WHEN 'boolean' THEN CASE WHEN v = 'true'::jsonb THEN '1' ELSE '0' END
              ELSE v::text END
  FROM (SELECT (doc::jsonb) #> string_to_array(substr(path, 3), '.') AS v) x
$$;

CREATE OR REPLACE FUNCTION lazy_intel.json_array_final(a jsonb) RETURNS text
LANGUAGE sql IMMUTABLE AS $$ SELECT coalesce(a, '[]'::jsonb)::text $$;
CREATE OR REPLACE FUNCTION lazy_intel.json_array_step(a jsonb, v anyelement) RETURNS jsonb
LANGUAGE sql IMMUTABLE AS $$ SELECT coalesce(a, '[]'::jsonb) || jsonb_build_array(v) $$;
DO $$ BEGIN
  IF NOT EXISTS (SELECT 1 FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
                 WHERE n.nspname = 'lazy_intel' AND p.proname = 'json_group_array') THEN
    CREATE AGGREGATE lazy_intel.json_group_array(anyelement) (
      SFUNC = lazy_intel.json_array_step, STYPE = jsonb, FINALFUNC = lazy_intel.json_array_final
    );
  END IF;
END $$;

-- Cypher's =~ (full match); PostgreSQL's regular expressions, anchored
CREATE OR REPLACE FUNCTION lazy_intel.lazy_regexp(pattern text, value text) RETURNS boolean
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$ SELECT value ~ ('^(?:' || pattern || ')$') $$;

-- full-text statistics: deltas appended by the triggers of each store's chunks_fts, summed by readers
CREATE OR REPLACE FUNCTION lazy_intel.fts_track() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF current_setting('lazy_intel.bulk', true) = 'on' THEN RETURN NULL; END IF;
  IF TG_OP = 'INSERT' THEN
    EXECUTE format('INSERT INTO %I.fts_delta(rows, tokens) VALUES (1, $1)', TG_TABLE_SCHEMA) USING NEW.doc_len;
    EXECUTE format('INSERT INTO %I.fts_terms_delta(term, docs) SELECT unnest(tsvector_to_array($1)), 1',
                   TG_TABLE_SCHEMA) USING NEW.v_all;
    RETURN NEW;
  END IF;
  EXECUTE format('INSERT INTO %I.fts_delta(rows, tokens) VALUES (-1, $1)', TG_TABLE_SCHEMA) USING -OLD.doc_len;
  EXECUTE format('INSERT INTO %I.fts_terms_delta(term, docs) SELECT unnest(tsvector_to_array($1)), -1',
                 TG_TABLE_SCHEMA) USING OLD.v_all;
  RETURN OLD;
END $$;

CREATE TABLE IF NOT EXISTS lazy_intel.functions_version (version text NOT NULL);
"""


def fts_ddl(table: str, columns: tuple[str, ...]) -> list[str]:
    """The PostgreSQL form of the FTS5 table: its token texts, one ``tsvector`` per column, the row's
    token count, overflow counts, a GIN index over all columns, and the statistics BM25 needs."""
    texts = ", ".join(f"{c} TEXT COLLATE \"C\" NOT NULL DEFAULT ''" for c in columns)
    vectors = ", ".join(
        f"v_{c} tsvector GENERATED ALWAYS AS (lazy_intel.fts_vector({c})) STORED" for c in columns
    )
    length = " + ".join(f"lazy_intel.fts_length({c})" for c in columns)
    concat = " || ' ' || ".join(columns)
    array = ", ".join(columns)
    return [
        f"CREATE TABLE {table} (rowid BIGINT PRIMARY KEY, {texts}, {vectors}, "
        f"v_all tsvector GENERATED ALWAYS AS (array_to_tsvector(array_remove(string_to_array({concat}, ' '), ''))) STORED, "
        f"doc_len INTEGER GENERATED ALWAYS AS ({length}) STORED, "
        f"tf_over JSONB GENERATED ALWAYS AS (lazy_intel.fts_overflow(ARRAY[{array}])) STORED)",
        f"CREATE INDEX {table}_terms ON {table} USING gin (v_all)",
        "CREATE TABLE fts_delta (rows BIGINT NOT NULL, tokens BIGINT NOT NULL)",
        'CREATE TABLE fts_terms_delta (term TEXT COLLATE "C" NOT NULL, docs BIGINT NOT NULL)',
        'CREATE TABLE fts_terms (term TEXT COLLATE "C" PRIMARY KEY, docs BIGINT NOT NULL)',
        # terms whose last chunk went: found without scanning every term at each publication
        "CREATE INDEX fts_terms_gone ON fts_terms(term) WHERE docs <= 0",
        f"CREATE TRIGGER {table}_track AFTER INSERT OR DELETE ON {table} "
        "FOR EACH ROW EXECUTE FUNCTION lazy_intel.fts_track()",
    ]


def fold_fts_statistics_sql(*, bulk: bool) -> list[str]:
    """Fold the statistics of the open transaction into ``fts_terms``/``fts_delta`` (before COMMIT).

    A bulk build (a fresh store, triggers off) counts them once over the whole table; an incremental
    publication folds the deltas its triggers appended."""
    if bulk:
        return [
            "DELETE FROM fts_terms",
            "DELETE FROM fts_terms_delta",
            "DELETE FROM fts_delta",
            "INSERT INTO fts_terms(term, docs) SELECT u.lexeme, count(*) FROM chunks_fts t, unnest(t.v_all) u "
            "GROUP BY u.lexeme",
            "INSERT INTO fts_delta(rows, tokens) SELECT count(*), coalesce(sum(doc_len), 0) FROM chunks_fts",
        ]
    return [
        "WITH d AS (DELETE FROM fts_terms_delta RETURNING term, docs) "
        "INSERT INTO fts_terms(term, docs) SELECT term, sum(docs) FROM d GROUP BY term "
        "ON CONFLICT (term) DO UPDATE SET docs = fts_terms.docs + EXCLUDED.docs",
        "DELETE FROM fts_terms WHERE docs <= 0",
        "WITH d AS (DELETE FROM fts_delta RETURNING rows, tokens) "
        "INSERT INTO fts_delta(rows, tokens) SELECT coalesce(sum(rows), 0), coalesce(sum(tokens), 0) FROM d",
    ]
