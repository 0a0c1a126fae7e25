/**
 * @module `npm run bench:shard-workers`: every field of every answer of a sharded build equal to the same
 * sources built as one file (docs/sharding.md, "Serving"), over a seeded sample of random IPv4 and IPv6 addresses. Two
 * deployments of the production lookup routes run side by side (`worker/lookup-only.js`): A holds the
 * one-file build of `data/out/`, B is bound to a shard Worker per shard of the sharded build. Every
 * address is asked of both in bulk requests, JSON and XML, and the answers are compared byte for byte.
 *
 *     npm run data:build -- --shards 3 --out data/out/n3
 *     npm run bench:shard-workers -- --shards data/out/n3 [--count 100000] [--json FILE]
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { DATABASE_FILE } from '../data/build.ts';
import { commandLineError, parseCommandLine } from '../data/command-line.ts';
import { MAX_BULK_IPS } from '../src/schemas/bulk.ts';
import { randomIpv4, randomIpv6 } from './addresses.ts';
import { buildBundle, buildShardBundle, type Deployment, ROOT, seedDatabase, seedShards, startDeployment } from './worker/deployment.ts';

const USAGE = `usage: npm run bench:shard-workers -- --shards DIR [--count N] [--json FILE]

Every answer of the sharded build in DIR against the one-file build of data/out/, over N random addresses.
  --shards DIR  a sharded build (npm run data:build -- --shards 3 --out DIR)
  --count N     addresses, five IPv4 to one IPv6 (default 100000)
  --json FILE   also write the result as JSON`;

const line = parseCommandLine(process.argv.slice(2), {
  command: 'npm run bench:shard-workers',
  usage: USAGE,
  options: { shards: { type: 'string' }, count: { type: 'string', default: '100000' }, json: { type: 'string' } },
});
if (typeof line === 'number') process.exit(line);
const { values } = line;
if (!values.shards) process.exit(commandLineError('npm run bench:shard-workers', '--shards DIR is required'));
const dir = resolve(values.shards);
const count = Number(values.count);
const shardCount = (JSON.parse(readFileSync(join(dir, 'ipgeo.manifest.json'), 'utf8')) as { shards: unknown[] }).shards.length;

/** The comparison's result, as `bench/report.ts` reads it. */
interface EqualityResult {
  readonly shards: number;
  readonly addresses: number;
  readonly ipv6: number;
  /** Addresses whose JSON or XML item differs between the two. */
  readonly differing: number;
  /** Items the one-file build answered with a record (the rest: not found). */
  readonly found: number;
  readonly seconds: number;
}

const ipv6 = Math.round(count / 6);
const addresses = [...randomIpv4(count - ipv6, 3030), ...randomIpv6(ipv6, 3031)];
const work = mkdtempSync(join(tmpdir(), 'ipgeo-bench-shards-'));
const deployments: Deployment[] = [];
const started = performance.now();
try {
  const bundle = buildBundle('de', join(work, 'bundle'), 'bench/worker/lookup-only.js');
  const whole = await startDeployment('de', bundle, join(work, 'state-whole'));
  deployments.push(whole);
  await seedDatabase(whole, DATABASE_FILE);
  const shards = { bundle: buildShardBundle('de', join(work, 'shard'), shardCount, ROOT), count: shardCount };
  const sharded = await startDeployment('de', bundle, join(work, 'state-sharded'), { shards });
  deployments.push(sharded);
  await seedShards(sharded, dir);

  const ask = async (deployment: Deployment, format: 'json' | 'xml', ips: string[]): Promise<string> => {
    const response = await fetch(new URL(`/api/bulk/${format}`, deployment.url), {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ ips }),
    });
    const text = await response.text();
    if (response.status !== 200) throw new Error(`bulk ${format} answered ${response.status}: ${text.slice(0, 300)}`);
    return text;
  };
  const differing = new Set<string>();
  let found = 0;
  let next = 0;
  const batches = Math.ceil(addresses.length / MAX_BULK_IPS);
  const client = async () => {
    for (let batch = next++; batch < batches; batch = next++) {
      const ips = addresses.slice(batch * MAX_BULK_IPS, (batch + 1) * MAX_BULK_IPS);
      for (const format of ['json', 'xml'] as const) {
        const [a, b] = await Promise.all([ask(whole, format, ips), ask(sharded, format, ips)]);
        if (a === b) {
          if (format === 'json') found += Object.values(JSON.parse(a) as Record<string, { code?: string }>).filter((item) => item.code === undefined).length;
          continue;
        }
        // Which items differ: the JSON document keys them by address.
        if (format === 'json') {
          const [itemsA, itemsB] = [JSON.parse(a), JSON.parse(b)] as Record<string, unknown>[];
          for (const ip of ips) if (JSON.stringify(itemsA?.[ip]) !== JSON.stringify(itemsB?.[ip])) differing.add(ip);
        } else {
          for (const ip of ips) differing.add(ip);
        }
      }
    }
  };
  await Promise.all(Array.from({ length: 8 }, client));
  const result: EqualityResult = {
    shards: shardCount,
    addresses: addresses.length,
    ipv6,
    differing: differing.size,
    found,
    seconds: Math.round((performance.now() - started) / 1000),
  };
  console.log(
    `N = ${shardCount} against N = 1: ${result.addresses} random addresses (${result.addresses - ipv6} IPv4, ${ipv6} IPv6; ${found} found), ` +
      `JSON and XML bulk answers: ${result.differing === 0 ? 'every field equal' : `${result.differing} differ, e.g. ${[...differing].slice(0, 5).join(', ')}`} (${result.seconds} s)`,
  );
  if (values.json) writeFileSync(values.json, JSON.stringify(result, null, 2));
  process.exitCode = result.differing === 0 ? 0 : 1;
} finally {
  for (const deployment of deployments) await deployment.dispose();
  rmSync(work, { recursive: true, force: true });
}
