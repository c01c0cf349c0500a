import { randomBytes } from 'node:crypto';
import { readFile, writeFile } from 'node:fs/promises';
import {
  findAccountByEmail,
  listAccounts,
  isEmail,
  normalizeEmail,
  updateContacts,
  type Contract,
} from '../accounts/index.js';
import {
  confirmBuyerLocation,
  detailsProblems,
  operatorPrincipal,
  type BillingDetailsInput,
} from '../billing/index.js';
import { baseUrlOf, type Config } from '../config/index.js';
import { openPublishingBus } from '../store/index.js';
import { systemClock } from '../lib/clock.js';
import { FORMATS, PLAN_IDS, type PlanId } from '../plans/index.js';
import { commandLogger, openConfiguredDatabase } from './cli-database.js';
import { commandServices } from './cli-services.js';
import { CliUsageError } from './cli-usage.js';

export interface AccountFlags {
  email?: string;
  password?: string;
  plan?: string;
  'price-cents'?: string;
  limit?: string;
  sla?: string;
  formats?: string;
  name?: string;
  'manager-email'?: string;
  'billing-name'?: string;
  address?: string;
  country?: string;
  'vat-number'?: string;
  json?: boolean;
  'print-link'?: boolean;
  yes?: boolean;
  out?: string;
}

/** Enterprise is sold under a negotiated contract; its price is never assumed. */
const CONTRACT_NEEDED =
  'Enterprise needs a contract: give --price-cents N (the monthly price in euro cents), and ' +
  'optionally --limit N|unlimited (requests a day; default unlimited), --sla P (uptime percent; ' +
  `default 99.9) and --formats a,b (default ${FORMATS.join(',')})`;

function contractFrom(flags: AccountFlags): Contract {
  if (flags['price-cents'] === undefined) throw new CliUsageError(CONTRACT_NEEDED);
  const price = Number(flags['price-cents']);
  const sla = Number(flags.sla ?? '99.9');
  const limit =
    flags.limit === undefined || flags.limit === 'unlimited' ? null : Number(flags.limit);
  const formats = (flags.formats ?? FORMATS.join(',')).split(',').map((f) => f.trim());
  if (!Number.isInteger(price) || price < 0)
    throw new CliUsageError('--price-cents must be a whole number of euro cents');
  if (limit !== null && (!Number.isInteger(limit) || limit < 1))
    throw new CliUsageError('--limit must be a positive whole number or "unlimited"');
  if (!(sla > 0 && sla <= 100)) throw new CliUsageError('--sla must be a percentage, e.g. 99.9');
  const unknown = formats.filter((f) => !(FORMATS as readonly string[]).includes(f));
  if (unknown.length > 0)
    throw new CliUsageError(
      `unknown format ${unknown.join(', ')} (formats: ${FORMATS.join(', ')})`,
    );
  return { price_cents: price, request_limit: limit, sla_percent: sla, formats };
}

/** The flags naming who a paid plan's invoices are made out to, and what each holds. */
const BILLING_FLAGS = {
  'billing-name': 'the company (or person) invoices are made out to',
  address: 'the address lines, separated by ";"',
  country: 'the ISO 3166-1 alpha-2 country code, e.g. DE',
} as const;

/**
 * The billing details the flags give, checked as the API checks them; undefined when none is
 * given. No invoice is issued to an account without them, so a paid plan needs all three.
 */
function billingDetailsFrom(
  flags: AccountFlags,
  required: boolean,
): BillingDetailsInput | undefined {
  const given = [...Object.keys(BILLING_FLAGS), 'vat-number'].some(
    (f) => flags[f as keyof AccountFlags] !== undefined,
  );
  if (!given && !required) return undefined;
  const missing = (Object.keys(BILLING_FLAGS) as (keyof typeof BILLING_FLAGS)[]).filter(
    (f) => flags[f] === undefined || flags[f].trim() === '',
  );
  if (missing.length > 0)
    throw new CliUsageError(
      `no invoice is issued without billing details; missing ${missing
        .map((f) => `--${f} (${BILLING_FLAGS[f]})`)
        .join(', ')}; --vat-number is optional`,
    );
  const input: BillingDetailsInput = {
    company_name: flags['billing-name'] ?? '',
    address_lines: (flags.address ?? '').split(';'),
    country: flags.country ?? '',
    vat_number: flags['vat-number'] ?? null,
  };
  const { problems } = detailsProblems(input);
  if (problems.length > 0)
    throw new CliUsageError(
      problems
        .map(
          (p) =>
            `--${p.name === 'company_name' ? 'billing-name' : p.name === 'address_lines' ? 'address' : p.name.replace('_', '-')} ${p.reason}`,
        )
        .join('; '),
    );
  return input;
}

