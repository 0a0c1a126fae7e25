/**
 * @module Microsoft Azure's service tags, the weekly `ServiceTags_Public_YYYYMMDD.json` of the Download
 * Center ("Azure IP Ranges and Service Tags – Public Cloud"): `changeNumber`, `cloud` and `values`, one
 * per service tag, each with its `properties.addressPrefixes` (IPv4 and IPv6 mixed). Only the
 * `AzureCloud` tag is read: it holds every public address of the cloud's data centres, which the
 * other tags (per service, per region) divide among themselves. The file states no date; its name does.
 */
import { z } from 'zod';
import { SourceError } from '../source.ts';
import { type FormatReader, networksOfJson, parseJson } from './parse.ts';

const ServiceTags = z.object({
  changeNumber: z.number().int().nonnegative(),
  cloud: z.string(),
  values: z.array(z.object({ id: z.string(), properties: z.object({ addressPrefixes: z.array(z.string()) }) })),
});

/** The tag of every data-centre address of the cloud. */
const ALL_DATA_CENTRES = 'AzureCloud';

/** Reads a service tags file: its version is the cloud and `changeNumber`, its date the one in its name, if any. */
export const azureServiceTags: FormatReader = (content, label, name) => {
  const file = parseJson(content, label, ServiceTags);
  const index = file.values.findIndex((value) => value.id === ALL_DATA_CENTRES);
  const tag = file.values[index];
  if (!tag) throw new SourceError(`${label}: no "${ALL_DATA_CENTRES}" service tag among its ${file.values.length} values`);
  const dated = /_(\d{4})(\d{2})(\d{2})\.json$/.exec(name);
  const builtAt = dated ? new Date(`${dated[1]}-${dated[2]}-${dated[3]}T00:00:00Z`) : undefined;
  return {
    ...networksOfJson(
      tag.properties.addressPrefixes.map((prefix, i) => ({ path: ['values', index, 'properties', 'addressPrefixes', i], prefix })),
      label,
    ),
    version: `${file.cloud} changeNumber ${file.changeNumber}`,
    ...(builtAt && Number.isFinite(builtAt.getTime()) ? { builtAt: builtAt.toISOString() } : {}),
  };
};
