-- What schema version 4 added to version 3's tables (store_v3_schema.sql): the
-- acknowledgement columns stage_usage.ack_ms and turns.ack.
ALTER TABLE stage_usage ADD COLUMN ack_ms REAL;
ALTER TABLE turns ADD COLUMN ack TEXT;
