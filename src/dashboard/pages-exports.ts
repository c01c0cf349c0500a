import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { COUNTRIES, JOBS } from '../catalog/index.js';
import {
  MAX_EXPORTS,
  type DestinationInput,
  type ExportInput,
  type ExportQuery,
  type ExportService,
  type PublicExport,
  type PublicRun,
} from '../exports/index.js';
import type { Plan } from '../plans/index.js';
import { type DashboardTools, signedIn } from './context.js';
import {
  act,
  answeredNotInPlan,
  button,
  doneFlash,
  invalid,
  secretCard,
  text,
  type Body,
} from './forms.js';
import { markup, type Html } from '../lib/html.js';
import { BASE, bytes, number, page, time, type Flash } from './layout.js';

const PATH = '/exports';
const TITLE = 'Scheduled exports';
const YEARS = ['current', 'last 1', 'last 3', 'last 5', 'all'] as const;
const KINDS = [
  ['archive', 'Every country and job'],
  ['job', 'One job, every country'],
  ['country', 'One country, every job'],
] as const;
const DONE: Record<string, string> = {
  saved: 'The export was saved.',
  queued: 'A run is queued; it appears in the history below and runs within a minute.',
  deleted: 'The export and its run history were deleted.',
};

function destinationText(e: PublicExport): Html {
  const d = e.destination;
  return d.type === 'webhook'
    ? markup`Webhook <code>${d.url}</code>`
    : markup`SFTP <code>${d.username}@${d.host}:${d.port}${d.path}</code>`;
}

function queryText(q: ExportQuery): string {
  const what =
    q.kind === 'archive'
      ? 'every country and job'
      : q.kind === 'job'
        ? `job ${q.job ?? ''}`
        : `country ${q.country ?? ''}`;
  return `${what}; years: ${q.years}${q.fields === undefined ? '' : `; fields: ${q.fields}`}`;
}

const selected = (yes: boolean) => (yes ? markup`selected` : '');

