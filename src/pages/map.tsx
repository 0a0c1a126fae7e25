/**
 * @module The home page's map, drawn without script: the region around the point (or the whole world
 * when there is no point), the country shaded and the point marked, with an inset of the whole world
 * that frames the region. The shapes are the static drawing `world.ts` names, referenced with `<use>`
 * and coloured by the page's stylesheet; only the frame and the marker are computed here.
 */
import { MAP_HEIGHT, MAP_WIDTH, type MapPoint, WORLD_SVG_PATH } from './world.ts';

/** The region view's size in map units: a quarter of the world's width, 3:2. */
const REGION = { width: MAP_WIDTH / 4, height: MAP_WIDTH / 6 } as const;
/** The marker's radius as a share of the view's width (about 8 px on a 700 px wide map). */
const MARKER_SHARE = 0.012;

/** A rectangle of the map in map units. */
interface Frame {
  readonly x: number;
  readonly y: number;
  readonly width: number;
  readonly height: number;
}

const WORLD: Frame = { x: 0, y: 0, width: MAP_WIDTH, height: MAP_HEIGHT };

/** The region view around `point`: centred on it, moved as little as needed to stay inside the world. */
function regionFrame(point: MapPoint): Frame {
  const clamp = (value: number, max: number) => Math.min(Math.max(value, 0), max);
  return {
    x: clamp(point.x - REGION.width / 2, MAP_WIDTH - REGION.width),
    y: clamp(point.y - REGION.height / 2, MAP_HEIGHT - REGION.height),
    width: REGION.width,
    height: REGION.height,
  };
}

const round = (value: number) => Math.round(value * 100) / 100;
const viewBox = (frame: Frame) => [frame.x, frame.y, frame.width, frame.height].map(round).join(' ');

/** The shapes under a view: the globe, its graticule, the land and the shaded country. */
function Shapes({ countryCode }: { countryCode: string }) {
  return (
    <>
      <use class="map-sphere" href={`${WORLD_SVG_PATH}#sphere`} />
      <use class="map-graticule" href={`${WORLD_SVG_PATH}#graticule`} />
      <use class="map-land" href={`${WORLD_SVG_PATH}#countries`} />
      {countryCode ? <use class="map-country" href={`${WORLD_SVG_PATH}#${countryCode}`} /> : null}
    </>
  );
}

/**
 * The map figure.
 *
 * @param countryCode the country to shade (ISO 3166-1 alpha-2), '' for none.
 * @param point where the address is, undefined when the data has no position for it.
 * @param label what the map shows, in words: the figure's accessible name and caption.
 */
export function WorldMap({ countryCode, point, label }: { countryCode: string; point: MapPoint | undefined; label: string }) {
  const frame = point ? regionFrame(point) : WORLD;
  const radius = round(frame.width * MARKER_SHARE);
  return (
    <figure class="map" data-world={viewBox(WORLD)} data-region={viewBox(frame)}>
      <div class="map-canvas">
        <svg class="map-view" viewBox={viewBox(frame)} role="img" aria-label={label}>
          <Shapes countryCode={countryCode} />
          {point ? (
            <g class="map-marker" data-x={round(point.x)} data-y={round(point.y)}>
              <circle class="map-marker-halo" cx={round(point.x)} cy={round(point.y)} r={round(radius * 2.2)} />
              <circle class="map-marker-dot" cx={round(point.x)} cy={round(point.y)} r={radius} />
            </g>
          ) : null}
        </svg>
        {point ? (
          <svg class="map-inset" viewBox={viewBox(WORLD)} aria-hidden="true" focusable="false">
            <Shapes countryCode={countryCode} />
            <rect class="map-inset-frame" x={round(frame.x)} y={round(frame.y)} width={round(frame.width)} height={round(frame.height)} />
          </svg>
        ) : null}
      </div>
      <figcaption>{label}</figcaption>
      <div class="map-controls" hidden>
        <button type="button" data-map="in">
          Zoom in
        </button>
        <button type="button" data-map="out">
          Zoom out
        </button>
        <button type="button" data-map="world">
          Whole world
        </button>
        {point ? (
          <button type="button" data-map="region">
            Back to the point
          </button>
        ) : null}
      </div>
    </figure>
  );
}
