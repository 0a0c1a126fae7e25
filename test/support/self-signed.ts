/**
 * @module A self-signed X.509 certificate for 127.0.0.1, made with node:crypto (an EC P-256 key, the
 * certificate's DER written here: RFC 5280's TBSCertificate, signed with ECDSA-SHA256), so that a test
 * can run an https server on this machine that its own process trusts.
 */
import { generateKeyPairSync, sign } from 'node:crypto';

/** DER: a tag, its length (short or long form), its content. */
function tlv(tag: number, content: Uint8Array): Buffer {
  const length = content.length;
  const lengthBytes = length < 0x80 ? [length] : length < 0x100 ? [0x81, length] : [0x82, length >> 8, length & 0xff];
  return Buffer.concat([Buffer.from([tag, ...lengthBytes]), content]);
}

const sequence = (...items: Uint8Array[]) => tlv(0x30, Buffer.concat(items));

/** An OBJECT IDENTIFIER from its dotted text. */
function oid(text: string): Buffer {
  const [first = 0, second = 0, ...rest] = text.split('.').map(Number);
  const bytes = [first * 40 + second];
  for (const arc of rest) {
    const groups = [arc & 0x7f];
    for (let value = arc >> 7; value > 0; value >>= 7) groups.unshift((value & 0x7f) | 0x80);
    bytes.push(...groups);
  }
  return tlv(0x06, Uint8Array.from(bytes));
}

/** A Name of one common name. */
const name = (commonName: string) => sequence(tlv(0x31, sequence(oid('2.5.4.3'), tlv(0x0c, Buffer.from(commonName)))));

/** UTCTime, YYMMDDhhmmssZ. */
const utcTime = (date: Date) => tlv(0x17, Buffer.from(`${date.toISOString().slice(2, 19).replace(/[-T:]/g, '')}Z`));

/** A certificate for IP address 127.0.0.1, valid from a day ago for a day, and its key, both PEM. */
export function selfSignedCertificate(): { cert: string; key: string } {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
  const ecdsaWithSha256 = sequence(oid('1.2.840.10045.4.3.2'));
  const subjectAltName = sequence(oid('2.5.29.17'), tlv(0x04, sequence(tlv(0x87, Uint8Array.from([127, 0, 0, 1])))));
  const now = Date.now();
  const tbs = sequence(
    tlv(0xa0, tlv(0x02, Uint8Array.of(2))), // version 3
    tlv(0x02, Uint8Array.of(0x01, 0x45)), // serial number
    ecdsaWithSha256,
    name('ipgeo test'),
    sequence(utcTime(new Date(now - 86_400_000)), utcTime(new Date(now + 86_400_000))),
    name('ipgeo test'),
    publicKey.export({ type: 'spki', format: 'der' }),
    tlv(0xa3, sequence(subjectAltName)),
  );
  const signature = sign('sha256', tbs, privateKey);
  const der = sequence(tbs, ecdsaWithSha256, tlv(0x03, Buffer.concat([Buffer.of(0), signature])));
  const pem = (label: string, bytes: Buffer) => `-----BEGIN ${label}-----\n${bytes.toString('base64').replace(/.{64}/g, '$&\n')}\n-----END ${label}-----\n`;
  return { cert: pem('CERTIFICATE', der).replace('\n\n', '\n'), key: privateKey.export({ type: 'pkcs8', format: 'pem' }) as string };
}
