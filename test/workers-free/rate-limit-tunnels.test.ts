/**
 * @module The free plan limits a 6to4 or Teredo client as the IPv4 host it stands for (docs/api.md, "The
 * free plan's limits"): a 6to4 address shares the allowance of the IPv4 address it embeds, a Teredo
 * address that of its client's IPv4 address (the last 32 bits, inverted), under the IPv4 policies; two
 * Teredo clients of one server do not share one. The tunnel addresses are made with ipaddr.js from the
 * RFCs' layouts, not by the service's code. Client addresses 198.18.46.0/24 and their tunnel forms: this
 * file only.
 */
import ipaddr from 'ipaddr.js';
import { describe, expect, it } from 'vitest';
import { workerFetch } from '../support/worker-fetch.ts';

/** RFC 3056: `2002:` and the IPv4 address, then a subnet and an interface of the site's choice. */
function sixToFour(ipv4: string, subnet: number): string {
  const [a = 0, b = 0, c = 0, d = 0] = ipaddr.IPv4.parse(ipv4).octets;
  return ipaddr.fromByteArray([0x20, 0x02, a, b, c, d, subnet >> 8, subnet & 255, 0, 0, 0, 0, 0, 0, 0, 1]).toString();
}

/** RFC 4380: `2001:0000:`, the server's IPv4 address, flags, the port and the client's IPv4 address, each inverted. */
function teredo(server: string, client: string, port: number): string {
  const s = ipaddr.IPv4.parse(server).octets;
  const c = ipaddr.IPv4.parse(client).octets.map((octet) => octet ^ 0xff);
  const p = port ^ 0xffff;
  return ipaddr.fromByteArray([0x20, 0x01, 0, 0, ...s, 0x80, 0x00, p >> 8, p & 255, ...c]).toString();
}

const lookup = (client: string) => workerFetch('http://free.test/api/v1/json/81.2.69.142', { headers: { 'CF-Connecting-IP': client } });

/** Sends the burst allowance (10 in 10 s) from `client`, each admitted. */
async function useBurst(client: string): Promise<void> {
  for (let i = 0; i < 10; i++) {
    const response = await lookup(client);
    expect([client, i, response.status]).toEqual([client, i, 200]);
    await response.arrayBuffer();
  }
}

describe('a tunnelled client', () => {
  it('shares the allowance of the IPv4 address that its 6to4 address embeds', async () => {
    await useBurst('198.18.46.1');
    for (const client of [sixToFour('198.18.46.1', 1), sixToFour('198.18.46.1', 0xbeef)]) {
      const refused = await lookup(client);
      expect(refused.status).toBe(429);
      expect(refused.headers.get('ratelimit-policy')).toBe('"burst";q=10;w=10, "minute";q=60;w=60');
      await refused.arrayBuffer();
    }
    const neighbour = await lookup(sixToFour('198.18.46.2', 1));
    expect(neighbour.status).toBe(200);
    expect(neighbour.headers.get('ratelimit')).toBe('"burst";r=9;t=10');
  });

  it('shares the allowance of the IPv4 address of its Teredo client, not of the other clients of its server', async () => {
    const server = '198.18.46.100';
    await useBurst(teredo(server, '198.18.46.3', 40000));
    const again = await lookup('198.18.46.3');
    expect(again.status).toBe(429);
    await again.arrayBuffer();
    expect((await lookup(teredo(server, '198.18.46.3', 50000))).status).toBe(429);
    const other = await lookup(teredo(server, '198.18.46.4', 40000));
    expect(other.status).toBe(200);
    expect(other.headers.get('ratelimit-policy')).toBe('"burst";q=10;w=10, "minute";q=60;w=60');
  });
});
