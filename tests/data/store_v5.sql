-- The session store as formdesk wrote it at schema version 5 (runs, before the turns'
-- latency column), for the migration test: one run, a typed live call with two turns.
PRAGMA user_version = 5;
CREATE TABLE calls (id INTEGER PRIMARY KEY, corpus TEXT, corpus_call_id TEXT, caller TEXT, path TEXT, form_path TEXT, form_title TEXT, stt TEXT, extract TEXT, reply TEXT, today TEXT, started_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')), ended_at TEXT, status TEXT NOT NULL DEFAULT 'in_progress', reason TEXT, opening TEXT, opening_decision TEXT, form_data TEXT, form_status TEXT, turns INTEGER NOT NULL DEFAULT 0, audio_dir TEXT, run_id INTEGER REFERENCES runs(id), replay_of INTEGER);
CREATE TABLE turns (id INTEGER PRIMARY KEY, call_id INTEGER NOT NULL REFERENCES calls(id) ON DELETE CASCADE, idx INTEGER NOT NULL, utterance_id TEXT, audio TEXT, condition TEXT, seg_start_ms INTEGER, seg_end_ms INTEGER, segments TEXT, transcript TEXT, extraction TEXT, decision TEXT, reply TEXT, audio_ms REAL, vad_ms REAL, stt_ms REAL, extract_ms REAL, rules_ms REAL, reply_ms REAL, total_ms REAL, speech_ms REAL, error TEXT, created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')), cancelled INTEGER NOT NULL DEFAULT 0, input TEXT, barge_in INTEGER NOT NULL DEFAULT 0, barge_in_ms INTEGER, silence INTEGER NOT NULL DEFAULT 0, caller_audio_start_ms INTEGER, caller_audio_end_ms INTEGER, agent_audio_start_ms INTEGER, agent_audio_end_ms INTEGER, ack TEXT, UNIQUE (call_id, idx));
CREATE TABLE captures (id INTEGER PRIMARY KEY, turn_id INTEGER NOT NULL REFERENCES turns(id) ON DELETE CASCADE, field TEXT, raw TEXT, value TEXT, status TEXT, reason TEXT);
CREATE TABLE verdicts (id INTEGER PRIMARY KEY, turn_id INTEGER NOT NULL REFERENCES turns(id) ON DELETE CASCADE, field TEXT, rule TEXT, ok INTEGER NOT NULL, message TEXT);
CREATE INDEX turns_call ON turns(call_id);
CREATE INDEX captures_turn ON captures(turn_id);
CREATE INDEX verdicts_turn ON verdicts(turn_id);
CREATE INDEX verdicts_field ON verdicts(field, ok);
CREATE INDEX calls_corpus ON calls(corpus, corpus_call_id);
CREATE TABLE stage_usage (id INTEGER PRIMARY KEY, call_id INTEGER NOT NULL REFERENCES calls(id) ON DELETE CASCADE, turn_id INTEGER REFERENCES turns(id) ON DELETE CASCADE, stage TEXT NOT NULL, provider TEXT, model TEXT, ttfb_ms REAL, total_ms REAL, attempts INTEGER, tokens_in INTEGER, tokens_out INTEGER, audio_s REAL, cost_usd REAL, error TEXT, ack_ms REAL);
CREATE INDEX stage_usage_turn ON stage_usage(turn_id);
CREATE INDEX stage_usage_call ON stage_usage(call_id, stage);
CREATE TABLE runs (id INTEGER PRIMARY KEY, source TEXT NOT NULL, form_path TEXT, form_title TEXT, form_json TEXT, form_sha256 TEXT, stt TEXT, extract TEXT, reply TEXT, backends TEXT, options TEXT, corpus TEXT, corpus_dir TEXT, version TEXT, replay_of INTEGER, started_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')), ended_at TEXT, migrated INTEGER NOT NULL DEFAULT 0);
CREATE INDEX calls_run ON calls(run_id);
INSERT INTO runs (id, source, form_path, form_title, stt, extract, reply, started_at) VALUES (1, 'typed', 'f.json', 'F', 'reference', 'rules', 'script', '2026-05-01T09:00:00.000Z');
INSERT INTO calls (id, corpus_call_id, form_path, form_title, stt, extract, reply, today, started_at, status, turns, run_id) VALUES (1, 'live', 'f.json', 'F', 'reference', 'rules', 'script', '2026-05-01', '2026-05-01T09:00:00.000Z', 'in_progress', 2, 1);
INSERT INTO turns (id, call_id, idx, transcript, input, total_ms) VALUES (1, 1, 1, 'Sunita', 'typed', 12.5);
INSERT INTO turns (id, call_id, idx, transcript, input, total_ms) VALUES (2, 1, 2, 'Gaya', 'typed', 8.25);
