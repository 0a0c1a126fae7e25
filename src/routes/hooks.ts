/** @module Validation hooks: the one mapping of a failed validation to its problem, which the routes that validate through `validate.ts` (the lookups among them) and the app's default hook share, and the hooks of routes whose failures are their own; they throw, and the error handler renders. */
import type { Context } from 'hono';
import { ProblemError } from '../errors/problem.ts';
import { LANGUAGES } from '../geo/languages.ts';
import { MAX_ASN, MAX_PAGE } from '../schemas/asn.ts';
import { MAX_BULK_IPS } from '../schemas/bulk.ts';

/** A zod issue, as much of it as the hooks read. */
export interface Issue {
  readonly code: string;
  readonly path: readonly PropertyKey[];
  readonly message: string;
}

/** What `@hono/zod-openapi` passes a hook. */
type Outcome = { readonly success: true } | { readonly success: false; readonly error: { readonly issues: readonly Issue[] } };

/** `ips: Too big: expected array to have <=50 items`: where an issue is, and what it says. */
function describeIssue(issues: readonly Issue[]): string {
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

/**
 * The problem for a failed validation of a route that validates through `RouteRequest` (the lookups,
 * networks by ASN) or the app's default hook, by the parameter that failed: `lang` is
 * `LANGUAGE_UNSUPPORTED` (listing the supported codes), `fields` `FIELDS_INVALID` (naming the unknown
 * field), the `{asn}` path parameter `ASN_INVALID` and `page` `PAGE_INVALID` (quoting what was sent),
 * the `{ip}` path parameter `IP_ADDRESS_INVALID`, more than 50 bulk addresses `TOO_MANY_IPS`, any
 * other body `BODY_INVALID`.
 */
export function validationProblem(target: string, issues: readonly Issue[], c: Context): ProblemError {
  const issue = issues[0];
  const field = issue?.path[0];
  if (target === 'param' && field === 'asn') {
    const sent = c.req.param('asn') ?? '';
    return new ProblemError(
      'ASN_INVALID',
      `${JSON.stringify(sent)} is not an AS number: a decimal from 0 to ${MAX_ASN} without leading zeros, with or without AS.`,
    );
  }
  if (target === 'query' && field === 'page') {
    const sent = c.req.query('page') ?? '';
    return new ProblemError('PAGE_INVALID', `page: ${JSON.stringify(sent)} is not a page number: a decimal from 1 to ${MAX_PAGE} without leading zeros.`);
  }
  if (target === 'query' && field === 'lang') {
    const sent = c.req.query('lang') ?? '';
    return new ProblemError('LANGUAGE_UNSUPPORTED', `lang: ${JSON.stringify(sent)} is not supported; use one of ${LANGUAGES.join(', ')}.`, {
      extensions: { languages: [...LANGUAGES] },
    });
  }
  if (target === 'query' && field === 'fields') return new ProblemError('FIELDS_INVALID', `fields: ${issue?.message ?? 'not a list of fields'}`);
  if (target === 'param') return new ProblemError('IP_ADDRESS_INVALID', describeIssue(issues));
  if (issues.some((one) => one.code === 'too_big' && one.path.length === 1 && one.path[0] === 'ips')) {
    return new ProblemError('TOO_MANY_IPS', `A bulk request holds at most ${MAX_BULK_IPS} addresses; split the list.`, { extensions: { limit: MAX_BULK_IPS } });
  }
  return new ProblemError('BODY_INVALID', describeIssue(issues));
}

/**
 * The app's default hook (`@hono/zod-openapi`): every validation failure becomes a problem
 * ({@link validationProblem}), so that raw validator output never reaches a client.
 */
// biome-ignore lint/suspicious/noExplicitAny: the hook serves routes of any path and input.
export function validationHook(result: Outcome & { readonly target: string }, c: Context<any, any>): undefined {
  if (!result.success) throw validationProblem(result.target, result.error.issues, c);
  return undefined;
}
