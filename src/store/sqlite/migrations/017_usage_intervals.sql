-- Metered usage: contiguous intervals [from_ms, to_ms) per subject (a worker's compute or disk, a
-- network volume, a pod), with the dimensions they are priced by. The key makes a replay a no-op.
CREATE TABLE usage_intervals (
  subject_id  TEXT NOT NULL,
  from_ms     INTEGER NOT NULL,
  to_ms       INTEGER NOT NULL CHECK (to_ms > from_ms),
  account_id  TEXT NOT NULL,
  family      TEXT NOT NULL,
  owner_id    TEXT NOT NULL,
  meter       TEXT NOT NULL,
  resource    TEXT NOT NULL,
  quantity    INTEGER NOT NULL,
  state       TEXT NOT NULL,
  PRIMARY KEY (subject_id, from_ms)
);
CREATE INDEX usage_intervals_by_account ON usage_intervals (account_id, to_ms);
