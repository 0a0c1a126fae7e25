/**
 * @module A minimal client of the V8 inspector (Chrome DevTools protocol) that workerd serves when
 * Miniflare is given an `inspectorPort`: the benchmark's CPU profiles (`profile.ts`, `distant.ts`), its
 * forced garbage collections and heap readings (`memory.ts`), and the heap's peak during a load.
 */

/** A minimal DevTools-protocol client over the inspector's WebSocket. */
export class Inspector {
  private next = 1;
  private readonly pending = new Map<number, (result: unknown) => void>();
  private constructor(private readonly socket: WebSocket) {
    socket.addEventListener('message', (event) => {
      const message = JSON.parse(String(event.data)) as { id?: number; result?: unknown };
      if (message.id !== undefined) this.pending.get(message.id)?.(message.result);
    });
  }
  /** Connects to the isolate of Worker `name` (Miniflare's `inspectorPort`), or the first one listed. */
  static async connect(port: number, name: string): Promise<Inspector> {
    const targets = (await (await fetch(`http://127.0.0.1:${port}/json`)).json()) as { id: string; webSocketDebuggerUrl: string }[];
    const target = targets.find((t) => t.id.endsWith(name)) ?? targets[0];
    if (!target) throw new Error('the inspector lists no target');
    const socket = new WebSocket(target.webSocketDebuggerUrl);
    await new Promise((done, fail) => {
      socket.addEventListener('open', done, { once: true });
      socket.addEventListener('error', fail, { once: true });
    });
    return new Inspector(socket);
  }
  /** Sends a DevTools-protocol command and resolves with its result. */
  send<T>(method: string, params: object = {}): Promise<T> {
    const id = this.next++;
    this.socket.send(JSON.stringify({ id, method, params }));
    return new Promise((done) => this.pending.set(id, done as (result: unknown) => void));
  }
  close(): void {
    this.socket.close();
  }
}

/**
 * The isolate's heap in use plus ArrayBuffer backing stores (what `bench:memory` counts, without forcing
 * a collection, so garbage counts too), read every 25 ms; {@link peak} is the highest since the last reset.
 */
export class HeapPeak {
  peak = 0;
  /** The ArrayBuffer backing stores in {@link peak}; the rest is the V8 heap in use, garbage included. */
  arrayBuffersAtPeak = 0;
  /** The most ArrayBuffer backing stores read (the database files and stream buffers), whenever it was. */
  arrayBuffersPeak = 0;
  private readonly timer: NodeJS.Timeout;
  constructor(private readonly inspector: Inspector) {
    this.timer = setInterval(() => {
      void this.inspector.send<{ usedSize: number; backingStorageSize: number }>('Runtime.getHeapUsage').then((heap) => {
        if (heap?.usedSize === undefined) return;
        this.arrayBuffersPeak = Math.max(this.arrayBuffersPeak, heap.backingStorageSize);
        if (heap.usedSize + heap.backingStorageSize <= this.peak) return;
        this.peak = heap.usedSize + heap.backingStorageSize;
        this.arrayBuffersAtPeak = heap.backingStorageSize;
      });
    }, 25);
  }
  reset(): void {
    this.peak = 0;
    this.arrayBuffersAtPeak = 0;
    this.arrayBuffersPeak = 0;
  }
  stop(): void {
    clearInterval(this.timer);
  }
}
