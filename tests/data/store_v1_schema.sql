-- The tables formdesk's store created at schema version 1. A file of a later version
-- has these plus what each version up to it added (store_v2_schema.sql, ...), applied in
-- order by test_store before that version's rows (store_vN.sql).
CREATE TABLE calls ( id INTEGER PRIMARY KEY, corpus TEXT, corpus_call_id TEXT, caller TEXT, path TEXT, form_path TEXT, form_title TEXT, stt TEXT, extract TEXT, reply TEXT, today TEXT, started_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')), ended_at TEXT, status TEXT NOT NULL DEFAULT 'in_progress', reason TEXT, opening TEXT, opening_decision TEXT, form_data TEXT, form_status TEXT, turns INTEGER NOT NULL DEFAULT 0);
CREATE TABLE turns ( id INTEGER PRIMARY KEY, call_id INTEGER NOT NULL REFERENCES calls(id) ON DELETE CASCADE, idx INTEGER NOT NULL, utterance_id TEXT, audio TEXT, condition TEXT, seg_start_ms INTEGER, seg_end_ms INTEGER, segments TEXT, transcript TEXT, extraction TEXT, decision TEXT, reply TEXT, audio_ms REAL, vad_ms REAL, stt_ms REAL, extract_ms REAL, rules_ms REAL, reply_ms REAL, total_ms REAL, speech_ms REAL, error TEXT, created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')), UNIQUE (call_id, idx));
CREATE TABLE captures ( id INTEGER PRIMARY KEY, turn_id INTEGER NOT NULL REFERENCES turns(id) ON DELETE CASCADE, field TEXT, raw TEXT, value TEXT, status TEXT, reason TEXT);
CREATE TABLE verdicts ( id INTEGER PRIMARY KEY, turn_id INTEGER NOT NULL REFERENCES turns(id) ON DELETE CASCADE, field TEXT, rule TEXT, ok INTEGER NOT NULL, message TEXT);
CREATE INDEX turns_call ON turns(call_id);
CREATE INDEX captures_turn ON captures(turn_id);
CREATE INDEX verdicts_turn ON verdicts(turn_id);
CREATE INDEX verdicts_field ON verdicts(field, ok);
CREATE INDEX calls_corpus ON calls(corpus, corpus_call_id);
