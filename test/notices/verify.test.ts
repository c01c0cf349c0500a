import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { verifySmtp } from '../../src/notices/index.js';
import { startSmtp } from '../helpers/smtp.js';

describe('verifySmtp', () => {
  it('resolves for an SMTP server that answers and rejects once it is gone', async () => {
    const smtp = await startSmtp();
    await verifySmtp(smtp.url);
    await smtp.close();
    await assert.rejects(verifySmtp(smtp.url), /ECONNREFUSED|connect/i);
  });
});
