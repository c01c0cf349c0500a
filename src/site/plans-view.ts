import type { Plan } from '../plans/index.js';

const FORMAT_NAMES: Record<string, string> = {
  json: 'JSON',
  csv: 'CSV',
  xlsx: 'Excel',
  xml: 'XML',
  parquet: 'Parquet',
};

const count = new Intl.NumberFormat('en-GB');

/** `€49 / month excl. VAT`, `€0`, `By contract` (invoices add VAT by the buyer's country). */
export function priceText(plan: Plan): string {
  if (plan.priceCents === null) return 'By contract';
  const euros = plan.priceCents / 100;
  const amount = `€${count.format(euros)}`;
  return plan.priceCents === 0 ? amount : `${amount} / month excl. VAT`;
}

/** `100 requests per hour`, `Unlimited requests`. */
export function limitText(plan: Plan): string {
  if (plan.limit === null) return 'Unlimited requests';
  return `${count.format(plan.limit.requests)} requests per ${plan.limit.window}`;
}

/** The facts of a plan a buyer compares, in the plan table's own numbers. */
export function planFacts(plan: Plan): string[] {
  const facts = [
    limitText(plan),
    `Formats: ${plan.formats.map((f) => FORMAT_NAMES[f] ?? f).join(', ')}`,
  ];
  facts.push(
    plan.historyYears === null
      ? 'Full archive of past years'
      : plan.historyYears === 0
        ? 'Current year'
        : `Current year and ${plan.historyYears} ${plan.historyYears === 1 ? 'year' : 'years'} back`,
  );
  facts.push(
    plan.maxKeys === 0
      ? 'No key needed'
      : plan.maxKeys === null
        ? 'Unlimited API keys with scopes'
        : `${plan.maxKeys} API ${plan.maxKeys === 1 ? 'key' : 'keys'}`,
  );
  if (plan.bulk) facts.push('Bulk endpoints');
  if (plan.webhooks) facts.push('Webhooks on new data');
  if (plan.customEndpoints) facts.push('Custom endpoints and schemas');
  if (plan.oauth) facts.push('OAuth 2.0 clients');
  if (plan.slaPercent !== null) facts.push(`${plan.slaPercent} % uptime SLA`);
  return facts;
}
