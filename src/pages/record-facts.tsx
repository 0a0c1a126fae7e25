/**
 * @module The list of a record's facts on the home page: place, coordinates, time zone and local time,
 * network, and the privacy and hosting flags with what the data can say of them. It shows the fields
 * of the lookup's answer (`fields=all`), computing none.
 */
import type { Language } from '../geo/languages.ts';
import type { StoredFlag } from '../geo/schema.ts';
import { coordinates, type IpInfo, type LocalTime } from './view.ts';
import { flagPath } from './world.ts';

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

/** What a record's facts list needs: the record, its local time (undefined: no time zone), the flags the data can set, and the page's language. */
interface FactsProps {
  readonly record: IpInfo;
  readonly time: LocalTime | undefined;
  readonly flags: readonly StoredFlag[];
  readonly language: Language;
}

/** The record's facts, each field in the page's words, "not in the data" where the data leaves it empty. */
export function Facts({ record, time, flags, language }: FactsProps) {
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
