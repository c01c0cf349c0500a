import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { COUNTRIES, JOBS } from '../catalog/index.js';
import {
  ExportNameSchema,
  ExportScheduleSchema,
  ExportTimezoneSchema,
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
  FormState,
  invalid,
  lengthAttributes,
  lengthProblem,
  secretCard,
  submit,
  text,
  type Body,
} from './forms.js';
import { markup, type Html } from '../lib/html.js';
import { csrfField } from './session.js';
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

const LABELS: Record<string, string> = {
  name: 'Name',
  schedule: 'Schedule',
  timezone: 'Time zone of the schedule',
  kind: 'Selection',
  job: 'Job',
  country: 'Country',
  years: 'Years',
  fields: 'Extra fields',
  format: 'Format',
  destination: 'Destination',
  url: 'Webhook URL',
  host: 'SFTP host',
  port: 'SFTP port',
  username: 'SFTP user name',
  password: 'SFTP password',
  private_key: 'SFTP private key',
  host_key_sha256: 'Server host key fingerprint',
  path: 'Remote folder',
};
/** Never sent back in a refused form. */
const SECRETS = ['password', 'private_key'];

/**
 * The form that creates an export, or changes `current` (the destination kept unless replaced);
 * after a refused submit, `form` holds what was typed and every problem.
 */
function exportForm(
  plan: Plan,
  csrf: string,
  current?: PublicExport,
  disabled = false,
  form = FormState.EMPTY,
): Html {
  const q = current?.query;
  const action = current === undefined ? `${BASE}/exports` : `${BASE}/exports/${current.id}`;
  const id = (name: string) => `${current === undefined ? 'new' : 'edit'}-${name}`;
  const off = disabled ? markup`disabled` : '';
  const labels = Object.fromEntries(
    Object.entries(LABELS).map(([name, label]) => [name, { id: id(name), label }]),
  );
  // The destination's radios: the first one carries the group's id, for the summary's link.
  labels['destination'] = { id: id('destination-first'), label: LABELS['destination'] ?? '' };
  const v = (name: string, fallback = '') => form.value(name, fallback);
  const at = (name: string, hint?: string) => markup`${form.marks(name, id(name), hint)}`;
  const note = (name: string) => form.note(name, id(name));
  const kind = v('kind', q?.kind ?? 'archive');
  const destination = v('destination', current === undefined ? 'webhook' : 'keep');
  const radio = (value: string, first: boolean) =>
    markup`<input type="radio" name="destination" value="${value}" ${first ? markup`id="${id('destination-first')}"` : ''} ${destination === value ? markup`checked` : ''} ${off} />`;
  return markup`<form method="post" action="${action}" class="stack">
    ${form.summary(labels)}
    ${csrfField(csrf)}
    <label for="${id('name')}">Name</label>
    <input id="${id('name')}" name="name" ${lengthAttributes(ExportNameSchema)} value="${v('name', current?.name)}" ${at('name')} ${off} />
    ${note('name')}
    <label for="${id('schedule')}">Schedule (cron: minute hour day month weekday)</label>
    <input
      id="${id('schedule')}"
      name="schedule"
      ${lengthAttributes(ExportScheduleSchema)}
      value="${v('schedule', current?.schedule ?? '0 6 * * 1')}"
      ${at('schedule', id('schedule-hint'))}
      ${off}
    />
    ${note('schedule')}
    <p id="${id('schedule-hint')}" class="hint">0 6 * * 1: Mondays at 06:00; 0 3 1 * *: the 1st of each month at 03:00.</p>
    <label for="${id('timezone')}">Time zone of the schedule (IANA)</label>
    <input id="${id('timezone')}" name="timezone" maxlength="${ExportTimezoneSchema.maxLength}" value="${v('timezone', current?.timezone ?? 'UTC')}" ${at('timezone')} ${off} />
    ${note('timezone')}
    <label for="${id('kind')}">Selection</label>
    <select id="${id('kind')}" name="kind" ${at('kind')} ${off}>
      ${KINDS.map(([k, label]) => markup`<option value="${k}" ${selected(kind === k)}>${label}</option>`)}
    </select>
    ${note('kind')}
    <label for="${id('job')}">Job (for one job)</label>
    <select id="${id('job')}" name="job" ${at('job')} ${off}>
      <option value="">—</option>
      ${JOBS.map((j) => markup`<option value="${j.slug}" ${selected(v('job', q?.job) === j.slug)}>${j.title}</option>`)}
    </select>
    ${note('job')}
    <label for="${id('country')}">Country (for one country)</label>
    <select id="${id('country')}" name="country" ${at('country')} ${off}>
      <option value="">—</option>
      ${COUNTRIES.map((c) => markup`<option value="${c.code}" ${selected(v('country', q?.country) === c.code)}>${c.name}</option>`)}
    </select>
    ${note('country')}
    <label for="${id('years')}">Years</label>
    <select id="${id('years')}" name="years" ${at('years')} ${off}>
      ${YEARS.map((y) => markup`<option value="${y}" ${selected(v('years', q?.years ?? 'current') === y)}>${y}</option>`)}
    </select>
    ${note('years')}
    <label for="${id('fields')}">Extra fields (comma-separated, optional)</label>
    <input id="${id('fields')}" name="fields" maxlength="500" value="${v('fields', q?.fields)}" ${at('fields')} ${off} />
    ${note('fields')}
    <label for="${id('format')}">Format</label>
    <select id="${id('format')}" name="format" ${at('format')} ${off}>
      ${plan.formats.map((f) => markup`<option value="${f}" ${selected(v('format', current?.format) === f)}>${f}</option>`)}
    </select>
    ${note('format')}
    <label class="check">
      <input type="checkbox" name="gzip" value="on" ${form.chosen('gzip', 'on', current?.compression === 'gzip') ? markup`checked` : ''} ${off} />
      Compress the file with gzip
    </label>
    <fieldset>
      <legend>Destination</legend>
      ${note('destination')}
      ${
        current === undefined
          ? ''
          : markup`<label>${radio('keep', true)} Keep: ${destinationText(current)}</label>`
      }
      <label>
        ${radio('webhook', current === undefined)}
        Webhook: a signed event with a download link (the file is kept 7 days)
      </label>
      <label>${radio('sftp', false)} SFTP upload</label>
    </fieldset>
    <fieldset class="group">
      <legend>Webhook destination</legend>
      <label for="${id('url')}">Webhook URL (https)</label>
      <input id="${id('url')}" name="url" type="url" maxlength="2000" placeholder="https://hooks.example.com/exports" value="${v('url')}" ${at('url')} ${off} />
      ${note('url')}
    </fieldset>
    <fieldset class="group">
      <legend>SFTP destination</legend>
      <label for="${id('host')}">SFTP host</label>
      <input id="${id('host')}" name="host" maxlength="253" value="${v('host')}" ${at('host')} ${off} />
      ${note('host')}
      <label for="${id('port')}">SFTP port</label>
      <input id="${id('port')}" name="port" inputmode="numeric" maxlength="5" placeholder="22" value="${v('port')}" ${at('port')} ${off} />
      ${note('port')}
      <label for="${id('username')}">SFTP user name</label>
      <input id="${id('username')}" name="username" maxlength="100" autocomplete="off" value="${v('username')}" ${at('username')} ${off} />
      ${note('username')}
      <label for="${id('password')}">SFTP password (or a private key below)</label>
      <input id="${id('password')}" name="password" type="password" maxlength="1000" autocomplete="new-password" ${at('password')} ${off} />
      ${note('password')}
      <label for="${id('private_key')}">SFTP private key (OpenSSH or PEM)</label>
      <textarea id="${id('private_key')}" name="private_key" rows="3" class="code" ${at('private_key')} ${off}></textarea>
      ${note('private_key')}
      <label for="${id('host_key_sha256')}">Server host key fingerprint (as ssh-keygen -lf prints it)</label>
      <input id="${id('host_key_sha256')}" name="host_key_sha256" maxlength="60" placeholder="SHA256:…" value="${v('host_key_sha256')}" ${at('host_key_sha256')} ${off} />
      ${note('host_key_sha256')}
      <label for="${id('path')}">Remote folder</label>
      <input id="${id('path')}" name="path" maxlength="1000" placeholder="/incoming" value="${v('path')}" ${at('path')} ${off} />
      ${note('path')}
    </fieldset>
    <button type="submit" ${off}>${current === undefined ? 'Create the export' : 'Save the changes'}</button>
  </form>`;
}

