/** @module The part of autocannon's programmatic API that the HTTP benchmark uses (the package ships no types). */
declare module 'autocannon' {
  import type { EventEmitter } from 'node:events';

  /** A request as `setupRequest` sees and returns it. */
  export interface AutocannonRequest {
    method?: string;
    path?: string;
    headers?: Record<string, string>;
    body?: string | Buffer;
  }

  export interface AutocannonOptions {
    url: string;
    connections?: number;
    pipelining?: number;
    duration?: number;
    amount?: number;
    timeout?: number;
    method?: string;
    headers?: Record<string, string>;
    body?: string;
    requests?: Array<AutocannonRequest & { setupRequest?: (request: AutocannonRequest) => AutocannonRequest }>;
  }

  export interface Histogram {
    average: number;
    mean: number;
    stddev: number;
    min: number;
    max: number;
    p50: number;
    p90: number;
    p99: number;
    total: number;
  }

  export interface AutocannonResult {
    requests: Histogram;
    latency: Histogram;
    throughput: Histogram;
    duration: number;
    errors: number;
    timeouts: number;
    non2xx: number;
    '2xx': number;
    '4xx': number;
    '5xx': number;
    statusCodeStats: Record<string, { count: number }>;
  }

  export interface Instance extends EventEmitter {
    stop(): void;
  }

  function autocannon(options: AutocannonOptions, done: (error: Error | null, result: AutocannonResult) => void): Instance;
  export default autocannon;
}
