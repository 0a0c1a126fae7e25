/**
 * @module The places the location source knows, for the corrections stage (docs/operations.md,
 * "Corrections"): each city by country, region code and name, each region by country and code, and
 * each country, with what the source gives it most often (by networks): names, coordinates and time
 * zone. A corrected network then reads as the source's own record of that place would.
 */
import type { StoredLocation } from '../../src/geo/schema.ts';
import { compact } from '../sources/source.ts';
import type { GeofeedPlace } from './geofeed-entries.ts';

/** Where a corrected location's coordinates come from: its city's, its region's, its country's, or none known. */
export type Precision = 'city' | 'region' | 'country' | 'none';

/** A correction's location as the source's places give it. */
export interface Located {
  /** The stored location; undefined for a line that states no location (RFC 8805, section 2.1.2). */
  readonly location: StoredLocation | undefined;
  readonly precision: Precision;
  /**
   * The accuracy radius in km that the source gives most often (by networks) to the place whose
   * coordinates the location takes: its city's networks, or the region's or country's own (which name
   * no city, or no region), so a location placed by its region or country is as wide as the source's
   * coarse records are; 0 where the source gives none.
   */
  readonly accuracyRadius: number;
  /** Whether the source knows the line's city (undefined: the line names none); an unknown one is named in English only. */
  readonly cityKnown?: boolean;
  /** Whether the source knows the line's region (undefined: the line gives none); an unknown one has its code and no name. */
  readonly regionKnown?: boolean;
}

/**
 * Values weighed by how many networks give them: the heaviest wins, and of equal weights the one
 * whose key sorts first, so that the same source always gives the same choice.
 */
class Tally<T> {
  private readonly weights = new Map<string, { value: T; weight: number }>();

  add(key: string, value: T, weight: number): void {
    const known = this.weights.get(key);
    if (known === undefined) this.weights.set(key, { value, weight });
    else known.weight += weight;
  }

  best(): T | undefined {
    let best: { key: string; value: T; weight: number } | undefined;
    for (const [key, { value, weight }] of this.weights) {
      if (best === undefined || weight > best.weight || (weight === best.weight && key < best.key)) best = { key, value, weight };
    }
    return best?.value;
  }
}

/** The tally of `key` in `map`, made on first use. */
function tallyOf<T>(map: Map<string, Tally<T>>, key: string): Tally<T> {
  let tally = map.get(key);
  if (tally === undefined) {
    tally = new Tally<T>();
    map.set(key, tally);
  }
  return tally;
}

/**
 * How names are compared: case, accents, and runs of spaces ignored, so that `Sao Paulo` finds the
 * source's `São Paulo`.
 */
function folded(name: string): string {
  return name.normalize('NFD').replace(/\p{M}/gu, '').replace(/\s+/g, ' ').trim().toLowerCase();
}

/** What tells two of a place's locations apart for the tallies: their point and zone. */
const positionKey = (place: StoredLocation) => `${place.latitude ?? ''},${place.longitude ?? ''},${place.time_zone ?? ''}`;

/** The source's places: built once from its distinct locations, then asked for each correction. */
export class SourcePlaces {
  /** Each city's locations (its names, region, point and zone), by country, region code and folded name. */
  private readonly cities = new Map<string, Tally<StoredLocation>>();
  /** The region codes of each city name in a country, to place a city a line gives without its region. */
  private readonly cityRegions = new Map<string, Set<string>>();
  /** Each region's locations, for its names, by country and region code. */
  private readonly regions = new Map<string, Tally<StoredLocation>>();
  /** The region's own locations (naming no city), for its point and zone. */
  private readonly regionPositions = new Map<string, Tally<StoredLocation>>();
  /** The zones of all the region's locations, for a region whose own locations give none. */
  private readonly regionZones = new Map<string, Tally<string>>();
  /** The country's own locations (naming no region or city), for its point. */
  private readonly countryPositions = new Map<string, Tally<StoredLocation>>();
  private readonly continents = new Map<string, Tally<string>>();
  /** The accuracy radii of each city's, region's own and country's own networks, by the keys above. */
  private readonly cityRadii = new Map<string, Tally<number>>();
  private readonly regionRadii = new Map<string, Tally<number>>();
  private readonly countryRadii = new Map<string, Tally<number>>();

