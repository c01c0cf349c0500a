import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import {
  BillingDetailsBodySchema,
  COUNTRIES,
  countryName,
  detailsProblems,
  epcQrSvg,
  formatRate,
  EU_VAT,
  MandateBodySchema,
  MAX_ADDRESS_LINES,
  type PublicBillingDetails,
  type PublicInvoice,
} from '../billing/index.js';
import type { PlanId } from '../plans/index.js';
import { flashOf, type DashboardTools, signedIn } from './context.js';
import { Html, markup } from '../lib/html.js';
import { csrfField } from './session.js';
import type { FormState } from './forms.js';
import {
  asTyped,
  type Body,
  type FieldLabel,
  submitOnPage,
  lengthProblem,
  listProblem,
  Problems,
  type RefusedForm,
  stateOf,
  text,
  textLimits,
} from './forms.js';
import { BASE, money, page, time, type Flash } from './layout.js';
import { secretBlock } from './pages-keys.js';

/** The plans a customer changes to here; Enterprise is a contract (sales). */
const SELF_SERVE: readonly PlanId[] = ['free', 'developer', 'business'];

export const euros = money;

type Quote = Awaited<ReturnType<DashboardTools['deps']['subscriptions']['quote']>>;
type Line = Awaited<
  ReturnType<DashboardTools['deps']['subscriptions']['preview']>
>['lines'][number];

/** The lines of the invoice a change issues now, as the invoice will list them. */
function invoiceLines(lines: readonly Line[]): Html {
  return markup`<table class="quote" id="change-lines">
      <caption>The invoice this change issues now</caption>
      <tbody>
        ${lines.map(
          (line) =>
            markup`<tr><th scope="row">${line.description}</th><td class="num">${euros(line.amountCents)}</td></tr>`,
        )}
      </tbody>
    </table>`;
}

/** What a change charges now as its invoice will say it: net, VAT and its reason, gross. */
function quoteTable(q: Quote): Html {
  const vat = q.vat;
  const vatLabel =
    vat.treatment === 'standard'
      ? `VAT ${formatRate(vat.rateBp)} (${countryName(vat.rateCountry ?? '') ?? vat.rateCountry ?? ''})`
      : vat.treatment === 'reverse_charge'
        ? 'VAT: reverse charge, accounted for by you'
        : vat.treatment === 'outside_eu'
          ? 'VAT: none, outside the scope of EU VAT'
          : 'VAT: none, the seller is not registered for VAT';
  return markup`<table class="quote" id="due-now-table">
      <tbody>
        <tr><th scope="row">Net</th><td class="num" id="due-net">${euros(q.netCents)}</td></tr>
        <tr><th scope="row" id="due-vat-label">${vatLabel}</th><td class="num" id="due-vat">${euros(q.vatCents)}</td></tr>
        <tr><th scope="row">Charged now</th><td class="num figure" id="due-now">${euros(q.grossCents)}</td></tr>
      </tbody>
    </table>`;
}

const DONE: Record<string, string> = {
  changed: 'The plan change is recorded.',
  details: 'The billing details are saved; invoices issued from now on are made out to them.',
  mandate:
    'The SEPA Direct Debit mandate is in force: open invoices are collected from your account.',
  revoked: 'The SEPA Direct Debit mandate is revoked: nothing more is collected under it.',
};

const MANDATE: Record<string, FieldLabel> = {
  iban: { id: 'mandate_iban', label: 'IBAN' },
  account_holder: { id: 'mandate_holder', label: 'Account holder' },
  scheme: { id: 'mandate_scheme', label: 'Scheme' },
  accept_mandate_text: { id: 'mandate_accept', label: 'I accept the mandate text' },
};
const DETAILS: Record<string, FieldLabel> = {
  company_name: { id: 'company_name', label: 'Company name (or your own name)' },
  address_lines: { id: 'address_lines', label: 'Address' },
  country: { id: 'country', label: 'Country' },
  vat_number: { id: 'vat_number', label: 'VAT number' },
};
const MANDATE_FIELDS = MandateBodySchema.properties;
const DETAILS_FIELDS = BillingDetailsBodySchema.properties;

