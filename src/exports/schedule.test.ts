import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { followingOccurrence, scheduleProblem } from './schedule.js';

describe('followingOccurrence', () => {
  it('runs a schedule stored with several minutes of an hour at most hourly', () => {
    // Refused today, but stored before the bound: '0,30' would run every 30 minutes.
    assert.notEqual(scheduleProblem('0,30 * * * *', 'UTC'), null);
    let at = new Date('2026-11-22T10:00:00Z');
    const runs: string[] = [];
    for (let i = 0; i < 3; i++) {
      at = followingOccurrence('0,30 * * * *', 'UTC', at);
      runs.push(at.toISOString());
    }
    assert.deepEqual(runs, [
      '2026-11-22T11:00:00.000Z',
      '2026-11-22T12:00:00.000Z',
      '2026-11-22T13:00:00.000Z',
    ]);
  });

  it('keeps an hourly schedule hourly and a weekly one weekly', () => {
    const from = new Date('2026-11-23T06:00:00Z');
    assert.equal(
      followingOccurrence('0 * * * *', 'UTC', from).toISOString(),
      '2026-11-23T07:00:00.000Z',
    );
    assert.equal(
      followingOccurrence('0 6 * * 1', 'UTC', from).toISOString(),
      '2026-11-30T06:00:00.000Z',
    );
  });
});
