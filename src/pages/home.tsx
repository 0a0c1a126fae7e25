/**
 * @module The free server's home page (`GET /`): the record of the visitor's address or of `?ip=`, a
 * map, the lookup form, the request as code, and the free plan's allowance. Rendered in full by the
 * Worker: the page's script (`assets/home/home.js`) only adds in-place lookups, copy buttons, the map's
 * zoom and clocks. The page shows what the lookup routes answer; it computes none of it.
 */
import type { ProblemBody } from '../errors/render.ts';
import { LANGUAGES, type Language } from '../geo/languages.ts';
import type { StoredFlag } from '../geo/schema.ts';
import { documentText, type FooterData, Page } from './document.tsx';
import { WorldMap } from './map.tsx';
import { type Allowance, coordinates, type IpInfo, indentedJson, type LocalTime, reportLink } from './view.ts';
import { flagPath, type MapPoint } from './world.ts';

/** Each `?lang=` language by its own name, for the language choice. */
const LANGUAGE_NAMES: Readonly<Record<Language, string>> = {
  de: 'Deutsch',
  en: 'English',
  es: 'Español',
  fr: 'Français',
  ja: '日本語',
  'pt-BR': 'Português (Brasil)',
  ru: 'Русский',
  'zh-CN': '中文（简体）',
};

/** The problems that mark the address field as invalid: what was typed is not a public address. */
const INPUT_PROBLEMS: ReadonlySet<string> = new Set(['IP_ADDRESS_INVALID', 'IP_ADDRESS_RESERVED']);

/** What the page shows for its address. */
export type HomeResult =
  | {
      readonly kind: 'record';
      readonly record: IpInfo;
      /** The lookup's JSON and XML answers, laid out for reading. */
      readonly json: string;
      readonly xml: string;
      /** Where the record's position falls on the map; undefined when the data has none (0, 0). */
      readonly point: MapPoint | undefined;
      /** The local time in the record's first time zone; undefined when it has none. */
      readonly time: LocalTime | undefined;
      /** The flags the data can set (the others are always false), in `FLAGS` order. */
      readonly flags: readonly StoredFlag[];
    }
  | {
      readonly kind: 'problem';
      /** The problem the lookup route answers, as its JSON members. */
      readonly problem: ProblemBody;
    }
  | {
      /** Over the free plan's limits: no lookup was made. */
      readonly kind: 'limited';
    };

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

/** The single lookup's path for an address as typed ('' for one's own), in the format, with every field and `lang` unless English. */
function apiPath(format: 'json' | 'xml', ip: string, language: Language): string {
  // Quotes encoded too, so that the command's single quotes hold whatever was typed.
  const segment = encodeURIComponent(ip).replaceAll("'", '%27');
  return `/api/v1/${format}/${segment}?fields=all${language === 'en' ? '' : `&lang=${language}`}`;
}

/** Each flag in the page's words. */
const FLAG_WORDS: Readonly<Record<StoredFlag, string>> = { vpn: 'VPN', tor: 'Tor exit', relay: 'relay', hosting: 'hosting', proxy: 'proxy' };

/** What the record says of anonymising networks: which of them, in the page's words, or 'No'. */
function proxyText(record: IpInfo): string {
  const kinds = [record.isVpn ? 'a VPN' : '', record.isTor ? 'a Tor exit' : '', record.isRelay ? 'a relay (such as iCloud Private Relay)' : ''].filter(Boolean);
  if (!record.isProxy) return 'No';
  return `Yes: ${kinds.length > 0 ? kinds.join(', ') : 'a listed proxy'}`;
}

/** What the data can say of a row's flags: nothing to add when it can set one of `row`'s, else that it cannot. */
function FlagsNote({ flags, row }: { flags: readonly StoredFlag[]; row: readonly StoredFlag[] }) {
  const known = row.filter((flag) => flags.includes(flag));
  if (known.length === 0) {
    return <span class="muted"> (this data holds no list of {row.includes('hosting') ? 'hosting networks' : 'anonymising networks'})</span>;
  }
  return <span class="muted"> (this data lists: {known.map((flag) => FLAG_WORDS[flag]).join(', ')})</span>;
}

/** A value of the record, or a muted "not in the data" when the data leaves it empty. */
function Value({ text, lang }: { text: string; lang?: string | undefined }) {
  return text ? <span lang={lang}>{text}</span> : <span class="muted">not in the data</span>;
}

