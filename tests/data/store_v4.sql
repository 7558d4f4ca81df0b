-- The session store as formdesk wrote it at schema version 4 (the acknowledgement
-- columns, before runs), with calls made in four ways, for the migration test: two
-- corpus calls on the same form and backends, one on another EXTRACT, a typed live call
-- and a microphone live call.
-- Its tables: store_v1_schema.sql to store_v4_schema.sql, applied in order first by
-- test_store's load_version; this file holds the version number and the rows.
PRAGMA user_version = 4;
INSERT INTO calls (id, corpus, corpus_call_id, form_path, form_title, stt, extract, reply, today, started_at, status, turns) VALUES (1, 'demo', 'c1', 'f.json', 'F', 'reference', 'rules', 'script', '2026-01-15', '2026-02-01T10:00:00.000Z', 'complete', 1);
INSERT INTO calls (id, corpus, corpus_call_id, form_path, form_title, stt, extract, reply, today, started_at, status, turns) VALUES (2, 'demo', 'c2', 'f.json', 'F', 'reference', 'rules', 'script', '2026-01-15', '2026-02-01T10:00:01.000Z', 'failed', 1);
INSERT INTO calls (id, corpus, corpus_call_id, form_path, form_title, stt, extract, reply, today, started_at, status, turns) VALUES (3, 'demo', 'c1', 'f.json', 'F', 'reference', 'openai:m', 'script', '2026-01-15', '2026-02-01T11:00:00.000Z', 'complete', 1);
INSERT INTO calls (id, corpus, corpus_call_id, form_path, form_title, stt, extract, reply, today, started_at, status, turns) VALUES (4, NULL, 'live', 'f.json', 'F', 'reference', 'rules', 'script', '2026-03-02', '2026-02-02T09:00:00.000Z', 'complete', 1);
INSERT INTO calls (id, corpus, corpus_call_id, form_path, form_title, stt, extract, reply, today, started_at, status, turns, audio_dir) VALUES (5, NULL, 'live', 'f.json', 'F', 'deepgram', 'rules', 'script', '2026-03-02', '2026-02-02T09:30:00.000Z', 'failed', 1, 'x.audio/call-5');
INSERT INTO turns (id, call_id, idx, transcript, input) VALUES (1, 1, 1, 'haan ji', 'corpus');
INSERT INTO turns (id, call_id, idx, transcript, input) VALUES (2, 2, 1, 'nahi', 'corpus');
INSERT INTO turns (id, call_id, idx, transcript, input) VALUES (3, 3, 1, 'haan ji', 'corpus');
INSERT INTO turns (id, call_id, idx, transcript, input) VALUES (4, 4, 1, 'Sunita', 'typed');
INSERT INTO turns (id, call_id, idx, transcript, input) VALUES (5, 5, 1, 'Gaya', 'mic');
