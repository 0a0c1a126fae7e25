/**
 * @module The home page's world map: its projection (d3-geo's Natural Earth I, the sphere fitted to
 * {@link MAP_WIDTH} map units wide, its top edge at 0) and where its drawing is served. The build
 * (`scripts/home-assets.ts`) draws the countries with this projection, and the Worker places a point
 * with it, so the two always agree.
 */
import { type GeoProjection, geoNaturalEarth1 } from 'd3-geo';

/** Width of the whole world in map units (the drawing's `viewBox`). */
export const MAP_WIDTH = 960;
/** Height of the whole world in map units: the fitted sphere's, 499.2, rounded up. */
export const MAP_HEIGHT = 500;

/** The drawing of the countries, a static asset: one `<path id="XX">` per ISO 3166-1 alpha-2 code, `#countries`, `#sphere`, `#graticule`. */
export const WORLD_SVG_PATH = '/home/vendor/world.svg';

/** The flag of a country, a static asset (3:2, from `country-flag-icons`). */
export function flagPath(countryCode: string): string {
  return `/home/vendor/flags/${countryCode}.svg`;
}

/** A new projection of the world map (a d3 projection is mutable: each caller gets its own). */
export function worldProjection(): GeoProjection {
  return geoNaturalEarth1().fitWidth(MAP_WIDTH, { type: 'Sphere' });
}

/** A point of the map in map units, x to the right and y down from the top left corner. */
export interface MapPoint {
  readonly x: number;
  readonly y: number;
}

/**
 * Where a position falls on the map.
 *
 * @param latitude WGS84 degrees, −90 to 90.
 * @param longitude WGS84 degrees, −180 to 180.
 * @example mapPoint(51.5967, -0.1593) // { x: 479.6, y: 90.6 }
 */
export function mapPoint(latitude: number, longitude: number): MapPoint {
  placing ??= worldProjection();
  const [x, y] = placing([longitude, latitude]) ?? [MAP_WIDTH / 2, MAP_HEIGHT / 2];
  return { x, y };
}

/** The projection that places points, made once per isolate (fitting it costs more than a page's lookup) and never changed. */
let placing: GeoProjection | undefined;
