-- Each replica's heartbeat says which schema version its Gantry knows, so a migration that older
-- replicas cannot run beside is refused while one of them is live (docs/decisions/0045).
-- NULL: a replica of a Gantry from before this column, older than any migration that checks.
ALTER TABLE replicas ADD COLUMN schema_version INTEGER;
