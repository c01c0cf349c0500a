import type { FastifyReply, FastifyRequest } from 'fastify';
import { CredentialsSchema, MIN_PASSWORD_LENGTH, PASSWORD_RULE } from '../accounts/index.js';
import { AppError, type InvalidParam } from '../errors/index.js';
import { quoted, tooLong } from '../http/problem.js';
import { flashOf, type DashboardTools, signedIn } from './context.js';
import { markup, type Html } from '../lib/html.js';
import { csrfField, CSRF_FIELD } from './session.js';
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

/**
 * A password field as typed (not trimmed), its length checked as the API's schema of a password
 * checks it (required, at most 256 characters).
 */
export function password(body: unknown, name: string, problems: Problems): string {
  const value = asTyped(body, name);
  problems.add(name, lengthProblem(value, CredentialsSchema.properties.password));
  return value;
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
    refused: (status: number, form: FormState) => FastifyReply | Promise<FastifyReply>;
    failed: (status: number, flash: Flash) => FastifyReply | Promise<FastifyReply>;
    /** Fields never sent back: passwords, private keys, one-time codes. */
    secrets?: readonly string[];
    /** The form's field names, which a service's problem names are matched to. */
    fields?: readonly string[];
  },
  run: () => Promise<FastifyReply>,
): Promise<FastifyReply> {
  try {
    return await run();
  } catch (error) {
    // A throttle's Retry-After, as the API sends it.
    if (error instanceof AppError)
      for (const [name, value] of Object.entries(error.headers)) reply.header(name, value);
    if (error instanceof AppError && error.status < 500)
      return handlers.refused(
        error.status,
        FormState.refused(request.body, error, handlers.secrets, handlers.fields),
      );
    const { status, flash } = flashOf(request, error);
    return handlers.failed(status, flash);
  }
}

/** On a page of several forms: the one that was refused, and its state. */
export interface RefusedForm<Of extends string = string> {
  of: Of;
  state: FormState;
}

/** The state to draw the form `of` with: the refused one's, or empty for the page's others. */
export function stateOf<Of extends string>(
  refused: RefusedForm<Of> | undefined,
  of: Of,
): FormState {
  return refused?.of === of ? refused.state : FormState.EMPTY;
}

/**
 * `submit` for one form of a page of several, the page drawn by its `render`: a refusal draws the
 * page with that form's state, or with the reason as a flash when what the form changes is gone
 * (404); a fault draws it with a flash.
 */
