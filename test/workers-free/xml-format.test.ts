/** @module XML output stays well-formed whatever the data holds. */
import { describe, expect, it } from 'vitest';
import { toXml } from '../../src/format/xml.ts';
import { childTexts, parseXml } from '../support/xml.ts';

describe('XML rendering', () => {
  it('escapes markup characters', () => {
    const nasty = `<b>&"'</b> ]]> <!-- -->`;
    const root = parseXml(toXml('response', { cityName: nasty }));
    expect(childTexts(root, 'cityName')).toEqual([nasty]);
  });

  it('replaces characters that XML 1.0 cannot carry, keeping the rest', () => {
    const root = parseXml(toXml('response', { cityName: 'a\u0000b\u0008c\u001Fd\uFFFEe\uD800f\tg\nh' }));
    expect(childTexts(root, 'cityName')).toEqual(['a\uFFFDb\uFFFDc\uFFFDd\uFFFDe\uFFFDf\tg\nh']);
  });

  it('writes arrays as repeated elements, booleans as true or false, empty strings as empty elements', () => {
    const root = parseXml(toXml('response', { timeZones: ['Europe/Paris', 'Europe/Berlin'], isProxy: false, zipCode: '', phoneCodes: [33] }));
    expect(childTexts(root, 'timeZones')).toEqual(['Europe/Paris', 'Europe/Berlin']);
    expect(childTexts(root, 'isProxy')).toEqual(['false']);
    expect(childTexts(root, 'zipCode')).toEqual(['']);
    expect(childTexts(root, 'phoneCodes')).toEqual(['33']);
  });

  it('keeps non-ASCII text', () => {
    expect(childTexts(parseXml(toXml('response', { cityName: 'Zürich 東京 🗺️' })), 'cityName')).toEqual(['Zürich 東京 🗺️']);
  });
});