/** The form that creates an export, or changes `current` (the destination kept unless replaced). */
function exportForm(plan: Plan, csrf: string, current?: PublicExport, disabled = false): Html {
  const q = current?.query;
  const action = current === undefined ? `${BASE}/exports` : `${BASE}/exports/${current.id}`;
  const id = (name: string) => `${current === undefined ? 'new' : 'edit'}-${name}`;
  const off = disabled ? markup`disabled` : '';
  return markup`<form method="post" action="${action}" class="stack">
    <input type="hidden" name="_csrf" value="${csrf}" />
    <label for="${id('name')}">Name</label>
    <input id="${id('name')}" name="name" required maxlength="100" value="${current?.name ?? ''}" ${off} />
    <label for="${id('schedule')}">Schedule (cron: minute hour day month weekday)</label>
    <input
      id="${id('schedule')}"
      name="schedule"
      required
      maxlength="100"
      value="${current?.schedule ?? '0 6 * * 1'}"
      aria-describedby="${id('schedule-hint')}"
      ${off}
    />
    <p id="${id('schedule-hint')}" class="hint">0 6 * * 1: Mondays at 06:00; 0 3 1 * *: the 1st of each month at 03:00.</p>
    <label for="${id('timezone')}">Time zone of the schedule (IANA)</label>
    <input id="${id('timezone')}" name="timezone" maxlength="64" value="${current?.timezone ?? 'UTC'}" ${off} />
    <label for="${id('kind')}">Selection</label>
    <select id="${id('kind')}" name="kind" ${off}>
      ${KINDS.map(([k, label]) => markup`<option value="${k}" ${selected(q?.kind === k)}>${label}</option>`)}
    </select>
    <label for="${id('job')}">Job (for one job)</label>
    <select id="${id('job')}" name="job" ${off}>
      <option value="">—</option>
      ${JOBS.map((j) => markup`<option value="${j.slug}" ${selected(q?.job === j.slug)}>${j.title}</option>`)}
    </select>
    <label for="${id('country')}">Country (for one country)</label>
    <select id="${id('country')}" name="country" ${off}>
      <option value="">—</option>
      ${COUNTRIES.map((c) => markup`<option value="${c.code}" ${selected(q?.country === c.code)}>${c.name}</option>`)}
    </select>
    <label for="${id('years')}">Years</label>
    <select id="${id('years')}" name="years" ${off}>
      ${YEARS.map((y) => markup`<option value="${y}" ${selected((q?.years ?? 'current') === y)}>${y}</option>`)}
    </select>
    <label for="${id('fields')}">Extra fields (comma-separated, optional)</label>
    <input id="${id('fields')}" name="fields" maxlength="500" value="${q?.fields ?? ''}" ${off} />
    <label for="${id('format')}">Format</label>
    <select id="${id('format')}" name="format" ${off}>
      ${plan.formats.map((f) => markup`<option value="${f}" ${selected(current?.format === f)}>${f}</option>`)}
    </select>
    <label class="check">
      <input type="checkbox" name="gzip" value="on" ${current?.compression === 'gzip' ? markup`checked` : ''} ${off} />
      Compress the file with gzip
    </label>
    <fieldset>
      <legend>Destination</legend>
      ${
        current === undefined
          ? ''
          : markup`<label><input type="radio" name="destination" value="keep" checked ${off} /> Keep: ${destinationText(current)}</label>`
      }
      <label>
        <input type="radio" name="destination" value="webhook" ${current === undefined ? markup`checked` : ''} ${off} />
        Webhook: a signed event with a download link (the file is kept 7 days)
      </label>
      <label><input type="radio" name="destination" value="sftp" ${off} /> SFTP upload</label>
    </fieldset>
    <fieldset class="group">
      <legend>Webhook destination</legend>
      <label for="${id('url')}">Webhook URL (https)</label>
      <input id="${id('url')}" name="url" type="url" maxlength="2000" placeholder="https://hooks.example.com/exports" ${off} />
    </fieldset>
    <fieldset class="group">
      <legend>SFTP destination</legend>
      <label for="${id('host')}">SFTP host</label>
      <input id="${id('host')}" name="host" maxlength="253" ${off} />
      <label for="${id('port')}">SFTP port</label>
      <input id="${id('port')}" name="port" inputmode="numeric" maxlength="5" placeholder="22" ${off} />
      <label for="${id('username')}">SFTP user name</label>
      <input id="${id('username')}" name="username" maxlength="100" autocomplete="off" ${off} />
      <label for="${id('password')}">SFTP password (or a private key below)</label>
      <input id="${id('password')}" name="password" type="password" maxlength="1000" autocomplete="new-password" ${off} />
      <label for="${id('private_key')}">SFTP private key (OpenSSH or PEM)</label>
      <textarea id="${id('private_key')}" name="private_key" rows="3" class="code" ${off}></textarea>
      <label for="${id('host_key')}">Server host key fingerprint (as ssh-keygen -lf prints it)</label>
      <input id="${id('host_key')}" name="host_key_sha256" maxlength="60" placeholder="SHA256:…" ${off} />
      <label for="${id('path')}">Remote folder</label>
      <input id="${id('path')}" name="path" maxlength="1000" placeholder="/incoming" ${off} />
    </fieldset>
    <button type="submit" ${off}>${current === undefined ? 'Create the export' : 'Save the changes'}</button>
  </form>`;
}

