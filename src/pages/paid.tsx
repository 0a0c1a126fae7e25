/**
 * @module A paid server's home page (`GET /`): which plan and region this server is, the data's
 * version, age and attribution (in the footer), and where to go next. No lookup: every lookup of a paid
 * server needs a credential, which a page opened in a browser does not carry.
 */
import { documentText, type FooterData, Page } from './document.tsx';

/** The paid deployments' regions (`REGION`), by name. */
const REGION_NAMES: Readonly<Record<string, string>> = { de: 'Germany', us: 'United States', sg: 'Singapore', au: 'Australia' };

/**
 * The paid home page's HTML document.
 *
 * @param region the deployment's `REGION` (`de`, `us`, `sg`, `au`; another value is shown as it is).
 */
export function paidPage({ region, footer }: { region: string; footer: FooterData }): string {
  const name = REGION_NAMES[region];
  return documentText(
    <Page title={`IP geolocation API: paid server${name ? `, ${name}` : ''}`} data={footer.data} statusPath={footer.statusPath}>
      <p class="eyebrow">Paid plan</p>
      <h1>IP geolocation API{name ? `, ${name}` : ''}</h1>
      <dl class="facts server">
        <dt>Plan</dt>
        <dd>Paid: no rate limit</dd>
        <dt>Region</dt>
        <dd>
          {name ?? region} <span class="muted">({region})</span>
        </dd>
        <dt>Data</dt>
        <dd>{footer.data ? <code>{footer.data.version}</code> : <span class="muted">cannot be read at the moment</span>}</dd>
      </dl>
      <p>
        Every lookup on this server needs an active subscription and one of: an API key (<code>Authorization: Bearer …</code>, from backend code only), a
        request from a whitelisted server address, or a browser request from a whitelisted website. This page makes no lookup.
      </p>
      <p>
        Besides lookups of addresses (single, bulk of up to 50, distance) and reference data, this server answers networks by ASN:{' '}
        <code>GET /api/asn/{'{asn}'}</code> gives an autonomous system's organisation, its prefixes, the addresses it holds and the countries they are in.
      </p>
      <ul class="links">
        <li>
          <a href="/docs">API reference</a>: every route, field and error, with examples.
        </li>
        <li>
          <a href={footer.statusPath}>Data status</a>: the data's version, sources and age, as JSON, open to everyone.
        </li>
      </ul>
    </Page>,
  );
}
