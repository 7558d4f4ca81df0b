-- Recorded calls for the annotation tests, written as `formdesk run` writes them (the
-- session store's schema v1, sessions/store.c). Corpus "fixture" is
-- tests/data/corpus_good: its call1 expects name "Sunita Devi".
--   calls 1-6: call1 played six times, each capturing a different spelling of the name
--              (six name-match items); call 3, 5 and 6 end with a wrong name.
--   call 7:    call2, failed as its corpus expects but with a name where it expects none
--              (so not as expected: turn-errors items), two turns, one without audio.
--   call 8:    a corpus nobody can find (passed over with a note).
--   call 9:    still in progress (never drawn).
PRAGMA journal_mode=WAL;
CREATE TABLE IF NOT EXISTS calls (
 id INTEGER PRIMARY KEY,
 corpus TEXT, corpus_call_id TEXT, caller TEXT, path TEXT,
 form_path TEXT, form_title TEXT,
 stt TEXT, extract TEXT, reply TEXT, today TEXT,
 started_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')),
 ended_at TEXT,
 status TEXT NOT NULL DEFAULT 'in_progress',
 reason TEXT,
 opening TEXT, opening_decision TEXT,
 form_data TEXT, form_status TEXT,
 turns INTEGER NOT NULL DEFAULT 0);
CREATE TABLE IF NOT EXISTS turns (
 id INTEGER PRIMARY KEY,
 call_id INTEGER NOT NULL REFERENCES calls(id) ON DELETE CASCADE,
 idx INTEGER NOT NULL,
 utterance_id TEXT, audio TEXT, condition TEXT,
 seg_start_ms INTEGER, seg_end_ms INTEGER, segments TEXT,
 transcript TEXT, extraction TEXT, decision TEXT, reply TEXT,
 audio_ms REAL, vad_ms REAL, stt_ms REAL, extract_ms REAL, rules_ms REAL,
 reply_ms REAL, total_ms REAL, speech_ms REAL,
 error TEXT,
 created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')),
 UNIQUE (call_id, idx));
CREATE TABLE IF NOT EXISTS captures (
 id INTEGER PRIMARY KEY,
 turn_id INTEGER NOT NULL REFERENCES turns(id) ON DELETE CASCADE,
 field TEXT, raw TEXT, value TEXT, status TEXT, reason TEXT);
CREATE TABLE IF NOT EXISTS verdicts (
 id INTEGER PRIMARY KEY,
 turn_id INTEGER NOT NULL REFERENCES turns(id) ON DELETE CASCADE,
 field TEXT, rule TEXT, ok INTEGER NOT NULL, message TEXT);
PRAGMA user_version = 1;

INSERT INTO calls (id, corpus, corpus_call_id, form_path, status, form_data, form_status, turns) VALUES
 (1, 'fixture', 'call1', 'forms/armman_enrollment.json', 'complete', '{"name":"सुनीता देवी","district":"Gaya"}', '{"name":"answered","district":"answered"}', 2),
 (2, 'fixture', 'call1', 'forms/armman_enrollment.json', 'complete', '{"name":"Sunita Devi","district":"Gaya"}', '{"name":"answered","district":"answered"}', 2),
 (3, 'fixture', 'call1', 'forms/armman_enrollment.json', 'complete', '{"name":"Sumita Devi","district":"Gaya"}', '{"name":"answered","district":"answered"}', 2),
 (4, 'fixture', 'call1', 'forms/armman_enrollment.json', 'complete', '{"name":"Sunita","district":"Gaya"}', '{"name":"answered","district":"answered"}', 2),
 (5, 'fixture', 'call1', 'forms/armman_enrollment.json', 'complete', '{"name":"Suneeta Devi","district":"Gaya"}', '{"name":"answered","district":"answered"}', 2),
 (6, 'fixture', 'call1', 'forms/armman_enrollment.json', 'complete', '{"name":"Anita Devi","district":"Gaya"}', '{"name":"answered","district":"answered"}', 2),
 (7, 'fixture', 'call2', 'forms/armman_enrollment.json', 'failed', '{"name":"Pehli"}', '{"name":"answered"}', 2),
 (8, 'nowhere', 'c1', 'forms/armman_enrollment.json', 'complete', '{"name":"Rekha"}', '{"name":"answered"}', 1),
 (9, 'fixture', 'call1', 'forms/armman_enrollment.json', 'in_progress', NULL, NULL, 0);
UPDATE calls SET reason = 'district got no valid answer' WHERE id = 7;

INSERT INTO turns (id, call_id, idx, utterance_id, audio, transcript, extraction, decision, reply) VALUES
 (1, 1, 1, 'u_name', 'tests/data/corpus_good/audios/u_name.wav', 'मेरा नाम सुनीता देवी है', '{"fields":{"name":"सुनीता देवी"}}', '{"reason":"name answered"}', 'आपका जिला?'),
 (2, 2, 1, 'u_name', 'tests/data/corpus_good/audios/u_name.wav', 'mera naam Sunita Devi hai', '{"fields":{"name":"Sunita Devi"}}', '{"reason":"name answered"}', 'आपका जिला?'),
 (3, 3, 1, 'u_name', 'tests/data/corpus_good/audios/u_name.wav', 'mera naam Sumita Devi hai', '{"fields":{"name":"Sumita Devi"}}', '{"reason":"name answered"}', 'आपका जिला?'),
 (4, 4, 1, 'u_name', NULL, 'mera naam Sunita hai', '{"fields":{"name":"Sunita"}}', '{"reason":"name answered"}', 'आपका जिला?'),
 (5, 5, 1, 'u_name', 'tests/data/corpus_good/audios/u_name.wav', 'mera naam Suneeta Devi hai', '{"fields":{"name":"Suneeta Devi"}}', '{"reason":"name answered"}', 'आपका जिला?'),
 (6, 6, 1, 'u_name', 'tests/data/corpus_good/audios/u_name.wav', 'mera naam Anita Devi hai', '{"fields":{"name":"Anita Devi"}}', '{"reason":"name answered"}', 'आपका जिला?'),
 (7, 7, 1, 'u_quote', 'tests/data/corpus_good/audios/u_quote.mp3', 'she said haan', '{"fields":{}}', '{"reason":"district got no valid answer. Re-ask"}', 'कृपया अपना जिला बताइए।'),
 (8, 7, 2, 'u_multi', NULL, 'पहली पंक्ति', '{"fields":{"district":"Pehli"}}', '{"reason":"district exhausted its retries: end the call"}', 'धन्यवाद।');
INSERT INTO captures (turn_id, field, raw, value, status) VALUES
 (1, 'name', 'सुनीता देवी', 'सुनीता देवी', 'answered'),
 (2, 'name', 'Sunita Devi', 'Sunita Devi', 'answered'),
 (3, 'name', 'Sumita Devi', 'Sumita Devi', 'answered'),
 (4, 'name', 'Sunita', 'Sunita', 'answered'),
 (5, 'name', 'Suneeta Devi', 'Suneeta Devi', 'answered'),
 (6, 'name', 'Anita Devi', 'Anita Devi', 'answered'),
 (8, 'district', 'Pehli', 'Pehli', 'invalid');
INSERT INTO verdicts (turn_id, field, rule, ok, message) VALUES
 (8, 'district', 'option', 0, 'not one of the options');
