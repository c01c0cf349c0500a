import type { Queryable } from '../store/index.js';

export type MandateScheme = 'core' | 'b2b';
export type SequenceType = 'FRST' | 'RCUR';

export interface MandateRow {
  id: string;
  accountId: string;
  reference: string;
  scheme: MandateScheme;
  ibanSealed: string;
  ibanMasked: string;
  accountHolder: string;
  creditorId: string;
  creditorName: string;
  mandateText: string;
  signedAt: number;
  revokedAt: number | null;
}

interface RawMandate {
  id: string;
  account_id: string;
  reference: string;
  scheme: MandateScheme;
  iban_sealed: string;
  iban_masked: string;
  account_holder: string;
  creditor_id: string;
  creditor_name: string;
  mandate_text: string;
  signed_at: Date | string;
  revoked_at: Date | string | null;
}

const toMandate = (r: RawMandate): MandateRow => ({
  id: r.id,
  accountId: r.account_id,
  reference: r.reference,
  scheme: r.scheme,
  ibanSealed: r.iban_sealed,
  ibanMasked: r.iban_masked,
  accountHolder: r.account_holder,
  creditorId: r.creditor_id,
  creditorName: r.creditor_name,
  mandateText: r.mandate_text,
  signedAt: new Date(r.signed_at).getTime(),
  revokedAt: r.revoked_at === null ? null : new Date(r.revoked_at).getTime(),
});

export async function activeMandate(
  db: Queryable,
  accountId: string,
  lock = false,
): Promise<MandateRow | undefined> {
  const rows = await db.query<RawMandate>(
    `SELECT * FROM sepa_mandates WHERE account_id = $1 AND revoked_at IS NULL${lock ? ' FOR UPDATE' : ''}`,
    [accountId],
  );
  return rows[0] === undefined ? undefined : toMandate(rows[0]);
}

/** When the account's mandates given since `since` were signed, oldest first. */
export async function mandatesSignedSince(
  db: Queryable,
  accountId: string,
  since: number,
): Promise<number[]> {
  const rows = await db.query<{ signed_at: Date | string }>(
    'SELECT signed_at FROM sepa_mandates WHERE account_id = $1 AND signed_at > $2 ORDER BY signed_at',
    [accountId, new Date(since).toISOString()],
  );
  return rows.map((r) => new Date(r.signed_at).getTime());
}

export async function findMandate(db: Queryable, id: string): Promise<MandateRow | undefined> {
  const rows = await db.query<RawMandate>('SELECT * FROM sepa_mandates WHERE id = $1', [id]);
  return rows[0] === undefined ? undefined : toMandate(rows[0]);
}

export async function insertMandate(db: Queryable, m: MandateRow): Promise<void> {
  await db.query(
    `INSERT INTO sepa_mandates (id, account_id, reference, scheme, iban_sealed, iban_masked,
       account_holder, creditor_id, creditor_name, mandate_text, signed_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)`,
    [
      m.id,
      m.accountId,
      m.reference,
      m.scheme,
      m.ibanSealed,
      m.ibanMasked,
      m.accountHolder,
      m.creditorId,
      m.creditorName,
      m.mandateText,
      new Date(m.signedAt).toISOString(),
    ],
  );
}

export async function revokeMandate(db: Queryable, id: string, at: number): Promise<void> {
  await db.query('UPDATE sepa_mandates SET revoked_at = $2 WHERE id = $1', [
    id,
    new Date(at).toISOString(),
  ]);
}

/** Open invoices of accounts with a mandate in force, never sent for collection before. */
export async function collectableInvoices(
  db: Queryable,
): Promise<{ invoiceId: string; mandateId: string }[]> {
  const rows = await db.query<{ invoice_id: string; mandate_id: string }>(
    `SELECT i.id AS invoice_id, m.id AS mandate_id
       FROM invoices i JOIN sepa_mandates m ON m.account_id = i.account_id AND m.revoked_at IS NULL
      WHERE i.status = 'open' AND i.amount_due_cents > 0
        AND NOT EXISTS (SELECT 1 FROM sepa_collections c WHERE c.invoice_id = i.id)
      ORDER BY i.number`,
  );
  return rows.map((r) => ({ invoiceId: r.invoice_id, mandateId: r.mandate_id }));
}

