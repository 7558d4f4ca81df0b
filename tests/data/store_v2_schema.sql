-- What schema version 2 added to version 1's tables (store_v1_schema.sql): turns.cancelled
-- and the stage_usage table.
ALTER TABLE turns ADD COLUMN cancelled INTEGER NOT NULL DEFAULT 0;
CREATE TABLE stage_usage ( id INTEGER PRIMARY KEY, call_id INTEGER NOT NULL REFERENCES calls(id) ON DELETE CASCADE, turn_id INTEGER REFERENCES turns(id) ON DELETE CASCADE, stage TEXT NOT NULL, provider TEXT, model TEXT, ttfb_ms REAL, total_ms REAL, attempts INTEGER, tokens_in INTEGER, tokens_out INTEGER, audio_s REAL, cost_usd REAL, error TEXT);
CREATE INDEX stage_usage_turn ON stage_usage(turn_id);
CREATE INDEX stage_usage_call ON stage_usage(call_id, stage);
