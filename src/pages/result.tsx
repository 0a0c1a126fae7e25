/**
 * @module What the home page shows for its address: the record the lookup answered, with its map and
 * facts, or the problem it answered. Over the free plan's limit no lookup is made (`allowance.tsx`).
 */
import type { ProblemBody } from '../errors/render.ts';
import type { Language } from '../geo/languages.ts';
import type { StoredFlag } from '../geo/schema.ts';
import { WorldMap } from './map.tsx';
import { Facts } from './record-facts.tsx';
import { coordinates, type IpInfo, type LocalTime, reportLink } from './view.ts';
import { flagPath, type MapPoint } from './world.ts';

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

/** What the record's part of the page needs besides the record: the address as typed ('' for one's own), the language, where to report a wrong location, and the data's version. */
interface RecordContext {
  readonly ip: string;
  readonly language: Language;
  readonly correctionsUrl: string | undefined;
  readonly version: string;
}

/** A record: the address, its place, the map and the facts, and the link to report a wrong location where the operator has one. */
export function RecordResult({ result, context }: { result: Extract<HomeResult, { kind: 'record' }>; context: RecordContext }) {
  const { record } = result;
  const named = context.language === 'en' ? undefined : context.language;
  const place = [record.cityName, record.regionName, record.countryName].filter(Boolean).join(', ');
  const label = result.point
    ? `Map of ${place || 'the address'}: the point marked at ${coordinates(record.latitude, record.longitude)}${record.countryName ? `, ${record.countryName} shaded` : ''}.`
    : `World map${record.countryName ? ` with ${record.countryName} shaded` : ''}: the data has no position for this address.`;
  return (
    <>
      <p class="eyebrow">{context.ip ? `IPv${record.ipVersion} address` : `Your address (IPv${record.ipVersion})`}</p>
      <h1 id="result-title" tabindex={-1}>
        {record.ipAddress}
      </h1>
      <p class="place">
        {record.countryCode ? <img class="flag" src={flagPath(record.countryCode)} alt="" width={30} height={20} /> : null}
        {place ? <span lang={named}>{place}</span> : <span class="muted">The data names no place for this address.</span>}
      </p>
      <div class="result">
        <WorldMap countryCode={record.countryCode} point={result.point} label={label} />
        <Facts {...result} language={context.language} />
      </div>
      {context.correctionsUrl ? (
        <p class="report">
          <a href={reportLink(context.correctionsUrl, record, context.version)}>Wrong location? Report it</a>
          <span class="muted"> (the operator's page, with this address and its answer)</span>
        </p>
      ) : null}
    </>
  );
}

/** A problem the lookup answered, in the page's words beside its status and code. */
export function ProblemResult({ problem, ip }: { problem: ProblemBody; ip: string }) {
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
