/**
 * @module The usage store: one Durable Object with SQLite storage per paid account (named by the
 * account id), defined by the usage Worker (`src/usage-store.ts`) and bound by the four paid
 * deployments, so that their counts add up in one place (docs/storage.md, "Usage"). It applies each
 * isolate's batch of counts once, whatever the retries (by the batch's id), in one transaction, and
 * keeps daily rows for {@link RETENTION_DAYS} days after their day.
 */

import { DurableObject } from 'cloudflare:workers';
import { WEBSITE_CREDENTIAL_PREFIX } from '../access/check.ts';
import { addDays, monthStart, nextDayStart, utcDay } from './period.ts';
import { withRows } from './totals.ts';
import type { AccountTotals, PeriodTotals, UsagePart, UsageRow } from './wire.ts';

/** How many days after its day a row is kept: the rows of the last 400 days and today's. */
const RETENTION_DAYS = 400;

/** How many days a part's id is remembered: retries come within seconds; two days leave room for a day's change. */
const PART_ID_DAYS = 2;

const SCHEMA = `
CREATE TABLE IF NOT EXISTS usage (
  day TEXT NOT NULL, deployment TEXT NOT NULL, kind TEXT NOT NULL, credential TEXT NOT NULL,
  requests INTEGER NOT NULL, lookups INTEGER NOT NULL, problems INTEGER NOT NULL,
  PRIMARY KEY (day, deployment, kind, credential)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS parts (id TEXT PRIMARY KEY, day TEXT NOT NULL) WITHOUT ROWID;
`;

const ADD_ROW = `
INSERT INTO usage (day, deployment, kind, credential, requests, lookups, problems) VALUES (?, ?, ?, ?, ?, ?, ?)
ON CONFLICT (day, deployment, kind, credential) DO UPDATE SET
  requests = requests + excluded.requests, lookups = lookups + excluded.lookups, problems = problems + excluded.problems`;

const SUMS = `
SELECT COALESCE(SUM(requests), 0) AS requests, COALESCE(SUM(lookups), 0) AS lookups, COALESCE(SUM(problems), 0) AS problems,
  COALESCE(SUM(CASE WHEN substr(credential, 1, ${WEBSITE_CREDENTIAL_PREFIX.length}) = '${WEBSITE_CREDENTIAL_PREFIX}' THEN lookups ELSE 0 END), 0) AS websiteLookups
FROM usage WHERE day >= ? AND day <= ?`;

/** The usage of one account. Called over RPC by the paid Workers (`recorder.ts`) and the usage Worker's operator reads. */
export class UsageLedger extends DurableObject<Record<string, unknown>> {
  readonly #sql: SqlStorage;
  /** The totals of the last day asked for and its month, kept beside SQLite so that a write need not sum the month again. */
  #cached: AccountTotals | null = null;
  /** The day whose expiry this instance has applied. */
  #expiredFor = '';

  constructor(ctx: DurableObjectState, env: Record<string, unknown>) {
    super(ctx, env);
    this.#sql = ctx.storage.sql;
    this.#sql.exec(SCHEMA);
  }

  /**
   * Adds the parts not applied yet (by id), all in one transaction, and expires old rows.
   *
   * @param today the writer's UTC day (`YYYY-MM-DD`): the day the totals are for, and from which rows expire.
   * @returns the account's totals for `today` and its month, these parts included.
   */
  async add(parts: readonly UsagePart[], today: string): Promise<AccountTotals> {
    const applied: UsageRow[] = [];
    try {
      this.ctx.storage.transactionSync(() => {
        for (const part of parts) {
          if (this.#sql.exec('INSERT INTO parts (id, day) VALUES (?, ?) ON CONFLICT (id) DO NOTHING', part.id, today).rowsWritten === 0) continue;
          for (const row of part.rows) {
            this.#sql.exec(ADD_ROW, row.day, row.deployment, row.kind, row.credential, row.requests, row.lookups, row.problems);
            applied.push(row);
          }
        }
      });
    } catch (error) {
      this.#cached = null;
      throw error;
    }
    if (this.#cached !== null) this.#cached = withRows(this.#cached, applied);
    await this.#expire(today);
    return this.#totals(today);
  }

  /**
   * The account's totals for `day` and its month, and which of `partIds` it holds already: a reader
   * adds its own parts that are not among them (`recorder.ts`, read-your-writes).
   */
  totals(day: string, partIds: readonly string[] = []): { totals: AccountTotals; applied: string[] } {
    const applied = partIds.filter((id) => this.#sql.exec('SELECT 1 FROM parts WHERE id = ?', id).toArray().length > 0);
    return { totals: this.#totals(day), applied };
  }

  /** Every row from `from` to `to` (UTC days, inclusive), in day, deployment, kind and credential order. */
  rows(from: string, to: string): UsageRow[] {
    return this.#sql
      .exec<Record<keyof UsageRow, string | number>>(
        'SELECT day, deployment, kind, credential, requests, lookups, problems FROM usage WHERE day >= ? AND day <= ? ORDER BY day, deployment, kind, credential',
        from,
        to,
      )
      .toArray() as unknown as UsageRow[];
  }

  /** Expires old rows of an account that no longer writes: scheduled by {@link add} for when its oldest row expires. */
  override async alarm(): Promise<void> {
    await this.#expire(utcDay(Date.now()), true);
  }

  #totals(day: string): AccountTotals {
    if (this.#cached?.day !== day) {
      const month = monthStart(day);
      this.#cached = { day, dayTotals: this.#sum(day, day), month, monthTotals: this.#sum(month, `${month.slice(0, 7)}-31`) };
    }
    return this.#cached;
  }

  #sum(from: string, to: string): PeriodTotals {
    return this.#sql.exec<Record<keyof PeriodTotals, number>>(SUMS, from, to).one() as unknown as PeriodTotals;
  }

  /**
   * Deletes rows older than {@link RETENTION_DAYS} days before `today`, and part ids older than
   * {@link PART_ID_DAYS}; then sets the alarm for the day the oldest row left expires. Once per day
   * and instance, unless `always`.
   */
  async #expire(today: string, always = false): Promise<void> {
    if (!always && today <= this.#expiredFor) return;
    this.#expiredFor = today;
    const deleted = this.#sql.exec('DELETE FROM usage WHERE day < ?', addDays(today, -RETENTION_DAYS)).rowsWritten;
    this.#sql.exec('DELETE FROM parts WHERE day < ?', addDays(today, -PART_ID_DAYS));
    if (deleted > 0) this.#cached = null;
    const oldest = this.#sql.exec<{ day: string | null }>('SELECT MIN(day) AS day FROM usage').one().day;
    if (oldest === null) await this.ctx.storage.deleteAlarm();
    else await this.ctx.storage.setAlarm(nextDayStart(addDays(oldest, RETENTION_DAYS)));
  }
}
