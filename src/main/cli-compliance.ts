import { readFile } from 'node:fs/promises';
import type { Config } from '../config/index.js';
import { createDocumentStore, type DocumentRow } from '../compliance/index.js';
import { systemClock } from '../lib/clock.js';
import { commandLogger, openConfiguredDatabase } from './cli-database.js';
import { CliUsageError } from './cli-usage.js';

export interface ComplianceOptions {
  json: boolean;
  title?: string | undefined;
  'period-start'?: string | undefined;
  'period-end'?: string | undefined;
  series?: string | undefined;
  description?: string | undefined;
  email?: string | undefined;
  reason?: string | undefined;
}

function summary(d: DocumentRow) {
  return {
    id: d.id,
    series: d.series,
    version: d.version,
    title: d.title,
    period_start: d.periodStart,
    period_end: d.periodEnd,
    account_id: d.accountId,
    file_name: d.fileName,
    size_bytes: d.sizeBytes,
    page_count: d.pageCount,
    sha256: d.sha256,
    added_at: d.addedAt,
    withdrawn_at: d.withdrawnAt,
    withdrawn_reason: d.withdrawnReason,
  };
}

/** `salary-api compliance …`: the operator's document store, a thin layer over its functions. */
export async function complianceCommand(
  config: Config,
  sub: string | undefined,
  arg: string | undefined,
  options: ComplianceOptions,
): Promise<number> {
  if (sub === 'add') {
    if (arg === undefined) throw new CliUsageError('compliance add takes FILE');
    for (const name of ['title', 'period-start', 'period-end'] as const)
      if (options[name] === undefined) throw new CliUsageError(`compliance add needs --${name}`);
  } else if (sub === 'withdraw') {
    if (arg === undefined) throw new CliUsageError('compliance withdraw takes ID');
  } else if (sub !== 'list') {
    throw new CliUsageError('compliance takes "add FILE", "list" or "withdraw ID"');
  }
  const content = sub === 'add' ? await readFile(arg!) : undefined;
  const logger = commandLogger('warn');
  const db = await openConfiguredDatabase(config, logger, 'salary-api compliance');
  try {
    const store = createDocumentStore({ db, clock: systemClock });
    if (sub === 'add') {
      const doc = await store.add({
        content: content!,
        fileName: arg!,
        title: options.title!,
        series: options.series,
        description: options.description,
        periodStart: options['period-start']!,
        periodEnd: options['period-end']!,
        accountEmail: options.email,
      });
      console.log(
        options.json
          ? JSON.stringify(summary(doc))
          : `added ${doc.id}: ${doc.title}, ${doc.series} version ${doc.version} (${doc.pageCount} pages, ${doc.periodStart} to ${doc.periodEnd})${doc.accountId === null ? '' : ` for account ${doc.accountId} only`}`,
      );
      return 0;
    }
    if (sub === 'withdraw') {
      const doc = await store.withdraw(arg!, options.reason);
      console.log(
        options.json
          ? JSON.stringify(summary(doc))
          : `withdrew ${doc.id}: ${doc.title}, ${doc.series} version ${doc.version}`,
      );
      return 0;
    }
    const docs = (await store.list()).map(summary);
    console.log(
      options.json
        ? JSON.stringify(docs)
        : docs.length === 0
          ? 'no compliance documents'
          : docs
              .map((d) =>
                [
                  d.id,
                  `${d.series} v${d.version}`,
                  d.title,
                  `${d.period_start}..${d.period_end}`,
                  d.account_id ?? 'all Enterprise accounts',
                  d.withdrawn_at === null ? 'in force' : `withdrawn ${d.withdrawn_at}`,
                ].join('\t'),
              )
              .join('\n'),
    );
    return 0;
  } finally {
    await db.close();
  }
}
