import type { SwaggerOptions } from '@fastify/swagger';
import { readFileSync } from 'node:fs';
import { SCOPES } from '../auth/index.js';
import { ERROR_CODES, problemType, type ErrorCode } from '../errors/index.js';
import { baseUrlOf, type Config } from '../config/index.js';

const PACKAGE_VERSION = (
  JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
    version: string;
  }
).version;

/** Who may call an operation: anyone without a credential, anyone with or without, or keys. */
type Security = Record<string, string[]>[];
const NO_CREDENTIAL: Security = [{}];
const OPTIONAL_CREDENTIAL: Security = [{}, { apiKey: [] }, { oauth2: [] }];
const CREDENTIAL: Security = [{ apiKey: [] }, { oauth2: [] }];

/**
 * The credential of a `data` route that anonymous (Free) callers cannot use: a plan feature
 * (`config.planFeature`) or a minimum plan its service checks. Such a route declares it as its
 * schema's `security`, so the reference and its samples show a key.
 */
export const PAID_PLAN_SECURITY: Security = CREDENTIAL;

/** The key the samples send: a placeholder to replace with a key of the account's own. */
export const SAMPLE_KEY = 'sk_live_YOUR_API_KEY';
const SAMPLE_KEY_NOTE = `Replace ${SAMPLE_KEY} with an API key of yours (dashboard, API keys).`;

/** OpenAPI 3.1 document settings; the paths come from the route schemas that validate requests. */
export function openApiOptions(config: Config): SwaggerOptions {
  return {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'European Salary Data API',
        version: PACKAGE_VERSION,
        description:
          'Gross annual pay percentiles for the 27 EU member states and 21 job categories, per seniority level and year. Every figure is modelled from published statistics (Eurostat, national statistical offices, ECB); each response names its data release, method and sources ([methodology](/methodology)). Errors are RFC 9457 problem+json; each `type` is a page explaining the error ([error codes](/errors)).\n\nStart with the [quick start](/docs/quick-start); changes and the versioning policy are in the [changelog](/docs/changelog). The salary lookup and the catalogues need no key on the Free plan.',
        contact: { name: 'API support', email: 'support@salary-api.eu' },
        license: { name: 'Proprietary', identifier: 'LicenseRef-Proprietary' },
      },
      servers: [{ url: baseUrlOf(config) }],
      tags: [
        { name: 'Salary', description: 'Salary figures.' },
        {
          name: 'Bulk',
          description: 'Many countries or jobs in one request (Business and Enterprise).',
        },
        { name: 'Catalogue', description: 'Countries, job categories and levels.' },
        {
          name: 'Releases',
          description:
            'The data releases kept, and what changed between two of them (docs/releases.md).',
        },
        {
          name: 'Account',
          description: 'Sign-up, sessions, the account, its allowlist and audit log.',
        },
        { name: 'API keys', description: 'Create, list, rotate and revoke API keys.' },
        { name: 'Billing', description: 'Subscription, invoices and balance.' },
        { name: 'Usage', description: 'Request counts and quota.' },
        {
          name: 'Webhooks',
          description:
            'Signed notifications of data releases (Business and Enterprise), per Standard Webhooks.',
        },
        {
          name: 'Exports',
          description:
            'Scheduled bulk exports (Enterprise): a bulk selection delivered as a file to an SFTP server on a cron schedule.',
        },
        {
          name: 'OAuth clients',
          description:
            'OAuth 2.0 client credentials (Enterprise): clients that obtain short-lived access tokens at /oauth/token.',
        },
        { name: 'Operations', description: 'Health and readiness.' },
        {
          name: 'Compliance',
          description:
            "SOC 2 evidence (Enterprise): the operator's compliance documents, stamped per download, and the user access review.",
        },
        {
          name: 'SLA',
          description:
            'Measured uptime per account and month, and the credits applied automatically (Business and Enterprise); the rule is docs/sla.md.',
        },
        {
          name: 'Status',
          description: 'Public service status: components, daily uptime, incidents, maintenance.',
        },
        {
          name: 'Custom endpoints',
          description:
            'Saved queries an Enterprise account publishes at /api/v1/custom/{slug}, with their own OpenAPI document.',
        },
      ],
      components: {
        securitySchemes: {
          apiKey: {
            type: 'http',
            scheme: 'bearer',
            description: 'An API key (paid plans). Free-plan requests carry no credential.',
          },
          oauth2: {
            type: 'oauth2',
            description:
              'OAuth 2.0 client credentials (Enterprise): send the access token as `Authorization: Bearer <token>`; a DPoP-bound token (RFC 9449, `token_type: DPoP`) as `Authorization: DPoP <token>` with a fresh `DPoP` proof header on every request. See /.well-known/oauth-authorization-server and docs/oauth.md.',
            flows: {
              clientCredentials: {
                tokenUrl: `${baseUrlOf(config)}/oauth/token`,
                scopes: Object.fromEntries(SCOPES.map((s) => [s, `The ${s} scope.`])),
              },
            },
          },
        },
      },
      security: CREDENTIAL,
    },
    // Each operation's credential follows its route's declared access (config.auth).
    transform: ({ schema, url, route }) => {
      const auth = route.config?.auth;
      const declared = (schema as { security?: Security } | undefined)?.security;
      const security =
        auth?.access === 'account'
          ? undefined
          : auth?.access === 'data'
            ? (declared ??
              (route.config?.planFeature === undefined ? OPTIONAL_CREDENTIAL : PAID_PLAN_SECURITY))
            : NO_CREDENTIAL;
      return { schema: security === undefined ? schema : { ...schema, security }, url };
    },
    transformObject: (documentObject) =>
      withProblemExamples(
        withProblemTypes(
          withCodeSamples((documentObject as { openapiObject: OpenApiDocument }).openapiObject),
        ),
      ),
    refResolver: {
      buildLocalReference: (json, _baseUri, _fragment, i) =>
        typeof json.$id === 'string' ? json.$id : `def-${i}`,
    },
  };
}