/** The operator's account, contract, invoice and billing commands. */
export async function accountCommand(
  config: Config,
  args: string[],
  flags: AccountFlags,
): Promise<number> {
  const [group, verb, arg] = args;
  const logger = commandLogger('warn');
  const db = await openConfiguredDatabase(config, logger, `salary-api ${group}`);
  // Running instances hear of contract and plan changes at once (else at their next poll).
  const changes = await openPublishingBus(config.redisUrl, config.redisKeyPrefix, logger);
  const s = commandServices(config, { clock: systemClock, logger, db, bus: changes.bus });
  try {
    const print = (value: unknown, text: string) =>
      console.log(flags.json === true ? JSON.stringify(value, null, 2) : text);
    if (group === 'account' && verb === 'create') {
      const plan = (flags.plan ?? 'free') as PlanId;
      if (flags.email === undefined) throw new CliUsageError('account create needs --email');
      if (!(PLAN_IDS as readonly string[]).includes(plan))
        throw new CliUsageError(`--plan must be one of ${PLAN_IDS.join(', ')}`);
      const contract = plan === 'enterprise' ? contractFrom(flags) : undefined;
      const details = billingDetailsFrom(flags, plan !== 'free');
      const password = flags.password ?? randomBytes(18).toString('base64url');
      const { account } = await s.accounts.signUp({ email: flags.email, password }, 'cli', {
        throttle: false,
        operatorPlan: s.plans[plan].name,
        verified: true,
      });
      let apiKey: string | undefined;
      if (details !== undefined)
        await s.subscriptions.details.set(
          operatorPrincipal(account.id, s.plans.free),
          details,
          null,
        );
      if (plan !== 'free') {
        const result = await s.subscriptions.change(
          operatorPrincipal(account.id, s.plans.free),
          plan,
          null,
          contract,
        );
        apiKey = result.api_key?.key;
      }
      const out = {
        account: { ...account, plan },
        api_key: apiKey ?? null,
        ...(flags.password === undefined ? { initial_password: password } : {}),
      };
      print(
        out,
        `created ${account.id} <${account.email}> on ${plan}${apiKey === undefined ? '' : `\napi_key: ${apiKey}`}`,
      );
      return 0;
    }
    if (group === 'account' && verb === 'reset-password') {
      const email = arg ?? flags.email;
      if (email === undefined)
        throw new CliUsageError('account reset-password needs an e-mail address');
      const mail = flags['print-link'] !== true;
      const reset = await s.accounts.operatorPasswordReset(email, { mail });
      const link = `${baseUrlOf(config)}/dashboard/reset-password?token=${reset.token}`;
      const out = {
        account_id: reset.accountId,
        mailed: mail,
        expires_at: reset.expiresAt,
        ...(mail ? {} : { link }),
      };
      print(
        out,
        mail
          ? `a reset link was queued for ${email} (valid until ${reset.expiresAt})`
          : `reset link for ${email} (works once, until ${reset.expiresAt}):\n${link}`,
      );
      return 0;
    }
    if (group === 'account' && verb === 'reset-two-factor') {
      const email = arg ?? flags.email;
      const account =
        email === undefined ? undefined : await findAccountByEmail(db, normalizeEmail(email));
      if (account === undefined || account.status === 'deleted')
        throw new CliUsageError(
          'account reset-two-factor needs the e-mail address of an existing account',
        );
      const result = await s.accounts.operatorResetTotp(account.id, 'cli');
      print(
        { account_id: account.id, ...result },
        result.was_enabled
          ? `two-factor sign-in of ${account.email} is off; the account was told by e-mail`
          : `${account.email} had no two-factor sign-in on; nothing changed`,
      );
      return 0;
    }
    if (group === 'account' && verb === 'export') {
      const email = arg ?? flags.email;
      const account =
        email === undefined ? undefined : await findAccountByEmail(db, normalizeEmail(email));
      if (account === undefined || account.status === 'deleted')
        throw new CliUsageError('account export needs the e-mail address of an existing account');
      const data = await s.accounts.exportData(account.id, 'operator', 'cli');
      process.stdout.write(`${JSON.stringify(data, null, 2)}\n`);
      return 0;
    }
    if (group === 'account' && verb === 'delete') {
      const email = arg ?? flags.email;
      if (email === undefined) throw new CliUsageError('account delete needs an e-mail address');
      if (flags.yes !== true)
        throw new CliUsageError(
          `account delete erases ${email}'s personal data and revokes its keys at once: add --yes`,
        );
      const result = await s.accounts.operatorDeleteAccount(normalizeEmail(email));
      print(
        result,
        `${email} (${result.account_id}) deleted: ${result.api_keys_revoked} keys revoked, ` +
          `${result.sessions_ended} sessions ended, ${result.invoices_kept} invoices kept\n` +
          result.retained.map((line) => `kept: ${line}`).join('\n'),
      );
      return 0;
    }
    if (group === 'account' && verb === 'contract') {
      const account =
        flags.email === undefined
          ? undefined
          : await findAccountByEmail(db, normalizeEmail(flags.email));
      if (account === undefined)
        throw new CliUsageError('account contract needs the --email of an existing account');
      const contract = contractFrom(flags);
      const details = billingDetailsFrom(
        flags,
        account.plan === 'free' && (await s.subscriptions.details.get(account.id)) === null,
      );
      if (details !== undefined)
        await s.subscriptions.details.set(
          operatorPrincipal(account.id, s.plans[account.plan]),
          details,
          null,
        );
      const result = await s.subscriptions.change(
        operatorPrincipal(account.id, s.plans[account.plan]),
        'enterprise',
        null,
        contract,
      );
      print(result, `${account.email} is on Enterprise under the new contract`);
      return 0;
    }
    if (group === 'account' && verb === 'manager') {
      const account =
        flags.email === undefined
          ? undefined
          : await findAccountByEmail(db, normalizeEmail(flags.email));
      if (account === undefined)
        throw new CliUsageError('account manager needs the --email of an existing account');
      const managerEmail = flags['manager-email'];
      if (flags.name === undefined || managerEmail === undefined || !isEmail(managerEmail))
        throw new CliUsageError('account manager needs --name N and --manager-email ADDRESS');
      if (account.plan !== 'enterprise')
        throw new CliUsageError(`${account.email} is not on Enterprise (plan: ${account.plan})`);
      await updateContacts(
        db,
        account.id,
        { managerName: flags.name, managerEmail: normalizeEmail(managerEmail) },
        new Date(systemClock.now()),
      );
      print(
        { account: account.id, manager: { name: flags.name, email: managerEmail } },
        `${account.email}: account manager ${flags.name} <${managerEmail}>`,
      );
      return 0;
    }
    if (group === 'account' && verb === 'list') {
      const rows = (await listAccounts(db)).map((a) => ({
        id: a.id,
        email: a.email,
        plan: a.plan,
        status: a.status,
        created_at: a.createdAt,
        contract: a.contract,
      }));
      print(
        rows,
        rows
          .map((a) => `${a.id}  ${a.plan.padEnd(10)} ${a.status.padEnd(8)} ${a.email}`)
          .join('\n'),
      );
      return 0;
    }
    if (group === 'invoice' && verb === 'pay' && arg !== undefined) {
      const invoice = await s.subscriptions.markPaid(arg, 'operator');
      print(invoice, `invoice ${invoice.id} (#${invoice.number}) is paid`);
      return 0;
    }
    if (group === 'payments' && verb === 'sepa-batch') {
      const batch = await s.subscriptions.mandates.batch('operator');
      if (batch.xml !== null) {
        if (flags.out === undefined) {
          if (flags.json !== true) process.stdout.write(batch.xml);
        } else await writeFile(flags.out, batch.xml, { mode: 0o600 });
      }
      const total = batch.collections.reduce((sum, c) => sum + c.amount_cents, 0);
      const summary =
        batch.xml === null
          ? 'no invoices to collect by SEPA Direct Debit'
          : `pain.008 ${batch.message_id}: ${batch.collections.length} debits, ${(total / 100).toFixed(2)} EUR` +
            batch.collections
              .map(
                (c) =>
                  `\n  invoice ${c.invoice_number}  ${(c.amount_cents / 100).toFixed(2)} EUR  ${c.scheme.toUpperCase()} ${c.sequence_type}  ${c.collection_date}  ${c.mandate_reference}`,
              )
              .join('');
      if (flags.json === true)
        print(
          {
            ...batch,
            xml: flags.out === undefined ? batch.xml : undefined,
            file: flags.out ?? null,
          },
          '',
        );
      else if (flags.out !== undefined || batch.xml === null) console.log(summary);
      else console.error(summary);
      return 0;
    }
    if (group === 'payments' && verb === 'import' && arg !== undefined) {
      const xml = await readFile(arg, 'utf8');
      if (/urn:iso:std:iso:20022:tech:xsd:pain\.002\./.test(xml)) {
        const report = await s.subscriptions.mandates.importStatusReport(xml, 'operator');
        print(
          report,
          `pain.002 on ${report.original_message_id ?? 'an unnamed file'}: ${report.returns.length} rejected` +
            report.returns
              .map((r) => `\n  ${r.end_to_end_id} ${r.reason_code}: ${r.outcome}`)
              .join(''),
        );
        return 0;
      }
      const result = await s.subscriptions.importBankStatement(xml, 'operator');
      const count = (o: string) => result.applied.filter((a) => a.outcome === o).length;
      print(
        result,
        `${result.message}: ${result.credits} credits, ${result.already_imported} imported before; ` +
          `${count('paid')} paid, ${count('partial')} partial, ${count('overpaid')} overpaid, ${count('unmatched')} unmatched` +
          (result.returns.length === 0
            ? ''
            : `; ${result.returns.length} direct debits returned` +
              result.returns
                .map((r) => `\n  returned ${r.end_to_end_id} ${r.reason_code}: ${r.outcome}`)
                .join('')) +
          result.applied
            .filter((a) => a.outcome === 'unmatched')
            .map(
              (a) =>
                `\n  unmatched ${a.bank_reference}: ${(a.amount_cents / 100).toFixed(2)} EUR (${a.note})`,
            )
            .join(''),
      );
      return 0;
    }
    if (group === 'payments' && verb === 'unmatched') {
      const rows = await s.subscriptions.unmatchedPayments();
      print(
        rows,
        rows.length === 0
          ? 'no unmatched credits'
          : rows
              .map(
                (r) =>
                  `${r.bankReference}  ${r.bookedOn ?? '          '}  ${(r.amountCents / 100).toFixed(2)} ${r.currency}  ${r.debtorName ?? ''}  ${r.remittance}  (${r.note ?? ''})`,
              )
              .join('\n'),
      );
      return 0;
    }
    if (group === 'billing' && verb === 'run') {
      const result = await s.billing();
      print(
        result ?? { skipped: 'another instance is running billing' },
        result === undefined
          ? 'another instance is running billing'
          : `billing: ${result.accounts} accounts, ${result.invoicesIssued} invoices issued, ${result.planChanges.length} plan changes`,
      );
      return 0;
    }
    if (group === 'billing' && verb === 'confirm-location') {
      const account =
        flags.email === undefined
          ? undefined
          : await findAccountByEmail(db, normalizeEmail(flags.email));
      if (account === undefined)
        throw new CliUsageError(
          'billing confirm-location needs the --email of an existing account',
        );
      if (!(await confirmBuyerLocation(db, systemClock, account.id)))
        throw new CliUsageError(`${account.email} has given no billing details`);
      print({ account: account.id }, `${account.email}: location confirmed`);
      return 0;
    }
    throw new CliUsageError(`unknown command "${args.join(' ')}"`);
  } finally {
    await s.announce();
    await changes.close();
    await db.close();
  }
}