/** A block of code with its heading, what it answers, and a copy button (shown by the script). */
function CodeBlock({ id, title, source, text }: { id: string; title: string; source?: string; text: string }) {
  return (
    <div class={`code ${id}`}>
      <div class="code-head">
        <h3 id={`${id}-title`}>{title}</h3>
        <button type="button" class="copy" data-copy={id} aria-describedby={`${id}-title`} hidden>
          Copy
        </button>
      </div>
      {source ? <p class="code-source muted">{source}</p> : null}
      <pre id={id}>
        <code>{text}</code>
      </pre>
    </div>
  );
}

function LookupForm({ ip, language, invalid }: { ip: string; language: Language; invalid: boolean }) {
  return (
    <search>
      <form class="lookup" method="get" action="/" aria-label="Look up an address">
        <div class="field field-ip">
          <label for="ip">IP address</label>
          <input
            id="ip"
            name="ip"
            type="text"
            value={ip}
            placeholder="e.g. 8.8.8.8 or 2001:db8::1"
            autocomplete="off"
            autocapitalize="none"
            spellcheck={false}
            aria-describedby={invalid ? 'ip-help problem-detail' : 'ip-help'}
            aria-invalid={invalid ? 'true' : undefined}
          />
          <p id="ip-help" class="help">
            IPv4 or IPv6. Leave it empty for your own address.
          </p>
        </div>
        <div class="field field-lang">
          <label for="lang">Language of the names</label>
          <select id="lang" name="lang">
            {LANGUAGES.map((code) => (
              <option value={code} lang={code} selected={code === language}>
                {LANGUAGE_NAMES[code]}
              </option>
            ))}
          </select>
        </div>
        <button type="submit">Look up</button>
      </form>
    </search>
  );
}

function Facts({ record, time, flags, language }: Extract<HomeResult, { kind: 'record' }> & { language: Language }) {
  const named = language === 'en' ? undefined : language;
  const zone = record.timeZones[0] ?? '';
  return (
    <dl class="facts">
      <dt>City</dt>
      <dd>
        <Value text={record.cityName} lang={named} />
      </dd>
      <dt>Region</dt>
      <dd>
        <Value text={record.regionName} lang={named} />
        {record.regionCode ? <span class="muted"> ({record.regionCode})</span> : null}
      </dd>
      <dt>Country</dt>
      <dd>
        {record.countryCode ? <img class="flag" src={flagPath(record.countryCode)} alt="" width={24} height={16} /> : null}
        <Value text={record.countryName} lang={named} />
        {record.countryCode ? (
          <span class="muted">
            {' '}
            ({record.countryCode}
            {record.isEu ? ', in the EU' : ''})
          </span>
        ) : null}
      </dd>
      <dt>Continent</dt>
      <dd>
        <Value text={record.continent} lang={named} />
        {record.continentCode ? <span class="muted"> ({record.continentCode})</span> : null}
      </dd>
      <dt>Coordinates</dt>
      <dd>
        {record.latitude === 0 && record.longitude === 0 ? <span class="muted">not in the data</span> : coordinates(record.latitude, record.longitude)}
        {record.accuracyRadius > 0 ? <span class="muted"> (within {record.accuracyRadius} km)</span> : null}
      </dd>
      <dt>Postal code</dt>
      <dd>
        <Value text={record.zipCode} />
      </dd>
      <dt>Time zone</dt>
      <dd>
        <Value text={zone} />
        {time ? (
          <>
            <br />
            <span class="muted">local time </span>
            <time class="clock" datetime={time.datetime} data-zone={zone}>
              {time.text}
            </time>
            <span class="muted">
              {' '}
              ({time.offset}
              {record.isDst ? ', summer time' : ''})
            </span>
          </>
        ) : null}
      </dd>
      <dt>Network</dt>
      <dd>{record.network}</dd>
      <dt>Autonomous system</dt>
      <dd>
        {record.asn ? `AS${record.asn}` : <span class="muted">no ASN in the data</span>}
        {record.asnOrganization ? <>, {record.asnOrganization}</> : null}
      </dd>
      <dt>Proxy</dt>
      <dd>
        {proxyText(record)}
        <FlagsNote flags={flags} row={['vpn', 'tor', 'relay', 'proxy']} />
      </dd>
      <dt>Hosting</dt>
      <dd>
        {record.isHosting ? `Yes${record.hostingProvider ? `: ${record.hostingProvider}` : ''}` : 'No'}
        <FlagsNote flags={flags} row={['hosting']} />
      </dd>
    </dl>
  );
}

