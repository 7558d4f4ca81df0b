-- Calls added to tests/data/annotate_calls.sql (after it is migrated to the current session
-- store) for the queue's rules on calls without a corpus, abandoned calls, calls that end as
-- their corpus expects, and what a turn-errors item shows of its question:
--   call 10: a typed live call (no corpus): the caller's name captured, no audio; its lines
--            ran out (abandoned), so it is no turn-errors item, but its name is labellable.
--   call 11: a microphone live call (no corpus), complete: its name (name-match, without an
--            expected value), its turns (turn-errors: nothing to compare with) and its
--            recorded turn (stt, judged by ear).
--   call 12: corpus call2 abandoned in the simulator (failed, "abandoned: ..."): not queued.
--   call 13: corpus call2, failed as its corpus expects, name skipped as expected: not queued.
--   call 14: corpus call1 (name Sunita Devi, district Gaya expected; status in_progress
--            expected), ended complete: its turns are queued, each with the field asked, the
--            agent's words before it, the call so far and the expected value.
INSERT INTO calls (id, corpus, corpus_call_id, form_path, status, reason, opening, form_data, form_status, turns) VALUES
 (10, NULL, 'live', 'forms/armman_enrollment.json', 'failed', 'abandoned: the caller''s lines ran out', 'नमस्ते! कृपया अपना पूरा नाम बताइए।', '{"name":"Rekha Kumari"}', '{"name":"answered"}', 1),
 (11, NULL, 'live', 'forms/armman_enrollment.json', 'complete', 'done', 'नमस्ते! कृपया अपना पूरा नाम बताइए।', '{"name":"Sita"}', '{"name":"answered"}', 1),
 (12, 'fixture', 'call2', 'forms/armman_enrollment.json', 'failed', 'abandoned: the session ended during the call', NULL, '{"name":"x"}', '{"name":"answered"}', 1),
 (13, 'fixture', 'call2', 'forms/armman_enrollment.json', 'failed', 'district got no valid answer', NULL, '{"name":null}', '{"name":"skipped"}', 1),
 (14, 'fixture', 'call1', 'forms/armman_enrollment.json', 'complete', 'done', 'कृपया अपना पूरा नाम बताइए।', '{"name":"Sunita Devi","district":"Gaya"}', '{"name":"answered","district":"answered"}', 2);
INSERT INTO turns (id, call_id, idx, utterance_id, audio, transcript, extraction, decision, reply, input) VALUES
 (10, 10, 1, NULL, NULL, 'mera naam Rekha Kumari hai', '{"fields":{"name":"Rekha Kumari"}}', '{"asked":"name","reason":"name answered"}', 'आपका जिला?', 'typed'),
 (11, 11, 1, NULL, 'tests/data/corpus_good/audios/u_name.wav', 'mera naam Sita hai', '{"fields":{"name":"Sita"}}', '{"asked":"name","reason":"name answered"}', 'धन्यवाद।', 'mic'),
 (12, 12, 1, 'u_quote', NULL, 'she said haan', '{"fields":{}}', '{"asked":"name","reason":"re-ask"}', 'कृपया अपना नाम बताइए।', 'corpus'),
 (13, 13, 1, 'u_quote', NULL, 'she said haan', '{"fields":{}}', '{"asked":"name","reason":"re-ask"}', 'धन्यवाद।', 'corpus'),
 (14, 14, 1, 'u_name', NULL, 'mera naam Sunita Devi hai', '{"fields":{"name":"Sunita Devi"}}', '{"asked":"name","reason":"name answered"}', 'आपका जिला?', 'corpus'),
 (15, 14, 2, 'u_district', NULL, 'Gaya', '{"fields":{"district":"Gaya"}}', '{"asked":"district","reason":"district answered"}', 'धन्यवाद।', 'corpus');
INSERT INTO captures (turn_id, field, raw, value, status) VALUES
 (10, 'name', 'Rekha Kumari', 'Rekha Kumari', 'answered'),
 (11, 'name', 'Sita', 'Sita', 'answered'),
 (14, 'name', 'Sunita Devi', 'Sunita Devi', 'answered'),
 (15, 'district', 'Gaya', 'Gaya', 'answered');
-- call 15: a call of the corpus tests/data/corpus_bargein ("bargein"), which expects no form:
--          its captured name is an item without an expected value (queued with that corpus).
INSERT INTO calls (id, corpus, corpus_call_id, form_path, status, reason, form_data, form_status, turns) VALUES
 (15, 'bargein', 'call1', 'forms/armman_enrollment.json', 'complete', 'done', '{"name":"Sunita"}', '{"name":"answered"}', 1);
INSERT INTO turns (id, call_id, idx, utterance_id, audio, transcript, extraction, decision, reply, input) VALUES
 (16, 15, 1, 'u_name', NULL, 'mera naam Sunita hai', '{"fields":{"name":"Sunita"}}', '{"asked":"name","reason":"name answered"}', 'आपका जिला?', 'corpus');
INSERT INTO captures (turn_id, field, raw, value, status) VALUES
 (16, 'name', 'Sunita', 'Sunita', 'answered');
