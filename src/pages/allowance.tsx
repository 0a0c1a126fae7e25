/**
 * @module The free plan's allowance on the home page, as the rate limiter's decision gives it: what is
 * left after this view and what counts, and, over a limit, which one and when to try again.
 */
import type { Allowance } from './view.ts';

/** The result area over the free plan's limit: which limit, and when to try again (the script counts down). */
export function LimitedResult({ allowance }: { allowance: Allowance | undefined }) {
  const wait = allowance?.retryAfterSeconds ?? 0;
  return (
    <>
      <h1 id="result-title" tabindex={-1}>
        Over the free plan's limit
      </h1>
      <div class="problem">
        <p>
          {allowance
            ? `${allowance.prefixLength === 64 ? 'This address has' : `The IPv6 /${allowance.prefixLength} that holds this address has`} used its ${allowance.quota} requests in ${allowance.windowSeconds} s, which page views share with the API. `
            : 'This address has used the requests the free plan allows for now. '}
          Try again in{' '}
          <span class="countdown" data-seconds={wait}>
            {wait === 1 ? '1 second' : `${wait} seconds`}
          </span>
          .
        </p>
        <p class="muted">
          The API answers the same: <code>429</code> <code>RATE_LIMITED</code>.
        </p>
      </div>
    </>
  );
}

/** The visitor's allowance after this view, and what counts against it. */
export function AllowanceSection({ allowance }: { allowance: Allowance | undefined }) {
  return (
    <section class="allowance" aria-labelledby="allowance-title">
      <h2 id="allowance-title">Your free-plan allowance</h2>
      {allowance ? (
        <p>
          <strong>
            {allowance.remaining} of {allowance.quota}
          </strong>{' '}
          left in these {allowance.windowSeconds} s{allowance.prefixLength === 64 ? null : ` for the IPv6 /${allowance.prefixLength} that holds this address`}
          {allowance.resetSeconds > 0 ? <span class="muted"> (the oldest comes back in {allowance.resetSeconds} s)</span> : null}. The free plan allows 10
          requests in any 10 seconds and 60 in any minute per address (an IPv6 address by its /64, which shares more with the rest of its /56 and /48).
        </p>
      ) : null}
      <p>
        Each view of this page that looks an address up counts as one request, as the API call it shows does; the page's scripts, styles, map and flags are
        static files and never count.
      </p>
    </section>
  );
}
