/**
 * @module Prepares the home page's static assets from npm packages into `assets/home/vendor/` (not
 * committed): `world.svg`, Natural Earth's countries (`world-atlas`: the 1:110m shapes, plus the 1:50m
 * shapes of the countries too small for 1:110m) projected by `src/pages/world.ts`, one unstyled path per
 * ISO 3166-1 alpha-2 code; and the 3:2 flags of `country-flag-icons`. Run by `npm install`
 * (`postinstall`) and by the commands that serve or deploy the Worker; a file is written only when its
 * content changed. How the map is made: `docs/home-page.md`.
 *
 *     tsx scripts/home-assets.ts
 */
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { geoGraticule, geoPath } from 'd3-geo';
import type { Feature, Geometry } from 'geojson';
import countries from 'i18n-iso-countries';
import { feature } from 'topojson-client';
import type { GeometryCollection, Topology } from 'topojson-specification';
import { MAP_HEIGHT, MAP_WIDTH, WORLD_SVG_PATH, worldProjection } from '../src/pages/world.ts';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const ASSETS = join(ROOT, 'assets');
/** The drawing of the map, as the Worker serves it. */
const WORLD_SVG = join(ASSETS, WORLD_SVG_PATH);
/** The flags' folder, as the Worker serves it. */
const FLAGS = join(ASSETS, 'home/vendor/flags');
const ATLAS = join(ROOT, 'node_modules/world-atlas');
const FLAG_SOURCE = join(ROOT, 'node_modules/country-flag-icons/3x2');

/** Decimals of the map's coordinates: a tenth of a map unit is under a pixel at four times the world's width. */
const DIGITS = 1;
/** Degrees between the graticule's lines (every 10° would weigh 30% more, compressed). */
const GRATICULE_STEP = 15;

/**
 * Natural Earth's units that world-atlas leaves without an ISO 3166-1 numeric code, by name: the
 * alpha-2 code the location data gives addresses there. The others (Siachen Glacier, the Indian Ocean
 * territories as one unit) are left out.
 */
const UNNUMBERED: Readonly<Record<string, string>> = { Kosovo: 'XK', 'N. Cyprus': 'CY', Somaliland: 'SO' };

type CountryShape = Feature<Geometry, { name: string }>;

/** The countries of one world-atlas scale, as GeoJSON features. */
function countriesAt(scale: '110m' | '50m'): CountryShape[] {
  const topology = JSON.parse(readFileSync(join(ATLAS, `countries-${scale}.json`), 'utf8')) as Topology<{
    countries: GeometryCollection<{ name: string }>;
  }>;
  return feature(topology, topology.objects.countries).features as CountryShape[];
}

/** The alpha-2 code of a world-atlas country, or undefined for a unit that has none. */
function alpha2Of(shape: CountryShape): string | undefined {
  if (shape.id === undefined) return UNNUMBERED[shape.properties.name];
  return countries.numericToAlpha2(String(shape.id));
}

/**
 * The map's SVG document: `#sphere` (the outline of the globe), `#graticule` (every 15°), and
 * `#countries` holding one path per alpha-2 code, its units joined. Nothing is styled: the page colours
 * what it references with `<use>`, through inherited `fill` and `stroke`.
 */
function worldSvg(): string {
  const path = geoPath(worldProjection()).digits(DIGITS);
  const shapes = new Map<string, string[]>();
  const add = (code: string, shape: CountryShape) => {
    const d = path(shape);
    if (d) shapes.set(code, [...(shapes.get(code) ?? []), d]);
  };
  const coarse = countriesAt('110m');
  for (const shape of coarse) {
    const code = alpha2Of(shape);
    if (code) add(code, shape);
  }
  const drawn = new Set(shapes.keys());
  for (const shape of countriesAt('50m')) {
    const code = alpha2Of(shape);
    if (code && !drawn.has(code)) add(code, shape);
  }
  const paths = [...shapes.entries()]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([code, parts]) => `<path id="${code}" d="${parts.join('')}"/>`)
    .join('\n');
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${MAP_WIDTH} ${MAP_HEIGHT}">`,
    `<path id="sphere" d="${path({ type: 'Sphere' })}"/>`,
    `<path id="graticule" d="${path(geoGraticule().step([GRATICULE_STEP, GRATICULE_STEP])())}"/>`,
    `<g id="countries">\n${paths}\n</g>`,
    '</svg>',
    '',
  ].join('\n');
}

/** Writes `content` to `file` unless it holds it already (so that a running `wrangler dev` does not reload for nothing). */
function writeIfChanged(file: string, content: string): void {
  if (existsSync(file) && readFileSync(file, 'utf8') === content) return;
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, content);
}

/** Copies the flags whose served copy is missing or of another size. */
function copyFlags(): void {
  mkdirSync(FLAGS, { recursive: true });
  for (const name of readdirSync(FLAG_SOURCE)) {
    if (!/^[A-Z]{2}\.svg$/.test(name)) continue;
    const source = join(FLAG_SOURCE, name);
    const target = join(FLAGS, name);
    if (!existsSync(target) || statSync(target).size !== statSync(source).size) copyFileSync(source, target);
  }
}

/**
 * Prepares the map and the flags.
 *
 * @throws {Error} naming the package to install when world-atlas or country-flag-icons is missing.
 */
export function prepareHomeAssets(): void {
  for (const [folder, name] of [
    [ATLAS, 'world-atlas'],
    [FLAG_SOURCE, 'country-flag-icons'],
  ] as const) {
    if (!existsSync(folder)) throw new Error(`${folder} is missing: run npm install (the package ${name} provides it).`);
  }
  writeIfChanged(WORLD_SVG, worldSvg());
  copyFlags();
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) prepareHomeAssets();
