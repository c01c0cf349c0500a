import ajvCompiler from '@fastify/ajv-compiler';
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { PLAN_IDS } from '../../src/plans/index.js';
import { buildTestApp, type TestApp } from '../helpers/app.js';

type Schema = Record<string, unknown> & { examples?: unknown[]; $ref?: string };
interface Content {
  schema?: Schema;
  example?: unknown;
}
interface Operation {
  security?: Record<string, string[]>[];
  responses?: Record<string, { content?: Record<string, Content> }>;
  'x-codeSamples'?: { lang: string; source: string }[];
}
interface Doc {
  security: Record<string, string[]>[];
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, Schema> };
}

const METHODS = new Set(['get', 'post', 'put', 'patch', 'delete']);
const COMPONENT = '#/components/schemas/';

/** Every operation of the document as `METHOD /path` with its object. */
function operationsOf(doc: Doc): [string, Operation][] {
  return Object.entries(doc.paths).flatMap(([path, item]) =>
    Object.entries(item)
      .filter(([method]) => METHODS.has(method))
      .map(([method, op]): [string, Operation] => [`${method.toUpperCase()} ${path}`, op]),
  );
}

/** `$ref: '#/components/schemas/X'` rewritten to `$ref: 'X'`, the id the validator knows it by. */
function localRefs<T>(value: T): T {
  return JSON.parse(
    JSON.stringify(value, (key, v: unknown) =>
      key === '$ref' && typeof v === 'string' && v.startsWith(COMPONENT)
        ? v.slice(COMPONENT.length)
        : v,
    ),
  ) as T;
}

/** Every subschema that carries `examples`, with where it sits, found by walking `node`. */
function schemasWithExamples(node: unknown, where: string, found: [string, Schema][] = []) {
  if (Array.isArray(node)) node.forEach((n, i) => schemasWithExamples(n, `${where}/${i}`, found));
  else if (node !== null && typeof node === 'object') {
    const schema = node as Schema;
    if (
      Array.isArray(schema.examples) &&
      ('type' in schema || '$ref' in schema || 'anyOf' in schema)
    )
      found.push([where, schema]);
    for (const [key, child] of Object.entries(schema))
      if (key !== 'examples' && key !== 'example' && key !== 'x-codeSamples')
        schemasWithExamples(child, `${where}/${key}`, found);
  }
  return found;
}

/** Every string inside `value` with the path to it. */
function stringsOf(value: unknown, where = '', found: [string, string][] = []) {
  if (typeof value === 'string') found.push([where, value]);
  else if (Array.isArray(value)) value.forEach((v, i) => stringsOf(v, `${where}/${i}`, found));
  else if (value !== null && typeof value === 'object')
    for (const [k, v] of Object.entries(value)) stringsOf(v, `${where}/${k}`, found);
  return found;
}

