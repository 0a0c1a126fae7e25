/** @module The region coder against MaxMind's test source data, which gives each subdivision's name and code. */
import { readFileSync } from 'node:fs';
import { iso31662 } from 'iso-3166';
import { describe, expect, it } from 'vitest';
import { createRegionCoder, regionCoverage } from '../../data/sources/region-codes.ts';
import { FIXTURES } from '../support/fixtures.ts';

interface Named {
  iso_code?: string;
  names?: { en?: string };
}

interface CityRecord {
  country?: Named;
  subdivisions?: Named[];
}

interface Case {
  country: string;
  name: string;
  code: string;
}

/** Distinct (country, English name, code) of every subdivision that has all three, in the given files. */
function subdivisions(...files: string[]): Case[] {
  const found = new Map<string, Case>();
  for (const file of files) {
    const text = readFileSync(`${FIXTURES}/source-data/${file}.json`, 'utf8');
    for (const record of (JSON.parse(text) as Array<Record<string, CityRecord>>).flatMap((item) => Object.values(item))) {
      const country = record.country?.iso_code;
      for (const { names, iso_code: code } of record.subdivisions ?? []) {
        const name = names?.en;
        if (country !== undefined && name !== undefined && code !== undefined) {
          found.set(`${country}/${name}`, { country, name, code });
        }
      }
    }
  }
  return [...found.values()];
}

/**
 * Codes in the test data that ISO has since replaced (ISO 3166-2:CN moved from numbers to letters in
 * 2017: CN-22 is now CN-JL). For these the expected code is the one that `iso-3166` lists under exactly
 * the same name.
 */
const SUPERSEDED = new Set(['CN-22']);

function currentCode({ country, name, code }: Case): string {
  if (!SUPERSEDED.has(`${country}-${code}`)) return code;
  const entry = iso31662.find((e) => e.code.startsWith(`${country}-`) && e.name === name);
  return entry?.code.slice(3) ?? code;
}

const ALL = subdivisions('GeoIP2-City-Test', 'GeoLite2-City-Test');
const CASES = ALL.map((c) => ({ ...c, code: currentCode(c) }));
const coder = createRegionCoder();

describe('createRegionCoder', () => {
  it('finds subdivisions in the official test data', () => {
    // Seven distinct subdivisions (West Berkshire as England's second-level subdivision), so that the
    // table below is not empty; all of them as published but the superseded ones.
    expect(CASES.length).toBeGreaterThanOrEqual(7);
    expect(CASES.filter((c, i) => c.code !== ALL[i]?.code)).toHaveLength(SUPERSEDED.size);
  });

  it.each(CASES)('codes $country "$name" as $code', ({ country, name, code }) => {
    expect(coder.code(country, name)).toBe(code);
  });

  it('gives the same code for the same pair again', () => {
    for (const { country, name, code } of CASES) expect(coder.code(country, name)).toBe(code);
  });

  it('gives an empty code for a name no subdivision has', () => {
    expect(coder.code('US', 'Atlantis')).toBe('');
    expect(coder.code('GB', 'Middle-earth')).toBe('');
  });

  it('gives an empty code for an empty name', () => {
    expect(coder.code('US', '')).toBe('');
    expect(coder.code('US', ' - ')).toBe('');
  });

  it('gives an empty code for a country it does not know', () => {
    for (const { name } of CASES) {
      expect(coder.code('ZZ', name)).toBe('');
      expect(coder.code('', name)).toBe('');
    }
  });
});

describe('regionCoverage', () => {
  it('counts distinct named regions and the coded ones', () => {
    const pairs = CASES.map((c) => [c.country, c.name] as const);
    const coverage = regionCoverage(coder, [...pairs, ...pairs, ['US', ''], ['US', 'Atlantis']]);
    expect(coverage).toEqual({ regions: CASES.length + 1, coded: CASES.length, uncoded: ['US/Atlantis'] });
  });
});
