// The webhook target guard against every spelling of an internal address: IPv4 in decimal, hex
// and octal forms, IPv6 forms that embed IPv4, brackets, trailing dots, case, userinfo tricks,
// and names that resolve inside (refused at submit as well as at delivery). No test resolves or
// reaches a public address: names go to a fake resolver, except `localhost`.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { AddressPolicy, WebhookSender } from '../src/services/webhooks.js';
import { startLive, type Live } from './support/live.js';

const FAKE_DNS: Record<string, string[]> = {
  'public.example': ['93.184.215.14'],
  'inside.example': ['10.0.0.5'],
  'mixed.example': ['93.184.215.14', '127.0.0.1'],
  'metadata.example': ['::ffff:169.254.169.254'],
  'compat.example': ['::127.0.0.1'],
};
const fakeResolver = async (host: string) => {
  const found = FAKE_DNS[host];
  if (!found) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
  return found;
};

const REFUSED_URLS = [
  'http://127.0.0.1/',
  'http://2130706433/',
  'http://0x7f000001/',
  'http://0x7f.1/',
  'http://127.1/',
  'http://0177.0.0.1/',
  'http://017700000001/',
  'http://127.0.0.1./',
  'http://0/',
  'http://0.0.0.0/',
  'http://10.0.0.1/',
  'http://012.0.0.1/',
  'http://169.254.169.254/latest/meta-data',
  'http://0xa9fea9fe/',
  'http://2852039166/',
  'http://192.168.0.1/',
  'http://172.16.0.1/',
  'http://100.64.0.1/',
  'http://[::1]/',
  'http://[0:0:0:0:0:0:0:1]/',
  'http://[::]/',
  'http://[::127.0.0.1]/',
  'http://[::169.254.169.254]/',
  'http://[::10.0.0.1]/',
  'http://[::7f00:1]/',
  'http://[::ffff:127.0.0.1]/',
  'http://[::ffff:7f00:1]/',
  'http://[::FFFF:A9FE:A9FE]/',
  'http://[0:0:0:0:0:ffff:10.0.0.1]/',
  'http://[64:ff9b::127.0.0.1]/',
  'http://[64:ff9b::a9fe:a9fe]/',
  'http://[64:ff9b:1::10.0.0.1]/',
  'http://[2002:7f00:1::]/',
  'http://[2002:a9fe:a9fe::1]/',
  'http://[2001:0:4136:e378:8000:63bf:80ff:fffe]/',
  'http://[fe80::1]/',
  'http://[fc00::1]/',
  'http://[fd12:3456::1]/',
  'http://[ff02::1]/',
  'http://LOCALHOST/',
  'http://localhost./',
  'http://api.localhost/',
  'http://good.com@127.0.0.1/',
  'http://127.0.0.1:80@good.com/',
  'http://user@10.0.0.1/',
  'HTTP://127.0.0.1/',
  'http://inside.example/',
  'http://mixed.example/hook',
  'http://metadata.example/',
  'http://compat.example/',
  'http://INSIDE.example./',
  'ftp://public.example/',
  'file:///etc/passwd',
  'javascript:alert(1)',
  '//public.example/',
  'not a url',
];
const ACCEPTED_URLS = [
  'https://public.example/hook',
  'https://public.example./hook?token=x',
  'http://93.184.215.14/',
  'http://[2606:4700::1111]/',
  'http://[2002:5db8:d70e::1]/',
  'http://[64:ff9b::93.184.215.14]/',
  'https://unknown-name.example/hook',
];

describe('webhook target spellings', () => {
  const sender = new WebhookSender({ resolve: fakeResolver });
  for (const url of REFUSED_URLS) {
    test(`refused at submit: ${url}`, async () => {
      assert.equal(typeof (await sender.checkTarget(url)), 'string');
    });
  }
  for (const url of ACCEPTED_URLS) {
    test(`accepted at submit: ${url}`, async () => {
      assert.equal(await sender.checkTarget(url), undefined);
    });
  }

  test('embedded IPv4 forms are judged by the IPv4 address inside', () => {
    for (const address of [
      '::127.0.0.1',
      '::169.254.169.254',
      '::10.0.0.1',
      '::ffff:10.0.0.1',
      '64:ff9b::a00:1',
      '2002:a00:1::',
      '2001:0:1:2::f5ff:fffe',
    ]) {
      assert.equal(new AddressPolicy([]).refuses(address), true, address);
    }
    assert.equal(new AddressPolicy(['127.0.0.0/8']).refuses('::127.0.0.1'), false, 'an allowed IPv4 range covers its embedded forms');
  });
});

describe('at delivery, literal addresses in any spelling are never contacted', () => {
  let hits = 0;
  let server: Server;
  let port = 0;
  before(async () => {
    server = createServer((req, res) => {
      hits++;
      res.end();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });
  after(() => new Promise<void>((resolve) => server.close(() => resolve())));

  test('loopback spellings are refused for good, without a connection', async () => {
    const sender = new WebhookSender({ timeoutMs: 500 });
    for (const host of ['127.0.0.1', '2130706433', '0x7f.1', '127.1', '127.0.0.1.', '[::127.0.0.1]', '[::ffff:7f00:1]', 'localhost']) {
      const outcome = await sender.send(`http://${host}:${port}/hook`, '{}');
      assert.deepEqual([outcome.delivered, 'retry' in outcome && outcome.retry], [false, false], `${host}: ${JSON.stringify(outcome)}`);
    }
    assert.equal(hits, 0);
  });
});

describe('through the queue', () => {
  let g: Live;
  before(async () => {
    // The live harness allows 127.0.0.0/8 for its own receivers; this one allows nothing.
    g = await startLive({ webhookAllowCidrs: '' });
  });
  after(() => g.close());

  test('a name that resolves to loopback is a 400 at submit', async () => {
    const res = await g.queue('POST', '/run', { input: {}, webhook: 'http://localhost./hook' });
    assert.equal(res.status, 400, JSON.stringify(res.json));
    const viaName = await g.queue('POST', '/run', { input: {}, webhook: 'http://[::127.0.0.1]/hook' });
    assert.equal(viaName.status, 400, JSON.stringify(viaName.json));
    assert.match(viaName.json.errors[0], /^webhook: must not point at a private/);
  });
});
