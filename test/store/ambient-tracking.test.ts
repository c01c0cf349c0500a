import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, it } from 'node:test';

// The probe as this file runs: compiled (`npm test`), or from source through tsx.
const COMPILED = import.meta.url.endsWith('.js');
const PROBE = fileURLToPath(
  new URL(`../helpers/ambient-probe.${COMPILED ? 'js' : 'ts'}`, import.meta.url),
);
const LOADER = COMPILED ? [] : ['--import', 'tsx'];

/**
 * Node before 24 implements AsyncLocalStorage with async hooks (24 with AsyncContextFrame, which
 * tracks nothing per promise): there, while an ambient transaction runs, promises are tracked.
 */
const hooksWhileRunning = Number(process.versions.node.split('.')[0]) < 24;

function probe(scenario: string): {
  steps: Record<string, boolean | number>;
  statements: string[];
} {
  const out = execFileSync(process.execPath, [...LOADER, PROBE, scenario], {
    encoding: 'utf8',
  });
  return JSON.parse(out) as { steps: Record<string, boolean | number>; statements: string[] };
}

describe('ambient transactions leave no async tracking behind', () => {
  it('tracks promises only while a transaction is open, and again for the next one', () => {
    const { steps, statements } = probe('sequential');
    assert.deepEqual(steps, {
      before: false,
      during: hooksWhileRunning,
      // Without switching the storage off, async hooks stay on for the process's life.
      afterEnd: false,
      againDuring: hooksWhileRunning,
      after: false,
      open: 0,
      routedOutside: false,
    });
    assert.deepEqual(statements, [
      'a: SAVEPOINT ambient_1',
      'a: INSERT 1',
      'a: RELEASE SAVEPOINT ambient_1',
      'a: COMMIT',
      'b: SAVEPOINT ambient_1',
      'b: INSERT 2',
      'b: RELEASE SAVEPOINT ambient_1',
      'b: ROLLBACK',
    ]);
  });

  it('keeps the context of a transaction still open when an overlapping one ends', () => {
    const { steps, statements } = probe('overlapping');
    assert.deepEqual(steps, {
      before: false,
      afterFirstEnds: hooksWhileRunning,
      after: false,
      open: 0,
      routedOutside: false,
    });
    // The second transaction's statement after the first ended still went to it.
    assert.ok(statements.includes('b: INSERT 3'), statements.join('\n'));
    assert.equal(statements.at(-1), 'b: ROLLBACK');
  });
});
