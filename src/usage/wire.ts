/**
 * @module What the paid Workers and the usage store (`ledger.ts`) exchange over Workers RPC, and what
 * the operator's reads return: rows of counts per day, deployment, kind and credential (docs/storage.md,
 * "Usage"). A credential is named by what the account lists (a key id, a whitelisted address or
 * hostname), never by a key or an address that no account lists. Free of Workers types: the operator
 * tool (Node) reads the same shapes.
 */
import type { LookupKind } from '../http/paths.ts';

/** What an answer was: a lookup (a single lookup, a bulk lookup, a distance), reference data, or the networks of an ASN. */
export type UsageKind = LookupKind | 'reference' | 'asn';

/** The counts of one day, deployment, kind and credential of one account. */
export interface UsageRow {
  /** The UTC day, `YYYY-MM-DD`. */
  readonly day: string;
  /** The deployment that answered: its `REGION` (`de`, `us`, `sg`, `au`). */
  readonly deployment: string;
  readonly kind: UsageKind;
  /** `key_…` (a key id), `ip:<address>` (a whitelisted server address) or `website:<hostname>`. */
  readonly credential: string;
  /** Successful answers (2xx). */
  readonly requests: number;
  /** Addresses looked up by those answers: a single lookup 1, a bulk its distinct addresses, a distance 2, reference data 0, an ASN 1. */
  readonly lookups: number;
  /** Problem answers (4xx). */
  readonly problems: number;
}

/** One isolate's counts of one account since its last write, under an id unique to that isolate's batch. */
export interface UsagePart {
  /** Unique per batch of an isolate: the store applies a part once, however often it is sent. */
  readonly id: string;
  readonly rows: readonly UsageRow[];
}

/** The sums of one period (a day or a month) of one account. */
export interface PeriodTotals {
  readonly requests: number;
  readonly lookups: number;
  readonly problems: number;
  /** The lookups of answers authenticated by a whitelisted website alone. */
  readonly websiteLookups: number;
}

/** An account's sums for a UTC day and the month that holds it. */
export interface AccountTotals {
  /** The day, `YYYY-MM-DD`. */
  readonly day: string;
  readonly dayTotals: PeriodTotals;
  /** The month's first day, `YYYY-MM-01`. */
  readonly month: string;
  readonly monthTotals: PeriodTotals;
}

/** What a ledger object answers a write: the account's totals as far as it knows them, and over how many objects the ledger is spread (`spread.ts`). */
export interface LedgerWrite extends AccountTotals {
  /** 1, or `LEDGER_SHARDS` once the account is busy: which object a writer's next parts go to. */
  readonly spread: number;
}

/** What a ledger object answers a read: its own totals, which of the asked part ids it holds, and the spread. */
export interface LedgerRead {
  readonly totals: AccountTotals;
  readonly applied: string[];
  readonly spread: number;
}

/** No use at all. */
export const NO_USE: PeriodTotals = Object.freeze({ requests: 0, lookups: 0, problems: 0, websiteLookups: 0 });

/** The usage Worker's answer to an operator's read of an account's rows (`operator-reads.ts`). */
export interface RowsAnswer {
  readonly account: string;
  readonly from: string;
  readonly to: string;
  readonly rows: UsageRow[];
}

/** The usage Worker's path of an account's rows, read with `?from=YYYY-MM-DD&to=YYYY-MM-DD`. */
export function rowsPath(account: string): string {
  return `/v1/accounts/${account}/rows`;
}
