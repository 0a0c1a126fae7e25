/**
 * @module Small GeoLite2-City-shaped databases for the diff gate's tests: a world of 4,096 IPv4 /20s in
 * 1.0.0.0/8 and 4,096 IPv6 /24s in 2a00::/12, each placed in a city of a fixed table, and its next
 * "release", in which chosen shares of the networks move to another country, another region, another
 * city of the same region (20 km away) or another accuracy radius, as real releases do. Each network's
 * fate is a function of its index, so a test knows what changed without reading a database.
 */
import { writeFileSync } from 'node:fs';
import { mmdbType } from '../../data/mmdb/data-section.ts';
import { parseNetwork } from '../../data/mmdb/network.ts';
import { MmdbWriter } from './mmdb-writer.ts';

/** A city of the table: two per region, 20 km apart; three regions a country, far apart. */
interface City {
  readonly country: string;
  readonly region: string;
  readonly city: string;
  readonly latitude: number;
  readonly longitude: number;
}

const COUNTRIES = [
  { code: 'SE', continent: 'EU', regions: ['AB', 'M', 'O'], latitude: 58, longitude: 15 },
  { code: 'DE', continent: 'EU', regions: ['BE', 'BY', 'HH'], latitude: 50, longitude: 10 },
  { code: 'JP', continent: 'AS', regions: ['13', '27', '01'], latitude: 36, longitude: 138 },
  { code: 'BR', continent: 'SA', regions: ['SP', 'RJ', 'AM'], latitude: -15, longitude: -50 },
];

const CITIES: readonly City[] = COUNTRIES.flatMap(({ code, regions, latitude, longitude }) =>
  regions.flatMap((region, r) =>
    [0, 1].map((c) => ({
      country: code,
      region,
      city: `${code}-${region} city ${c}`,
      // Regions 3 degrees apart (over 300 km); the two cities of a region 0.18 degrees of latitude (20 km).
      latitude: latitude + r * 3 + c * 0.18,
      longitude: longitude + r * 3,
    })),
  ),
);

const RADII = [10, 20, 50, 100, 200, 1000];

/** Networks of each family in the world. */
export const NETWORKS = 4096;

/** What the next release changes, as a share of the networks (each from 0 to 1; the shares do not overlap). */
export interface ReleaseChanges {
  readonly country: number;
  readonly region: number;
  /** Another city of the same region, 20 km away: the city changes, the coordinates do not move 50 km. */
  readonly city: number;
  readonly radius: number;
}

/** The changes of a release as real consecutive GeoLite2 releases make them at most (BENCHMARKS.md, "The diff gate"). */
export const REAL_LOOKING: ReleaseChanges = { country: 0.001, region: 0.04, city: 0.06, radius: 0.11 };

/** A fixed number in [0, 1) for a network index: which change, if any, it gets. */
function fate(index: number): number {
  return ((Math.imul(index + 1, 2654435761) >>> 0) % 10_000) / 10_000;
}

/** The city and radius of network `index` in the release after the base one with `changes` (none: the base). */
export function placeOf(index: number, changes?: ReleaseChanges): { city: City; radius: number } {
  const base = CITIES[(index * 7) % CITIES.length] as City;
  const radius = RADII[index % RADII.length] as number;
  if (changes === undefined) return { city: base, radius };
  const at = CITIES.indexOf(base);
  const draw = fate(index);
  let edge = changes.country;
  if (draw < edge) return { city: CITIES[(at + 6) % CITIES.length] as City, radius }; // the next country
  edge += changes.region;
  if (draw < edge) return { city: CITIES[at % 6 < 4 ? at + 2 : at - 4] as City, radius }; // another region of the country
  edge += changes.city;
  if (draw < edge) return { city: CITIES[at % 2 === 0 ? at + 1 : at - 1] as City, radius }; // the other city of the region
  edge += changes.radius;
  if (draw < edge) return { city: base, radius: RADII[(index + 1) % RADII.length] as number };
  return { city: base, radius };
}

/** The network of `index` in a family: `1.0.0.0/8` split in /20s, `2a00::/12` in /24s. */
function networkOf(index: number, family: 4 | 6): string {
  return family === 4 ? `1.${index >> 4}.${(index & 15) << 4}.0/20` : `2a0${(index >> 8).toString(16)}:${(index & 255).toString(16)}00::/24`;
}

/**
 * Writes the base release, or the next one with `changes`, as a GeoLite2-City database to `path`.
 *
 * @param day the day of September 2026 it was built, its build date.
 */
export function writeRelease(path: string, changes: ReleaseChanges | undefined, day: number): void {
  const writer = new MmdbWriter({ ipVersion: 6, databaseType: 'GeoLite2-City', languages: ['en'], buildEpoch: Date.UTC(2026, 8, day) / 1000 });
  for (const family of [4, 6] as const) {
    for (let index = 0; index < NETWORKS; index++) {
      const { city, radius } = placeOf(index, changes);
      const country = COUNTRIES.find((c) => c.code === city.country) as (typeof COUNTRIES)[number];
      writer.insert(parseNetwork(networkOf(index, family)), {
        continent: { code: country.continent, names: { en: country.continent } },
        country: { iso_code: city.country, names: { en: city.country } },
        subdivisions: [{ iso_code: city.region, names: { en: `${city.country} region ${city.region}` } }],
        city: { names: { en: city.city } },
        location: { latitude: mmdbType.double(city.latitude), longitude: mmdbType.double(city.longitude), accuracy_radius: radius, time_zone: 'UTC' },
      });
    }
  }
  writeFileSync(path, writer.build());
}
