/**
 * @module Geodesic distances on WGS84, checked against published values: GeographicLib's test set
 * (GeodTest.dat, Karney, doi:10.5281/zenodo.32156), GeographicLib's GeodSolve0 check (JFK to CDG),
 * Vincenty's 1975 example as Geoscience Australia publishes it (Flinders Peak to Buninyong), and the
 * WGS84 quarter meridian and equatorial quadrant.
 */
import { describe, expect, it } from 'vitest';
import { distanceBetween } from '../../src/geo/distance.ts';

const point = (latitude: number, longitude: number) => ({ latitude, longitude });

/** Degrees from degrees, minutes and seconds; negative for south or west. */
const dms = (sign: 1 | -1, degrees: number, minutes: number, seconds: number) => sign * (degrees + minutes / 60 + seconds / 3600);

/** Published metres as the kilometres the API answers: rounded to two decimals (10 m). */
const km = (metres: number) => Math.round(metres / 10) / 100;

describe('the geodesic distance', () => {
  // lat1, lon1, lat2, lon2, s12 (metres, to the micrometre): the first rows of GeodTest.dat, as
  // geographiclib-js's own test suite carries them; the last is nearly antipodal, where simpler
  // methods fail.
  const GEOD_TEST: readonly [number, number, number, number, number][] = [
    [35.60777, -139.44815, -11.17491, -69.95921, 8935244.560482],
    [55.52454, 106.05087, 77.03196, 197.18234, 4105086.171392],
    [-21.97856, 142.59065, 41.84138, 98.56635, 8394328.894658],
    [-66.99028, 112.2363, -12.70631, 285.90344, 11150344.231208],
    [-17.42761, 173.34268, -15.84784, 5.93557, 16076603.163118],
    [32.84994, 48.28919, -56.28556, 202.29132, 16727068.943816],
    [6.96833, 52.74123, -7.39675, 206.17291, 17102477.249696],
  ];

  it.each(GEOD_TEST)('measures the GeodTest line from (%f, %f) to (%f, %f)', (lat1, lon1, lat2, lon2, s12) => {
    expect(distanceBetween(point(lat1, lon1), point(lat2, lon2)).km).toBe(km(s12));
  });

  it('measures the WGS84 quarter meridian (10 001 965.729 m) from the equator to a pole', () => {
    expect(distanceBetween(point(0, 0), point(90, 0)).km).toBe(km(10001965.729));
  });

  it('measures a quarter of the equator as a·π/2', () => {
    // Along the equator, for a longitude difference below (1 - f)·180°, the geodesic is the equator itself.
    expect(distanceBetween(point(0, 0), point(0, 90)).km).toBe(km((6378137 * Math.PI) / 2));
  });

  it('is zero between a point and itself, and the same in both directions', () => {
    expect(distanceBetween(point(48.8566, 2.3522), point(48.8566, 2.3522))).toEqual({ km: 0, miles: 0 });
    const there = distanceBetween(point(-33.8688, 151.2093), point(51.5074, -0.1278));
    expect(distanceBetween(point(51.5074, -0.1278), point(-33.8688, 151.2093))).toEqual(there);
  });

  it('refuses latitudes beyond the poles and coordinates that are not numbers', () => {
    expect(() => distanceBetween(point(90.0001, 0), point(0, 0))).toThrow(RangeError);
    expect(() => distanceBetween(point(0, 0), point(-91, 0))).toThrow(RangeError);
    expect(() => distanceBetween(point(Number.NaN, 0), point(0, 0))).toThrow(RangeError);
    expect(() => distanceBetween(point(0, Number.POSITIVE_INFINITY), point(0, 0))).toThrow(RangeError);
  });
});

describe('distanceBetween', () => {
  // Expected values: published metres (GeographicLib's GeodSolve0, JFK to CDG: 5 853 226 m; Geoscience
  // Australia's worked example of Vincenty's method: 54 972.271 m; the WGS84 quarter meridian:
  // 10 001 965.729 m), divided by 1000 and by 1609.344 (the international mile), rounded by hand.
  it('gives kilometres and statute miles to two decimals (JFK to CDG)', () => {
    expect(distanceBetween(point(40.6, -73.8), point(49.01666667, 2.55))).toEqual({ km: 5853.23, miles: 3637.03 });
  });

  it('gives kilometres and statute miles to two decimals (Flinders Peak to Buninyong)', () => {
    const flindersPeak = point(dms(-1, 37, 57, 3.7203), dms(1, 144, 25, 29.5244));
    const buninyong = point(dms(-1, 37, 39, 10.1561), dms(1, 143, 55, 35.3839));
    expect(distanceBetween(flindersPeak, buninyong)).toEqual({ km: 54.97, miles: 34.16 });
  });

  it('derives miles from the unrounded length, not from rounded kilometres', () => {
    // 10 001 965.729 m is 10 001.97 km and 6 214.93 mi; 10 001.97 km would be 6 214.94 mi.
    expect(distanceBetween(point(0, 0), point(90, 0))).toEqual({ km: 10001.97, miles: 6214.93 });
  });
});