/** The export the form describes, checked as the API's schema checks it. */
function exportInput(body: Body, editing: boolean): Partial<ExportInput> {
  const problems: { name: string; reason: string }[] = [];
  const name = text(body, 'name');
  const schedule = text(body, 'schedule');
  if (name.length === 0 || name.length > 100)
    problems.push({ name: 'name', reason: 'is required (at most 100 characters)' });
  if (schedule.length < 9 || schedule.length > 100)
    problems.push({ name: 'schedule', reason: 'must be a 5-field cron expression' });
  const kind = text(body, 'kind');
  if (!KINDS.some(([k]) => k === kind))
    problems.push({ name: 'kind', reason: 'must be archive, job or country' });
  const years = text(body, 'years');
  if (!(YEARS as readonly string[]).includes(years))
    problems.push({ name: 'years', reason: `must be one of ${YEARS.join(', ')}` });
  const fields = text(body, 'fields');
  const query = {
    kind: kind,
    years,
    ...(kind === 'job' && text(body, 'job') !== '' ? { job: text(body, 'job') } : {}),
    ...(kind === 'country' && text(body, 'country') !== ''
      ? { country: text(body, 'country') }
      : {}),
    ...(fields === '' ? {} : { fields }),
  };
  const destination = destinationInput(body, editing, problems);
  if (problems.length > 0) throw invalid(...problems);
  return {
    name,
    schedule,
    timezone: text(body, 'timezone') || 'UTC',
    query,
    format: text(body, 'format') as ExportInput['format'],
    compression: text(body, 'gzip') === 'on' ? 'gzip' : 'none',
    ...(destination === undefined ? {} : { destination }),
  };
}

function destinationInput(
  body: Body,
  editing: boolean,
  problems: { name: string; reason: string }[],
): DestinationInput | undefined {
  const type = text(body, 'destination');
  if (type === 'keep' && editing) return undefined;
  if (type === 'webhook') {
    const url = text(body, 'url');
    if (url === '') problems.push({ name: 'url', reason: 'is required for a webhook destination' });
    return { type: 'webhook', url };
  }
  if (type !== 'sftp') {
    problems.push({ name: 'destination', reason: 'choose webhook or SFTP' });
    return undefined;
  }
  const port = text(body, 'port');
  const portNumber = port === '' ? 22 : Number(port);
  if (!Number.isInteger(portNumber) || portNumber < 1 || portNumber > 65535)
    problems.push({ name: 'port', reason: 'must be a number from 1 to 65535' });
  const hostKey = text(body, 'host_key_sha256');
  if (!/^SHA256:[A-Za-z0-9+/]{43}=?$/.test(hostKey))
    problems.push({ name: 'host_key_sha256', reason: 'must be SHA256: and 43 base64 characters' });
  for (const field of ['host', 'username', 'path'])
    if (text(body, field) === '')
      problems.push({ name: field, reason: 'is required for an SFTP destination' });
  const password = text(body, 'password');
  const privateKey = text(body, 'private_key');
  return {
    type: 'sftp',
    host: text(body, 'host'),
    port: portNumber,
    username: text(body, 'username'),
    host_key_sha256: hostKey,
    path: text(body, 'path'),
    ...(password === '' ? {} : { password }),
    ...(privateKey === '' ? {} : { private_key: privateKey }),
  };
}

function runsTable(e: PublicExport, runs: PublicRun[]): Html {
  if (runs.length === 0) return markup`<p class="muted">No runs yet.</p>`;
  const file = (r: PublicRun): Html => {
    if (r.status !== 'succeeded') return markup``;
    if (e.destination.type === 'sftp')
      return markup`on the server: <code>${r.file_name ?? ''}</code>`;
    return markup`<a href="${BASE}/exports/runs/${r.id}/file" download
      >Download<span class="sr-only"> the file of the run of ${time(r.scheduled_at)}</span></a
    >`;
  };
  return markup`<div class="table-wrap">
    <table id="runs" class="cards-on-phone">
      <caption class="muted">The latest 100 runs, newest first</caption>
      <thead>
        <tr>
          <th scope="col">Started by</th>
          <th scope="col">Scheduled</th>
          <th scope="col">Status</th>
          <th scope="col">Finished</th>
          <th scope="col" class="num">Rows</th>
          <th scope="col" class="num">Size</th>
          <th scope="col">SHA-256</th>
          <th scope="col">File</th>
        </tr>
      </thead>
      <tbody>
        ${runs.map(
          (r) => markup`<tr>
            <td data-label="Started by">${r.trigger === 'manual' ? 'hand' : 'schedule'}</td>
            <td data-label="Scheduled">${time(r.scheduled_at)}</td>
            <td data-label="Status">
              <span class="status-${r.status}">${r.status}</span>${r.attempts > 1 ? ` (attempt ${r.attempts})` : ''}${r.next_attempt_at === null ? '' : markup`, next try ${time(r.next_attempt_at)}`}${r.error === null ? '' : markup`<br /><span class="muted">${r.error}</span>`}
            </td>
            <td data-label="Finished">${time(r.finished_at)}</td>
            <td data-label="Rows" class="num">${r.rows === null ? '—' : number(r.rows)}</td>
            <td data-label="Size" class="num">${bytes(r.bytes)}</td>
            <td data-label="SHA-256"><span class="sha">${r.sha256 ?? '—'}</span></td>
            <td data-label="File">${file(r)}</td>
          </tr>`,
        )}
      </tbody>
    </table>
  </div>`;
}

