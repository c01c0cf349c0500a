import { actorOf, type Principal } from '../auth/index.js';
import { recordAudit } from '../audit/index.js';
import { AppError } from '../errors/index.js';
import type { Clock } from '../lib/clock.js';
import { prefixedId } from '../lib/ids.js';
import { assertPlanHas, type Plan, type PlanId } from '../plans/index.js';
import { lockAccount, type Db } from '../store/index.js';
import {
  MAX_CUSTOM_ENDPOINTS,
  normalQuery,
  PARAMETER_NAMES,
  queryProblems,
  type CustomQuery,
  type ParameterName,
} from './query.js';
import type { CustomEndpointRegistry } from './registry.js';
import * as repo from './repo.js';

export interface CustomEndpointInput {
  slug: string;
  description?: string;
  query: CustomQuery;
  parameters?: readonly ParameterName[];
}

/** A custom endpoint as the API shows it. */
export interface CustomEndpointView {
  id: string;
  slug: string;
  path: string;
  description: string;
  query: CustomQuery;
  parameters: ParameterName[];
  created_at: string;
  updated_at: string;
}

export interface CustomEndpointService {
  list(principal: Principal): CustomEndpointView[];
  get(principal: Principal, id: string): CustomEndpointView;
  create(principal: Principal, input: CustomEndpointInput, ip: string): Promise<CustomEndpointView>;
  update(
    principal: Principal,
    id: string,
    input: CustomEndpointInput,
    ip: string,
  ): Promise<CustomEndpointView>;
  remove(principal: Principal, id: string, ip: string): Promise<void>;
}

export const CUSTOM_PATH = '/api/v1/custom/';

export function viewOf(row: repo.CustomEndpointRow): CustomEndpointView {
  return {
    id: row.id,
    slug: row.slug,
    path: `${CUSTOM_PATH}${row.slug}`,
    description: row.description,
    query: row.query,
    parameters: row.parameters,
    created_at: row.createdAt,
    updated_at: row.updatedAt,
  };
}

const notFound = (id: string): AppError =>
  new AppError('NOT_FOUND', `There is no custom endpoint ${id} on this account.`);

/** Saved queries an Enterprise account publishes; every change audited and announced. */
export function createCustomEndpointService(deps: {
  db: Db;
  clock: Clock;
  plans: Readonly<Record<PlanId, Plan>>;
  registry: CustomEndpointRegistry;
  /** Tells the other instances (the change bus); nothing in one process. */
  announce?: () => void;
}): CustomEndpointService {
  const { db, clock, plans, registry } = deps;

  function accountOf(principal: Principal): string {
    assertPlanHas(plans, principal.plan, (p) => p.customEndpoints, 'Custom endpoints');
    return principal.accountId as string;
  }

  function checked(input: CustomEndpointInput): repo.EndpointFields {
    const problems = queryProblems(input.query);
    if (problems.length > 0) throw AppError.invalidParams(problems);
    const parameters = PARAMETER_NAMES.filter((p) => input.parameters?.includes(p) === true);
    return {
      slug: input.slug,
      description: input.description ?? '',
      query: normalQuery(input.query),
      parameters,
    };
  }

  async function assertSlugFree(accountId: string, slug: string, id: string | null) {
    if (await repo.slugTaken(db, accountId, slug, id)) {
      throw new AppError('CONFLICT', `This account already has a custom endpoint ${slug}.`, {
        extensions: { slug },
      });
    }
  }

  function changed(row: repo.CustomEndpointRow): void {
    registry.apply(row);
    deps.announce?.();
  }

  return {
    list(principal) {
      return registry.list(accountOf(principal)).map(viewOf);
    },

    get(principal, id) {
      const row = registry.list(accountOf(principal)).find((r) => r.id === id);
      if (row === undefined) throw notFound(id);
      return viewOf(row);
    },

    async create(principal, input, ip) {
      const accountId = accountOf(principal);
      const fields = checked(input);
      const at = new Date(clock.now());
      const row = await db.transaction(async (tx) => {
        await lockAccount(tx, accountId);
        if ((await repo.countEndpoints(tx, accountId)) >= MAX_CUSTOM_ENDPOINTS) {
          throw new AppError(
            'CUSTOM_ENDPOINT_LIMIT_REACHED',
            `An account has at most ${MAX_CUSTOM_ENDPOINTS} custom endpoints; delete one first.`,
            { extensions: { max_endpoints: MAX_CUSTOM_ENDPOINTS } },
          );
        }
        if (await repo.slugTaken(tx, accountId, fields.slug, null)) {
          throw new AppError(
            'CONFLICT',
            `This account already has a custom endpoint ${fields.slug}.`,
            { extensions: { slug: fields.slug } },
          );
        }
        const created = await repo.insertEndpoint(tx, {
          ...fields,
          id: prefixedId('cep'),
          accountId,
          at,
        });
        await recordAudit(tx, {
          accountId,
          actor: actorOf(principal),
          action: 'custom_endpoints.create',
          data: { custom_endpoint_id: created.id, slug: created.slug },
          ip,
          at,
        });
        return created;
      });
      changed(row);
      return viewOf(row);
    },

    async update(principal, id, input, ip) {
      const accountId = accountOf(principal);
      const fields = checked(input);
      await assertSlugFree(accountId, fields.slug, id);
      const at = new Date(clock.now());
      const row = await db.transaction(async (tx) => {
        const updated = await repo.updateEndpoint(tx, accountId, id, fields, at);
        if (updated === undefined) throw notFound(id);
        await recordAudit(tx, {
          accountId,
          actor: actorOf(principal),
          action: 'custom_endpoints.update',
          data: {
            custom_endpoint_id: id,
            slug: updated.slug,
            query: updated.query,
            parameters: updated.parameters,
          },
          ip,
          at,
        });
        return updated;
      });
      changed(row);
      return viewOf(row);
    },

    async remove(principal, id, ip) {
      const accountId = accountOf(principal);
      const at = new Date(clock.now());
      const row = await db.transaction(async (tx) => {
        const deleted = await repo.deleteEndpoint(tx, accountId, id, at);
        if (deleted === undefined) throw notFound(id);
        await recordAudit(tx, {
          accountId,
          actor: actorOf(principal),
          action: 'custom_endpoints.delete',
          data: { custom_endpoint_id: id, slug: deleted.slug },
          ip,
          at,
        });
        return deleted;
      });
      changed(row);
    },
  };
}
