import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { intervalJob, startJobs, type Job } from './job.js';

/** Polls `check` until it holds (5 s at most). */
async function until(check: () => boolean): Promise<void> {
  for (const deadline = Date.now() + 5_000; !check() && Date.now() < deadline;)
    await new Promise((resolve) => setTimeout(resolve, 5));
}

const silent = { info() {}, warn() {}, error() {}, debug() {} };

describe('startJobs', () => {
  it('starts jobs in order and stops them in the reverse order', async () => {
    const events: string[] = [];
    const job = (name: string): Job => ({
      name,
      start: () => void events.push(`start ${name}`),
      stop: async () => void events.push(`stop ${name}`),
    });
    const stop = startJobs([job('a'), job('b'), job('c')], silent);
    await stop();
    assert.deepEqual(events, ['start a', 'start b', 'start c', 'stop c', 'stop b', 'stop a']);
  });
});

describe('intervalJob', () => {
  it('runs on its interval, never two runs at once, and stop waits for the run in progress', async () => {
    let runs = 0;
    let active = 0;
    let overlapped = false;
    let finished = 0;
    const job = intervalJob(
      'test.tick',
      5,
      async () => {
        runs++;
        active++;
        if (active > 1) overlapped = true;
        await new Promise((resolve) => setTimeout(resolve, 20));
        active--;
        finished++;
      },
      silent,
    );
    job.start();
    await until(() => runs >= 2);
    await job.stop();
    assert.ok(runs >= 2, 'ran');
    assert.equal(overlapped, false);
    assert.equal(finished, runs, 'stop waited for the run in progress');
    const after = runs;
    await new Promise((resolve) => setTimeout(resolve, 30));
    assert.equal(runs, after, 'no run after stop');
  });

  it('logs a failed run and runs again at the next interval', async () => {
    const warnings: string[] = [];
    let runs = 0;
    const job = intervalJob(
      'test.fail',
      5,
      async () => {
        runs++;
        throw new Error('boom');
      },
      { ...silent, warn: (_o: object, msg?: string) => void warnings.push(msg ?? '') },
    );
    job.start();
    await until(() => runs >= 2 && warnings.length >= 1);
    await job.stop();
    assert.ok(runs >= 2, `ran ${runs} times`);
    assert.equal(warnings[0], 'test.fail failed; retried next interval');
  });
});
