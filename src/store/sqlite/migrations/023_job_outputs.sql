-- A large output is kept apart from its job's row, as a large input is (docs/decisions/0036). A
-- finished job's row still changes size after its result: a webhook's claim and its delivery
-- rewrote a job with a 1 MB output twice more, and a stream read reads past it. Its row then holds
-- '' as its output. Rows written before this migration keep theirs inline.
CREATE TABLE job_outputs (
  seq    INTEGER PRIMARY KEY REFERENCES jobs (seq) ON DELETE CASCADE,
  output TEXT NOT NULL
);
