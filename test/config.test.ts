// Reading the configuration from the settings table: precedence, defaults derived from other
// settings, every problem reported at once, and a result nothing can change.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ConfigError, loadConfig, withPort } from '../src/config.js';
import { SETTINGS } from '../src/settings/table.js';
import { optionKeyOf } from '../src/settings/setting.js';

test('flags win over the environment, which wins over defaults; empty counts as not given', () => {
  const config = loadConfig(
    { jobLeaseMs: '1000', takeWaitMs: '' },
    { GANTRY_JOB_LEASE_MS: '2000', GANTRY_STREAM_WAIT_MS: '700', GANTRY_TAKE_WAIT_MS: '' },
  );
  assert.equal(config.jobLeaseMs, 1000);
  assert.equal(config.streamWaitMs, 700);
  assert.equal(config.takeWaitMs, 20_000);
  assert.deepEqual(config.rateLimits, { minute: 6000, hour: 200_000, day: 2_000_000 });
  assert.deepEqual(config.webhookAllowCidrs, []);
  assert.equal(config.databaseUrl, undefined);
});

test('URLs default from the host and port, the worker API URL from the public URL', () => {
  const config = loadConfig({ host: '0.0.0.0', port: '9000', publicUrl: 'https://api.example.com/' }, {});
  assert.equal(config.publicUrl, 'https://api.example.com');
  assert.equal(config.workerApiUrl, 'https://api.example.com');
  assert.equal(config.replicaUrl, 'http://127.0.0.1:9000');
  assert.equal(config.lbUrlPattern, 'https://api.example.com/v2/lb/{id}', 'the path form, which resolves from any client');
  assert.equal(loadConfig({ host: '::1' }, {}).replicaUrl, 'http://[::1]:8080');
});

test('every problem is listed together, each naming its flag and environment variable', () => {
  assert.throws(
    () =>
      loadConfig(
        { port: 'x', logLevel: 'loud', lbUrlPattern: 'http://lb.example.com' },
        { GANTRY_WEBHOOK_ALLOW_CIDRS: '10.0.0.0/8,nope', GANTRY_DATABASE_URL: 'mysql://u:secret@db' },
      ),
    (error: unknown) => {
      assert.ok(error instanceof ConfigError);
      assert.equal(
        error.message,
        [
          'invalid configuration:',
          "  - --port (GANTRY_PORT) must be an integer from 0 to 65535, got 'x'",
          "  - --database (GANTRY_DATABASE_URL) must be a postgres:// URL (leave it unset for the embedded SQLite store), got 'mysql://u:***@db'",
          "  - --lb-url-pattern (GANTRY_LB_URL_PATTERN) must be an http(s) URL containing {id}, got 'http://lb.example.com'",
          "  - --webhook-allow-cidrs (GANTRY_WEBHOOK_ALLOW_CIDRS) must be a comma-separated list of CIDR ranges, got 'nope'",
          "  - --log-level (GANTRY_LOG_LEVEL) must be one of fatal, error, warn, info, debug, trace, silent, got 'loud'",
        ].join('\n'),
      );
      return true;
    },
  );
});

test('the configuration is frozen; withPort makes a new one naming the real port', () => {
  const config = loadConfig({ port: '0', publicUrl: 'http://api.example.com:0/' }, {});
  assert.ok(Object.isFrozen(config) && Object.isFrozen(config.rateLimits) && Object.isFrozen(config.webhookAllowCidrs));
  assert.throws(() => Object.assign(config, { port: 1 }), TypeError);
  const real = withPort(config, 4321);
  assert.ok(Object.isFrozen(real));
  assert.equal(real.port, 4321);
  assert.equal(real.publicUrl, 'http://api.example.com:4321');
  assert.equal(real.replicaUrl, 'http://127.0.0.1:4321');
  assert.equal(real.lbUrlPattern, 'http://api.example.com:4321/v2/lb/{id}');
  assert.equal(config.port, 0, 'the original is unchanged');
});

test('every setting has its own flag and environment variable, and a default that is valid', () => {
  const settings = Object.values(SETTINGS);
  assert.equal(new Set(settings.map((s) => optionKeyOf(s.flag))).size, settings.length);
  assert.equal(new Set(settings.map((s) => s.env)).size, settings.length);
  assert.doesNotThrow(() => loadConfig({}, {}));
});
