-- The session store as formdesk wrote it at schema version 4 (the acknowledgement
-- columns, before runs), with calls made in four ways, for the migration test: two
-- corpus calls on the same form and backends, one on another EXTRACT, a typed live call
-- and a microphone live call.
CREATE TABLE calls ( id INTEGER PRIMARY KEY, corpus TEXT, corpus_call_id TEXT, caller TEXT, path TEXT, form_path TEXT, form_title TEXT, stt TEXT, extract TEXT, reply TEXT, today TEXT, started_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')), ended_at TEXT, status TEXT NOT NULL DEFAULT 'in_progress', reason TEXT, opening TEXT, opening_decision TEXT, form_data TEXT, form_status TEXT, turns INTEGER NOT NULL DEFAULT 0);
CREATE TABLE turns ( id INTEGER PRIMARY KEY, call_id INTEGER NOT NULL REFERENCES calls(id) ON DELETE CASCADE, idx INTEGER NOT NULL, utterance_id TEXT, audio TEXT, condition TEXT, seg_start_ms INTEGER, seg_end_ms INTEGER, segments TEXT, transcript TEXT, extraction TEXT, decision TEXT, reply TEXT, audio_ms REAL, vad_ms REAL, stt_ms REAL, extract_ms REAL, rules_ms REAL, reply_ms REAL, total_ms REAL, speech_ms REAL, error TEXT, created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')), UNIQUE (call_id, idx));
CREATE TABLE captures ( id INTEGER PRIMARY KEY, turn_id INTEGER NOT NULL REFERENCES turns(id) ON DELETE CASCADE, field TEXT, raw TEXT, value TEXT, status TEXT, reason TEXT);
CREATE TABLE verdicts ( id INTEGER PRIMARY KEY, turn_id INTEGER NOT NULL REFERENCES turns(id) ON DELETE CASCADE, field TEXT, rule TEXT, ok INTEGER NOT NULL, message TEXT);
CREATE INDEX turns_call ON turns(call_id);
CREATE INDEX captures_turn ON captures(turn_id);
CREATE INDEX verdicts_turn ON verdicts(turn_id);
CREATE INDEX verdicts_field ON verdicts(field, ok);
CREATE INDEX calls_corpus ON calls(corpus, corpus_call_id);
ALTER TABLE turns ADD COLUMN cancelled INTEGER NOT NULL DEFAULT 0;
CREATE TABLE stage_usage ( id INTEGER PRIMARY KEY, call_id INTEGER NOT NULL REFERENCES calls(id) ON DELETE CASCADE, turn_id INTEGER REFERENCES turns(id) ON DELETE CASCADE, stage TEXT NOT NULL, provider TEXT, model TEXT, ttfb_ms REAL, total_ms REAL, attempts INTEGER, tokens_in INTEGER, tokens_out INTEGER, audio_s REAL, cost_usd REAL, error TEXT);
CREATE INDEX stage_usage_turn ON stage_usage(turn_id);
CREATE INDEX stage_usage_call ON stage_usage(call_id, stage);
ALTER TABLE turns ADD COLUMN input TEXT;
ALTER TABLE turns ADD COLUMN barge_in INTEGER NOT NULL DEFAULT 0;
ALTER TABLE turns ADD COLUMN barge_in_ms INTEGER;
ALTER TABLE turns ADD COLUMN silence INTEGER NOT NULL DEFAULT 0;
ALTER TABLE turns ADD COLUMN caller_audio_start_ms INTEGER;
ALTER TABLE turns ADD COLUMN caller_audio_end_ms INTEGER;
ALTER TABLE turns ADD COLUMN agent_audio_start_ms INTEGER;
ALTER TABLE turns ADD COLUMN agent_audio_end_ms INTEGER;
ALTER TABLE calls ADD COLUMN audio_dir TEXT;
ALTER TABLE stage_usage ADD COLUMN ack_ms REAL;
ALTER TABLE turns ADD COLUMN ack TEXT;
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
