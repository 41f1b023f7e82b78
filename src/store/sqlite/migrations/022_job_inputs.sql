-- A large input is kept apart from its job's row (docs/decisions/0035). SQLite rewrites a whole
-- row, overflow pages and all, whenever an update changes its size, as a take and a result do:
-- a job with a 1 MB input wrote 1 MB more for each. Its row then holds '' as its input. Rows
-- written before this migration keep theirs inline.
CREATE TABLE job_inputs (
  seq   INTEGER PRIMARY KEY REFERENCES jobs (seq) ON DELETE CASCADE,
  input TEXT NOT NULL
);
