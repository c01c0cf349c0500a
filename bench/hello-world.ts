/**
 * The baseline: a bare Fastify server (no logger, one route). The benchmark transpiles this
 * file and runs it with plain `node`, so no TypeScript loader sits in its process or its RSS.
 * Listens on PORT at HOST (loopback by default); exits cleanly on SIGTERM (so --cpu-prof writes).
 *
 * With REPLICA_FILE (JSON `{ path, headers, body }`, captured from our server), it also answers
 * GET `path` with exactly those headers and body and no product logic: the lookup's own bytes
 * from a bare Fastify route, the reference our lookup is measured against.
 */
import fastify from 'fastify';
import { readFileSync } from 'node:fs';

const app = fastify();
app.get('/', async () => ({ hello: 'world' }));
const replicaFile = process.env.REPLICA_FILE;
if (replicaFile !== undefined) {
  const replica = JSON.parse(readFileSync(replicaFile, 'utf8')) as {
    path: string;
    headers: Record<string, string>;
    body: string;
  };
  app.get(replica.path, (_request, reply) => {
    void reply.headers(replica.headers).send(replica.body);
  });
}
await app.listen({ port: Number(process.env.PORT ?? 3000), host: process.env.HOST ?? '127.0.0.1' });
process.once('SIGTERM', () => void app.close().then(() => process.exit(0)));
