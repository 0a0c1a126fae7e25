/**
 * @module The apps' router: Hono's default router (SmartRouter: RegExpRouter, or TrieRouter for routes
 * that RegExpRouter cannot compile), with a shortcut for a route `{prefix}:name` of one segment such as
 * `/api/json/{ip}`, taken only where no other route can tell one segment from another there; its
 * handlers are Hono's own answer for a probe path, found once. Every other path, method or route set
 * goes to Hono's router. Why: docs/decisions/0005-router-shortcut.md; `test/workers-free/router.test.ts`
 * holds the answers to Hono's over both apps' routes.
 */
import type { ParamIndexMap, Result, Router } from 'hono/router';
import { RegExpRouter } from 'hono/router/reg-exp-router';
import { SmartRouter } from 'hono/router/smart-router';
import { TrieRouter } from 'hono/router/trie-router';

/** A route path `{prefix}:name` with a literal prefix ending in `/` and a plain one-segment parameter. */
const ONE_SEGMENT_ROUTE = /^(\/(?:[^:*?{}]*\/)?):[A-Za-z_]\w*$/;

/** Two segments no route of ours names, to find the handlers and parameters of a prefix. */
const PROBES = ['\u0001probe', '8.8.8.8'] as const;

/** The stash slot that holds the segment in a shortcut's answer: `[path, segment]`. */
const SEGMENT_SLOT = 1;

/** The handlers of one method on `{prefix}{segment}`, each parameter of theirs in {@link SEGMENT_SLOT}. */
interface Shortcut<T> {
  readonly method: string;
  readonly prefix: string;
  readonly handlers: [T, ParamIndexMap][];
}

/**
 * Whether a route of path `path` could match some `{prefix}{segment}` while not matching all of them.
 * Conservative: any route whose literal start agrees with the prefix counts, except `/*`.
 */
function mayMatchSomeUnder(path: string, prefix: string): boolean {
  if (path === '/*' || path === '*') return false; // matches every path, so every segment alike
  const dynamic = path.search(/[:*]/);
  if (dynamic === -1) return path.length > prefix.length && path.startsWith(prefix) && !path.includes('/', prefix.length);
  const literal = path.slice(0, dynamic);
  return literal.startsWith(prefix) || prefix.startsWith(literal);
}

/**
 * Hono's default router with the one-segment shortcut described in the module header.
 *
 * @example new OpenAPIHono<AppEnv>({ router: new OneSegmentRouter() })
 */
export class OneSegmentRouter<T> implements Router<T> {
  readonly #hono: Router<T> = new SmartRouter<T>({ routers: [new RegExpRouter<T>(), new TrieRouter<T>()] });
  readonly #routes: { readonly method: string; readonly path: string }[] = [];
  /** The shortcuts found at the first match; undefined before. */
  #shortcuts: readonly Shortcut<T>[] | undefined;

  /** Hono's router's name (`SmartRouter + RegExpRouter` once it has settled), with this shortcut's. */
  get name(): string {
    return `${this.#hono.name}, one-segment shortcut`;
  }

  /**
   * Adds a route, as Hono's router does.
   *
   * @throws Error (Hono's) once a path has been matched: the routes are compiled then.
   */
  add(method: string, path: string, handler: T): void {
    this.#hono.add(method, path, handler);
    this.#routes.push({ method, path });
  }

  /**
   * The handlers of `method` on `path`, with their parameters: what Hono's router answers. The first
   * call compiles the routes, finds the shortcuts and puts the matcher in this method's place (as
   * Hono's RegExpRouter does).
   */
  match = (method: string, path: string): Result<T> => {
    const byPrefixLength: Shortcut<T>[][] = [];
    for (const shortcut of this.#findShortcuts()) {
      const sameLength = byPrefixLength[shortcut.prefix.length] ?? [];
      sameLength.push(shortcut);
      byPrefixLength[shortcut.prefix.length] = sameLength;
    }
    const hono = this.#hono;
    this.match = (method: string, path: string): Result<T> => {
      // A prefix ends at the path's last `/`, so its length finds the few shortcuts that could answer.
      const length = path.lastIndexOf('/') + 1;
      const candidates = length < path.length ? byPrefixLength[length] : undefined;
      if (candidates !== undefined) {
        for (const { method: shortcutMethod, prefix, handlers } of candidates) {
          if (method === shortcutMethod && path.startsWith(prefix)) return [handlers, [path, path.slice(length)]];
        }
      }
      return hono.match(method, path);
    };
    return this.match(method, path);
  };

  /**
   * The paths the shortcut answers, as `METHOD {prefix}{segment}`: for diagnostics and tests. Reading
   * it compiles the routes, as a first match does; no route can be added after.
   */
  get shortcuts(): string[] {
    return this.#findShortcuts().map(({ method, prefix }) => `${method} ${prefix}{segment}`);
  }

  #findShortcuts(): readonly Shortcut<T>[] {
    if (this.#shortcuts) return this.#shortcuts;
    const shortcuts: Shortcut<T>[] = [];
    for (const { method, path } of this.#routes) {
      const prefix = ONE_SEGMENT_ROUTE.exec(path)?.[1];
      // A route of method ALL answers every method; its shortcut would need to know them all, so it has none.
      if (prefix === undefined || method === 'ALL') continue;
      if (shortcuts.some((known) => known.method === method && known.prefix === prefix)) continue;
      if (this.#routes.some((other) => other.path !== path && mayMatchSomeUnder(other.path, prefix))) continue;
      const handlers = this.#probe(method, prefix);
      if (handlers) shortcuts.push({ method, prefix, handlers });
    }
    this.#shortcuts = shortcuts;
    return shortcuts;
  }

  /**
   * Hono's handlers for `{prefix}{probe}`, with parameters pointing at {@link SEGMENT_SLOT}; undefined
   * unless both probes get the same handlers and every parameter is the probe segment.
   */
  #probe(method: string, prefix: string): [T, ParamIndexMap][] | undefined {
    const answers = PROBES.map((probe) => {
      const [handlers, stash] = this.#hono.match(method, `${prefix}${probe}`);
      return handlers.map(([handler, params]): [T, Record<string, string | undefined>] => [
        handler,
        Object.fromEntries(Object.entries(params).map(([name, ref]) => [name, stash ? stash[ref as number] : (ref as string)])),
      ]);
    });
    const [first, second] = answers as [(typeof answers)[number], (typeof answers)[number]];
    if (first.length !== second.length || first.length === 0) return undefined;
    const handlers: [T, ParamIndexMap][] = [];
    for (const [index, [handler, params]] of first.entries()) {
      const other = second[index] as (typeof second)[number];
      if (other[0] !== handler) return undefined;
      const names = Object.keys(params);
      if (names.some((name) => params[name] !== PROBES[0] || other[1][name] !== PROBES[1])) return undefined;
      if (Object.keys(other[1]).length !== names.length) return undefined;
      handlers.push([handler, Object.fromEntries(names.map((name) => [name, SEGMENT_SLOT]))]);
    }
    return handlers;
  }
}
