import type { FastifyPluginAsync } from 'fastify';
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';

const METHODOLOGY_FILE = fileURLToPath(new URL('../../docs/data.md', import.meta.url));

/** GET /methodology: how the data is built (docs/data.md), linked from every salary response. */
export const docsRoutes: FastifyPluginAsync = async (app) => {
  const methodology = await readFile(METHODOLOGY_FILE, 'utf8');
  app.get(
    '/methodology',
    {
      schema: {
        tags: ['Operations'],
        operationId: 'getMethodology',
        summary: 'How the salary figures are modelled, step by step (Markdown)',
        description:
          'Every source, modelling step, number and caveat behind the figures, as Markdown.',
        produces: ['text/markdown'],
        response: {
          200: {
            description: 'The methodology document.',
            content: { 'text/markdown': { schema: { type: 'string' } } },
          },
        },
      },
    },
    async (_request, reply) => reply.type('text/markdown; charset=utf-8').send(methodology),
  );
};