/** /dashboard/exports…: list, create, change, run now, run history, download, delete. */
export function exportPages(app: FastifyInstance, tools: DashboardTools): void {
  const { deps } = tools;
  const service = (): ExportService => deps.exports as ExportService;
  const gate = (request: FastifyRequest, reply: FastifyReply) =>
    answeredNotInPlan(request, reply, tools, {
      path: PATH,
      title: TITLE,
      has: deps.exports !== undefined && signedIn(request).principal.plan.scheduledExports,
    });

  async function list(
    request: FastifyRequest,
    reply: FastifyReply,
    status: number,
    extra: { flash?: Flash; top?: Html } = {},
  ) {
    const { principal, page: ctx } = signedIn(request);
    const exports = await service().list(principal);
    const full = exports.length >= MAX_EXPORTS;
    const content = markup`${extra.top ?? ''}
      <p id="export-count">${exports.length} of ${MAX_EXPORTS} exports.</p>
      ${
        exports.length === 0
          ? markup`<p>No exports yet. An export delivers a bulk selection as a file on a schedule.</p>`
          : markup`<div class="table-wrap">
              <table id="exports" class="cards-on-phone">
                <thead>
                  <tr>
                    <th scope="col">Name</th>
                    <th scope="col">Selection</th>
                    <th scope="col">Schedule</th>
                    <th scope="col">Format</th>
                    <th scope="col">Destination</th>
                    <th scope="col">Next run</th>
                  </tr>
                </thead>
                <tbody>
                  ${exports.map(
                    (e) => markup`<tr>
                      <td data-label="Name"><a href="${BASE}/exports/${e.id}">${e.name}</a></td>
                      <td data-label="Selection">${queryText(e.query)}</td>
                      <td data-label="Schedule"><code>${e.schedule}</code> (${e.timezone})</td>
                      <td data-label="Format">${e.format}${e.compression === 'gzip' ? ', gzip' : ''}</td>
                      <td data-label="Destination">${destinationText(e)}</td>
                      <td data-label="Next run">${time(e.next_run_at)}</td>
                    </tr>`,
                  )}
                </tbody>
              </table>
            </div>`
      }
      <h2>Create an export</h2>
      ${full ? markup`<p class="reason" id="exports-full">An account has at most ${MAX_EXPORTS} exports: delete one to create another.</p>` : ''}
      ${exportForm(principal.plan, ctx.csrf, undefined, full)}`;
    return tools.send(reply, status, page(ctx, PATH, TITLE, content, extra.flash));
  }

  async function detail(
    request: FastifyRequest,
    reply: FastifyReply,
    id: string,
    status: number,
    extra: { flash?: Flash; top?: Html } = {},
  ) {
    const { principal, page: ctx } = signedIn(request);
    const [e, runs] = await Promise.all([
      service().get(principal, id),
      service().runs(principal, id),
    ]);
    const content = markup`${extra.top ?? ''}
      <p><a href="${BASE}/exports">All exports</a></p>
      <p>
        ${queryText(e.query)} · ${e.format}${e.compression === 'gzip' ? ', gzip' : ''} ·
        ${destinationText(e)}
      </p>
      <p>Schedule <code>${e.schedule}</code> (${e.timezone}); next run ${time(e.next_run_at)}.</p>
      <p>
        ${button(`${BASE}/exports/${e.id}/run`, 'Run now', ctx.csrf, { kind: 'primary' })}
        ${button(`${BASE}/exports/${e.id}/delete`, 'Delete the export', ctx.csrf, {
          kind: 'danger',
          confirm: 'Delete this export and its run history?',
        })}
      </p>
      <h2>Runs</h2>
      ${runsTable(e, runs)}
      <h2>Change the export</h2>
      ${exportForm(principal.plan, ctx.csrf, e)}`;
    return tools.send(reply, status, page(ctx, PATH, e.name, content, extra.flash));
  }

  /** A failed action on an export's page: that page with the reason, or the list if it is gone. */
  const onExport =
    (request: FastifyRequest, reply: FastifyReply, id: string) =>
    async (status: number, flash: Flash) =>
      status === 404
        ? list(request, reply, 404, { flash })
        : detail(request, reply, id, status, { flash }).catch(() =>
            list(request, reply, status, { flash }),
          );

  const idOf = (request: FastifyRequest) => (request.params as { id: string }).id.slice(0, 64);

  app.get('/dashboard/exports', async (request, reply) => {
    if (gate(request, reply)) return reply;
    const flash = doneFlash(request, DONE);
    return list(request, reply, 200, flash === undefined ? {} : { flash });
  });

  app.post('/dashboard/exports', async (request, reply) => {
    if (gate(request, reply)) return reply;
    return act(
      request,
      reply,
      (status, flash) => list(request, reply, status, { flash }),
      async () => {
        const input = exportInput((request.body ?? {}) as Body, false) as ExportInput;
        const created = await service().create(signedIn(request).principal, input);
        if (created.secret === undefined)
          return tools.redirect(reply, `/exports/${created.id}?done=saved`);
        const top = secretCard(
          'export-secret',
          `Export “${created.name}” created`,
          'Signing secret of its webhook events',
          created.secret,
        );
        return detail(request, reply, created.id, 201, { top });
      },
    );
  });

  app.get('/dashboard/exports/:id', async (request, reply) => {
    if (gate(request, reply)) return reply;
    const flash = doneFlash(request, DONE);
    return act(
      request,
      reply,
      (status, f) => list(request, reply, status, { flash: f }),
      () => detail(request, reply, idOf(request), 200, flash === undefined ? {} : { flash }),
    );
  });

  app.post('/dashboard/exports/:id', async (request, reply) => {
    if (gate(request, reply)) return reply;
    const id = idOf(request);
    return act(request, reply, onExport(request, reply, id), async () => {
      const input = exportInput((request.body ?? {}) as Body, true);
      const updated = await service().update(signedIn(request).principal, id, input);
      if (updated.secret === undefined) return tools.redirect(reply, `/exports/${id}?done=saved`);
      const top = secretCard(
        'export-secret',
        'The destination was replaced',
        'Signing secret of its webhook events',
        updated.secret,
      );
      return detail(request, reply, id, 200, { top });
    });
  });

  app.post('/dashboard/exports/:id/run', async (request, reply) => {
    if (gate(request, reply)) return reply;
    const id = idOf(request);
    return act(request, reply, onExport(request, reply, id), async () => {
      await service().runNow(signedIn(request).principal, id);
      return tools.redirect(reply, `/exports/${id}?done=queued`);
    });
  });

  app.post('/dashboard/exports/:id/delete', async (request, reply) => {
    if (gate(request, reply)) return reply;
    const id = idOf(request);
    return act(request, reply, onExport(request, reply, id), async () => {
      await service().remove(signedIn(request).principal, id);
      return tools.redirect(reply, '/exports?done=deleted');
    });
  });

  app.get('/dashboard/exports/runs/:run/file', async (request, reply) => {
    if (gate(request, reply)) return reply;
    const runId = (request.params as { run: string }).run.slice(0, 64);
    return act(
      request,
      reply,
      (status, flash) => list(request, reply, status, { flash }),
      async () => {
        const file = await service().file(signedIn(request).principal, runId);
        return reply
          .header('content-type', file.contentType)
          .header('content-disposition', `attachment; filename="${file.fileName}"`)
          .header('content-length', file.bytes)
          .header('cache-control', 'private, no-store')
          .header('x-content-sha256', file.sha256)
          .send(file.open());
      },
    );
  });
}
