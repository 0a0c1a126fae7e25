/**
 * @module Whatever fails, the answer is a problem: an exception outside the app's handlers (here, while
 * the Worker's entry reads the bindings) answers 500 `INTERNAL_ERROR` as problem details, without the
 * error's message, stack or paths (they go to the log).
 */
import { createExecutionContext } from 'cloudflare:test';
import { describe, expect, it } from 'vitest';
import worker from '../../src/index.ts';
import { expectDescribed } from '../support/worker-fetch.ts';

/** Bindings whose every read throws an error that names a file, as a stack would. */
const brokenEnv = new Proxy({} as Env, {
  get() {
    throw new Error('secret failure at /home/build/src/secret-module.ts:12:34');
  },
});

describe('an exception outside the handlers', () => {
  for (const [path, type] of [
    ['/api/v1/json/8.8.8.8', 'application/problem+json; charset=utf-8'],
    ['/api/xml/8.8.8.8', 'application/problem+xml; charset=utf-8'],
  ] as const) {
    it(`answers ${path} with a 500 INTERNAL_ERROR problem that reveals nothing`, async () => {
      const request = new Request<unknown, IncomingRequestCfProperties>(`http://any.test${path}`);
      const response = await expectDescribed(request, await worker.fetch(request, brokenEnv, createExecutionContext()));
      expect(response.status).toBe(500);
      expect(response.headers.get('Content-Type')).toBe(type);
      const text = await response.text();
      expect(text).toContain('INTERNAL_ERROR');
      expect(text).not.toMatch(/secret|\.ts|\/home|at /);
    });
  }
});
