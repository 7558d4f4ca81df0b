-- The session store as formdesk wrote it at schema version 3 (the live-call columns,
-- before stage_usage.ack_ms and turns.ack), with a call on language models: one turn, its
-- EXTRACT and REPLY requests, for the migration test.
-- Its tables: store_v1_schema.sql to store_v3_schema.sql, applied in order first by
-- test_store's load_version; this file holds the version number and the rows.
PRAGMA user_version = 3;
INSERT INTO calls (id, corpus, corpus_call_id, extract, reply, status, turns) VALUES (1, 'old', 'c1', 'openai', 'openai', 'complete', 1);
INSERT INTO turns (id, call_id, idx, transcript, extraction, input) VALUES (1, 1, 1, 'haan ji', '{"fields":[],"ack":"ji","fault":null}', 'corpus');
INSERT INTO stage_usage (id, call_id, turn_id, stage, provider, model, ttfb_ms, total_ms, attempts) VALUES (1, 1, 1, 'extract', 'openai', 'm', 40, 90, 1);
INSERT INTO stage_usage (id, call_id, turn_id, stage, provider, model, ttfb_ms, total_ms, attempts) VALUES (2, 1, 1, 'reply', 'openai', 'm', 30, 60, 1);
