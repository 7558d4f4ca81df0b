-- What schema version 3 added to version 2's tables (store_v2_schema.sql): the live-call
-- columns (how a turn came in, barge-in, silence, where its audio lies in the recording)
-- and calls.audio_dir.
ALTER TABLE turns ADD COLUMN input TEXT;
ALTER TABLE turns ADD COLUMN barge_in INTEGER NOT NULL DEFAULT 0;
ALTER TABLE turns ADD COLUMN barge_in_ms INTEGER;
ALTER TABLE turns ADD COLUMN silence INTEGER NOT NULL DEFAULT 0;
ALTER TABLE turns ADD COLUMN caller_audio_start_ms INTEGER;
ALTER TABLE turns ADD COLUMN caller_audio_end_ms INTEGER;
ALTER TABLE turns ADD COLUMN agent_audio_start_ms INTEGER;
ALTER TABLE turns ADD COLUMN agent_audio_end_ms INTEGER;
ALTER TABLE calls ADD COLUMN audio_dir TEXT;