type MandateState = Awaited<ReturnType<DashboardTools['deps']['subscriptions']['mandates']['get']>>;

function mandateSection(csrf: string, state: MandateState, form: FormState): Html | '' {
  if (!state.offered || state.terms === null) return '';
  const m = state.mandate;
  if (m !== null)
    return markup`<h2>Pay by SEPA Direct Debit</h2>
      <div class="card" id="sepa-mandate">
        <p>Open invoices are collected from <strong class="iban">${m.iban_masked}</strong> (${m.account_holder}), SEPA ${m.scheme === 'core' ? 'Core' : 'B2B'} Direct Debit.</p>
        <dl>
          <dt>Mandate reference</dt><dd class="reference">${m.reference}</dd>
          <dt>Creditor</dt><dd>${m.creditor_name}, creditor identifier ${m.creditor_id}</dd>
          <dt>Signed</dt><dd>${time(m.signed_at)}</dd>
        </dl>
        <p class="muted">Each collection is announced with its invoice, at least ${state.terms.pre_notification_days} days before.</p>
        <form method="post" action="${BASE}/billing/mandate/revoke">
          ${csrfField(csrf)}
          <button type="submit" class="danger">Revoke the mandate</button>
        </form>
      </div>`;
  const t = state.terms;
  const scheme = form.value('scheme', 'core') === 'b2b' ? 'b2b' : 'core';
  const accept = MANDATE['accept_mandate_text']!;
  return markup`<h2>Pay by SEPA Direct Debit</h2>
    <form method="post" action="${BASE}/billing/mandate" id="sepa-mandate-form" class="stack">
      ${form.summary(MANDATE)}
      ${csrfField(csrf)}
      ${form.field('iban', MANDATE['iban']!, {
        schema: MANDATE_FIELDS.iban,
        required: true,
        attrs: markup`autocomplete="off" spellcheck="false"`,
      })}
      ${form.field('account_holder', MANDATE['account_holder']!, {
        schema: MANDATE_FIELDS.account_holder,
        required: true,
      })}
      <fieldset id="${MANDATE['scheme']!.id}" ${form.marks('scheme', MANDATE['scheme']!.id)}>
        <legend>Scheme</legend>
        ${form.note('scheme', MANDATE['scheme']!.id)}
        <label><input type="radio" name="scheme" value="core" ${scheme === 'core' ? markup`checked` : ''} /> Core (anyone)</label>
        <label><input type="radio" name="scheme" value="b2b" ${scheme === 'b2b' ? markup`checked` : ''} /> B2B (businesses; tell your bank first)</label>
      </fieldset>
      <details open>
        <summary>Mandate text: creditor ${t.creditor_name}, creditor identifier ${t.creditor_id}</summary>
        <p class="mandate-text" data-scheme="core"><strong>Core:</strong> ${t.mandate_texts.core}</p>
        <p class="mandate-text" data-scheme="b2b"><strong>B2B:</strong> ${t.mandate_texts.b2b}</p>
      </details>
      <label class="check"><input type="checkbox" id="${accept.id}" name="accept_mandate_text" value="yes" required ${form.marks('accept_mandate_text', accept.id)} /> ${accept.label} of the chosen scheme.</label>
      ${form.note('accept_mandate_text', accept.id)}
      <button type="submit">Give the mandate</button>
    </form>`;
}

/** The form's values before anything is submitted: what was saved. */
function savedDetails(d: PublicBillingDetails | null): Record<string, string> {
  return {
    company_name: d?.company_name ?? '',
    address_lines: d?.address_lines.join('\n') ?? '',
    country: d?.country ?? '',
    vat_number: d?.vat_number ?? '',
  };
}

const countryOption = (code: string, name: string, chosen: string): Html =>
  markup`<option value="${code}" ${code === chosen ? markup`selected` : ''}>${name}</option>`;