/** Whether the mandate was collected under before, except by collections returned. */
export async function mandateUsed(db: Queryable, mandateId: string): Promise<boolean> {
  const rows = await db.query(
    `SELECT 1 FROM sepa_collections WHERE mandate_id = $1 AND status <> 'returned' LIMIT 1`,
    [mandateId],
  );
  return rows.length > 0;
}

export interface CollectionRow {
  endToEndId: string;
  invoiceId: string;
  mandateId: string;
  batchId: string;
  scheme: MandateScheme;
  sequenceType: SequenceType;
  amountCents: number;
  collectionDate: string;
  status: 'pending' | 'returned';
  reasonCode: string | null;
  createdAt: number;
  returnedAt: number | null;
}

interface RawCollection {
  end_to_end_id: string;
  invoice_id: string;
  mandate_id: string;
  batch_id: string;
  scheme: MandateScheme;
  sequence_type: SequenceType;
  amount_cents: number | string;
  collection_date: string;
  status: 'pending' | 'returned';
  reason_code: string | null;
  created_at: Date | string;
  returned_at: Date | string | null;
}

const toCollection = (r: RawCollection): CollectionRow => ({
  endToEndId: r.end_to_end_id,
  invoiceId: r.invoice_id,
  mandateId: r.mandate_id,
  batchId: r.batch_id,
  scheme: r.scheme,
  sequenceType: r.sequence_type,
  amountCents: Number(r.amount_cents),
  collectionDate: r.collection_date,
  status: r.status,
  reasonCode: r.reason_code,
  createdAt: new Date(r.created_at).getTime(),
  returnedAt: r.returned_at === null ? null : new Date(r.returned_at).getTime(),
});

export async function insertCollection(db: Queryable, c: CollectionRow): Promise<void> {
  await db.query(
    `INSERT INTO sepa_collections (end_to_end_id, invoice_id, mandate_id, batch_id, scheme,
       sequence_type, amount_cents, collection_date, status, created_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, 'pending', $9)`,
    [
      c.endToEndId,
      c.invoiceId,
      c.mandateId,
      c.batchId,
      c.scheme,
      c.sequenceType,
      c.amountCents,
      c.collectionDate,
      new Date(c.createdAt).toISOString(),
    ],
  );
}

export async function findCollection(
  db: Queryable,
  endToEndId: string,
): Promise<CollectionRow | undefined> {
  const rows = await db.query<RawCollection>(
    'SELECT * FROM sepa_collections WHERE end_to_end_id = $1 FOR UPDATE',
    [endToEndId],
  );
  return rows[0] === undefined ? undefined : toCollection(rows[0]);
}

export async function collectionsOfBatch(db: Queryable, batchId: string): Promise<CollectionRow[]> {
  const rows = await db.query<RawCollection>(
    'SELECT * FROM sepa_collections WHERE batch_id = $1 ORDER BY end_to_end_id',
    [batchId],
  );
  return rows.map(toCollection);
}

export async function collectionsOfInvoice(
  db: Queryable,
  invoiceId: string,
): Promise<CollectionRow[]> {
  const rows = await db.query<RawCollection>(
    'SELECT * FROM sepa_collections WHERE invoice_id = $1 ORDER BY created_at',
    [invoiceId],
  );
  return rows.map(toCollection);
}

export async function markReturned(
  db: Queryable,
  endToEndId: string,
  reasonCode: string,
  at: number,
): Promise<void> {
  await db.query(
    `UPDATE sepa_collections SET status = 'returned', reason_code = $2, returned_at = $3
      WHERE end_to_end_id = $1`,
    [endToEndId, reasonCode, new Date(at).toISOString()],
  );
}

/** Invoices of the account the bank is collecting by direct debit (not returned). */
export async function pendingCollectionInvoiceIds(
  db: Queryable,
  accountId: string,
): Promise<Set<string>> {
  const rows = await db.query<{ invoice_id: string }>(
    `SELECT c.invoice_id FROM sepa_collections c JOIN invoices i ON i.id = c.invoice_id
      WHERE i.account_id = $1 AND c.status = 'pending'`,
    [accountId],
  );
  return new Set(rows.map((r) => r.invoice_id));
}
