/**
 * @module What `npm run deploy` asks of Cloudflare, through the wrangler CLI (so that wrangler's login
 * or `CLOUDFLARE_API_TOKEN` and `CLOUDFLARE_ACCOUNT_ID` apply): one interface, implemented by
 * {@link WranglerCloudflare}; tests drive the deploy with an in-memory one. Its buckets are the
 * {@link WranglerBucket}s of `data:publish`, so that the deploy publishes (and runs the diff gate) exactly as that command does.
 */
import { spawnSync } from 'node:child_process';
import { type WranglerBucket, wranglerBucket } from '../../data/publish/wrangler-bucket.ts';

/** The operations of a deploy on one Cloudflare account. */
export interface Cloudflare {
  /** Throws, saying how to log in, when wrangler has no credentials. */
  assertLoggedIn(): void;
  /** The KV namespaces of the account. */
  kvNamespaces(): { id: string; title: string }[];
  /** Creates a KV namespace; its id is then in {@link kvNamespaces}. */
  createKvNamespace(title: string): void;
  /** The names of the account's R2 buckets. */
  buckets(): string[];
  /** Creates an R2 bucket with a location hint (honoured the first time a name is created), or none. */
  createBucket(name: string, location: string | null): void;
  /** The R2 bucket `bucket` of deployment `environment`, as `data:publish -- --remote` reaches it (bodies are file paths). */
  versionBucket(environment: string, bucket: string): WranglerBucket;
  /**
   * Deploys one environment of a configuration file (with `dryRun`, only builds and checks it).
   *
   * @param worker names the dry run's output folder where a configuration holds another Worker than
   *   the environment's app (a shard Worker).
   * @returns the URLs that wrangler printed for the deployment (workers.dev and custom domains).
   */
  deploy(configPath: string, environment: string, dryRun: boolean, worker?: string): string[];
}

/** A wrangler command that failed; the message holds its output's last lines. */
class WranglerError extends Error {
  override readonly name = 'WranglerError';
}

/** {@link Cloudflare} through `npx wrangler`, in the repository root. */
export class WranglerCloudflare implements Cloudflare {
  constructor(
    readonly root: string,
    readonly log: (line: string) => void,
  ) {}

  assertLoggedIn(): void {
    const result = this.#spawn(['whoami']);
    if (result.status !== 0 || /not authenticated|You are not/i.test(result.stdout + result.stderr)) {
      throw new WranglerError('wrangler is not logged in: run `npx wrangler login`, or set CLOUDFLARE_API_TOKEN (and CLOUDFLARE_ACCOUNT_ID).');
    }
  }

  kvNamespaces(): { id: string; title: string }[] {
    return JSON.parse(this.#run(['kv', 'namespace', 'list'])) as { id: string; title: string }[];
  }

  createKvNamespace(title: string): void {
    this.log(`Creating the KV namespace ${title}…`);
    this.#run(['kv', 'namespace', 'create', title]);
  }

  buckets(): string[] {
    return [...this.#run(['r2', 'bucket', 'list']).matchAll(/^name:\s+(\S+)\s*$/gm)].map((match) => match[1] ?? '');
  }

  createBucket(name: string, location: string | null): void {
    this.log(`Creating the R2 bucket ${name}${location ? ` (location hint ${location})` : ''}…`);
    this.#run(['r2', 'bucket', 'create', name, ...(location ? ['--location', location] : [])]);
  }

  versionBucket(environment: string, bucket: string): WranglerBucket {
    return wranglerBucket({ environment, bucket, remote: true });
  }

  deploy(configPath: string, environment: string, dryRun: boolean, worker: string = environment): string[] {
    const args = ['deploy', '--config', configPath, '--env', environment];
    const output = this.#run(dryRun ? [...args, '--dry-run', '--outdir', `.wrangler/deploy/dist-${worker}`] : args, true);
    return [...new Set([...output.matchAll(/https:\/\/[^\s'"]+/g)].map((match) => match[0]).filter((url) => !url.includes('developers.cloudflare.com')))];
  }

  #spawn(args: string[]) {
    return spawnSync('npx', ['wrangler', ...args], {
      cwd: this.root,
      encoding: 'utf8',
      maxBuffer: 64 * 1024 * 1024,
      env: { ...process.env, WRANGLER_HIDE_BANNER: 'true', WRANGLER_SEND_METRICS: 'false' },
    });
  }

  #run(args: string[], echo = false): string {
    const result = this.#spawn(args);
    if (echo) for (const line of (result.stdout + result.stderr).trimEnd().split('\n')) this.log(`  ${line}`);
    if (result.status !== 0) throw new WranglerError(`wrangler ${args.slice(0, 3).join(' ')} failed:\n${tail(result.stdout + result.stderr)}`);
    return result.stdout;
  }
}

function tail(text: string): string {
  return text.trimEnd().split('\n').slice(-15).join('\n');
}
