/**
 * @module Runs once before the Worker tests, in Node: makes sure the compiled database exists (the
 * README's test command builds it first; this covers running vitest directly).
 */
import { existsSync } from 'node:fs';
import { DATABASE_FILE, build } from '../../data/build.ts';

export default function setup(): void {
  if (!existsSync(DATABASE_FILE)) build({ proxyLists: [] }, () => {});
}