/** Every problem `type` the server answers, as examples of the Problem schema's `type`. */
function withProblemTypes(document: OpenApiDocument): OpenApiDocument {
  const type = document.components?.schemas?.['Problem']?.properties?.['type'];
  if (type !== undefined) {
    const base = document.servers?.[0]?.url ?? '';
    type.description =
      'The kind of problem: the address of a page explaining it and what to do (one per `code`). On a white-label account without a host name of its own: `about:blank`.';
    type.examples = Object.keys(ERROR_CODES).map((code) => problemType(code as ErrorCode, base));
  }
  return document;
}

/** What a problem of each status most often says (the detail and members the server sends). */
type ProblemExample = { code: ErrorCode; detail: string } & Record<string, unknown>;
const PROBLEM_EXAMPLES: Partial<Record<number, ProblemExample>> = {
  401: {
    code: 'UNAUTHENTICATED',
    detail: 'The credential is not valid: it is unknown, revoked or expired.',
  },
  403: {
    code: 'FEATURE_NOT_IN_PLAN',
    detail:
      'Bulk endpoints: not included in the Free plan; the Business plan and higher include it.',
    required_plan: 'business',
    current_plan: 'free',
  },
  404: { code: 'NOT_FOUND', detail: 'No such resource in this account.' },
  406: {
    code: 'NOT_ACCEPTABLE',
    detail: 'The Accept header names no media type this endpoint produces.',
  },
  429: {
    code: 'RATE_LIMITED',
    detail: 'The plan’s request limit of 1,000 requests a month is reached.',
    retry_after: 3600,
  },
  503: {
    code: 'DEPENDENCY_UNAVAILABLE',
    detail: 'A dependency is unavailable.',
    retry_after: 5,
  },
};

/** The 403 of an account operation: a key without the scope it needs. */
const SCOPE_EXAMPLE: ProblemExample = {
  code: 'SCOPE_MISSING',
  detail: 'This key does not have the scope this operation needs.',
};

/** The 400 an operation answers to a bad body or to a bad value of its first parameter. */
function badRequestExample(operation: Operation): ProblemExample {
  if (operation.requestBody !== undefined) {
    const required = operation.requestBody.content?.['application/json']?.schema?.required?.[0];
    const detail =
      required === undefined
        ? 'body must be object'
        : `body must have required property '${required}'`;
    return { code: 'INVALID_BODY', detail };
  }
  const param = operation.parameters?.[0];
  if (param === undefined) return { code: 'INVALID_PARAMETER', detail: 'Invalid parameter.' };
  const allowed = param.schema?.enum;
  const reason = allowed === undefined ? 'malformed value' : 'not one of the allowed values';
  return {
    code: 'INVALID_PARAMETER',
    detail: `Invalid value for '${param.name}': ${reason}.`,
    invalid_params: [{ name: param.name, reason, ...(allowed === undefined ? {} : { allowed }) }],
  };
}

