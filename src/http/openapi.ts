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
      const security =
        auth?.access === 'account'
          ? undefined
          : auth?.access === 'data'
            ? OPTIONAL_CREDENTIAL
            : NO_CREDENTIAL;
      return { schema: security === undefined ? schema : { ...schema, security }, url };
    },
    transformObject: (documentObject) =>
      withProblemTypes(
        withCodeSamples((documentObject as { openapiObject: OpenApiDocument }).openapiObject),
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
  if (keyed) lines.push('  -H "Authorization: Bearer $API_KEY"');
  if (body !== undefined) {
    lines.push('  -H "Content-Type: application/json"');
    lines.push(`  -d '${JSON.stringify(body)}'`);
  }
  return lines.join(' \\\n');
}

function fetchSample(method: string, url: string, keyed: boolean, body: unknown): string {
  const headers: string[] = [];
  if (keyed) headers.push('Authorization: `Bearer ${process.env.API_KEY}`');
  if (body !== undefined) headers.push("'Content-Type': 'application/json'");
  const options: string[] = [];
  if (method !== 'get') options.push(`  method: '${method.toUpperCase()}',`);
  if (headers.length > 0) options.push(`  headers: { ${headers.join(', ')} },`);
  if (body !== undefined) options.push(`  body: JSON.stringify(${JSON.stringify(body)}),`);
  const call =
    options.length === 0
      ? `const response = await fetch('${url}');`
      : `const response = await fetch('${url}', {\n${options.join('\n')}\n});`;
  return `${call}\nconsole.log(response.status, await response.text());`;
}

function pythonSample(method: string, url: string, keyed: boolean, body: unknown): string {
  const args = [`"${url}"`];
  if (keyed) args.push('headers={"Authorization": f"Bearer {os.environ[\'API_KEY\']}"}');
  if (body !== undefined) args.push(`json=${pythonLiteral(body)}`);
  const lines = keyed ? ['import os', 'import requests', ''] : ['import requests', ''];
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
