/**
 * @module An R2 binding that answers as a distant bucket does: each `get` after a first-byte delay, and
 * its body at a chosen throughput. Used by the tests (`test/workers-free/distant-data.test.ts`) and by
 * `npm run bench:cold -- --r2-latency-ms 150 --r2-mbps 25` (through `bench/worker/distant.js`), never by
 * the Worker itself. Runs in workerd (it uses `FixedLengthStream`).
 */

/** How far the bucket is. */
export interface Distance {
  /** Delay of every `get` before its object (or null) is answered, ms. */
  readonly latencyMs: number;
  /** Throughput of a body, in megabytes (10^6 bytes) per second. */
  readonly megabytesPerSecond: number;
}

/** The part of an R2 object that the loader reads. */
export interface DistantObject {
  readonly size: number;
  readonly body: ReadableStream<Uint8Array>;
  text(): Promise<string>;
}

/** Bytes written to the paced body at a time: R2's own bodies arrive in large chunks, and the pacing's cost stays small. */
const SLICE = 1 << 20;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * `bucket` as seen from far away: `get` answers after {@link Distance.latencyMs}, and the body's bytes
 * arrive no faster than {@link Distance.megabytesPerSecond}, through a stream of known length (as R2's
 * bodies are, so BYOB readers and `readAtLeast` work on it).
 *
 * @example const far = distantBucket(env.GEO_DATA, { latencyMs: 150, megabytesPerSecond: 25 });
 */
export function distantBucket(bucket: R2Bucket, distance: Distance): { get(key: string): Promise<DistantObject | null> } {
  const bytesPerMs = (distance.megabytesPerSecond * 1e6) / 1000;
  return {
    async get(key: string): Promise<DistantObject | null> {
      await sleep(distance.latencyMs);
      const object = await bucket.get(key);
      if (object === null) return null;
      const paced = new FixedLengthStream(object.size);
      void pace(object.body, paced.writable, bytesPerMs);
      return { size: object.size, body: paced.readable, text: () => new Response(paced.readable).text() };
    },
  };
}

/**
 * Copies `from` into `to` through one reused buffer of {@link SLICE} bytes, each slice no sooner than the
 * throughput allows: no garbage of its own, so the isolate's memory is the loader's (each write is
 * awaited before the buffer is read into again).
 */
async function pace(from: ReadableStream<Uint8Array>, to: WritableStream<Uint8Array>, bytesPerMs: number): Promise<void> {
  const reader = from.getReader({ mode: 'byob' }) as ReadableStreamBYOBReader & {
    readAtLeast?<T extends ArrayBufferView>(minElements: number, view: T): Promise<{ done: boolean; value?: T | undefined }>;
  };
  const writer = to.getWriter();
  const started = Date.now();
  let buffer = new ArrayBuffer(SLICE);
  let sent = 0;
  try {
    for (;;) {
      const view = new Uint8Array(buffer);
      const { done, value } = await (reader.readAtLeast ? reader.readAtLeast(SLICE, view) : reader.read(view));
      if (value !== undefined && value.byteLength > 0) {
        sent += value.byteLength;
        const due = started + sent / bytesPerMs - Date.now();
        if (due > 0) await sleep(due);
        await writer.write(value);
        buffer = value.buffer as ArrayBuffer;
      }
      if (done || value === undefined) break;
    }
    await writer.close();
  } catch (error) {
    // The reader went away (a cancelled body): nothing more to send.
    await writer.abort(error).catch(() => undefined);
    await reader.cancel(error).catch(() => undefined);
  }
}