describe('the API reference has a real example in every JSON answer', () => {
  let t: TestApp;
  let doc: Doc;
  /** The example of each 2xx JSON answer, by `METHOD /path status`. */
  const answers = new Map<string, { schema: Schema; example: unknown }>();
  let validatorOf: (schema: Schema) => ((data: unknown) => boolean) & { errors?: unknown };

  before(async () => {
    t = await buildTestApp();
    doc = (await t.app.inject('/api/v1/openapi.json')).json();
    const schemas = doc.components.schemas;
    const exampleOf = (content: Content): unknown => {
      if (content.example !== undefined) return content.example;
      const named = content.schema?.$ref?.startsWith(COMPONENT)
        ? schemas[content.schema.$ref.slice(COMPONENT.length)]
        : content.schema;
      return named?.examples?.[0];
    };
    for (const [operation, op] of operationsOf(doc))
      for (const [status, response] of Object.entries(op.responses ?? {}))
        for (const [media, content] of Object.entries(response.content ?? {}))
          if (
            /^2/.test(status) &&
            /^application\/(.+\+)?json$/.test(media) &&
            media !== 'application/problem+json'
          )
            answers.set(`${operation} ${status}`, {
              schema: content.schema ?? {},
              example: exampleOf(content),
            });
    // The app's Ajv (Fastify's compiler with ajv-formats and the options of build-app.ts), but
    // without type coercion: an example is JSON as served, so a number written as a string fails.
    const external = Object.fromEntries(
      Object.entries(schemas).map(([name, s]) => [name, { ...localRefs(s), $id: name }]),
    );
    const compile = ajvCompiler()(external, {
      customOptions: { removeAdditional: false, coerceTypes: false, allErrors: true },
    });
    validatorOf = (schema) =>
      compile({ schema: localRefs(schema) }) as ReturnType<typeof validatorOf>;
  });
  after(() => t.close());

  it('finds the JSON answers of the document', () => {
    assert.ok(answers.size > 80, `${answers.size} JSON answers`);
  });

  it('gives every 2xx JSON answer an example', () => {
    const missing = [...answers].filter(([, a]) => a.example === undefined).map(([k]) => k);
    assert.deepEqual(missing, []);
  });

  it('has examples that are valid against the schema of their answer', () => {
    const invalid: string[] = [];
    for (const [where, { schema, example }] of answers) {
      if (example === undefined) continue;
      const validate = validatorOf(schema);
      if (!validate(structuredClone(example)))
        invalid.push(`${where}: ${JSON.stringify(validate.errors)}`);
    }
    assert.deepEqual(invalid, []);
  });

  it('has examples valid against the schema that carries them, anywhere in the document', () => {
    const found = schemasWithExamples(doc.paths, '#/paths').concat(
      schemasWithExamples(doc.components.schemas, COMPONENT.slice(0, -1)),
    );
    assert.ok(found.length > 30, `${found.length} schemas with examples`);
    const invalid: string[] = [];
    for (const [where, schema] of found) {
      const validate = validatorOf({ ...schema, examples: undefined });
      for (const example of schema.examples ?? [])
        if (!validate(structuredClone(example)))
          invalid.push(`${where}: ${JSON.stringify(validate.errors).slice(0, 400)}`);
    }
    assert.deepEqual(invalid, []);
  });

  it('shows no placeholder where a value belongs', () => {
    // A free-form answer (an OpenAPI document of its own) has "string" where it names a type.
    const typed = [...answers].filter(
      ([, { schema }]) => !(schema.type === 'object' && !('properties' in schema)),
    );
    const placeholders = typed.flatMap(([where, { example }]) =>
      stringsOf(example)
        .filter(([, s]) => s === 'string')
        .map(([path]) => `${where}${path}`),
    );
    assert.deepEqual(placeholders, []);
  });

  it('shows one fictional account, its keys as the API shows them and plans of the plan table', () => {
    const all = stringsOf([...answers.values()].map((a) => a.example));
    const accounts = new Set(all.flatMap(([, s]) => s.match(/acct_[\w-]+/g) ?? []));
    assert.equal(accounts.size, 1, [...accounts].join(', '));
    assert.match([...accounts][0]!, /^acct_[\w-]{16}$/);
    for (const [path, s] of all) {
      if (path.endsWith('/prefix')) assert.match(s, /^sk_(live|test)_[\w-]{4}$/, path);
      if (path.endsWith('/key') && s.startsWith('sk_'))
        assert.match(s, /^sk_(live|test)_[\w-]{43}$/, path);
      if (/\/(plan|pending_plan)$/.test(path))
        assert.ok((PLAN_IDS as readonly string[]).includes(s), `${path}: ${s}`);
    }
  });

  it('prices every example invoice as the billing code does: lines, VAT, total and amount due', () => {
    const invoices = collectInvoices([...answers.values()].map((a) => a.example));
    assert.ok(invoices.length >= 4, `${invoices.length} invoices`);
    for (const inv of invoices) {
      const lines = inv.lines.reduce((sum, l) => sum + l.amount_cents, 0);
      assert.equal(inv.subtotal_cents, lines, inv.id);
      assert.equal(
        inv.vat.amount_cents,
        Math.round((inv.subtotal_cents * inv.vat.rate_percent) / 100),
        inv.id,
      );
      assert.equal(inv.total_cents, inv.subtotal_cents + inv.vat.amount_cents, inv.id);
      assert.equal(inv.amount_due_cents, inv.total_cents - inv.balance_applied_cents, inv.id);
      if (inv.transfer !== null)
        assert.equal(inv.transfer.amount_cents, inv.amount_due_cents, inv.id);
    }
  });

  it('counts usage as the server does: every request once by day, endpoint, status and key', () => {
    const usage = answers.get('GET /api/v1/usage 200')!.example as {
      total: number;
      series: { requests: number; errors: number }[];
      by_endpoint: Record<string, number>;
      by_status: Record<string, number>;
      by_key: Record<string, number>;
    };
    const sum = (values: number[]) => values.reduce((a, b) => a + b, 0);
    assert.equal(sum(usage.series.map((s) => s.requests)), usage.total);
    for (const counts of [usage.by_endpoint, usage.by_status, usage.by_key])
      assert.equal(sum(Object.values(counts)), usage.total);
    const errors = Object.entries(usage.by_status).filter(([status]) => Number(status) >= 400);
    assert.equal(sum(usage.series.map((s) => s.errors)), sum(errors.map(([, n]) => n)));
  });

  it('samples send the Authorization header exactly where the operation needs a credential', () => {
    const wrong: string[] = [];
    for (const [operation, op] of operationsOf(doc)) {
      const security = op.security ?? doc.security;
      const keyed = !security.some((alternative) => Object.keys(alternative).length === 0);
      for (const sample of op['x-codeSamples'] ?? [])
        if (/Authorization/.test(sample.source) !== keyed)
          wrong.push(`${operation} ${sample.lang}: ${keyed ? 'no header' : 'a header'}`);
      if ((op['x-codeSamples'] ?? []).length !== 3) wrong.push(`${operation}: not 3 samples`);
    }
    assert.deepEqual(wrong, []);
  });
});

interface InvoiceExample {
  id: string;
  lines: { amount_cents: number }[];
  subtotal_cents: number;
  vat: { rate_percent: number; amount_cents: number };
  total_cents: number;
  balance_applied_cents: number;
  amount_due_cents: number;
  transfer: { amount_cents: number } | null;
}

/** The invoices inside an example (an invoice, a list of them, a plan change's). */
function collectInvoices(value: unknown, found: InvoiceExample[] = []): InvoiceExample[] {
  if (Array.isArray(value)) for (const v of value) collectInvoices(v, found);
  else if (value !== null && typeof value === 'object') {
    if ('subtotal_cents' in value && 'lines' in value) found.push(value as InvoiceExample);
    else for (const v of Object.values(value)) collectInvoices(v, found);
  }
  return found;
}