/** Transfer details of the open invoices, each with its EPC QR code for a banking app. */
async function transferSection(invoices: readonly PublicInvoice[]): Promise<Html | ''> {
  const open = invoices.filter((i) => i.transfer !== null);
  if (open.length === 0) return '';
  const codes = await Promise.all(open.map((i) => epcQrSvg(i.transfer!.epc_qr)));
  return markup`<h2>Pay by bank transfer</h2>
    <div class="cards" id="pay-transfer">
      ${open.map((i, n) => {
        const t = i.transfer!;
        return markup`<div class="card transfer" data-invoice="${i.number}">
          <h3>Invoice ${i.number}</h3>
          <dl>
            <dt>Beneficiary</dt><dd>${t.beneficiary}</dd>
            <dt>IBAN</dt><dd class="iban">${t.iban_display}</dd>
            ${t.bic === null ? '' : markup`<dt>BIC</dt><dd>${t.bic}</dd>`}
            <dt>Amount</dt><dd>${euros(t.amount_cents)}</dd>
            <dt>Reference</dt><dd class="reference">${t.reference}</dd>
          </dl>
          <figure class="epc-qr" role="img" aria-label="EPC QR code of invoice ${i.number}">
            ${new Html(codes[n]!)}
            <figcaption class="muted">Scan with your banking app to fill in the transfer.</figcaption>
          </figure>
        </div>`;
      })}
    </div>`;
}

function detailsForm(csrf: string, saved: Record<string, string>, form: FormState): Html {
  const country = form.value('country', saved['country']);
  const at = DETAILS['country']!;
  return markup`<form method="post" action="${BASE}/billing/details" class="stack" id="billing-details">
    ${form.summary(DETAILS)}
    ${csrfField(csrf)}
    ${form.field('company_name', DETAILS['company_name']!, {
      schema: DETAILS_FIELDS.company_name,
      value: saved['company_name'] ?? '',
      attrs: markup`autocomplete="organization"`,
    })}
    ${form.field('address_lines', DETAILS['address_lines']!, {
      rows: MAX_ADDRESS_LINES,
      required: true,
      value: saved['address_lines'] ?? '',
      hint: `Street, postal code and city, one per line (at most ${DETAILS_FIELDS.address_lines.maxItems} lines of ${textLimits(DETAILS_FIELDS.address_lines.items).maxLength} characters).`,
    })}
    <label for="${at.id}">${at.label}</label>
    <select id="${at.id}" name="country" autocomplete="country" required ${form.marks('country', at.id)}>
      <option value="" ${country === '' ? markup`selected` : ''}>Choose a country</option>
      <optgroup label="European Union">
        ${[...EU_VAT]
          .sort((a, b) => a.name.localeCompare(b.name, 'en'))
          .map((c) => countryOption(c.code, c.name, country))}
      </optgroup>
      <optgroup label="All countries and territories">
        ${COUNTRIES.map((c) => countryOption(c.code, c.name, country))}
      </optgroup>
    </select>
    ${form.note('country', at.id)}
    ${form.field('vat_number', DETAILS['vat_number']!, {
      schema: DETAILS_FIELDS.vat_number,
      value: saved['vat_number'] ?? '',
      hint: 'With its country prefix, e.g. DE123456789 (optional).',
    })}
    <button type="submit">Save the billing details</button>
  </form>`;
}

