import type { FastifyReply, FastifyRequest } from 'fastify';
import type { RefusedForm } from './forms.js';
import type { Flash } from './layout.js';

/** A refused form of the Account page: which one (`contacts`, `password`…) and its state. */
export type AccountForm = RefusedForm<
  'contacts' | 'allowlist' | 'password' | 'delete' | 'two-factor-off'
>;

/** Draws the Account page, with a flash or a refused form: its sections share the one page. */
export type RenderAccount = (
  request: FastifyRequest,
  reply: FastifyReply,
  status: number,
  extra?: { flash?: Flash; form?: AccountForm },
) => Promise<FastifyReply>;
