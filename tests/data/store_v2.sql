-- The session store as formdesk wrote it at schema version 2 (stage_usage and
-- turns.cancelled, before the live-call columns), with a corpus call and a call without a
-- corpus, one turn each, for the migration test.
-- Its tables: store_v1_schema.sql to store_v2_schema.sql, applied in order first by
-- test_store's load_version; this file holds the version number and the rows.
PRAGMA user_version = 2;
INSERT INTO calls (id, corpus, corpus_call_id, status, turns) VALUES (1, 'old', 'c1', 'complete', 1);
INSERT INTO turns (id, call_id, idx, transcript, cancelled) VALUES (1, 1, 1, 'haan ji', 0);
INSERT INTO calls (id, corpus, corpus_call_id, status, turns) VALUES (2, NULL, 'live', 'failed', 1);
INSERT INTO turns (id, call_id, idx, transcript, cancelled) VALUES (2, 2, 1, 'mera naam Sunita', 1);