function RecordResult({ result, props }: { result: Extract<HomeResult, { kind: 'record' }>; props: HomeProps }) {
  const { record } = result;
  const named = props.language === 'en' ? undefined : props.language;
  const place = [record.cityName, record.regionName, record.countryName].filter(Boolean).join(', ');
  const label = result.point
    ? `Map of ${place || 'the address'}: the point marked at ${coordinates(record.latitude, record.longitude)}${record.countryName ? `, ${record.countryName} shaded` : ''}.`
    : `World map${record.countryName ? ` with ${record.countryName} shaded` : ''}: the data has no position for this address.`;
  return (
    <>
      <p class="eyebrow">{props.ip ? `IPv${record.ipVersion} address` : `Your address (IPv${record.ipVersion})`}</p>
      <h1 id="result-title" tabindex={-1}>
        {record.ipAddress}
      </h1>
      <p class="place">
        {record.countryCode ? <img class="flag" src={flagPath(record.countryCode)} alt="" width={30} height={20} /> : null}
        {place ? <span lang={named}>{place}</span> : <span class="muted">The data names no place for this address.</span>}
      </p>
      <div class="result">
        <WorldMap countryCode={record.countryCode} point={result.point} label={label} />
        <Facts {...result} language={props.language} />
      </div>
      {props.correctionsUrl ? (
        <p class="report">
          <a href={reportLink(props.correctionsUrl, record, props.footer.data?.version ?? '')}>Wrong location? Report it</a>
          <span class="muted"> (the operator's page, with this address and its answer)</span>
        </p>
      ) : null}
    </>
  );
}

function ProblemResult({ problem, ip }: { problem: ProblemBody; ip: string }) {
  const range = typeof problem.range === 'string' ? problem.range : undefined;
  const rfc = typeof problem.rfc === 'string' ? problem.rfc : undefined;
  return (
    <>
      <p class="eyebrow">{ip ? 'Address' : 'Your address'}</p>
      <h1 id="result-title" tabindex={-1}>
        {ip || 'Your own address'}
      </h1>
      <div class="problem">
        <h2>{problem.title}</h2>
        <p id="problem-detail">{problem.detail}</p>
        {range ? (
          <p>
            Range <code>{range}</code>, defined by {rfc}: such addresses are not on the public Internet, so no place can be given for them.
          </p>
        ) : null}
        <p class="muted">
          The API answers the same: <code>{problem.status}</code> <code>{problem.code}</code>.
        </p>
      </div>
    </>
  );
}

function LimitedResult({ allowance }: { allowance: Allowance | undefined }) {
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

function AllowanceSection({ allowance }: { allowance: Allowance | undefined }) {
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

function CodeSection({ result, props }: { result: HomeResult; props: HomeProps }) {
  if (result.kind === 'limited') return null;
  const ip = result.kind === 'record' ? result.record.ipAddress : props.ip;
  const curl = `curl '${props.origin}${apiPath('json', ip, props.language)}'`;
  return (
    <section class="as-code" aria-labelledby="code-title">
      <h2 id="code-title">The request as code</h2>
      <CodeBlock id="code-curl" title="curl" text={curl} />
      <div class="answers">
        {result.kind === 'record' ? (
          <>
            <CodeBlock id="code-json" title="JSON answer" source={`GET ${apiPath('json', ip, props.language)}: 200`} text={result.json} />
            <CodeBlock id="code-xml" title="XML answer" source={`GET ${apiPath('xml', ip, props.language)}: 200`} text={result.xml} />
          </>
        ) : (
          <CodeBlock
            id="code-json"
            title="JSON answer"
            source={`GET ${apiPath('json', ip, props.language)}: ${result.problem.status}, application/problem+json`}
            text={indentedJson(JSON.stringify(result.problem))}
          />
        )}
      </div>
    </section>
  );
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
        {result.kind === 'record' ? <RecordResult result={result} props={props} /> : null}
        {result.kind === 'problem' ? <ProblemResult problem={result.problem} ip={props.ip} /> : null}
        {result.kind === 'limited' ? <LimitedResult allowance={props.allowance} /> : null}
      </div>
      <CodeSection result={result} props={props} />
      <AllowanceSection allowance={props.allowance} />
    </Page>,
  );
}
