/**
 * @module Distances on the WGS84 ellipsoid: the length of the geodesic by GeographicLib's inverse
 * solution (Karney 2013, accurate to about 15 nm), in kilometres and statute miles, rounded to
 * {@link DISTANCE_DECIMALS} decimals (10 m): the coordinates have four decimals (about 11 m), and an IP
 * location is seldom better than a city.
 */
import { Geodesic } from 'geographiclib-geodesic';

/** Metres in one statute mile (international mile of 1959: exactly 1609.344 m). */
const METRES_PER_MILE = 1609.344;

/** Decimals of the kilometres and miles answered (0.01 km = 10 m, 0.01 mi ≈ 16 m). */
export const DISTANCE_DECIMALS = 2;

/** A point in WGS84 decimal degrees. */
export interface Coordinates {
  /** Degrees north, -90 to 90. */
  readonly latitude: number;
  /** Degrees east; any finite value (normalised by the solver). */
  readonly longitude: number;
}

/** A distance, rounded to {@link DISTANCE_DECIMALS} decimals. */
export interface Distance {
  /** Kilometres. */
  readonly km: number;
  /** Statute miles. */
  readonly miles: number;
}

/**
 * The geodesic distance on WGS84, unrounded.
 *
 * @returns metres.
 * @throws RangeError when a latitude is outside [-90, 90] or a coordinate is not finite.
 * @example geodesicMetres({ latitude: 40.6, longitude: -73.8 }, { latitude: 49.01666667, longitude: 2.55 }) // ≈ 5853226 (JFK to CDG)
 */
function geodesicMetres(from: Coordinates, to: Coordinates): number {
  check(from);
  check(to);
  const { s12 } = Geodesic.WGS84.Inverse(from.latitude, from.longitude, to.latitude, to.longitude, Geodesic.DISTANCE);
  if (s12 === undefined || !Number.isFinite(s12)) throw new RangeError('the geodesic solver returned no distance');
  return s12;
}

/**
 * The geodesic distance on WGS84 in kilometres and statute miles, each rounded half away from zero
 * to {@link DISTANCE_DECIMALS} decimals from the unrounded length (miles are not derived from rounded
 * kilometres).
 *
 * @throws RangeError as {@link geodesicMetres}.
 */
export function distanceBetween(from: Coordinates, to: Coordinates): Distance {
  const metres = geodesicMetres(from, to);
  return { km: round(metres / 1000), miles: round(metres / METRES_PER_MILE) };
}

function round(value: number): number {
  const scale = 10 ** DISTANCE_DECIMALS;
  return Math.round(value * scale) / scale;
}

function check(point: Coordinates): void {
  if (!Number.isFinite(point.latitude) || !Number.isFinite(point.longitude) || Math.abs(point.latitude) > 90) {
    throw new RangeError(`not a WGS84 position: latitude ${point.latitude}, longitude ${point.longitude}`);
  }
}
