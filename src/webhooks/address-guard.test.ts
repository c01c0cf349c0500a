import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { addressRefusal, checkTargetUrl } from './address-guard.js';

describe('addressRefusal', () => {
  const refused = [
    '127.0.0.1',
    '127.5.6.7',
    '10.0.0.1',
    '172.16.3.4',
    '192.168.1.1',
    '169.254.169.254',
    '100.64.0.1',
    '0.0.0.0',
    '255.255.255.255',
    '224.0.0.1',
    '192.0.2.10',
    '198.18.0.1',
    '240.0.0.1',
    '::1',
    '::',
    'fe80::1',
    'fc00::1',
    'fd12:3456::1',
    'ff02::1',
    '::ffff:127.0.0.1',
    '::ffff:10.0.0.1',
    '::ffff:8.8.8.8',
    '64:ff9b::7f00:1',
    '2002:7f00:1::1',
    '2001:db8::1',
    '::127.0.0.1',
    '::7f00:1',
    '::a00:1',
    '::8.8.8.8',
    '100::1',
    '4000::1',
  ];
  for (const address of refused) {
    it(`refuses ${address}`, () => assert.notEqual(addressRefusal(address), null));
  }
  for (const address of ['8.8.8.8', '93.184.215.14', '1.1.1.1', '2606:4700:4700::1111']) {
    it(`allows ${address}`, () => assert.equal(addressRefusal(address), null));
  }
});

describe('checkTargetUrl', () => {
  const cases: { url: string; allowPrivate?: boolean; ok: boolean; reason?: RegExp }[] = [
    { url: 'https://hooks.example.com/salary', ok: true },
    { url: 'https://93.184.215.14:8443/x', ok: true },
    { url: 'http://hooks.example.com/salary', ok: false, reason: /https/ },
    { url: 'ftp://hooks.example.com/', ok: false, reason: /https/ },
    { url: 'not a url', ok: false, reason: /absolute URL/ },
    { url: 'https://user:pw@hooks.example.com/', ok: false, reason: /credentials/ },
    { url: 'https://127.0.0.1/hook', ok: false, reason: /loopback/ },
    { url: 'https://[::1]/hook', ok: false, reason: /loopback/ },
    { url: 'https://[::ffff:127.0.0.1]/hook', ok: false, reason: /ipv4Mapped/ },
    { url: 'https://10.1.2.3/hook', ok: false, reason: /private/ },
    { url: 'https://169.254.169.254/latest', ok: false, reason: /linkLocal/ },
    { url: 'https://localhost/hook', ok: false, reason: /local name/ },
    { url: 'https://metadata/hook', ok: false, reason: /local name/ },
    { url: 'https://2130706433/hook', ok: false, reason: /loopback/ },
    { url: 'https://[::127.0.0.1]/', ok: false, reason: /2000::\/3/ },
    { url: 'https://localhost./hook', ok: false, reason: /local name/ },
    { url: 'https://LOCALHOST../hook', ok: false, reason: /local name/ },
    { url: 'https://metadata.google.internal./x', ok: false, reason: /local name/ },
    { url: 'https://metadata./x', ok: false, reason: /local name/ },
    { url: 'https://127.0.0.1./x', ok: false, reason: /loopback/ },
    { url: 'https://router.home.arpa/x', ok: false, reason: /local name/ },
    { url: 'https://hooks.example.com./salary', ok: true },
    { url: 'http://127.0.0.1:9999/hook', allowPrivate: true, ok: true },
    { url: 'https://localhost/hook', allowPrivate: true, ok: true },
    { url: 'http://u:p@127.0.0.1/hook', allowPrivate: true, ok: false, reason: /credentials/ },
  ];
  for (const c of cases) {
    it(`${c.ok ? 'accepts' : 'refuses'} ${c.url}${c.allowPrivate ? ' (private allowed)' : ''}`, () => {
      const result = checkTargetUrl(c.url, c.allowPrivate ?? false);
      assert.equal(result.ok, c.ok);
      if (!result.ok && c.reason) assert.match(result.reason, c.reason);
    });
  }
});
