/**
 * @module Validation hooks for routes whose failures are not the app's default ones (the default hook
 * in `app.ts` answers `IP_ADDRESS_INVALID` for any path parameter and `BODY_INVALID` for any body).
 * Like the default hook they throw, so the one error handler renders the problem.
 */
import type { Context } from 'hono';
import type { ProblemError } from '../errors/problem.ts';

/** A zod issue, as much of it as the hooks read. */
export interface Issue {
  readonly code: string;
  readonly path: readonly PropertyKey[];
  readonly message: string;
}

/** What `@hono/zod-openapi` passes a hook. */
type Outcome = { readonly success: true } | { readonly success: false; readonly error: { readonly issues: readonly Issue[] } };

/** `ips: Too big: expected array to have <=50 items`: where an issue is, and what it says. */
export function describeIssue(issues: readonly Issue[]): string {
  const issue = issues[0];
  return issue ? `${issue.path.map(String).join('.') || 'body'}: ${issue.message}` : 'the request is not valid';
}

/**
 * A hook that turns a failed validation into the problem `toProblem` makes of its issues (and of the
 * request, e.g. to quote a raw path parameter).
 *
 * @example app.openapi(route, handler, failWith((_, c) => new ProblemError('LANGUAGE_NOT_FOUND', `${c.req.param('code')} …`)))
 */
// biome-ignore lint/suspicious/noExplicitAny: a hook serves routes of any path and input.
export function failWith(toProblem: (issues: readonly Issue[], c: Context<any, any>) => ProblemError): (result: Outcome, c: Context<any, any>) => undefined {
  return (result, c) => {
    if (!result.success) throw toProblem(result.error.issues, c);
    return undefined;
  };
}
