/**
 * @module The usage store: SQLite Durable Objects of the usage Worker (`src/usage-store.ts`), which the
 * four paid deployments bind, so that their counts add up in one place (docs/storage.md, "Usage"). An
 * account's ledger is its root object, and once busy fifteen shards beside it (`spread.ts`); each
 * object applies a part once, whatever the retries (by its id), in one transaction, and keeps daily rows
 * for {@link RETENTION_DAYS} days after their day. A shard tells the root its totals at most once a
 * {@link SYNC_MS} while written, so that each write's answer carries the whole account's totals
 * (docs/decisions/0009-ledger-spread-over-shards.md).
 */

import { DurableObject } from 'cloudflare:workers';
import { WEBSITE_CREDENTIAL_PREFIX } from '../access/check.ts';
import { reportEvent, whyOf } from '../events/operational.ts';
import { addDays, monthStart, nextDayStart, utcDay } from './period.ts';
import { LEDGER_SHARDS, type LedgerPlace, SPREAD_AT_WRITES_PER_SECOND, SYNC_MS } from './spread.ts';
import { withRows, withTotals } from './totals.ts';
import type { AccountTotals, LedgerRead, LedgerWrite, PeriodTotals, UsagePart, UsageRow } from './wire.ts';

/** How many days after its day a row is kept: the rows of the last 400 days and today's. */
const RETENTION_DAYS = 400;

/** How many days a part's id is remembered: retries come within seconds; two days leave room for a day's change. */
const PART_ID_DAYS = 2;

/** The usage Worker's bindings that an object uses: its own namespace, through which a shard reaches its root. */
export interface LedgerEnv {
  readonly USAGE: DurableObjectNamespace<UsageLedger>;
}

const SCHEMA = `
CREATE TABLE IF NOT EXISTS usage (
  day TEXT NOT NULL, deployment TEXT NOT NULL, kind TEXT NOT NULL, credential TEXT NOT NULL,
  requests INTEGER NOT NULL, lookups INTEGER NOT NULL, problems INTEGER NOT NULL,
  PRIMARY KEY (day, deployment, kind, credential)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS parts (id TEXT PRIMARY KEY, day TEXT NOT NULL) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS ledger (key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS shard_totals (shard INTEGER PRIMARY KEY, totals TEXT NOT NULL);
`;

const ADD_ROW = `
INSERT INTO usage (day, deployment, kind, credential, requests, lookups, problems) VALUES (?, ?, ?, ?, ?, ?, ?)
ON CONFLICT (day, deployment, kind, credential) DO UPDATE SET
  requests = requests + excluded.requests, lookups = lookups + excluded.lookups, problems = problems + excluded.problems`;

const SUMS = `
SELECT COALESCE(SUM(requests), 0) AS requests, COALESCE(SUM(lookups), 0) AS lookups, COALESCE(SUM(problems), 0) AS problems,
  COALESCE(SUM(CASE WHEN substr(credential, 1, ${WEBSITE_CREDENTIAL_PREFIX.length}) = '${WEBSITE_CREDENTIAL_PREFIX}' THEN lookups ELSE 0 END), 0) AS websiteLookups
FROM usage WHERE day >= ? AND day <= ?`;

const SET = 'INSERT INTO ledger (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value';

/** One object of an account's ledger. Called over RPC by the paid Workers (`recorder.ts`, `ledger-reads.ts`), its shards, and the usage Worker's operator reads. */
export class UsageLedger extends DurableObject<LedgerEnv> {
  readonly #sql: SqlStorage;
  /** This object's own totals of the last day asked for and its month, kept beside SQLite so that a write need not sum the month again. */
  #cached: AccountTotals | null = null;
  /** The day whose expiry this instance has applied, and when the oldest row left expires (ms; null: no rows). */
  #expiredFor = '';
  #expiresAt: number | null = null;
  /** The alarm as this instance last set it (ms), or null. */
  #alarmAt: number | null = null;
  /** A shard's place (stored at its first write); null for a root. */
  #place: LedgerPlace | null;
  /** A root's spread: 1 until it is busy, then {@link LEDGER_SHARDS} for good. */
  #spread: number;
  /** A root's writes in the current second (`#second`, s since the epoch). */
  #second = 0;
  #writes = 0;
  /** What a root knows of each shard's totals, as the shard last told it. */
  readonly #shards = new Map<number, AccountTotals>();
  /** What a shard knows of the other objects' totals, as the root last told it; when it last told the root, and whether it has counted since. */
  #others: AccountTotals | null = null;
  #syncedAt = Number.NEGATIVE_INFINITY;
  #unsynced: boolean;

