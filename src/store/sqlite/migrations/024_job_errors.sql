-- A large error text is kept apart from its job's row, as a large output is (docs/decisions/0036):
-- a failed job's row changes size after its result too (a webhook's claim and delivery), and
-- SQLite then wrote a long traceback again with it. Its row then holds '' as its error. Rows
-- written before this migration keep theirs inline.
CREATE TABLE job_errors (
  seq   INTEGER PRIMARY KEY REFERENCES jobs (seq) ON DELETE CASCADE,
  error TEXT NOT NULL
);