export function submitOnPage<Of extends string>(
  request: FastifyRequest,
  reply: FastifyReply,
  render: (
    request: FastifyRequest,
    reply: FastifyReply,
    status: number,
    extra: { flash?: Flash; form?: RefusedForm<Of> },
  ) => FastifyReply | Promise<FastifyReply>,
  form: { of: Of; labels: Readonly<Record<string, FieldLabel>>; secrets?: readonly string[] },
  run: () => Promise<FastifyReply>,
): Promise<FastifyReply> {
  const draw = (status: number, extra: { flash?: Flash; form?: RefusedForm<Of> }) =>
    render(request, reply, status, extra);
  return submit(
    request,
    reply,
    {
      refused: (status, state) =>
        status === 404
          ? draw(404, { flash: { kind: 'error', text: state.general ?? '' } })
          : draw(status, { form: { of: form.of, state } }),
      failed: (status, flash) => draw(status, { flash }),
      fields: Object.keys(form.labels),
      secrets: form.secrets ?? [],
    },
    run,
  );
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
      ${csrfField(csrf)}
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

/** How `FormState.field` draws a text field. */
export interface FieldOptions {
  /** The API's schema of the value: the field's `maxlength`, and `required` when it has `minLength`. */
  schema?: TextSchema;
  required?: boolean;
  type?: 'text' | 'email' | 'password' | 'url';
  /** The value shown before anything was submitted (what is saved). */
  value?: string;
  /** A help text under the field, read with it. */
  hint?: Html | string;
  /** A textarea of this many rows instead of a one-line input. */
  rows?: number;
  /** More attributes: autocomplete, placeholder, inputmode, disabled. */
  attrs?: Html | string;
}

/**
 * A new password's field: the API's schema, the password rule beside it (and `more`), and the
 * browser's own check of its length.
 */
export function newPasswordField(schema: TextSchema, more?: string): FieldOptions {
  return {
    type: 'password',
    schema,
    hint: more === undefined ? PASSWORD_RULE : `${PASSWORD_RULE} ${more}`,
    attrs: markup`minlength="${MIN_PASSWORD_LENGTH}" autocomplete="new-password"`,
  };
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
   * the problems the error names. A service's names (`query.jobs`, `jwks.keys[0]`) are matched
   * to the last of their parts that is one of the form's `fields`, else by their last part.
   */
  static refused(
    body: unknown,
    error: AppError,
    secrets: readonly string[] = [],
    fields: readonly string[] = [],
  ): FormState {
    const values: Body = { ...((body ?? {}) as Body) };
    for (const name of [CSRF_FIELD, ...secrets]) delete values[name];
    const problems = new Map<string, string>();
    const params = error.extensions['invalid_params'];
    if (Array.isArray(params))
      for (const p of params as InvalidParam[]) {
        const parts = p.name.split('.');
        const name = parts.findLast((part) => fields.includes(part)) ?? parts.at(-1) ?? p.name;
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
   * A text field with its label, its hint and its problem: filled with what was typed after a
   * refused submit (`options.value` before; a password never), marked when it has a problem.
   */
  field(name: string, at: FieldLabel, options: FieldOptions = {}): Html {
    const type = options.type ?? 'text';
    const hintId = options.hint === undefined ? undefined : `${at.id}-hint`;
    const value = type === 'password' ? '' : this.value(name, options.value);
    const attributes = markup`id="${at.id}" name="${name}" ${options.schema === undefined ? '' : lengthAttributes(options.schema)} ${options.required === true ? markup`required` : ''} ${this.marks(name, at.id, hintId)} ${options.attrs ?? ''}`;
    return markup`<label for="${at.id}">${at.label}</label>
      ${options.rows === undefined ? markup`<input type="${type}" ${attributes} value="${value}" />` : markup`<textarea rows="${options.rows}" ${attributes}>${value}</textarea>`}
      ${this.note(name, at.id)}
      ${hintId === undefined ? '' : markup`<p id="${hintId}" class="hint">${options.hint}</p>`}`;
  }

  /**
   * Every problem at once, each named by its field's label and linked to the field; focused
   * on load so it is read out and in view.
   */
  summary(labels: Readonly<Record<string, FieldLabel>>, heading = 'Not saved'): Html {
    if (!this.refusedSubmit) return markup``;
    // In the order of the form's fields, as the eye meets them.
    const order = Object.keys(labels);
    const rank = (name: string) => (order.includes(name) ? order.indexOf(name) : order.length);
    const sorted = [...this.problems].sort(([a], [b]) => rank(a) - rank(b));
    const items = sorted.map(([name, reason]) => {
      const field = labels[name];
      return field === undefined
        ? markup`<li>${name}: ${reason}</li>`
        : markup`<li><a href="#${field.id}">${field.label}</a>: ${reason}</li>`;
    });
    const count = this.problems.size;
    return markup`<div class="error-summary" role="alert" tabindex="-1" autofocus>
      <h2>${count === 0 ? heading : `${heading}: ${count} problem${count === 1 ? '' : 's'} to fix`}</h2>
      ${this.general === undefined ? '' : markup`<p>${this.general}</p>`}
      ${count === 0 ? '' : markup`<ul>${items}</ul>`}
    </div>`;
  }
}

/**
 * A text value's schema as the API declares it: a string schema, or a union of one with null
 * (`string | null`), whose string member then holds the limits.
 */
export interface TextSchema {
  minLength?: number;
  maxLength?: number;
  anyOf?: readonly unknown[];
}

/** The limits of a text schema (of its string member, in a union). */
export function textLimits(schema: TextSchema): { minLength?: number; maxLength?: number } {
  if (schema.anyOf === undefined) return schema;
  const text = schema.anyOf.find((member) => (member as { type?: unknown }).type === 'string');
  return text ?? {};
}

/**
 * A text field's length checked as the API's schema checks it (`minLength` 1: required), with
 * the API's reason; '' when it passes.
 */
export function lengthProblem(value: string, schema: TextSchema): string {
  const { minLength, maxLength } = textLimits(schema);
  if ((minLength ?? 0) > 0 && value.length === 0) return 'is required';
  if (maxLength !== undefined && value.length > maxLength) return tooLong(maxLength);
  if (minLength !== undefined && value.length < minLength)
    return `is too short (at least ${minLength} characters)`;
  return '';
}

/** `maxlength` and `required` of a text field from the API's schema of the value. */
export function lengthAttributes(schema: TextSchema): Html {
  const { minLength, maxLength } = textLimits(schema);
  return markup`${maxLength === undefined ? '' : markup`maxlength="${maxLength}"`} ${(minLength ?? 0) > 0 ? markup`required` : ''}`;
}

/** An array of texts as the API declares it: how many entries, and each one's limits. */
export interface ListSchema {
  minItems?: number;
  maxItems?: number;
  items?: TextSchema;
}

/**
 * A list typed into one field (lines, words) checked as the API's array schema checks it: how
 * many entries and how long each; '' when it passes.
 */
export function listProblem(entries: readonly string[], schema: ListSchema): string {
  const { minItems, maxItems } = schema;
  if ((minItems ?? 0) > 0 && entries.length === 0) return 'is required';
  if (minItems !== undefined && entries.length < minItems)
    return `needs at least ${minItems} entries`;
  if (maxItems !== undefined && entries.length > maxItems)
    return `has too many entries (at most ${maxItems})`;
  const max = schema.items === undefined ? undefined : textLimits(schema.items).maxLength;
  const long = max === undefined ? undefined : entries.find((entry) => entry.length > max);
  return long === undefined || max === undefined ? '' : `${quoted(long)} ${tooLong(max)}`;
}

/** The problems a form's checks find, by field name, all reported in one refusal. */
export class Problems {
  readonly list: InvalidParam[] = [];

  /** A field's problem; '' or undefined is none. */
  add(name: string, reason: string | undefined): this {
    if (reason !== undefined && reason !== '') this.list.push({ name, reason });
    return this;
  }

  /** Problems found by the API's own checks, such as a service's pure validation. */
  addAll(params: readonly InvalidParam[]): this {
    this.list.push(...params);
    return this;
  }

  /**
   * The problems a check of the API's own names (an AppError with `invalid_params`), so the form
   * finds them together with its other problems rather than one at a time.
   */
  of(check: () => unknown): this {
    try {
      check();
    } catch (error) {
      const params = error instanceof AppError ? error.extensions['invalid_params'] : undefined;
      if (!Array.isArray(params)) throw error;
      this.addAll(params as InvalidParam[]);
    }
    return this;
  }

  /** The 400 naming every problem, when there is one. */
  throwAny(): void {
    if (this.list.length > 0) throw invalid(...this.list);
  }
}
