// Which store failures mean "the database is not there right now" (503, retry) and which are
// faults (500): the codes and messages PostgreSQL, node-postgres, the network and SQLite give.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { logPassFailure, storeUnavailable, whyStoreUnavailable } from '../src/store/unavailable.js';
import { unexpectedProblem } from '../src/http/problem.js';

const failure = (message: string, code?: string) => Object.assign(new Error(message), code === undefined ? {} : { code });

const UNAVAILABLE: [string, Error][] = [
  ['connection refused', failure('connect ECONNREFUSED 127.0.0.1:5432', 'ECONNREFUSED')],
  ['connection reset', failure('read ECONNRESET', 'ECONNRESET')],
  ['connect timed out', failure('connect ETIMEDOUT 10.0.0.9:5432', 'ETIMEDOUT')],
  ['broken pipe', failure('write EPIPE', 'EPIPE')],
  ['connection dropped', failure('Connection terminated unexpectedly')],
  ['connect timeout', failure('Connection terminated due to connection timeout')],
  ['pool timeout', failure('timeout exceeded when trying to connect')],
  ['client already failed', failure('Client has encountered a connection error and is not queryable')],
  ['08006 connection failure', failure('server closed the connection', '08006')],
  ['08001 cannot connect', failure('could not connect', '08001')],
  ['57P01 terminated by administrator', failure('terminating connection due to administrator command', '57P01')],
  ['57P02 crash shutdown', failure('terminating connection because of crash of another server process', '57P02')],
  ['57P03 cannot connect now', failure('the database system is starting up', '57P03')],
  ['53300 too many connections', failure('sorry, too many clients already', '53300')],
  ['55000 database refuses connections', failure('database "gantry" is not currently accepting connections', '55000')],
  ['3D000 database does not exist', failure('database "gantry" does not exist', '3D000')],
  ['SQLite file locked', failure('database is locked', 'SQLITE_BUSY')],
  ['dual-stack connect refused on both addresses', new AggregateError([failure('connect ECONNREFUSED ::1:5432', 'ECONNREFUSED')], '')],
  ['wrapped in a cause', new Error('query failed', { cause: failure('read ECONNRESET', 'ECONNRESET') })],
];

const FAULTS: [string, unknown][] = [
  ['unique violation', failure('duplicate key value violates unique constraint', '23505')],
  ['syntax error', failure('syntax error at or near "SELEC"', '42601')],
  ['55000 about something else', failure('cannot execute nextval() in a read-only transaction', '55000')],
  ['query canceled', failure('canceling statement due to statement timeout', '57014')],
  ['plain bug', new TypeError("Cannot read properties of undefined (reading 'id')")],
  ['not an error', 'ECONNREFUSED'],
];

test('every "the database is not there right now" condition is unavailable, with its code and a reason', () => {
  for (const [what, error] of UNAVAILABLE) {
    const why = whyStoreUnavailable(error);
    assert.ok(why, `${what} should be unavailable`);
    assert.match(why.code, /^[0-9A-Z_]+$/, what);
    assert.ok(why.reason.length > 0, what);
  }
});

test('the log names the code the database or the network gave', () => {
  const codeOf = (message: string, code?: string) => whyStoreUnavailable(failure(message, code))?.code;
  assert.equal(codeOf('server closed the connection', '08006'), '08006');
  assert.equal(codeOf('terminating connection due to administrator command', '57P01'), '57P01');
  assert.equal(codeOf('database "gantry" is not currently accepting connections', '55000'), '55000');
  assert.equal(codeOf('database "gantry" does not exist', '3D000'), '3D000');
  assert.equal(codeOf('connect ECONNREFUSED 127.0.0.1:5432', 'ECONNREFUSED'), 'ECONNREFUSED');
  assert.equal(codeOf('Connection terminated unexpectedly'), 'CONNECTION_TERMINATED');
  assert.equal(codeOf('timeout exceeded when trying to connect'), 'POOL_TIMEOUT');
});

test('faults that a retry would not fix are not unavailable', () => {
  for (const [what, error] of FAULTS) assert.equal(storeUnavailable(error), false, what);
});

test('an unavailable database answers 503 with Retry-After; a fault answers 500', () => {
  const down = unexpectedProblem(failure('database "gantry" is not currently accepting connections', '55000'));
  assert.equal(down.status, 503);
  assert.equal(down.headers['Retry-After'], '2');
  assert.equal(unexpectedProblem(failure('duplicate key', '23505')).status, 500);
});

test('a background pass failing while the database is away is a warning with its code; a fault is an error', () => {
  const logged: [string, Record<string, unknown>, string][] = [];
  const log = {
    warn: (fields: object, message: string) => void logged.push(['warn', fields as Record<string, unknown>, message]),
    error: (fields: object, message: string) => void logged.push(['error', fields as Record<string, unknown>, message]),
  };
  logPassFailure(log, failure('terminating connection due to administrator command', '57P01'), 'job sweep failed');
  logPassFailure(log, failure('Client has encountered a connection error and is not queryable'), 'job sweep failed');
  logPassFailure(log, failure('duplicate key', '23505'), 'job sweep failed');
  assert.deepEqual(
    logged.map(([level, fields]) => [level, fields.code ?? null, 'err' in fields]),
    [
      ['warn', '57P01', false],
      ['warn', 'CONNECTION_BROKEN', false],
      ['error', null, true],
    ],
  );
});
