import { describe, expect, it } from 'vitest';
import { paidFetch } from '../support/paid-fetch.ts';

describe('plumbing', () => {
  it('answers through the shard', async () => {
    const r = await paidFetch('/api/json/8.8.8.8');
    expect(r.status).toBe(200);
  });
});