/**
 * An example problem document on every problem+json response: the code the status most often
 * carries (a 400 names the operation's own body or first parameter), as the server writes it.
 */
function withProblemExamples(document: OpenApiDocument): OpenApiDocument {
  const base = document.servers?.[0]?.url ?? '';
  for (const [path, item] of Object.entries(document.paths ?? {})) {
    for (const method of METHODS) {
      const operation = item[method];
      for (const [status, response] of Object.entries(operation?.responses ?? {})) {
        const content = response.content?.['application/problem+json'];
        if (operation === undefined || content === undefined) continue;
        const code = Number(status);
        const chosen =
          code === 400
            ? badRequestExample(operation)
            : code === 403 && operation.security === undefined
              ? SCOPE_EXAMPLE
              : (PROBLEM_EXAMPLES[code] ?? firstCodeOf(code));
        if (chosen === undefined) continue;
        const { code: errorCode, detail, ...members } = chosen;
        const type = problemType(errorCode, base);
        content.example = {
          type,
          title: ERROR_CODES[errorCode].title,
          status: code,
          detail,
          instance: path,
          code: errorCode,
          request_id: 'req_3f9a1c07b2e4000042',
          doc_url: type,
          ...members,
        };
      }
    }
  }
  return document;
}

function firstCodeOf(status: number): ProblemExample | undefined {
  const entry = Object.entries(ERROR_CODES).find(([, e]) => e.status === status);
  return entry === undefined ? undefined : { code: entry[0] as ErrorCode, detail: entry[1].title };
}

interface JsonSchema {
  description?: string;
  $ref?: string;
  type?: string | string[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  items?: JsonSchema;
  enum?: unknown[];
  examples?: unknown[];
  default?: unknown;
  format?: string;
  minimum?: number;
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
}

interface Operation {
  parameters?: { name: string; in: string; required?: boolean; schema?: JsonSchema }[];
  requestBody?: { content?: Record<string, { schema?: JsonSchema }> };
  security?: Record<string, string[]>[];
  'x-codeSamples'?: { lang: string; label: string; source: string }[];
  responses?: Record<
    string,
    { content?: Record<string, { schema?: JsonSchema; example?: unknown }> }
  >;
}

interface OpenApiDocument {
  servers?: { url: string }[];
  security?: Record<string, string[]>[];
  paths?: Record<string, Record<string, Operation>>;
  components?: { schemas?: Record<string, JsonSchema> };
}

/** Values the samples use for well-known parameters; others come from their schema. */
const SAMPLE_VALUES: Record<string, unknown> = {
  country: 'DE',
  job: 'software-engineer',
  level: 'mid',
  salary: 72000,
  email: 'you@example.com',
  password: 'a long passphrase of yours',
  url: 'https://example.com/hooks/salary',
  events: ['data.updated'],
  plan: 'developer',
};

const METHODS = ['get', 'post', 'put', 'patch', 'delete'];

/**
 * Adds request samples in curl, JavaScript (fetch) and Python (requests) to every operation
 * (`x-codeSamples`), made from its path, required parameters, body schema and credential.
 */
export function withCodeSamples(document: OpenApiDocument): OpenApiDocument {
  const base = document.servers?.[0]?.url ?? '';
  const schemas = document.components?.schemas ?? {};
  const resolve = (schema: JsonSchema | undefined): JsonSchema | undefined => {
    const name = schema?.$ref?.split('/').pop();
    return name === undefined ? schema : resolve(schemas[name]);
  };
  const sample = (schema: JsonSchema | undefined, name: string, depth = 0): unknown => {
    const s = resolve(schema);
    if (name in SAMPLE_VALUES) return SAMPLE_VALUES[name];
    if (s === undefined || depth > 4) return null;
    if (s.examples?.[0] !== undefined) return s.examples[0];
    if (s.default !== undefined) return s.default;
    if (s.enum?.[0] !== undefined) return s.enum[0];
    const variant = s.anyOf?.[0] ?? s.oneOf?.[0];
    if (variant !== undefined) return sample(variant, name, depth + 1);
    const type = Array.isArray(s.type) ? s.type[0] : s.type;
    if (type === 'object' || s.properties !== undefined) {
      return Object.fromEntries(
        (s.required ?? []).map((key) => [key, sample(s.properties?.[key], key, depth + 1)]),
      );
    }
    if (type === 'array') return [sample(s.items, name, depth + 1)];
    if (type === 'integer' || type === 'number') return s.minimum ?? 1;
    if (type === 'boolean') return true;
    if (s.format === 'uri') return 'https://example.com/';
    return name;
  };
  for (const [path, item] of Object.entries(document.paths ?? {})) {
    for (const method of METHODS) {
      const operation = item[method];
      if (operation === undefined) continue;
      const params = operation.parameters ?? [];
      const url =
        base +
        path.replace(/\{([^}]+)\}/g, (_m, name: string) => name.toUpperCase()) +
        queryOf(
          params.filter((p) => p.in === 'query' && p.required === true),
          sample,
        );
      const security = operation.security ?? document.security ?? [];
      const keyed = !security.some((alternative) => Object.keys(alternative).length === 0);
      const bodySchema = operation.requestBody?.content?.['application/json']?.schema;
      const body = bodySchema === undefined ? undefined : sample(bodySchema, '');
      operation['x-codeSamples'] = [
        { lang: 'Shell', label: 'curl', source: curl(method, url, keyed, body) },
        {
          lang: 'JavaScript',
          label: 'JavaScript (fetch)',
          source: fetchSample(method, url, keyed, body),
        },
        {
          lang: 'Python',
          label: 'Python (requests)',
          source: pythonSample(method, url, keyed, body),
        },
      ];
    }
  }
  return document;
}

