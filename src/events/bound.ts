/**
 * @module How many events of one kind an isolate writes: at most {@link EVENTS_PER_MINUTE} in any
 * {@link WINDOW_MS}, the others counted and not written, so that no client can make every request log.
 * The first event written after some were held back says how many (`suppressed`). Kinds are a fixed
 * set of names, so the state stays a few numbers per kind however many events come.
 */

/** The most events of one kind that an isolate writes in any window of {@link WINDOW_MS}. */
export const EVENTS_PER_MINUTE = 3;
/** The window of the bound, in ms. */
const WINDOW_MS = 60_000;

/** One kind's state: when its last events were written (oldest first), and how many were held back since. */
interface KindState {
  readonly written: number[];
  suppressed: number;
}

/** The bound of one isolate, over every kind; one instance per isolate. */
export class EventBound {
  readonly #now: () => number;
  readonly #kinds = new Map<string, KindState>();

  /** @param now the clock, in ms (`Date.now` by default, which in a Worker moves with I/O). */
  constructor(now: () => number = Date.now) {
    this.#now = now;
  }

  /**
   * Whether an event of `kind` may be written now, counting it either way.
   *
   * @returns `{ suppressed }`, how many of the kind were held back since the last one written (their
   *   count starts again at 0), when it may; null when it is held back.
   */
  admit(kind: string): { suppressed: number } | null {
    const now = this.#now();
    let state = this.#kinds.get(kind);
    if (state === undefined) {
      state = { written: [], suppressed: 0 };
      this.#kinds.set(kind, state);
    }
    const oldest = state.written[0];
    if (state.written.length >= EVENTS_PER_MINUTE && oldest !== undefined && now - oldest < WINDOW_MS) {
      state.suppressed += 1;
      return null;
    }
    if (state.written.length >= EVENTS_PER_MINUTE) state.written.shift();
    state.written.push(now);
    const suppressed = state.suppressed;
    state.suppressed = 0;
    return { suppressed };
  }
}
