/** @module What the benchmarks ran on and what they measured: machine, runtimes, and the commit. */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { cpus, loadavg, release, totalmem } from 'node:os';
import { ROOT } from './worker/deployment.ts';

/** The machine and software a run measured. */
export interface Machine {
  readonly cpu: string;
  readonly cores: number;
  readonly memoryBytes: number;
  readonly os: string;
  readonly node: string;
  readonly workerd: string;
  readonly miniflare: string;
  readonly autocannon: string;
  /** 1-minute load average when the run started: other work on the machine skews figures. */
  readonly loadAverage: number;
}

/** The commit measured, and whether the working tree differed from it. */
export interface Revision {
  readonly commit: string;
  readonly dirty: boolean;
}

const require = createRequire(import.meta.url);

function versionOf(pkg: string): string {
  try {
    return (JSON.parse(readFileSync(require.resolve(`${pkg}/package.json`), 'utf8')) as { version: string }).version;
  } catch {
    return 'unknown';
  }
}

function osName(): string {
  try {
    const name = /^PRETTY_NAME="?([^"\n]*)"?/m.exec(readFileSync('/etc/os-release', 'utf8'))?.[1];
    return `${name ?? process.platform}, Linux ${release()}`;
  } catch {
    return `${process.platform} ${release()}`;
  }
}

/** Describes this machine. */
export function describeMachine(): Machine {
  const list = cpus();
  return {
    cpu: list[0]?.model ?? 'unknown',
    cores: list.length,
    memoryBytes: totalmem(),
    os: osName(),
    node: process.version,
    workerd: versionOf('workerd'),
    miniflare: versionOf('miniflare'),
    autocannon: versionOf('autocannon'),
    loadAverage: loadavg()[0] ?? Number.NaN,
  };
}

/** The commit of the working tree (`git rev-parse HEAD`), or 'unknown' outside a git checkout. */
export function revision(): Revision {
  try {
    const commit = execFileSync('git', ['rev-parse', 'HEAD'], { cwd: ROOT, encoding: 'utf8' }).trim();
    const dirty = execFileSync('git', ['status', '--porcelain', '--untracked-files=no'], { cwd: ROOT, encoding: 'utf8' }).trim() !== '';
    return { commit, dirty };
  } catch {
    return { commit: 'unknown', dirty: false };
  }
}
