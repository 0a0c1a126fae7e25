/**
 * @module `npm run bench:shards`: the shards' equality (docs/sharding.md, "Serving") over the real data. The build of N shards in
 * `--dir` (made by `npm run data:build -- --shards N --out DIR`) answers, each address from the shard
 * `shardIndexOf` picks, every document exactly as the build of one file (`data/out/ipgeo.mmdb`) does,
 * over the benchmark's seeded 50,000 IPv4 and 50,000 IPv6 addresses (`addresses.ts`); prints one line
 * with the counts, the differences and the time. Exit 1 on any difference.
 *
 *     npm run bench:shards -- --dir /tmp/ipgeo-3 [--ipv4 50000] [--ipv6 50000] [--json FILE]
 *     npm run bench:shards -- --build 3 [--out DIR] [--json FILE]     (builds the shards first; `npm run bench` does)
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DATABASE_FILE } from '../data/build.ts';
import { commandLineError, parseCommandLine } from '../data/command-line.ts';
import type { Manifest } from '../data/output.ts';
import { GeoDatabase } from '../src/geo/database.ts';
import { compareAnswers, openShards } from '../test/support/sharded-answers.ts';
import { randomIpv4, randomIpv6, SEED } from './addresses.ts';

const USAGE = `usage: npm run bench:shards -- (--dir DIR | --build N [--out DIR]) [--ipv4 N] [--ipv6 N] [--json FILE]

Compares every answer of the sharded build in DIR (its ipgeo.manifest.json and shard files) with the
build of one file, data/out/ipgeo.mmdb, over seeded addresses.
  --dir DIR    the sharded build (npm run data:build -- --shards N --out DIR)
  --build N    build N shards of the default sources into a temporary directory first, and compare those
  --out DIR    with --build: build into DIR instead, and keep it (npm run bench measures its CPU next)
  --ipv4 N     IPv4 addresses (default 50000)
  --ipv6 N     IPv6 addresses (default 50000)
  --json FILE  also write the figures as JSON (for npm run bench)`;

/** What {@link shardedAnswers} measured: counts of addresses and documents, found per shard, the first differences, seconds. */
export interface ShardedAnswersFigures {
  readonly shards: number;
  readonly addresses: number;
  readonly found: number;
  readonly documents: number;
  readonly perShard: readonly number[];
  readonly differences: readonly string[];
  readonly seconds: number;
}

/**
 * Compares the answers of the sharded build in `dir` with those of the one-file build `wholeFile`
 * over `ipv4` + `ipv6` seeded addresses (seeds of `addresses.ts`).
 *
 * @throws Error when `dir` holds no manifest of shards or its ranges do not tile the space.
 */
function shardedAnswers(dir: string, wholeFile = DATABASE_FILE, ipv4 = 50_000, ipv6 = 50_000): ShardedAnswersFigures {
  const manifest = JSON.parse(readFileSync(join(dir, 'ipgeo.manifest.json'), 'utf8')) as Manifest;
  const sharded = openShards(manifest.shards.map((shard) => ({ ...shard, bytes: readFileSync(join(dir, shard.file)) })));
  const whole = new GeoDatabase(readFileSync(wholeFile));
  const texts = [...randomIpv4(ipv4, SEED), ...randomIpv6(ipv6, SEED + 1)];
  const started = performance.now();
  const result = compareAnswers(whole, sharded, texts);
  return { shards: manifest.shards.length, ...result, seconds: (performance.now() - started) / 1000 };
}

/** The line `bench:shards` prints (and BENCHMARKS.md can quote). */
function shardedAnswersLine(figures: ShardedAnswersFigures): string {
  const { shards, addresses, found, documents, perShard, differences, seconds } = figures;
  return (
    `${shards} shards vs one file: ${addresses} addresses (${found} found; per shard ${perShard.join(' / ')}), ` +
    `${documents} documents compared in ${seconds.toFixed(1)} s: ${differences.length === 0 ? 'all equal' : `${differences.length}+ differ`}`
  );
}

function main(argv: string[]): number {
  const line = parseCommandLine(argv, {
    command: 'npm run bench:shards',
    usage: USAGE,
    options: {
      dir: { type: 'string' },
      build: { type: 'string' },
      out: { type: 'string' },
      ipv4: { type: 'string' },
      ipv6: { type: 'string' },
      json: { type: 'string' },
    },
  });
  if (typeof line === 'number') return line;
  const { values } = line;
  if (!values.dir === !values.build)
    return commandLineError('npm run bench:shards', 'name the sharded build (--dir DIR) or how many shards to build (--build N)');
  const count = Number(values.build ?? '2');
  if (!(Number.isInteger(count) && count >= 2)) return commandLineError('npm run bench:shards', '--build takes a whole number of shards, 2 or more');
  const [ipv4, ipv6] = [values.ipv4 ?? '50000', values.ipv6 ?? '50000'].map(Number) as [number, number];
  if (!(Number.isInteger(ipv4) && ipv4 >= 0 && Number.isInteger(ipv6) && ipv6 >= 0)) {
    return commandLineError('npm run bench:shards', '--ipv4 and --ipv6 take whole numbers of addresses');
  }
  if (values.out && !values.build) return commandLineError('npm run bench:shards', '--out names where --build writes');
  const built = values.build ? (values.out ? resolve(values.out) : mkdtempSync(join(tmpdir(), 'ipgeo-shards-'))) : undefined;
  try {
    if (built) {
      const build = spawnSync(process.execPath, ['--import', 'tsx', 'data/build.ts', '--shards', String(count), '--out', built], { stdio: 'inherit' });
      if (build.status !== 0) return 1;
    }
    return compared(shardedAnswers(built ?? resolve(values.dir as string), DATABASE_FILE, ipv4, ipv6), values.json);
  } finally {
    if (built && !values.out) rmSync(built, { recursive: true, force: true });
  }
}

/** Prints `figures` (and writes them to `json`); the exit status: 0 when every answer was equal. */
function compared(figures: ShardedAnswersFigures, json: string | undefined): number {
  console.log(shardedAnswersLine(figures));
  if (json) writeFileSync(json, JSON.stringify(figures));
  for (const difference of figures.differences) console.log(`  ${difference}`);
  return figures.differences.length === 0 ? 0 : 1;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  process.exitCode = main(process.argv.slice(2));
}
