-- A count of writes to api_keys, moved by triggers whoever writes (this process, the CLI, another
-- process on the same file): a process keeps the key records it read while the count stays put
-- (docs/decisions/0017). A migration that rebuilds api_keys must create these triggers again.
CREATE TABLE api_key_changes (
  id  INTEGER PRIMARY KEY CHECK (id = 1),
  n   INTEGER NOT NULL
);
INSERT INTO api_key_changes (id, n) VALUES (1, 0);
CREATE TRIGGER api_keys_inserted AFTER INSERT ON api_keys BEGIN UPDATE api_key_changes SET n = n + 1 WHERE id = 1; END;
CREATE TRIGGER api_keys_updated AFTER UPDATE ON api_keys BEGIN UPDATE api_key_changes SET n = n + 1 WHERE id = 1; END;
CREATE TRIGGER api_keys_deleted AFTER DELETE ON api_keys BEGIN UPDATE api_key_changes SET n = n + 1 WHERE id = 1; END;
