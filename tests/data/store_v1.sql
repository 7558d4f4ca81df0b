-- The session store as formdesk wrote it at schema version 1 (before stage_usage and
-- turns.cancelled), with one call and one turn, for the migration test.
-- Its tables are store_v1_schema.sql, applied first (test_store's load_version); this
-- file holds the version number and the rows.
PRAGMA user_version = 1;
INSERT INTO calls (id, corpus, corpus_call_id, status, turns) VALUES (1, 'old', 'c1', 'complete', 1);
INSERT INTO turns (id, call_id, idx, transcript) VALUES (1, 1, 1, 'haan ji');
