import { Type, type TObject, type TProperties } from '@sinclair/typebox';
import type { AuthenticatedRoute, Principal } from '../auth/index.js';
import { COUNTRY_LIST, JOB_LIST } from '../catalog/index.js';
import {
  applySchema,
  HistoryQuerySchema,
  labelled,
  LOOKUP_AUTH,
  PositionQuerySchema,
  SalaryQuerySchema,
  salaryTable,
  withSchemaFields,
  type Labelling,
  type PayPositionQuery,
  type PayPositionService,
  type SalaryService,
  type Selection,
} from '../salary/index.js';

/**
 * One MCP tool and its REST twin: the same service, the same declaration of who may call it,
 * and the endpoint name under which a call counts in quota, usage and the SLA.
 */
export interface ToolDefinition {
  readonly name: string;
  readonly title: string;
  readonly description: string;
  /** The arguments' JSON Schema (TypeBox), checked before the tool runs. */
  readonly input: TObject;
  /** The REST twin as usage names it: `GET /api/v1/salary`. */
  readonly endpoint: string;
  /** The twin's `config.auth`. */
  readonly auth: AuthenticatedRoute;
  /** The twin's answer as JSON; throws the twin's AppError (400, 403, 404, 503). */
  run(args: Record<string, unknown>, principal: Principal): object | Promise<object>;
}

const BULK_AUTH = { access: 'data', scope: 'bulk:read' } as const satisfies AuthenticatedRoute;

/** Properties without one of them. */
function without(properties: TProperties, omitted: string): TProperties {
  const kept: TProperties = {};
  for (const [name, schema] of Object.entries(properties))
    if (name !== omitted) kept[name] = schema;
  return kept;
}

/** A query schema's properties without `format` (tools answer JSON). */
const withoutFormat = (schema: TObject): TProperties => without(schema.properties, 'format');

const object = (properties: TProperties): TObject =>
  Type.Object(properties, { additionalProperties: false });

export interface ToolDeps {
  salary: SalaryService;
  positions: PayPositionService;
  /** A white-label account's labelling (null: this service's own). */
  labelling: (accountId: string | null) => Labelling | null;
}

/** The tools of the MCP server, each answering exactly what its REST twin answers in JSON. */
export function mcpTools(deps: ToolDeps): readonly ToolDefinition[] {
  const { salary, positions, labelling } = deps;

  /** The JSON body of a salary route: custom fields, the account's schema and labelling applied. */
  async function figures(
    selection: Selection,
    principal: Principal,
    feature?: 'bulk',
  ): Promise<object> {
    const schema = principal.responseSchema;
    const fields = withSchemaFields(selection.fields, schema);
    const pinned = await salary.pin({ ...selection, fields }, principal);
    const result = labelled(
      salary.select(pinned, principal, 'json', { feature }),
      labelling(principal.accountId),
    );
    const data = schema === null ? result.data : applySchema(salaryTable(result), schema).rows;
    return { data, meta: result.meta };
  }

  const lookupInput = object(withoutFormat(SalaryQuerySchema));
  const compareProperties = without(lookupInput.properties, 'country');
  return Object.freeze([
    {
      name: 'salary_lookup',
      title: 'Salary percentiles for a country and job',
      description:
        'Gross annual pay (EUR, full-time equivalent) for one EU country and job category: p25, median and p75 per seniority level, with the local-currency median, the basis and the confidence of each figure. Use list_countries and list_jobs for valid codes. Omit `level` for all four levels and `year` for the current year; older years need a paid plan (Developer 1 year back, Business 3, Enterprise all). `fields` (Business and higher) adds p10, p90, mean, monthly and hourly figures. `release` (a version) or `as_of` (a date) answers from an older kept data release. Same as GET /api/v1/salary.',
      input: lookupInput,
      endpoint: 'GET /api/v1/salary',
      auth: LOOKUP_AUTH,
      run: (args, principal) => figures(args as Selection, principal),
    },
    {
      name: 'salary_history',
      title: 'Salary time series for a country and job',
      description:
        "Every year of one country and job, as far back as the caller's plan reaches (Free: the current year only; Developer 1 year back; Business 3; Enterprise the full archive from 2014). Use it to see how pay moved; use salary_lookup for one year. Same as GET /api/v1/salary/history.",
      input: object(withoutFormat(HistoryQuerySchema)),
      endpoint: 'GET /api/v1/salary/history',
      auth: LOOKUP_AUTH,
      run: (args, principal) => figures({ ...(args as Selection), year: 'all' }, principal),
    },
    {
      name: 'salary_position',
      title: 'Where a salary sits in the market',
      description:
        "The percentile (0.1–99.9) of a gross annual salary within the modelled pay distribution of one country, job, seniority level and year, the band of published percentiles around it (below_p10 … above_p90), the distribution used and its confidence. `salary` is annual and gross, in EUR unless `currency` names the country's own currency. Developer plan and higher. Same as GET /api/v1/salary/position.",
      input: object(withoutFormat(PositionQuerySchema)),
      endpoint: 'GET /api/v1/salary/position',
      auth: LOOKUP_AUTH,
      run: (args, principal) => {
        const result = positions.position(args as unknown as PayPositionQuery, principal, 'json');
        const meta = labelled(
          { ...result, data: [], fields: [] },
          labelling(principal.accountId),
        ).meta;
        return { ...result, meta };
      },
    },
    {
      name: 'compare_countries',
      title: 'One job across all 27 EU countries',
      description:
        'The same figures as salary_lookup for one job in every EU country at once, for one year (the current year when omitted): use it to compare pay between countries. Business plan and higher (a bulk endpoint; a scoped key needs bulk:read). Same as GET /api/v1/bulk/countries.',
      input: object(compareProperties),
      endpoint: 'GET /api/v1/bulk/countries',
      auth: BULK_AUTH,
      run: (args, principal) => figures(args as Selection, principal, 'bulk'),
    },
    {
      name: 'list_countries',
      title: 'The 27 EU countries covered',
      description:
        'ISO code, English and native name and currency of each covered country. Call it to find the `country` code the other tools take. Same as GET /api/v1/countries.',
      input: object({}),
      endpoint: 'GET /api/v1/countries',
      auth: LOOKUP_AUTH,
      run: () => COUNTRY_LIST,
    },
    {
      name: 'list_jobs',
      title: 'The 21 job categories and the seniority levels',
      description:
        'Each job category with its slug, title and ISCO-08 code, and the seniority levels (junior, mid, senior, lead). Call it to find the `job` slug and `level` the other tools take. Same as GET /api/v1/jobs.',
      input: object({}),
      endpoint: 'GET /api/v1/jobs',
      auth: LOOKUP_AUTH,
      run: () => JOB_LIST,
    },
  ] satisfies ToolDefinition[]);
}