function queryOf(
  params: { name: string; schema?: JsonSchema }[],
  sample: (schema: JsonSchema | undefined, name: string) => unknown,
): string {
  if (params.length === 0) return '';
  const query = new URLSearchParams(
    params.map((p): [string, string] => [p.name, String(sample(p.schema, p.name))]),
  );
  return `?${query.toString()}`;
}

function curl(method: string, url: string, keyed: boolean, body: unknown): string {
  const lines = [`curl${method === 'get' ? '' : ` -X ${method.toUpperCase()}`} "${url}"`];
  if (keyed) lines.push(`  -H "Authorization: Bearer ${SAMPLE_KEY}"`);
  if (body !== undefined) {
    lines.push('  -H "Content-Type: application/json"');
    lines.push(`  -d '${JSON.stringify(body)}'`);
  }
  const command = lines.join(' \\\n');
  return keyed ? `# ${SAMPLE_KEY_NOTE}\n${command}` : command;
}

function fetchSample(method: string, url: string, keyed: boolean, body: unknown): string {
  const headers: string[] = [];
  if (keyed) headers.push(`Authorization: 'Bearer ${SAMPLE_KEY}'`);
  if (body !== undefined) headers.push("'Content-Type': 'application/json'");
  const options: string[] = [];
  if (method !== 'get') options.push(`  method: '${method.toUpperCase()}',`);
  if (headers.length > 0) options.push(`  headers: { ${headers.join(', ')} },`);
  if (body !== undefined) options.push(`  body: JSON.stringify(${JSON.stringify(body)}),`);
  const call =
    options.length === 0
      ? `const response = await fetch('${url}');`
      : `const response = await fetch('${url}', {\n${options.join('\n')}\n});`;
  const note = keyed ? `// ${SAMPLE_KEY_NOTE}\n` : '';
  return `${note}${call}\nconsole.log(response.status, await response.text());`;
}

function pythonSample(method: string, url: string, keyed: boolean, body: unknown): string {
  const args = [`"${url}"`];
  if (keyed) args.push(`headers={"Authorization": "Bearer ${SAMPLE_KEY}"}`);
  if (body !== undefined) args.push(`json=${pythonLiteral(body)}`);
  const lines = keyed ? ['import requests', '', `# ${SAMPLE_KEY_NOTE}`] : ['import requests', ''];
  lines.push(`response = requests.${method}(${args.join(', ')})`);
  lines.push('print(response.status_code, response.text)');
  return lines.join('\n');
}

/** JSON as a Python literal (true/false/null spelled the Python way). */
function pythonLiteral(value: unknown): string {
  return JSON.stringify(value).replace(
    /\b(true|false|null)\b(?=(?:[^"]*"[^"]*")*[^"]*$)/g,
    (word) => (word === 'true' ? 'True' : word === 'false' ? 'False' : 'None'),
  );
}
