import type { FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../errors/index.js';
import { tooLong } from '../http/problem.js';
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

/**
 * Runs a form's submit: a refusal (a 4xx) is drawn by `refused` with the form's state (what was
 * typed, less its `secrets`, and every problem by field); a fault is a flash, as `act` shows it.
 */
export async function submit(
  request: FastifyRequest,
  reply: FastifyReply,
  handlers: {
    refused: (status: number, form: FormState) => Promise<FastifyReply>;
    failed: (status: number, flash: Flash) => Promise<FastifyReply>;
    secrets?: readonly string[];
  },
  run: () => Promise<FastifyReply>,
): Promise<FastifyReply> {
  try {
    return await run();
  } catch (error) {
    if (error instanceof AppError && error.status < 500)
      return handlers.refused(
        error.status,
        FormState.refused(request.body, error, handlers.secrets),
      );
    const { status, flash } = flashOf(request, error);
    return handlers.failed(status, flash);
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

/** A field of a form as the page shows it: its name in the body, its element id, its label. */
export interface FieldLabel {
  id: string;
  label: string;
}

/**
 * What a form shows: the values to fill in (what was typed, after a refused submit) and each
 * field's problem. One mechanism for every form: a page renders its fields with `value`,
 * `marks` and `note`, and `summary` above them lists every problem by the field's label.
 */
export class FormState {
  constructor(
    readonly values: Body = {},
    /** Field name → reason, in the order found. */
    readonly problems: ReadonlyMap<string, string> = new Map(),
    /** A problem that names no field (a plan limit, a conflict). */
    readonly general?: string,
  ) {}

  static readonly EMPTY = new FormState();

  /**
   * The state after a refused submit: what was typed (less the `secrets`, never sent back) and
   * the problems the error names. A service's names (`query.jobs`) are matched by their last
   * part, the form's field name.
   */
  static refused(body: unknown, error: AppError, secrets: readonly string[] = []): FormState {
    const values: Body = { ...((body ?? {}) as Body) };
    for (const name of ['_csrf', ...secrets]) delete values[name];
    const problems = new Map<string, string>();
    const params = error.extensions['invalid_params'];
    if (Array.isArray(params))
      for (const p of params as { name: string; reason: string }[]) {
        const name = p.name.split('.').pop() ?? p.name;
        if (!problems.has(name)) problems.set(name, p.reason);
      }
    return new FormState(values, problems, problems.size === 0 ? error.detail : undefined);
  }

  get refusedSubmit(): boolean {
    return this.problems.size > 0 || this.general !== undefined;
  }

  /** The value typed in `name` ('' when none), or `fallback` before anything was submitted. */
  value(name: string, fallback = ''): string {
    if (!this.refusedSubmit) return fallback;
    const value = this.values[name];
    return typeof value === 'string' ? value : '';
  }

  /** Whether `value` of a repeated field (checkbox, radio) was chosen, or `fallback` before. */
  chosen(name: string, value: string, fallback = false): boolean {
    if (!this.refusedSubmit) return fallback;
    return values(this.values, name).includes(value);
  }

  /** aria-invalid and aria-describedby of a field with a problem (nothing otherwise). */
  marks(name: string, id: string, hint?: string): Html {
    const described = [hint, this.problems.has(name) ? `${id}-error` : undefined].filter(
      (v) => v !== undefined,
    );
    return markup`${this.problems.has(name) ? markup`aria-invalid="true"` : ''} ${described.length === 0 ? '' : markup`aria-describedby="${described.join(' ')}"`}`;
  }

  /** The problem of a field, beside it. */
  note(name: string, id: string): Html {
    const reason = this.problems.get(name);
    return reason === undefined
      ? markup``
      : markup`<p id="${id}-error" class="field-error">${reason}</p>`;
  }

  /**
   * Every problem at once, each named by its field's label and linked to the field; focused
   * on load so it is read out and in view.
   */
  summary(labels: Readonly<Record<string, FieldLabel>>): Html {
    if (!this.refusedSubmit) return markup``;
    const items = [...this.problems].map(([name, reason]) => {
      const field = labels[name];
      return field === undefined
        ? markup`<li>${name}: ${reason}</li>`
        : markup`<li><a href="#${field.id}">${field.label}</a>: ${reason}</li>`;
    });
    const count = this.problems.size;
    return markup`<div class="error-summary" role="alert" tabindex="-1" autofocus>
      <h2>${count === 0 ? 'Not saved' : `Not saved: ${count} problem${count === 1 ? '' : 's'} to fix`}</h2>
      ${this.general === undefined ? '' : markup`<p>${this.general}</p>`}
      ${count === 0 ? '' : markup`<ul>${items}</ul>`}
    </div>`;
  }
}

/**
 * A text field's length checked as the API's schema checks it (`minLength` 1: required), with
 * the API's reason; '' when it passes.
 */
export function lengthProblem(
  value: string,
  schema: { minLength?: number; maxLength?: number },
): string {
  if ((schema.minLength ?? 0) > 0 && value.length === 0) return 'is required';
  if (schema.maxLength !== undefined && value.length > schema.maxLength)
    return tooLong(schema.maxLength);
  if (schema.minLength !== undefined && value.length < schema.minLength)
    return `is too short (at least ${schema.minLength} characters)`;
  return '';
}

/** `maxlength` and `required` of a text field from the API's schema of the value. */
export function lengthAttributes(schema: { minLength?: number; maxLength?: number }): Html {
  return markup`${schema.maxLength === undefined ? '' : markup`maxlength="${schema.maxLength}"`} ${(schema.minLength ?? 0) > 0 ? markup`required` : ''}`;
}
