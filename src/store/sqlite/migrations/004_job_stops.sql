-- Jobs a worker must abort, until its stop channel hands them out.
CREATE TABLE job_stops (
  worker_id     TEXT NOT NULL,
  job_id        TEXT NOT NULL,
  requested_at  INTEGER NOT NULL,
  PRIMARY KEY (worker_id, job_id)
) WITHOUT ROWID;