  constructor(ctx: DurableObjectState, env: LedgerEnv) {
    super(ctx, env);
    this.#sql = ctx.storage.sql;
    this.#sql.exec(SCHEMA);
    const stored = new Map(
      this.#sql
        .exec<{ key: string; value: string }>('SELECT key, value FROM ledger')
        .toArray()
        .map(({ key, value }) => [key, value]),
    );
    this.#place = stored.has('place') ? (JSON.parse(stored.get('place') as string) as LedgerPlace) : null;
    this.#spread = Number(stored.get('spread') ?? 1);
    for (const { shard, totals } of this.#sql.exec<{ shard: number; totals: string }>('SELECT shard, totals FROM shard_totals'))
      this.#shards.set(shard, JSON.parse(totals) as AccountTotals);
    // A shard that started again tells the root once more: what it counted last may not have reached it.
    this.#unsynced = this.#place !== null;
  }

  /**
   * Adds the parts not applied yet (by id), all in one transaction, and expires old rows.
   *
   * @param today the writer's UTC day (`YYYY-MM-DD`): the day the totals are for, and from which rows expire.
   * @param place which object of which account this is (a writer of before the spread leaves it out: the root).
   * @returns the account's totals for `today` and its month as this object knows them, these parts
   *   included (a shard: its own and the others' as the root last told it), and the ledger's spread.
   */
  async add(parts: readonly UsagePart[], today: string, place?: LedgerPlace): Promise<LedgerWrite> {
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
    if (place !== undefined && place.shard > 0 && this.#place === null) {
      this.#place = place;
      this.#sql.exec(SET, 'place', JSON.stringify(place));
    }
    await this.#expire(today);
    if (this.#place !== null) {
      if (applied.length > 0) this.#unsynced = true;
      await this.#arm();
      return { ...(this.#others === null ? this.#totals(today) : withTotals(this.#totals(today), this.#others)), spread: LEDGER_SHARDS };
    }
    this.#noteWrite();
    return { ...this.#accountTotals(today, -1), spread: this.#spread };
  }

  /**
   * This object's own totals for `day` and its month (a reader sums them over the ledger's objects,
   * `ledger-reads.ts`), which of `partIds` it holds (a reader adds its own parts that no object holds
   * yet: read-your-writes), and the spread (a root's tells the reader which objects to read).
   */
  async totals(day: string, partIds: readonly string[] = []): Promise<LedgerRead> {
    const applied = partIds.filter((id) => this.#sql.exec('SELECT 1 FROM parts WHERE id = ?', id).toArray().length > 0);
    return { totals: this.#totals(day), applied, spread: this.#place === null ? this.#spread : LEDGER_SHARDS };
  }

  /** This object's rows from `from` to `to` (UTC days, inclusive), in day, deployment, kind and credential order, and the spread. */
  async rows(from: string, to: string): Promise<{ rows: UsageRow[]; spread: number }> {
    const rows = this.#sql
      .exec<Record<keyof UsageRow, string | number>>(
        'SELECT day, deployment, kind, credential, requests, lookups, problems FROM usage WHERE day >= ? AND day <= ? ORDER BY day, deployment, kind, credential',
        from,
        to,
      )
      .toArray() as unknown as UsageRow[];
    return { rows, spread: this.#place === null ? this.#spread : LEDGER_SHARDS };
  }

  /**
   * A root's side of a shard's sync: keeps the shard's totals (its cumulative day and month, so a
   * repeated or late sync changes nothing) and answers the sum of every other object's for that day.
   */
  sync(shard: number, totals: AccountTotals): AccountTotals {
    const known = this.#shards.get(shard);
    if (known === undefined || known.day <= totals.day) {
      this.#shards.set(shard, totals);
      this.#sql.exec(
        'INSERT INTO shard_totals (shard, totals) VALUES (?, ?) ON CONFLICT (shard) DO UPDATE SET totals = excluded.totals',
        shard,
        JSON.stringify(totals),
      );
    }
    return this.#accountTotals(totals.day, shard);
  }

  /** Tells the root a shard's totals when it has counted since it last did; expires old rows; then sets the next alarm. */
  override async alarm(): Promise<void> {
    this.#alarmAt = null;
    if (this.#place !== null && this.#unsynced) await this.#sync();
    const now = Date.now();
    await this.#expire(utcDay(now), this.#expiresAt === null || now >= this.#expiresAt);
    await this.#arm();
  }

  /** A root's totals for `day`: its own and every shard's but `except`'s, as they last told it. */
  #accountTotals(day: string, except: number): AccountTotals {
    let totals = this.#totals(day);
    for (const [shard, known] of this.#shards) if (shard !== except) totals = withTotals(totals, known);
    return totals;
  }

  /** Counts a root's write, and spreads the ledger when they pass {@link SPREAD_AT_WRITES_PER_SECOND} in a second. */
  #noteWrite(): void {
    if (this.#spread > 1) return;
    const second = Math.floor(Date.now() / 1000);
    if (second !== this.#second) {
      this.#second = second;
      this.#writes = 0;
    }
    if (++this.#writes <= SPREAD_AT_WRITES_PER_SECOND) return;
    this.#spread = LEDGER_SHARDS;
    this.#sql.exec(SET, 'spread', String(LEDGER_SHARDS));
  }

  /** A shard tells the root its totals and learns the others'; a failure is logged and tried again at the next alarm. */
  async #sync(): Promise<void> {
    const place = this.#place as LedgerPlace;
    this.#unsynced = false;
    this.#syncedAt = Date.now();
    try {
      this.#others = await this.env.USAGE.getByName(place.account).sync(place.shard, this.#totals(utcDay(this.#syncedAt)));
    } catch (error) {
      this.#unsynced = true;
      reportEvent({ event: 'usage-shard-unsynced', account: place.account, shard: place.shard, retryMs: SYNC_MS, why: whyOf(error) });
    }
  }

  /** Sets the alarm for the next sync a shard owes (at most one a {@link SYNC_MS}) or the next expiry, whichever comes first. */
  async #arm(): Promise<void> {
    const syncAt = this.#place !== null && this.#unsynced ? Math.max(Date.now(), this.#syncedAt + SYNC_MS) : Number.POSITIVE_INFINITY;
    const at = Math.min(syncAt, this.#expiresAt ?? Number.POSITIVE_INFINITY);
    if (at === Number.POSITIVE_INFINITY) {
      if (this.#alarmAt !== null) await this.ctx.storage.deleteAlarm();
      this.#alarmAt = null;
    } else if (this.#alarmAt === null || this.#alarmAt > at) {
      await this.ctx.storage.setAlarm(at);
      this.#alarmAt = at;
    }
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
   * {@link PART_ID_DAYS}; then notes when the oldest row left expires, and sets the alarm for it. Once
   * per day and instance, unless `always`.
   */
  async #expire(today: string, always = false): Promise<void> {
    if (!always && today <= this.#expiredFor) return;
    this.#expiredFor = today;
    const deleted = this.#sql.exec('DELETE FROM usage WHERE day < ?', addDays(today, -RETENTION_DAYS)).rowsWritten;
    this.#sql.exec('DELETE FROM parts WHERE day < ?', addDays(today, -PART_ID_DAYS));
    if (deleted > 0) this.#cached = null;
    const oldest = this.#sql.exec<{ day: string | null }>('SELECT MIN(day) AS day FROM usage').one().day;
    this.#expiresAt = oldest === null ? null : nextDayStart(addDays(oldest, RETENTION_DAYS));
    await this.#arm();
  }
}
