/**
 * @module Runs once before the Worker tests, in Node: makes sure the compiled database exists (the
 * README's test command builds it first; this covers running vitest directly).
 */
import { existsSync } from 'node:fs';
import { build, DATABASE_FILE } from '../../data/build.ts';

export default function setup(): void {
  if (!existsSync(DATABASE_FILE)) build({ proxyLists: [] }, () => {});
}
