import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import Fastify from 'fastify';
import { LazySchemas } from './lazy-schemas.js';

async function appWith(schemas: LazySchemas, querystring: object) {
  const app = Fastify({ schemaController: schemas.controller });
  app.get(
    '/q',
    {
      schema: {
        querystring,
        response: { 200: { type: 'object', properties: { n: { type: 'integer' } } } },
      },
    },
    async (request) => ({ n: (request.query as { n: number }).n, hidden: 'not in the schema' }),
  );
  await app.ready();
  return app;
}

const QUERY = {
  type: 'object',
  properties: { n: { type: 'integer', maximum: 10 } },
  required: ['n'],
};

describe('route schemas compiled on first use', () => {
  it('validates and serializes as Fastify compiles them, once the first request comes', async () => {
    const app = await appWith(new LazySchemas(), QUERY);
    const ok = await app.inject('/q?n=3');
    assert.equal(ok.statusCode, 200);
    // The response schema's serializer ran: a field outside it is left out.
    assert.deepEqual(ok.json(), { n: 3 });
    const bad = await app.inject('/q?n=11');
    assert.equal(bad.statusCode, 400);
    assert.match(bad.json<{ message: string }>().message, /must be <= 10/);
    const missing = await app.inject('/q');
    assert.equal(missing.statusCode, 400);
    assert.match(missing.json<{ message: string }>().message, /must have required property 'n'/);
    await app.close();
  });

  it('compileAll throws on a schema that does not compile, before any request', async () => {
    const schemas = new LazySchemas();
    const app = await appWith(schemas, { type: 'object', properties: { n: { type: 'nonsense' } } });
    assert.throws(() => schemas.compileAll(), /schema is invalid|type must be/);
    await app.close();
  });

  it('compileAll leaves nothing to compile on the first request', async () => {
    const schemas = new LazySchemas();
    const app = await appWith(schemas, QUERY);
    schemas.compileAll();
    schemas.compileAll();
    assert.equal((await app.inject('/q?n=1')).statusCode, 200);
    await app.close();
  });
});
