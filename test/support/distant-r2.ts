/**
 * @module An R2 binding that answers as a distant bucket does: each `get` after a first-byte delay, and
 * its body at a chosen throughput. Used by the tests (`test/workers-free/distant-data.test.ts`) and by
 * `npm run bench:cold -- --r2-latency-ms 150 --r2-mbps 25` (through `bench/worker/distant.js`), never by
 * the Worker itself. Runs in workerd (it uses `FixedLengthStream`). It keeps a record of its reads, so
 * that a test can count them and see which were under way at once.
 */

/** How far the bucket is. */
export interface Distance {
  /** Delay of every `get` before its object (or null) is answered, ms. */
  readonly latencyMs: number;
  /** Throughput of a body, in megabytes (10^6 bytes) per second. */
  readonly megabytesPerSecond: number;
}

/**
 * The clock the bucket waits by. The real one by default; a test passes its own, whose `sleep` moves
 * its time forward instead of waiting, so that a slow bucket takes no time at all.
 */
export interface BucketClock {
  /** ms, of any origin. */
  now(): number;
  /** Waits `ms` before the first byte of `key`'s object, or before a slice of its body. */
  sleep(ms: number, key: string): Promise<void>;
}

/** How the bucket answers, beside its {@link Distance}. */
export interface DistantOptions {
  readonly clock?: BucketClock;
  /** Bytes of a body sent at a time (default 1 MiB, as R2's own bodies arrive in large chunks). */
  readonly sliceBytes?: number;
}

/** The part of an R2 object that the loader reads. */
interface DistantObject {
  readonly size: number;
  readonly body: ReadableStream<Uint8Array>;
  text(): Promise<string>;
}

/**
 * One body the bucket sent, from its `get` until its last byte was taken or it was cancelled; `opened`
 * and `closed` are steps of one counter of the bucket's events, not times.
 */
export interface BodyRead {
  readonly key: string;
  readonly bytes: number;
  readonly opened: number;
  closed: number | undefined;
  /** Whether its reader went away before its end. */
  cancelled: boolean;
}

/** A distant bucket, and the bodies it has sent, in the order they were asked for. */
export interface DistantBucket {
  get(key: string): Promise<DistantObject | null>;
  readonly reads: readonly BodyRead[];
}

/** Bytes written to the paced body at a time: R2's own bodies arrive in large chunks, and the pacing's cost stays small. */
const SLICE = 1 << 20;

/** Real time; `performance.now()`, which a bench Worker's moved `Date.now` does not move (`bench/worker/distant.js`). */
const REAL_CLOCK: BucketClock = {
  now: () => performance.now(),
  sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
};

/**
 * `bucket` as seen from far away: `get` answers after {@link Distance.latencyMs}, and the body's bytes
 * arrive no faster than {@link Distance.megabytesPerSecond}, through a stream of known length (as R2's
 * bodies are, so BYOB readers and `readAtLeast` work on it).
 *
 * @example const far = distantBucket(env.GEO_DATA, { latencyMs: 150, megabytesPerSecond: 25 });
 */
export function distantBucket(bucket: R2Bucket, distance: Distance, options: DistantOptions = {}): DistantBucket {
  const clock = options.clock ?? REAL_CLOCK;
  const bytesPerMs = (distance.megabytesPerSecond * 1e6) / 1000;
  const reads: BodyRead[] = [];
  let step = 0;
  return {
    reads,
    async get(key: string): Promise<DistantObject | null> {
      await clock.sleep(distance.latencyMs, key);
      const object = await bucket.get(key);
      if (object === null) return null;
      const read: BodyRead = { key, bytes: object.size, opened: ++step, closed: undefined, cancelled: false };
      reads.push(read);
      const paced = new FixedLengthStream(object.size);
      void pace(object.body, paced.writable, bytesPerMs, (ms) => clock.sleep(ms, key), clock.now, options.sliceBytes ?? SLICE).then((whole) => {
        read.closed = ++step;
        read.cancelled = !whole;
      });
      return { size: object.size, body: paced.readable, text: () => new Response(paced.readable).text() };
    },
  };
}

/**
 * The most bodies whose key `matches` that were being read at once (each from its `get` until its last
 * byte was taken or it was cancelled).
 */
export function mostAtOnce(reads: readonly BodyRead[], matches: (key: string) => boolean): number {
  const chosen = reads.filter((read) => matches(read.key));
  return Math.max(0, ...chosen.map((read) => chosen.filter((other) => other.opened <= read.opened && (other.closed ?? Infinity) > read.opened).length));
}

/**
 * Copies `from` into `to` through one reused buffer of `sliceBytes`, each slice no sooner than the
 * throughput allows: no garbage of its own, so the isolate's memory is the loader's (each write is
 * awaited before the buffer is read into again). Resolves with whether the whole body was sent.
 */
async function pace(
  from: ReadableStream<Uint8Array>,
  to: WritableStream<Uint8Array>,
  bytesPerMs: number,
  sleep: (ms: number) => Promise<void>,
  now: () => number,
  sliceBytes: number,
): Promise<boolean> {
  const reader = from.getReader({ mode: 'byob' }) as ReadableStreamBYOBReader & {
    readAtLeast?<T extends ArrayBufferView>(minElements: number, view: T): Promise<{ done: boolean; value?: T | undefined }>;
  };
  const writer = to.getWriter();
  const started = now();
  let buffer = new ArrayBuffer(sliceBytes);
  let sent = 0;
  try {
    for (;;) {
      const view = new Uint8Array(buffer);
      const { done, value } = await (reader.readAtLeast ? reader.readAtLeast(sliceBytes, view) : reader.read(view));
      if (value !== undefined && value.byteLength > 0) {
        sent += value.byteLength;
        const due = started + sent / bytesPerMs - now();
        if (due > 0) await sleep(due);
        await writer.write(value);
        buffer = value.buffer as ArrayBuffer;
      }
      if (done || value === undefined) break;
    }
    await writer.close();
    return true;
  } catch (error) {
    // The reader went away (a cancelled body): nothing more to send.
    await writer.abort(error).catch(() => undefined);
    await reader.cancel(error).catch(() => undefined);
    return false;
  }
}
