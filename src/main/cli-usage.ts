/**
 * What the CLI says about its commands, and its usage error: apart from the commands' code, so
 * that `salary-api` loads only the module of the command it runs.
 */
export class CliUsageError extends Error {}

export const ACCOUNT_USAGE = `  account create --email E [--password P] --plan P [billing flags] [contract flags] [--json]
                        Create an account; a paid plan is subscribed and its first API key printed.
                        Billing flags, needed for a paid plan (no invoice without them):
                        --billing-name N --address "line;line" --country CC [--vat-number V]
  account contract --email E --price-cents N --limit N|unlimited --sla 99.9 [--formats a,b]
                   [billing flags]
                        Put an account on Enterprise under a contract (or change its contract);
                        a Free account without billing details needs the billing flags
  account manager --email E --name N --manager-email M
                        Set the dedicated account manager of an Enterprise account
  account list [--json] List accounts
  account reset-password EMAIL [--print-link] [--json]
                        Mail the account a single-use link to choose a new password (valid one hour);
                        --print-link prints the link instead, to hand over another way
  account reset-two-factor EMAIL [--json]
                        Turn off the account's two-factor sign-in (a lost device), audited and mailed
  account export EMAIL  Print everything held about the account as JSON (no secrets)
  account delete EMAIL --yes [--json]
                        Delete an account at its holder's written request: keys and sessions stop,
                        the subscription is canceled, personal data erased; invoices kept (tax law)
  invoice pay ID        Mark an invoice paid
  payments import FILE [--json]
                        Read a bank statement (camt.053) or notification (camt.054) and apply its
                        credits to the invoices they pay, and its direct debit returns; or a
                        pain.002 status report (rejected debits); an entry imported before
                        changes nothing
  payments sepa-batch [--out FILE] [--json]
                        Write the pain.008.001.02 file collecting the open invoices of accounts
                        with a SEPA mandate (to stdout without --out) and mark them pending
  payments unmatched [--json]
                        List imported credits that matched no invoice
  billing run [--json]  Roll billing periods, issue renewal invoices, handle overdue accounts now
  billing confirm-location --email E
                        Confirm that an account's billing address outside the EU VAT area is where
                        the buyer is: its invoices from then on carry no VAT`;

export const LICENSE_USAGE = `  account license --email E --licensee NAME --attribution TEXT [--white-label]
                  [--permitted-use TEXT] [--term-end YYYY-MM-DD] [--json]
                        Record the data licence of an account's contract (replaces the previous one);
                        white-label: delivered data names the licensee, never this service
  account license --email E [--remove] [--json]
                        Show (or remove) the licence
  account host --email E --host NAME [--remove]
                        Map a licensee's own host name to the account (docs page and OpenAPI info)`;

export const OAUTH_USAGE = `  oauth rotate-signing-key        Add a new OAuth token signing key; the old ones stay published
                                  until their last token expires
  oauth withdraw-signing-key KID  Stop publishing a signing key: its tokens are refused at once
  oauth signing-keys              List the signing keys`;

export const COMPLIANCE_USAGE = `  compliance add FILE --title T --period-start YYYY-MM-DD --period-end YYYY-MM-DD
        [--series S] [--description TEXT] [--email E]
                                  Publish a PDF (SOC 2 report, penetration-test summary) to Enterprise
                                  accounts (--email: to that account only); the same --series (default:
                                  from the title) adds a new version
  compliance list                 List every document version, withdrawn ones too
  compliance withdraw ID [--reason TEXT]
                                  Stop serving a version (its downloads stay in the audit log)`;

export const SLA_USAGE = `  probe --url URL [--key K | PROBE_API_KEY=K] [--name N]
                        Check URL's /ready and one lookup every 30 s and record the results for
                        the SLA (run it elsewhere than the API; needs DATABASE_URL)
  incident open --title T --component api|releases|webhooks|exports [--status investigating|identified|monitoring] [--message M]
                        Open an incident on the status page; prints its id
  incident update ID --status identified|monitoring|resolved --message M
  incident resolve ID [--message M]
  maintenance schedule --start ISO --end ISO --title T
                        Announce maintenance (excluded from the SLA when at least 5 days ahead)
  sla bands --email E --bands 99.95:10,99:25,95:100|default
                        Set an Enterprise contract's credit bands (uptime below : percent of fee)
  sla report --email E [--month YYYY-MM]
                        Print an account's measured uptime and credit for a month
  sla close             Run month close now (credits the previous month once; safe to repeat)`;
