/**
 * The baseline: a bare Fastify server (no logger, one route). The benchmark transpiles this
 * file and runs it with plain `node`, so no TypeScript loader sits in its process or its RSS.
 * Listens on PORT at HOST (loopback by default); exits cleanly on SIGTERM (so --cpu-prof writes).
 */
import fastify from 'fastify';

const app = fastify();
app.get('/', async () => ({ hello: 'world' }));
await app.listen({ port: Number(process.env.PORT ?? 3000), host: process.env.HOST ?? '127.0.0.1' });
process.once('SIGTERM', () => void app.close().then(() => process.exit(0)));
