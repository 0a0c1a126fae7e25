/** @module Paths and helpers shared by the Node-side tests. */
import { fileURLToPath } from 'node:url';

/** MaxMind's official test databases and their source JSON (`test/fixtures/maxmind-db/`, see its README). */
export const FIXTURES = fileURLToPath(new URL('../fixtures/maxmind-db', import.meta.url));

/** Text form of a 16-byte address; IPv4 (at ::a.b.c.d) as a dotted quad when `ipv4`. */
export function formatAddress(bytes: Uint8Array, ipv4: boolean): string {
  if (ipv4) return Array.from(bytes.subarray(12)).join('.');
  const groups: string[] = [];
  for (let i = 0; i < 16; i += 2) groups.push((((bytes[i] as number) << 8) | (bytes[i + 1] as number)).toString(16));
  return groups.join(':');
}