  /**
   * @param locations each distinct location of the location sources.
   * @param networks how many networks each of `locations` is the location of, by the same index.
   * @param radii for each of `locations`, by the same index: how many of its networks the source gives
   *   each accuracy radius (km; 0 for none).
   */
  constructor(locations: readonly StoredLocation[], networks: ArrayLike<number | undefined>, radii: ArrayLike<ReadonlyMap<number, number> | undefined> = []) {
    locations.forEach((location, index) => {
      const weight = networks[index] ?? 0;
      const country = location.country_code;
      if (!country || weight === 0) return;
      const region = location.region_code ?? '';
      const addRadii = (tally: Tally<number>) => {
        for (const [radius, count] of radii[index] ?? []) tally.add(String(radius), radius, count);
      };
      if (location.continent_code) tallyOf(this.continents, country).add(location.continent_code, location.continent_code, weight);
      if (location.city) {
        const cityKey = `${country}|${region}|${folded(location.city)}`;
        tallyOf(this.cities, cityKey).add(`${positionKey(location)}|${location.city}`, location, weight);
        addRadii(tallyOf(this.cityRadii, cityKey));
        const key = `${country}|${folded(location.city)}`;
        const regions = this.cityRegions.get(key) ?? new Set<string>();
        regions.add(region);
        this.cityRegions.set(key, regions);
      }
      if (region) {
        const key = `${country}|${region}`;
        tallyOf(this.regions, key).add(location.region ?? '', location, weight);
        if (!location.city) {
          tallyOf(this.regionPositions, key).add(positionKey(location), location, weight);
          addRadii(tallyOf(this.regionRadii, key));
        }
        if (location.time_zone) tallyOf(this.regionZones, key).add(location.time_zone, location.time_zone, weight);
      } else if (!location.city) {
        tallyOf(this.countryPositions, country).add(positionKey(location), location, weight);
        addRadii(tallyOf(this.countryRadii, country));
      }
    });
  }

  /**
   * The location a correction sets: its country (with the continent the source gives it most often),
   * its region with the source's names for it, its city with the source's names, coordinates and zone
   * where the source knows it, its postal code as written; coordinates and zone of its region or else
   * of its country where the city is not known (those of the source's records that name no city, or no
   * region and no city). A city given without a region is found
   * when the source knows that name in one region of the country only, whose region it then takes.
   */
  locate(entry: GeofeedPlace): Located {
    const { countryCode: country, regionCode } = entry;
    if (country === '') return { location: undefined, precision: 'none', accuracyRadius: 0 };
    let region = regionCode;
    let city: StoredLocation | undefined;
    if (entry.city) {
      if (region === '') {
        const regions = this.cityRegions.get(`${country}|${folded(entry.city)}`);
        if (regions?.size === 1) region = [...regions][0] as string;
      }
      city = this.cities.get(`${country}|${region}|${folded(entry.city)}`)?.best();
    }
    const regionKey = `${country}|${region}`;
    const regionName = region ? this.regions.get(regionKey)?.best() : undefined;
    const countryPosition = this.countryPositions.get(country)?.best();
    const positions: [Precision, StoredLocation | undefined][] = [
      ['city', city],
      ['region', region ? this.regionPositions.get(regionKey)?.best() : undefined],
      ['country', countryPosition],
    ];
    const [precision, position] = positions.find(([, place]) => place?.latitude !== undefined && place.longitude !== undefined) ?? ['none', undefined];
    const radii = {
      city: this.cityRadii.get(`${country}|${region}|${folded(entry.city)}`),
      region: this.regionRadii.get(regionKey),
      country: this.countryRadii.get(country),
      none: undefined,
    }[precision];
    const zone =
      city?.time_zone ??
      (region ? (this.regionPositions.get(regionKey)?.best()?.time_zone ?? this.regionZones.get(regionKey)?.best()) : undefined) ??
      countryPosition?.time_zone;
    const location = compact<StoredLocation>({
      country_code: country,
      region: regionName?.region,
      region_code: region || undefined,
      city: city?.city ?? entry.city,
      postal_code: entry.postalCode,
      latitude: position?.latitude,
      longitude: position?.longitude,
      time_zone: zone,
      continent_code: this.continents.get(country)?.best(),
      region_names: regionName?.region_names,
      city_names: city?.city_names,
    });
    return {
      location,
      precision,
      accuracyRadius: radii?.best() ?? 0,
      ...(entry.city ? { cityKnown: city !== undefined } : {}),
      ...(regionCode ? { regionKnown: regionName !== undefined } : {}),
    };
  }
}