export function billingPages(app: FastifyInstance, tools: DashboardTools): void {
  const { deps } = tools;

  async function render(
    request: FastifyRequest,
    reply: FastifyReply,
    status: number,
    extra: {
      flash?: Flash;
      top?: Html;
      form?: RefusedForm<'details' | 'mandate'>;
    } = {},
  ) {
    const { principal, page: ctx } = signedIn(request);
    const formOf = (of: 'details' | 'mandate') => stateOf(extra.form, of);
    const accountId = principal.accountId as string;
    const [sub, invoices, entries, details, mandate] = await Promise.all([
      deps.subscriptions.view(accountId),
      deps.subscriptions.invoices(accountId),
      deps.subscriptions.ledger(accountId),
      deps.subscriptions.details.get(accountId),
      deps.subscriptions.mandates.get(accountId),
    ]);
    const plan = principal.plan;
    // The selector starts on the plan the account has, so the form never suggests a change.
    const choices = SELF_SERVE.map((id) => deps.plans[id]);
    const content = markup`${extra.top ?? ''}
      <div class="cards">
        <div class="card">
          <h2>Plan</h2>
          <p class="figure" id="billing-plan">${plan.name}</p>
          <p>
            ${plan.priceCents === null ? 'Contract price' : `${euros(plan.priceCents)} per month`}
          </p>
          ${sub.current_period_end === null ? '' : markup`<p>Current period ends ${time(sub.current_period_end)}</p>`}
          ${sub.pending_plan === null ? '' : markup`<p class="warn">Changes to ${deps.plans[sub.pending_plan].name} at the period end.</p>`}
        </div>
        <div class="card">
          <h2>Balance</h2>
          <p class="figure">${euros(sub.balance_cents)}</p>
          <p class="muted">Credit is applied to the next invoices.</p>
        </div>
      </div>
      ${
        sub.plan === 'enterprise'
          ? markup`<p>Enterprise plans are changed with your account manager.</p>`
          : markup`<h2>Change plan</h2>
              <form method="post" action="${BASE}/billing/plan" class="row">
                ${csrfField(ctx.csrf)}
                <label for="plan-choice"
                  >New plan
                  <select id="plan-choice" name="plan">
                    ${choices.map((p) => markup`<option value="${p.id}" ${p.id === sub.plan ? markup`selected` : ''}>${p.name} (${p.priceCents === null ? 'contract' : `${euros(p.priceCents)}/month`})${p.id === sub.plan ? ', current plan' : ''}</option>`)}
                  </select></label
                >
                <button type="submit">Review the change</button>
              </form>
              <p class="muted">
                Upgrades take effect now and are charged pro rata for the rest of the period;
                downgrades and cancellations at the period end. You see the amount before
                confirming.
              </p>`
      }
      <h2>Invoices</h2>
      ${
        invoices.length === 0
          ? markup`<p>No invoices yet.</p>`
          : markup`<div class="table-wrap">
              <table id="invoices" class="cards-on-phone">
                <thead>
                  <tr>
                    <th scope="col">Number</th>
                    <th scope="col">Date</th>
                    <th scope="col">Lines</th>
                    <th scope="col" class="num">Total</th>
                    <th scope="col" class="num">Due</th>
                    <th scope="col">Status</th>
                    <th scope="col">Document</th>
                  </tr>
                </thead>
                <tbody>
                  ${[...invoices].reverse().map(
                    (i) =>
                      markup`<tr>
                          <td data-label="Number">${i.number}</td>
                          <td data-label="Date">${time(i.created_at)}</td>
                          <td data-label="Lines">
                            <ul>
                              ${i.lines.map((l) => markup`<li>${l.description}: ${euros(l.amount_cents)}</li>`)}
                            </ul>
                            ${i.balance_applied_cents === 0 ? '' : markup`<p>Balance applied: ${euros(-i.balance_applied_cents)}</p>`}
                          </td>
                          <td class="num" data-label="Total">
                            ${euros(i.total_cents)}
                            ${i.vat.amount_cents === 0 ? '' : markup`<br /><span class="muted">incl. ${euros(i.vat.amount_cents)} VAT</span>`}
                          </td>
                          <td class="num" data-label="Due">${euros(i.amount_due_cents)}</td>
                          <td data-label="Status">
                            ${i.status}${i.status === 'open' && i.due_at !== null ? markup`, due ${time(i.due_at)}` : ''}
                          </td>
                          <td>
                            <a
                              href="${BASE}/billing/invoices/${i.id}/pdf"
                              download="invoice-${i.number}.pdf"
                              aria-label="Download PDF of invoice ${i.number}"
                              >Download PDF</a
                            >
                          </td>
                        </tr>`,
                  )}
                </tbody>
              </table>
            </div>`
      }
      ${await transferSection(invoices)}
      ${mandateSection(ctx.csrf, mandate, formOf('mandate'))}
      <h2>Billing details</h2>
      <p>
        Invoices are made out to these details: a business with a VAT number in another EU country
        than ours is invoiced without VAT (reverse charge); otherwise VAT is charged at the rate of
        your country.
        ${details === null ? markup`<strong>None given yet.</strong>` : ''}
      </p>
      ${detailsForm(ctx.csrf, savedDetails(details), formOf('details'))}
      <h2>Balance ledger</h2>
      ${
        entries.length === 0
          ? markup`<p>No entries.</p>`
          : markup`<div class="table-wrap">
              <table id="ledger">
                <thead>
                  <tr>
                    <th scope="col">Date</th>
                    <th scope="col">Reason</th>
                    <th scope="col" class="num">Amount</th>
                  </tr>
                </thead>
                <tbody>
                  ${entries.map(
                    (e) =>
                      markup`<tr>
                        <td>${time(e.createdAt)}</td>
                        <td>${e.reason}</td>
                        <td class="num">${euros(e.amountCents)}</td>
                      </tr>`,
                  )}
                </tbody>
              </table>
            </div>`
      }`;
    return tools.send(reply, status, page(ctx, '/billing', 'Billing', content, extra.flash));
  }

  const planName = (id: PlanId) => deps.plans[id].name;

  function target(request: FastifyRequest): PlanId | undefined {
    const value = (request.body as Record<string, unknown> | undefined)?.['plan'];
    return SELF_SERVE.find((id) => id === value);
  }

  app.get('/dashboard/billing', async (request, reply) => {
    const done = DONE[String((request.query as Record<string, unknown>)['done'])];
    return render(
      request,
      reply,
      200,
      done === undefined ? {} : { flash: { kind: 'ok', text: done } },
    );
  });

  /** A form's submit: refused, the Billing page again with that form's state. */
  const formSubmit = (
    request: FastifyRequest,
    reply: FastifyReply,
    of: 'details' | 'mandate',
    labels: Record<string, FieldLabel>,
    run: () => Promise<FastifyReply>,
  ) => submitOnPage(request, reply, render, { of, labels }, run);

  app.post('/dashboard/billing/details', (request, reply) =>
    formSubmit(request, reply, 'details', DETAILS, async () => {
      const body = (request.body ?? {}) as Body;
      const input = {
        company_name: asTyped(body, 'company_name'),
        address_lines: asTyped(body, 'address_lines')
          .split(/\r?\n/)
          .filter((line) => line.trim() !== ''),
        country: text(body, 'country'),
        vat_number: text(body, 'vat_number'),
      };
      const problems = new Problems()
        .add('company_name', lengthProblem(input.company_name, DETAILS_FIELDS.company_name))
        .add('address_lines', listProblem(input.address_lines, DETAILS_FIELDS.address_lines))
        .add('country', input.country === '' ? 'choose the country invoices are made out to' : '')
        .add('vat_number', lengthProblem(input.vat_number, DETAILS_FIELDS.vat_number));
      problems.addAll(detailsProblems(input).problems).throwAny();
      await deps.subscriptions.details.set(signedIn(request).principal, input, request.ip);
      return tools.redirect(reply, '/billing?done=details');
    }),
  );

  app.post('/dashboard/billing/mandate', (request, reply) =>
    formSubmit(request, reply, 'mandate', MANDATE, async () => {
      const body = (request.body ?? {}) as Body;
      const iban = asTyped(body, 'iban');
      const holder = asTyped(body, 'account_holder');
      new Problems()
        .add('iban', lengthProblem(iban, MANDATE_FIELDS.iban))
        .add('account_holder', lengthProblem(holder, MANDATE_FIELDS.account_holder))
        .throwAny();
      // The service checks every field and names each problem (IBAN, holder, scheme, consent).
      await deps.subscriptions.mandates.give(
        signedIn(request).principal,
        {
          iban,
          account_holder: holder,
          scheme: text(body, 'scheme') === 'b2b' ? 'b2b' : 'core',
          accept_mandate_text: text(body, 'accept_mandate_text') === 'yes',
        },
        request.ip,
      );
      return tools.redirect(reply, '/billing?done=mandate');
    }),
  );

  app.post('/dashboard/billing/mandate/revoke', async (request, reply) => {
    try {
      await deps.subscriptions.mandates.revoke(signedIn(request).principal, request.ip);
      return tools.redirect(reply, '/billing?done=revoked');
    } catch (error) {
      const { status, flash } = flashOf(request, error);
      return render(request, reply, status, { flash });
    }
  });

  // The invoice document, with the session of the dashboard (the API needs a bearer token).
  app.get('/dashboard/billing/invoices/:id/pdf', async (request, reply) => {
    const id = (request.params as { id: string }).id;
    const pdf = await deps.subscriptions.invoicePdf(
      signedIn(request).principal.accountId as string,
      /^in_[A-Za-z0-9_-]{1,40}$/.test(id) ? id : 'in_none',
    );
    return reply
      .code(200)
      .header('content-type', 'application/pdf')
      .header('content-disposition', `attachment; filename="${pdf.fileName}"`)
      .header('cache-control', 'private, no-store')
      .send(Buffer.from(pdf.bytes));
  });

  // Step one: what the change costs and when it applies; nothing is changed yet.
  app.post('/dashboard/billing/plan', async (request, reply) => {
    const { principal, page: ctx } = signedIn(request);
    const id = target(request);
    if (id === undefined)
      return render(request, reply, 400, {
        flash: { kind: 'error', text: `Choose one of the plans: ${SELF_SERVE.join(', ')}.` },
      });
    const sub = await deps.subscriptions.view(principal.accountId as string);
    if (id === sub.plan && sub.pending_plan === null)
      return render(request, reply, 400, {
        flash: {
          kind: 'error',
          text: `You are on the ${planName(id)} plan already; choose another.`,
        },
      });
    const next = deps.plans[id];
    const preview = await deps.subscriptions.preview(principal.accountId as string, id);
    const refused = preview.netCents > 0 && !preview.buyerKnown;
    const when =
      preview.effective === 'now'
        ? markup`now`
        : markup`at the end of the period, ${time(preview.effective)}`;
    const content = markup`<p id="change-summary">
        From ${principal.plan.name} to <strong>${next.name}</strong>: ${preview.kind}, effective
        ${when}.
      </p>
      ${
        preview.netCents === 0
          ? markup`<p class="figure" id="due-now">Charged now: ${euros(0)}</p>`
          : markup`${invoiceLines(preview.lines)}
            ${
              refused
                ? markup`<p class="figure" id="due-net">Net: ${euros(preview.netCents)}, plus VAT by your billing details</p>`
                : quoteTable(preview)
            }`
      }
      ${
        refused
          ? markup`<p class="warn" id="details-needed">
              No invoice is issued without billing details. Give the name, address and country
              invoices are made out to on the <a href="${BASE}/billing#billing-details">Billing page</a>
              first, then change the plan.
            </p>`
          : markup`<form method="post" action="${BASE}/billing/plan/confirm" class="inline">
              ${csrfField(ctx.csrf)}
              <input type="hidden" name="plan" value="${id}" />
              <button type="submit">Confirm: change to ${next.name}</button>
            </form>`
      }
      <a href="${BASE}/billing">Cancel</a>`;
    return tools.send(reply, 200, page(ctx, '/billing', 'Confirm the plan change', content));
  });

  app.post('/dashboard/billing/plan/confirm', async (request, reply) => {
    const id = target(request);
    if (id === undefined)
      return render(request, reply, 400, {
        flash: { kind: 'error', text: `Choose one of the plans: ${SELF_SERVE.join(', ')}.` },
      });
    try {
      const result = await deps.subscriptions.change(signedIn(request).principal, id, request.ip);
      if (result.api_key === undefined) return tools.redirect(reply, '/billing?done=changed');
      // Subscribing issues the first key: shown here, once. The principal of this request
      // still has the old plan, so the page is built after a fresh look at the session.
      const refreshed = await deps.cache.resolve(signedIn(request).token);
      if (refreshed !== undefined) {
        signedIn(request).principal = refreshed;
        signedIn(request).page.principal = refreshed;
      }
      return render(request, reply, 201, {
        flash: { kind: 'ok', text: `You are on the ${deps.plans[id].name} plan.` },
        top: secretBlock({ key: result.api_key.key, name: result.api_key.name }),
      });
    } catch (error) {
      const { status, flash } = flashOf(request, error);
      return render(request, reply, status, { flash });
    }
  });
}