/** The export the form describes, checked as the API's schema checks it. */
function exportInput(body: Body, editing: boolean): Partial<ExportInput> {
  const problems: { name: string; reason: string }[] = [];
  const name = text(body, 'name');
  const schedule = text(body, 'schedule');
  const nameProblem = lengthProblem(name, ExportNameSchema);
  if (nameProblem !== '') problems.push({ name: 'name', reason: nameProblem });
  const scheduleProblem = lengthProblem(schedule, ExportScheduleSchema);
  if (scheduleProblem !== '')
    problems.push({
      name: 'schedule',
      reason: schedule.length === 0 ? scheduleProblem : 'must be a 5-field cron expression',
    });
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
  const service = (): ExportService => deps.planFeatures.exports as ExportService;
  const gate = (request: FastifyRequest, reply: FastifyReply) =>
    answeredNotInPlan(request, reply, tools, {
      path: PATH,
      title: TITLE,
      has:
        deps.planFeatures.exports !== undefined &&
        signedIn(request).principal.plan.scheduledExports,
    });

  async function list(
    request: FastifyRequest,
    reply: FastifyReply,
    status: number,
    extra: { flash?: Flash; top?: Html; form?: FormState } = {},
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
      ${exportForm(principal.plan, ctx.csrf, undefined, full, extra.form)}`;
    return tools.send(reply, status, page(ctx, PATH, TITLE, content, extra.flash));
  }

  async function detail(
    request: FastifyRequest,
    reply: FastifyReply,
    id: string,
    status: number,
    extra: { flash?: Flash; top?: Html; form?: FormState } = {},
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
      ${exportForm(principal.plan, ctx.csrf, e, false, extra.form)}`;
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
    return submit(
      request,
      reply,
      {
        refused: (status, form) => list(request, reply, status, { form }),
        failed: (status, flash) => list(request, reply, status, { flash }),
        secrets: SECRETS,
      },
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
    const failed = onExport(request, reply, id);
    const refused = (status: number, form: FormState) =>
      status === 404
        ? list(request, reply, 404, { flash: { kind: 'error', text: form.general ?? '' } })
        : detail(request, reply, id, status, { form });
    return submit(request, reply, { refused, failed, secrets: SECRETS }, async () => {
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
