import assert from 'node:assert/strict';
import { after, afterEach, before, describe, it } from 'node:test';
import { DAY_MS, HOUR_MS, type LimitRule, type RateLimiter } from '../../src/limits/index.js';

export interface LimiterUnderTest {
  limiter: RateLimiter;
  /** Asserts after each case that the implementation decided as itself (no fallback). */
  check?(): void;
  close(): Promise<void>;
}

/**
 * The behaviour every `RateLimiter` promises (limits/limiter.ts), as one list of cases run
 * against each implementation. Times are relative to `base`, a UTC midnight that must lie in
 * the future (a Redis counter expires at its window's end by Redis's own clock).
 */
export function limiterContract(
  name: string,
  make: () => Promise<LimiterUnderTest>,
  base: number,
  options: { skip?: string | false } = {},
): void {
  describe(`RateLimiter contract: ${name}`, { skip: options.skip }, () => {
    let under: LimiterUnderTest;
    let limiter: RateLimiter;
    before(async () => {
      under = await make();
      limiter = under.limiter;
    });
    after(() => under.close());
    afterEach(() => under.check?.());

    const hourly = (limit: number): LimitRule => ({ name: 'hourly', limit, windowMs: HOUR_MS });
    const daily = (limit: number): LimitRule => ({ name: 'daily', limit, windowMs: DAY_MS });
    const at = (hhmmss: string, day = 0) =>
      base + day * DAY_MS + Date.parse(`1970-01-01T${hhmmss}Z`);
    const remaining = async (bucket: string, rules: LimitRule[], now: number) =>
      (await limiter.peek(bucket, rules, now)).states.map((s) => s.remaining);

    it('admits exactly the limit; the request after it (limit + 1) is refused', async () => {
      const rules = [hourly(3)];
      const now = at('10:20:00');
      const seen = [];
      for (let i = 0; i < 5; i++) seen.push(await limiter.spend('limit', rules, now));
      assert.deepEqual(
        seen.map((d) => d.allowed),
        [true, true, true, false, false],
      );
      assert.deepEqual(
        seen.map((d) => d.states[0]!.remaining),
        [2, 1, 0, 0, 0],
      );
      assert.deepEqual(
        seen.map((d) => d.retryAfterSeconds),
        [0, 0, 0, 40 * 60, 40 * 60],
      );
      assert.ok(seen.every((d) => d.states[0]!.resetAt === at('11:00:00')));
    });

    it('a refused request spends nothing: the count stays at the limit', async () => {
      const rules = [daily(2)];
      const now = at('08:00:00');
      await limiter.spend('spend', rules, now);
      await limiter.spend('spend', rules, now);
      for (let i = 0; i < 20; i++)
        assert.equal((await limiter.spend('spend', rules, now)).allowed, false);
      assert.deepEqual(await remaining('spend', rules, now), [0]);
      // The next day starts from zero, not from the refusals.
      const next = await limiter.spend('spend', rules, at('00:00:00', 1));
      assert.equal(next.allowed, true);
      assert.equal(next.states[0]!.remaining, 1);
    });

    it('the day ends at 00:00:00.000 UTC: 23:59:59.999 is the old day', async () => {
      const rules = [daily(2)];
      assert.equal((await limiter.spend('midnight', rules, at('00:00:00'))).allowed, true);
      assert.equal((await limiter.spend('midnight', rules, at('23:59:59.999'))).allowed, true);
      const refused = await limiter.spend('midnight', rules, at('23:59:59.999'));
      assert.equal(refused.allowed, false);
      assert.equal(refused.retryAfterSeconds, 1);
      assert.equal(refused.states[0]!.resetAt, at('00:00:00', 1));
      const fresh = await limiter.spend('midnight', rules, at('00:00:00', 1));
      assert.equal(fresh.allowed, true);
      assert.equal(fresh.states[0]!.remaining, 1);
      assert.equal(fresh.states[0]!.resetAt, at('00:00:00', 2));
    });

    it('the hour ends at :00:00.000; Retry-After is whole seconds rounded up', async () => {
      const rules = [hourly(1)];
      assert.equal((await limiter.spend('hour', rules, at('10:00:00'))).allowed, true);
      const cases: [string, number][] = [
        ['10:00:00', 3600],
        ['10:59:58.001', 2],
        ['10:59:59', 1],
        ['10:59:59.999', 1],
      ];
      for (const [time, seconds] of cases) {
        const d = await limiter.spend('hour', rules, at(time));
        assert.equal(d.allowed, false, time);
        assert.equal(d.retryAfterSeconds, seconds, time);
      }
      assert.equal((await limiter.spend('hour', rules, at('11:00:00'))).allowed, true);
    });

    it('a limit of 0 refuses at once, until the window ends', async () => {
      const d = await limiter.spend('zero', [hourly(0)], at('10:30:00'));
      assert.equal(d.allowed, false);
      assert.equal(d.retryAfterSeconds, 1800);
      assert.equal(d.states[0]!.remaining, 0);
    });

    it('is all-or-nothing across rules, whichever rule refuses', async () => {
      const rules = [hourly(2), daily(3)];
      const t = at('10:00:00');
      assert.equal((await limiter.spend('multi', rules, t)).allowed, true);
      assert.equal((await limiter.spend('multi', rules, t)).allowed, true);
      for (let i = 0; i < 5; i++) {
        const d = await limiter.spend('multi', rules, t);
        assert.equal(d.allowed, false);
        assert.equal(d.retryAfterSeconds, 3600, 'until the refusing (hourly) rule resets');
        assert.deepEqual(
          d.states.map((s) => s.remaining),
          [0, 1],
          'daily untouched by the hourly refusal',
        );
      }
      const t2 = at('11:30:00');
      assert.equal((await limiter.spend('multi', rules, t2)).allowed, true);
      const dayRefuses = await limiter.spend('multi', rules, t2);
      assert.equal(dayRefuses.allowed, false);
      assert.equal(dayRefuses.retryAfterSeconds, 12.5 * 3600, 'until the daily rule resets');
      assert.deepEqual(
        dayRefuses.states.map((s) => s.remaining),
        [1, 0],
        'hourly untouched by the daily refusal',
      );
      assert.deepEqual(
        dayRefuses.states.map((s) => s.resetAt),
        [at('12:00:00'), at('00:00:00', 1)],
      );
      assert.deepEqual(await remaining('multi', rules, t2), [1, 0]);
    });

    it('peek counts nothing and sees what spend would', async () => {
      const rules = [hourly(2)];
      const t = at('15:00:00');
      for (let i = 0; i < 5; i++) assert.deepEqual(await remaining('peek', rules, t), [2]);
      await limiter.spend('peek', rules, t);
      await limiter.spend('peek', rules, t);
      const peeked = await limiter.peek('peek', rules, t);
      assert.equal(peeked.allowed, false);
      assert.equal(peeked.retryAfterSeconds, 3600);
      assert.deepEqual(await remaining('peek', rules, at('16:00:00')), [2]);
    });

    it('buckets, and rules of different names, count apart', async () => {
      const t = at('12:00:00');
      assert.equal((await limiter.spend('apart-a', [hourly(1)], t)).allowed, true);
      assert.equal((await limiter.spend('apart-a', [hourly(1)], t)).allowed, false);
      assert.equal((await limiter.spend('apart-b', [hourly(1)], t)).allowed, true);
      assert.equal((await limiter.spend('apart-a', [daily(1)], t)).allowed, true);
    });

    it('admits exactly the limit of many concurrent requests', async () => {
      const rules = [hourly(25), daily(40)];
      const t = at('18:00:00');
      const decisions = await Promise.all(
        Array.from({ length: 90 }, () => limiter.spend('burst', rules, t)),
      );
      assert.equal(decisions.filter((d) => d.allowed).length, 25);
      assert.deepEqual(await remaining('burst', rules, t), [0, 15]);
    });

    it('release gives back one admitted request of its window, never below zero', async () => {
      const rules = [hourly(1)];
      const t = at('19:00:00');
      assert.equal((await limiter.spend('release', rules, t)).allowed, true);
      assert.equal((await limiter.spend('release', rules, t)).allowed, false);
      await limiter.release('release', rules, t);
      await limiter.release('release', rules, t);
      assert.deepEqual(await remaining('release', rules, t), [1]);
      assert.equal((await limiter.spend('release', rules, t)).allowed, true);
      await limiter.release('release', rules, at('20:00:00'));
      assert.deepEqual(await remaining('release', rules, t), [0], 'another window untouched');
    });

    it('a request of cost 2 spends 2; with 1 left it is refused and spends nothing', async () => {
      const rules = [hourly(5)];
      const t = at('13:00:00');
      const seen = [];
      for (let i = 0; i < 3; i++) seen.push(await limiter.spend('cost', rules, t, 2));
      assert.deepEqual(
        seen.map((d) => [d.allowed, d.states[0]!.remaining]),
        [
          [true, 3],
          [true, 1],
          [false, 1],
        ],
      );
      assert.equal(seen[2]!.retryAfterSeconds, 3600);
      assert.deepEqual(await remaining('cost', rules, t), [1], 'the refusal spent nothing');
      // The unit left is still there for a request of cost 1.
      const one = await limiter.spend('cost', rules, t);
      assert.deepEqual([one.allowed, one.states[0]!.remaining], [true, 0]);
      assert.equal((await limiter.spend('cost', rules, t)).allowed, false);
    });

    it('a cost is all-or-nothing across rules: one rule with too little left spends none', async () => {
      const rules = [hourly(10), daily(3)];
      const t = at('14:00:00');
      assert.equal((await limiter.spend('cost-multi', rules, t, 2)).allowed, true);
      const refused = await limiter.spend('cost-multi', rules, t, 2);
      assert.equal(refused.allowed, false);
      assert.equal(refused.retryAfterSeconds, 10 * 3600, 'until the refusing (daily) rule resets');
      assert.deepEqual(
        refused.states.map((s) => s.remaining),
        [8, 1],
        'the hourly rule, which had room, is untouched',
      );
      assert.deepEqual(await remaining('cost-multi', rules, t), [8, 1]);
    });

    it('admits exactly what fits of many concurrent requests of cost 3', async () => {
      const rules = [hourly(20), daily(31)];
      const t = at('17:00:00');
      const decisions = await Promise.all(
        Array.from({ length: 30 }, () => limiter.spend('cost-burst', rules, t, 3)),
      );
      assert.equal(decisions.filter((d) => d.allowed).length, 6, '6 × 3 = 18 ≤ 20 < 21');
      assert.deepEqual(await remaining('cost-burst', rules, t), [2, 13]);
    });

    it('release gives back the cost it is given, never below zero', async () => {
      const rules = [hourly(4)];
      const t = at('20:00:00');
      assert.equal((await limiter.spend('cost-release', rules, t, 3)).allowed, true);
      await limiter.release('cost-release', rules, t, 2);
      assert.deepEqual(await remaining('cost-release', rules, t), [3]);
      await limiter.release('cost-release', rules, t, 2);
      assert.deepEqual(await remaining('cost-release', rules, t), [4]);
      assert.equal((await limiter.spend('cost-release', rules, t, 4)).allowed, true);
    });

    it('a request with no rules is allowed and reports no state', async () => {
      const d = await limiter.spend('none', [], at('10:00:00'));
      assert.deepEqual(d, { allowed: true, states: [], retryAfterSeconds: 0 });
    });
  });
}
