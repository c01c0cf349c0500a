import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { closing, intervalJob, pollerJob, startJobs, type Job } from './job.js';

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

  it('stops each job once, however often the stop is asked for', async () => {
    let stops = 0;
    const stop = startJobs([closing('test.part', () => void stops++)], silent);
    await Promise.all([stop(), stop()]);
    await stop();
    assert.equal(stops, 1);
  });

  it('stops the other jobs when one fails to stop, then throws its failure', async () => {
    const events: string[] = [];
    const errors: string[] = [];
    const stop = startJobs(
      [
        closing('test.a', () => void events.push('stop a')),
        closing('test.b', () => Promise.reject(new Error('b failed'))),
        closing('test.c', () => void events.push('stop c')),
      ],
      { ...silent, error: (_o: object, msg?: string) => void errors.push(msg ?? '') },
    );
    await assert.rejects(stop(), /b failed/);
    assert.deepEqual(events, ['stop c', 'stop a']);
    assert.deepEqual(errors, ['test.b did not stop cleanly']);
  });
});

describe('pollerJob', () => {
  it('polls only with an interval above 0, and stops its poller either way', async () => {
    for (const everyMs of [0, 50]) {
      const calls: string[] = [];
      const job = pollerJob('test.queue', everyMs, {
        start: (ms) => void calls.push(`start ${ms}`),
        stop: async () => void calls.push('stop'),
      });
      job.start();
      await job.stop();
      assert.deepEqual(calls, everyMs === 0 ? ['stop'] : ['start 50', 'stop']);
    }
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

  it('runs once at start when told, and its last write at stop after the run in progress', async () => {
    const events: string[] = [];
    const job = intervalJob(
      'test.flush',
      60_000,
      async () => {
        events.push('run');
        await new Promise((resolve) => setTimeout(resolve, 20));
        events.push('run done');
      },
      silent,
      { atStart: true, atStop: async () => void events.push('last write') },
    );
    job.start();
    await job.stop();
    assert.deepEqual(events, ['run', 'run done', 'last write']);
  });

  it('with an interval of 0 never runs on a timer, but still writes at stop', async () => {
    let runs = 0;
    let lastWrites = 0;
    const job = intervalJob('test.manual', 0, async () => void runs++, silent, {
      atStart: true,
      atStop: async () => void lastWrites++,
    });
    job.start();
    await new Promise((resolve) => setTimeout(resolve, 20));
    await job.stop();
    assert.equal(runs, 0);
    assert.equal(lastWrites, 1);
  });
});
