/**
 * @module The free server's home page (`GET /`): the record of the visitor's address or of `?ip=`, a
 * map, the lookup form, the request as code, and the free plan's allowance. Rendered in full by the
 * Worker: the page's script (`assets/home/home.js`) only adds in-place lookups, copy buttons, the map's
 * zoom and clocks. The page shows what the lookup routes answer; it computes none of it.
 */
import type { Language } from '../geo/languages.ts';
import { AllowanceSection, LimitedResult } from './allowance.tsx';
import { documentText, type FooterData, Page } from './document.tsx';
import { LookupForm } from './lookup-form.tsx';
import { CodeSection } from './request-code.tsx';
import { type HomeResult, ProblemResult, RecordResult } from './result.tsx';
import type { Allowance } from './view.ts';

/** The problems that mark the address field as invalid: what was typed is not a public address. */
const INPUT_PROBLEMS: ReadonlySet<string> = new Set(['IP_ADDRESS_INVALID', 'IP_ADDRESS_RESERVED']);

/** Everything the home page shows. */
interface HomeProps {
  /** This server's origin, for the `curl` command. */
  readonly origin: string;
  /** The address asked for as typed, '' for the visitor's own. */
  readonly ip: string;
  readonly language: Language;
  readonly result: HomeResult;
  /** The free plan's allowance after this view, from the rate limiter's decision. */
  readonly allowance: Allowance | undefined;
  readonly footer: FooterData;
  /** Where users report a wrong location (the `CORRECTIONS_URL` setting); undefined: the page offers no report. */
  readonly correctionsUrl?: string | undefined;
}

/** The home page's HTML document. */
export function homePage(props: HomeProps): string {
  const { result } = props;
  const title =
    result.kind === 'record'
      ? `${result.record.ipAddress}: ${[result.record.cityName, result.record.countryName].filter(Boolean).join(', ') || 'IP geolocation'}`
      : result.kind === 'problem'
        ? `${result.problem.title} · IP geolocation`
        : 'Over the limit · IP geolocation';
  return documentText(
    <Page title={title} script data={props.footer.data} statusPath={props.footer.statusPath}>
      <LookupForm ip={props.ip} language={props.language} invalid={result.kind === 'problem' && INPUT_PROBLEMS.has(result.problem.code)} />
      {props.ip ? (
        <p class="own">
          <a href={props.language === 'en' ? '/' : `/?lang=${props.language}`}>Look up your own address</a>
        </p>
      ) : null}
      <div id="result" class="result-area">
        {result.kind === 'record' ? (
          <RecordResult
            result={result}
            context={{ ip: props.ip, language: props.language, correctionsUrl: props.correctionsUrl, version: props.footer.data?.version ?? '' }}
          />
        ) : null}
        {result.kind === 'problem' ? <ProblemResult problem={result.problem} ip={props.ip} /> : null}
        {result.kind === 'limited' ? <LimitedResult allowance={props.allowance} /> : null}
      </div>
      <CodeSection result={result} origin={props.origin} ip={props.ip} language={props.language} />
      <AllowanceSection allowance={props.allowance} />
    </Page>,
  );
}
