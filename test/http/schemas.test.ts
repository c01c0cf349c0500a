import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { buildTestApp } from '../helpers/app.js';

describe("every route's schemas", () => {
  it('compile (they are compiled on first use when serving)', async () => {
    const t = await buildTestApp();
    try {
      assert.doesNotThrow(() => t.app.compileSchemas());
    } finally {
      await t.close();
    }
  });
});
