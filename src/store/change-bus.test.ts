import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  ChangeHandlers,
  coalescedAnnouncer,
  LocalChangeBus,
  type ChangeTopic,
} from './change-bus.js';

const tick = () => new Promise((resolve) => setImmediate(resolve));

describe('ChangeHandlers', () => {
  it('runs every handler of the announced topic only, in the order they were added', async () => {
    const warnings: unknown[] = [];
    const handlers = new ChangeHandlers({
      info() {},
      debug() {},
      error() {},
      warn: (obj) => void warnings.push(obj),
    });
    const ran: string[] = [];
    handlers.on('release', () => void ran.push('data'));
    handlers.on('release', () => Promise.reject(new Error('database away')));
    handlers.on('release', () => void ran.push('webhooks'));
    handlers.on('credentials', () => void ran.push('cache'));
    handlers.dispatch('release');
    await tick();
    assert.deepEqual(ran, ['data', 'webhooks']);
    assert.equal(warnings.length, 1, 'the failed re-read is logged; the others ran');
    assert.deepEqual((warnings[0] as { topic: string }).topic, 'release');
  });
});

describe('coalescedAnnouncer', () => {
  it('announces once per tick however many changes were made in it', async () => {
    const bus = new LocalChangeBus();
    const heard: ChangeTopic[] = [];
    await bus.subscribe((topic) => void heard.push(topic));
    const announcer = coalescedAnnouncer(bus, 'credentials');
    announcer.announce();
    announcer.announce();
    announcer.announce();
    await announcer.flush();
    assert.deepEqual(heard, ['credentials']);
    announcer.announce();
    await announcer.flush();
    assert.deepEqual(heard, ['credentials', 'credentials']);
  });
});
