/**
 * @module `npm run bench:geofeed`: the peak memory and time of reading the largest geofeed `data:update`
 * accepts (32 MiB), each case in a fresh Node process (its peak resident set, `maxRSS`): fetched from a
 * local server and read as a stream, as `data:update --geofeed` does, of good lines and of bad ones; and
 * read whole with its entries kept, as the build reads the cached copy.
 *
 *     npm run bench:geofeed
 *     npm run bench:geofeed -- --case build --feed feed.csv     one case alone (what the run starts each process with)
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseCommandLine } from '../data/command-line.ts';
import { parseGeofeed } from '../data/corrections/geofeed.ts';
import { DownloadCache } from '../data/update/cache.ts';
import { fetchGeofeed } from '../data/update/geofeeds.ts';

/** The largest feed `data:update` accepts (`data/update/geofeeds.ts`). */
const FEED_BYTES = 32 * 1024 * 1024;

/** Lines of a feed as networks publish them: a /48 each, with region, city and postal code. */
function feedText(good: boolean): string {
  const lines: string[] = [];
  let bytes = 0;
  for (let n = 0; bytes < FEED_BYTES - 64; n++) {
    // Bad lines: each prefix in a private range, each line a fault of its own.
    const line = good
      ? `2a00:${(n >>> 16).toString(16)}:${(n & 0xffff).toString(16)}::/48,DE,DE-BE,Berlin,10115\n`
      : `10.${(n >>> 16) & 255}.${(n >>> 8) & 255}.0/24,DE,DE-BE,Berlin,10115\n`;
    lines.push(line);
    bytes += line.length;
  }
  return lines.join('');
}

/** One case, in this process: reads the feed at `path` as the case says, then prints its figures as JSON. */
async function runCase(kind: string, path: string): Promise<void> {
  const started = performance.now();
  let outcome: string;
  if (kind === 'build') {
    outcome = `${parseGeofeed(readFileSync(path), 'feed.csv').entries.length} entries kept`;
  } else {
    const body = readFileSync(path);
    const server = createServer((_request, response) => response.writeHead(200, { 'Content-Type': 'text/csv' }).end(body));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const cache = new DownloadCache(mkdtempSync(join(tmpdir(), 'ipgeo-bench-feed-')));
    try {
      const feed = await fetchGeofeed({ url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/feed.csv` }, cache, 600_000, () => {});
      outcome = `${feed.source.version.split(',')[0]} read`;
    } catch (error) {
      outcome = `refused: ${(error as Error).message.split('\n')[0]}`;
    } finally {
      cache.discard();
      server.close();
    }
  }
  const seconds = (performance.now() - started) / 1000;
  console.log(JSON.stringify({ outcome, seconds, maxRssMiB: process.resourceUsage().maxRSS / 1024 }));
}

function main(): void {
  const dir = mkdtempSync(join(tmpdir(), 'ipgeo-bench-feeds-'));
  try {
    const good = join(dir, 'good.csv');
    const bad = join(dir, 'bad.csv');
    writeFileSync(good, feedText(true));
    writeFileSync(bad, feedText(false));
    const cases = [
      ['fetch', good, 'data:update --geofeed: 32 MiB of good lines, read as a stream'],
      ['fetch', bad, 'data:update --geofeed: 32 MiB of bad lines, read as a stream'],
      ['build', good, 'data:build: the same good feed read whole, its entries kept'],
    ] as const;
    console.log('| case | outcome | time | peak resident memory |\n| --- | --- | --- | --- |');
    for (const [kind, path, what] of cases) {
      const output = execFileSync(process.execPath, ['--import', 'tsx', fileURLToPath(import.meta.url), '--case', kind, '--feed', path], { encoding: 'utf8' });
      const { outcome, seconds, maxRssMiB } = JSON.parse(output.trim().split('\n').at(-1) ?? '{}') as { outcome: string; seconds: number; maxRssMiB: number };
      console.log(`| ${what} | ${outcome} | ${seconds.toFixed(1)} s | ${maxRssMiB.toFixed(0)} MiB |`);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const parsed = parseCommandLine(process.argv.slice(2), {
    command: 'npm run bench:geofeed',
    usage: `usage: npm run bench:geofeed -- [--case KIND --feed FILE]

Writes a geofeed of 32 MiB of good lines and one of bad lines, then reads each as data:update and the
build do, each in a fresh process, and prints the peak memory and time of each as a table.
  --case KIND --feed FILE   one case alone (fetch or build), as the benchmark runs each`,
    options: { case: { type: 'string' }, feed: { type: 'string' } },
  });
  if (typeof parsed === 'number') process.exitCode = parsed;
  else if (parsed.values.case !== undefined && parsed.values.feed !== undefined) await runCase(parsed.values.case, parsed.values.feed);
  else main();
}
