import type { FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../errors/index.js';
import { flashOf, type DashboardTools, signedIn } from './context.js';
import { markup, type Html } from '../lib/html.js';
import { notInPlan, page, type Flash } from './layout.js';

export type Body = Record<string, unknown>;

/** A form field as trimmed text ('' when absent or not text). */
export function text(body: unknown, name: string): string {
  const value = (body as Body | undefined)?.[name];
  return typeof value === 'string' ? value.trim() : '';
}

/** A form field as typed, not trimmed ('' when absent or not text); the caller bounds its length. */
export function asTyped(body: unknown, name: string): string {
  const value = (body as Body | undefined)?.[name];
  return typeof value === 'string' ? value : '';
}

/** A password field as typed (not trimmed), at most 256 characters ('' when absent or not text). */
export function password(body: unknown, name: string): string {
  return asTyped(body, name).slice(0, 256);
}

/** Every value of a repeated field (checkboxes), text only. */
export function values(body: unknown, name: string): string[] {
  const value = (body as Body | undefined)?.[name];
  const all = Array.isArray(value) ? (value as unknown[]) : [value];
  return all.filter((v): v is string => typeof v === 'string');
}

/** Words of a field separated by spaces, commas or lines. */
export function words(value: string): string[] {
  return value.split(/[\s,]+/).filter((v) => v.length > 0);
}

/** 400 naming each field given with its reason, as the API names its invalid_params. */
export function invalid(...problems: { name: string; reason: string }[]): AppError {
  return AppError.invalidParams(problems);
}

/** The `done` flash of a page after Post/Redirect/Get. */
export function doneFlash(
  request: FastifyRequest,
  done: Record<string, string>,
): Flash | undefined {
  const text = done[String((request.query as Body | undefined)?.['done'])];
  return text === undefined ? undefined : { kind: 'ok', text };
}

/**
 * A feature page's answer for a plan without the feature (or a server without it wired): the
 * page says which plan has it. True when it answered.
 */
export function answeredNotInPlan(
  request: FastifyRequest,
  reply: FastifyReply,
  tools: DashboardTools,
  feature: { path: string; title: string; has: boolean },
): boolean {
  if (feature.has) return false;
  const { principal, page: ctx } = signedIn(request);
  void tools.send(
    reply,
    request.method === 'GET' ? 200 : 403,
    page(
      ctx,
      feature.path,
      feature.title,
      notInPlan(tools.deps.plans, feature.path, principal.plan),
    ),
  );
  return true;
}

/** Runs a form's action; an error is shown on the page `render` draws, with its status. */
export async function act(
  request: FastifyRequest,
  reply: FastifyReply,
  render: (status: number, flash: Flash) => Promise<FastifyReply>,
  run: () => Promise<FastifyReply>,
): Promise<FastifyReply> {
  try {
    return await run();
  } catch (error) {
    const { status, flash } = flashOf(request, error);
    return render(status, flash);
  }
}

/** A secret shown once, with its copy button (the page's script reveals the button). */
export function secretCard(id: string, heading: string, label: string, secret: string): Html {
  return markup`<section class="card" aria-labelledby="${id}-title">
    <h2 id="${id}-title">${heading}</h2>
    <p class="warn">Copy it now: it is shown only once and cannot be shown again.</p>
    <label for="${id}">${label}</label>
    <input id="${id}" class="secret" readonly value="${secret}" />
    <button type="button" data-copy="${id}" hidden>Copy</button>
    <span id="${id}-status" role="status"></span>
  </section>`;
}

/** A one-button form (run now, rotate, delete), with its CSRF token and an optional question. */
export function button(
  action: string,
  label: string,
  csrf: string,
  options: { kind?: 'primary' | 'secondary' | 'danger'; confirm?: string; name?: string } = {},
): Html {
  return markup`<form
      method="post"
      action="${action}"
      class="inline"
      ${options.confirm === undefined ? '' : markup`data-confirm="${options.confirm}"`}
    >
      <input type="hidden" name="_csrf" value="${csrf}" />
      <button type="submit" class="${options.kind === 'primary' ? '' : (options.kind ?? 'secondary')}">
        ${label}${options.name === undefined ? '' : markup`<span class="sr-only"> ${options.name}</span>`}
      </button>
    </form> `;
}
