/**
 * @module Makes `package-lock.json` usable by `npm ci` where the npm registry mirror carries only the
 * Linux builds of platform-specific optional packages (biome's and workerd's darwin, windows, android
 * and musl builds answer 404 here). `npm install` leaves such packages out of the lock, and `npm ci`
 * then refuses the lock as out of sync with package.json. This adds an entry for each missing one,
 * with the `os`, `cpu` and `libc` that its name states, so `npm ci` skips it on this platform without
 * fetching anything. Run after changing dependencies: `npx tsx scripts/lock-foreign-platforms.ts`.
 */
import { readFileSync, writeFileSync } from 'node:fs';

interface LockEntry {
  version?: string;
  dev?: boolean;
  optional?: boolean;
  optionalDependencies?: Record<string, string>;
  os?: string[];
  cpu?: string[];
  libc?: string[];
}

const lock = JSON.parse(readFileSync('package-lock.json', 'utf8')) as { packages: Record<string, LockEntry> };
const OS = { android: 'android', darwin: 'darwin', win32: 'win32', windows: 'win32', linux: 'linux', freebsd: 'freebsd' } as const;
const CPU = { arm64: 'arm64', x64: 'x64', '64': 'x64', ia32: 'ia32', arm: 'arm' } as const;

/** Platform fields from a package name such as `@biomejs/cli-linux-arm64-musl` or `@cloudflare/workerd-darwin-64`. */
function platformOf(name: string): Pick<LockEntry, 'os' | 'cpu' | 'libc'> | undefined {
  const parts = (name.split('/').pop() ?? '').split('-');
  const osIndex = parts.findIndex((p) => p in OS);
  if (osIndex < 0) return undefined;
  const cpu = parts[osIndex + 1];
  if (cpu === undefined || !(cpu in CPU)) return undefined;
  const entry: Pick<LockEntry, 'os' | 'cpu' | 'libc'> = { os: [OS[parts[osIndex] as keyof typeof OS]], cpu: [CPU[cpu as keyof typeof CPU]] };
  if (parts.includes('musl')) entry.libc = ['musl'];
  else if (entry.os?.[0] === 'linux') entry.libc = ['glibc'];
  return entry;
}

let added = 0;
for (const [path, entry] of Object.entries(lock.packages)) {
  for (const [name, range] of Object.entries(entry.optionalDependencies ?? {})) {
    const nested = `${path ? `${path}/` : ''}node_modules/${name}`;
    if (lock.packages[nested] || lock.packages[`node_modules/${name}`]) continue;
    const platform = platformOf(name);
    if (!platform || !/^\d+\.\d+\.\d+/.test(range)) continue;
    lock.packages[`node_modules/${name}`] = { version: range, ...(entry.dev ? { dev: true } : {}), optional: true, ...platform };
    added++;
  }
}
writeFileSync('package-lock.json', `${JSON.stringify(lock, null, 2)}\n`);
console.log(`added ${added} foreign-platform entries to package-lock.json`);
