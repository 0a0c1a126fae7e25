/**
 * @module The one table of problem codes, and the error that carries one. Routes, gates and the app
 * throw a {@link ProblemError}; `render.ts` turns it into RFC 9457 problem details, in JSON or XML. The
 * domain never does: it returns tagged failures, or throws `DataUnavailableError` (answered as
 * `DATA_UNAVAILABLE`); docs/architecture.md, "Request path", says which error becomes which answer.
 */

/**
 * Every problem the API can answer, with its HTTP status and human title. docs/api.md, "Conventions",
 * lists the same codes in the same order (`test/node/problem-table.test.ts`).
 */
export const PROBLEMS = {
  IP_ADDRESS_INVALID: { status: 400, title: 'Invalid IP address' },
  IP_ADDRESS_RESERVED: { status: 400, title: 'Special-purpose IP address' },
  IP_ADDRESS_NOT_FOUND: { status: 404, title: 'IP address not in the database' },
  ASN_INVALID: { status: 400, title: 'Invalid AS number' },
  ASN_NOT_FOUND: { status: 404, title: 'AS number not in the database' },
  PAGE_INVALID: { status: 400, title: 'Invalid page' },
  BODY_INVALID: { status: 400, title: 'Invalid request body' },
  TOO_MANY_IPS: { status: 400, title: 'Too many IP addresses' },
  PAYLOAD_TOO_LARGE: { status: 413, title: 'Request body too large' },
  AUTHORIZATION_REQUIRED: { status: 401, title: 'Authorization required' },
  AUTHORIZATION_INVALID: { status: 401, title: 'Invalid API key' },
  SUBSCRIPTION_INACTIVE: { status: 403, title: 'Subscription inactive' },
  ORIGIN_FORBIDDEN: { status: 403, title: 'Origin not allowed' },
  SECRET_CREDENTIAL_REQUIRED: { status: 403, title: 'Secret credential required' },
  PAID_PLAN_REQUIRED: { status: 403, title: 'Paid plan required' },
  NOT_FOUND: { status: 404, title: 'Not found' },
  LANGUAGE_NOT_FOUND: { status: 404, title: 'Language not found' },
  COUNTRY_NOT_FOUND: { status: 404, title: 'Country not found' },
  LANGUAGE_UNSUPPORTED: { status: 400, title: 'Language not supported' },
  FIELDS_INVALID: { status: 400, title: 'Unknown field' },
  METHOD_NOT_ALLOWED: { status: 405, title: 'Method not allowed' },
  UNSUPPORTED_MEDIA_TYPE: { status: 415, title: 'Unsupported media type' },
  RATE_LIMITED: { status: 429, title: 'Rate limit exceeded' },
  QUOTA_EXCEEDED: { status: 429, title: 'Quota exceeded' },
  INTERNAL_ERROR: { status: 500, title: 'Internal error' },
  DATA_UNAVAILABLE: { status: 503, title: 'Geolocation data unavailable' },
  ACCOUNTS_UNAVAILABLE: { status: 503, title: 'Account data unavailable' },
  USAGE_UNAVAILABLE: { status: 503, title: 'Usage data unavailable' },
} as const satisfies Record<string, { status: number; title: string }>;

/** A machine-readable problem code, e.g. `IP_ADDRESS_INVALID`. */
export type ProblemCode = keyof typeof PROBLEMS;

/** Fields a problem may carry beyond RFC 9457's own (extension members). */
export type ProblemExtensions = Readonly<Record<string, string | number | boolean | readonly string[]>>;

/**
 * A failure that the client should see, with its code and a detail safe to show.
 *
 * @example throw new ProblemError('IP_ADDRESS_NOT_FOUND', '203.0.113.9 is not covered by the data.')
 */
export class ProblemError extends Error {
  override readonly name = 'ProblemError';
  readonly status: number;
  readonly title: string;

  /**
   * @param code the stable code clients branch on.
   * @param detail a sentence for humans about this occurrence.
   * @param options.headers extra response headers (e.g. `Retry-After`, `Allow`).
   * @param options.extensions extra members of the problem object (e.g. `paidServers`).
   */
  constructor(
    readonly code: ProblemCode,
    readonly detail: string,
    readonly options: { headers?: Readonly<Record<string, string>>; extensions?: ProblemExtensions } = {},
  ) {
    super(detail);
    this.status = PROBLEMS[code].status;
    this.title = PROBLEMS[code].title;
  }
}

/** The problem type URI of a code: a stable identifier documented in the OpenAPI document. */
export function problemType(code: ProblemCode): string {
  return `urn:ipgeo:problem:${code.toLowerCase().replaceAll('_', '-')}`;
}
