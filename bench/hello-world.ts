/**
 * The baseline: a bare Fastify server (no logger, one route). The benchmark transpiles this
 * file and runs it with plain `node`, so no TypeScript loader sits in its process or its RSS.
 * Listens on PORT at HOST (loopback by default); exits cleanly on SIGTERM (so --cpu-prof writes).
 *
 * With REPLICA_FILE (JSON `{ path, headers, body }`, captured from our server), it also answers
 * GET `path` with exactly those headers and body and no product logic: the lookup's own bytes
 * from a bare Fastify route, the reference our lookup is measured against. With
 * REPLICA_ACCESS_LOG=true it writes our server's access line for each of those requests, through
 * the same logger, destination and AccessLog (from the build, dist/), as any logged Fastify
 * service would.
 */
import fastify from 'fastify';
import { readFileSync } from 'node:fs';
import type * as AccessLogModule from '../src/http/access-log.js';
import type * as IdsModule from '../src/lib/ids.js';
import type * as LoggerModule from '../src/main/logger.js';

const app = fastify();
app.get('/', async () => ({ hello: 'world' }));
const replicaFile = process.env.REPLICA_FILE;
if (replicaFile !== undefined) {
  const replica = JSON.parse(readFileSync(replicaFile, 'utf8')) as {
    path: string;
    headers: Record<string, string>;
    body: string;
  };
  if (process.env.REPLICA_ACCESS_LOG === 'true') {
    // Run from the repository root (the bench's cwd), after `npm run build`.
    const root = new URL(`file://${process.cwd()}/`);
    const [{ createLogger }, { AccessLog }, { requestIdGenerator }] = await Promise.all([
      import(new URL('dist/main/logger.js', root).href) as Promise<typeof LoggerModule>,
      import(new URL('dist/http/access-log.js', root).href) as Promise<typeof AccessLogModule>,
      import(new URL('dist/lib/ids.js', root).href) as Promise<typeof IdsModule>,
    ]);
    const accessLog = new AccessLog(createLogger({ logLevel: 'info' }, true));
    const nextRequestId = requestIdGenerator();
    // A route-level onResponse hook, where Fastify itself writes its request lines.
    app.get(
      replica.path,
      {
        onResponse: (request, reply, done) => {
          accessLog.write({
            requestId: nextRequestId(),
            method: request.method,
            url: request.url,
            status: reply.statusCode,
            ms: reply.elapsedTime,
            ip: request.ip,
            accountId: null,
          });
          done();
        },
      },
      (_request, reply) => {
        void reply.headers(replica.headers).send(replica.body);
      },
    );
  } else {
    app.get(replica.path, (_request, reply) => {
      void reply.headers(replica.headers).send(replica.body);
    });
  }
}
await app.listen({ port: Number(process.env.PORT ?? 3000), host: process.env.HOST ?? '127.0.0.1' });
process.once('SIGTERM', () => void app.close().then(() => process.exit(0)));
