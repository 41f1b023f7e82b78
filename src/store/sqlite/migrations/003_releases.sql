-- Every configuration version of an endpoint, with what changed from the previous one.
CREATE TABLE releases (
  id           TEXT PRIMARY KEY,
  endpoint_id  TEXT NOT NULL,
  version      INTEGER NOT NULL,
  source       TEXT NOT NULL,
  diff         TEXT NOT NULL,
  created_by   TEXT,
  created_at   TEXT NOT NULL,
  UNIQUE (endpoint_id, version)
);
