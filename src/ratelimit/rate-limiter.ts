/**
 * @module The Durable Object that counts one free-plan client's requests (one object per client key:
 * an IPv4 address or an IPv6 /64, see `ip/client-key.ts`).
 *
 * Exact under concurrency: {@link RateLimiter.hit} reads, decides and writes with synchronous SQLite
 * calls and no `await` in between, so concurrent requests of one client are decided one after another
 * against the same log. The log holds only admitted requests of the last minute (at most 60 rows).
 *
 * An alarm deletes the object's storage once it has been idle for a minute, so that a client that came
 * once leaves nothing behind.
 */
import { DurableObject } from 'cloudflare:workers';
import { admit, FREE_POLICIES, type LimitDecision } from './window.ts';

/** The longest window, in ms: older admissions no longer matter. */
const HORIZON_MS = Math.max(...FREE_POLICIES.map((policy) => policy.windowSeconds)) * 1000;

/** Counts one client's requests. Called over RPC by `ratelimit/client.ts`. */
export class RateLimiter extends DurableObject<Env> {
  /** Whether the `hits` table exists in this instance's storage (false again after the alarm deletes everything). */
  #ready = false;
  /** Whether an alarm is known to be scheduled (learnt lazily, so that a request costs no alarm read). */
  #alarmSet = false;

  /**
   * Decides a rate-limited request and, when it is admitted, counts it.
   *
   * @param now the request time in ms since the epoch; the object's own clock when omitted (production).
   *   Tests pass it to walk through windows without waiting.
   * @returns the decision, with the state of every policy after it.
   */
  async hit(now: number = Date.now()): Promise<LimitDecision> {
    const { decision } = admit(this.#log(), now);
    if (decision.allowed) {
      this.ctx.storage.sql.exec('INSERT INTO hits (at) VALUES (?)', now);
    }
    // Prune what no window can see any more, as `admit` did.
    this.ctx.storage.sql.exec('DELETE FROM hits WHERE at <= ?', now - HORIZON_MS);
    await this.#scheduleCleanup();
    return decision;
  }

  /**
   * The state of the policies at `now` without counting anything: for free answers that are not
   * rate-limited (`/`, `/openapi.json`, `/docs`) but still carry the RateLimit fields.
   *
   * @param now ms since the epoch; the object's own clock when omitted.
   */
  peek(now: number = Date.now()): LimitDecision {
    return admit(this.#log(), now, { consume: false }).decision;
  }

  /** Deletes old admissions; deletes all storage once nothing is left, or checks again a minute after the newest. */
  override async alarm(): Promise<void> {
    this.#alarmSet = false;
    this.#ensureTable();
    this.ctx.storage.sql.exec('DELETE FROM hits WHERE at <= ?', Date.now() - HORIZON_MS);
    const newest = this.ctx.storage.sql.exec<{ newest: number | null }>('SELECT MAX(at) AS newest FROM hits').one().newest;
    if (newest === null) {
      await this.ctx.storage.deleteAll();
      this.#ready = false;
      return;
    }
    await this.ctx.storage.setAlarm(Math.max(newest, Date.now()) + HORIZON_MS);
    this.#alarmSet = true;
  }

  #log(): number[] {
    this.#ensureTable();
    return this.ctx.storage.sql
      .exec<{ at: number }>('SELECT at FROM hits ORDER BY at')
      .toArray()
      .map((row) => row.at);
  }

  #ensureTable(): void {
    if (this.#ready) return;
    this.ctx.storage.sql.exec('CREATE TABLE IF NOT EXISTS hits (at INTEGER NOT NULL)');
    this.#ready = true;
  }

  async #scheduleCleanup(): Promise<void> {
    if (this.#alarmSet) return;
    // The real clock, not a caller's `now`: cleanup is about storage, not about any request's window.
    if ((await this.ctx.storage.getAlarm()) === null) await this.ctx.storage.setAlarm(Date.now() + HORIZON_MS);
    this.#alarmSet = true;
  }
}
