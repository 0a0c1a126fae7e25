/**
 * @module Decodes the typed fields of a MaxMind DB data section (MaxMind-DB-spec.md, "Output Data
 * Section"), rejecting corrupt input with {@link MmdbFormatError} rather than looping or crashing.
 *
 *     control byte  ┌ type (3 bits) ┬ size (5 bits) ┐   type 0 → extended: next byte + 7
 *                   └───────────────┴───────────────┘   size 29/30/31 → 1/2/3 more size bytes
 */

/** A decoded value: numbers above 2⁵³ (uint64, uint128) become bigint. */
export type MmdbDecoded = string | number | boolean | bigint | Uint8Array | MmdbDecoded[] | { [key: string]: MmdbDecoded };

/** True when a decoded value is a map (not an array, bytes or a scalar). */
export function isMmdbMap(value: MmdbDecoded | undefined): value is { [key: string]: MmdbDecoded } {
  return typeof value === 'object' && !Array.isArray(value) && !(value instanceof Uint8Array);
}

/** The data types of a MaxMind DB data section, by their type numbers (as mmdb-lib names them). */
// biome-ignore format: one line per group of the specification's table.
export const MmdbType = {
  Pointer: 1, String: 2, Double: 3, Bytes: 4, Uint16: 5, Uint32: 6, Map: 7,
  Int32: 8, Uint64: 9, Uint128: 10, Array: 11, Boolean: 14, Float: 15,
} as const;

/** The database is malformed; `message` says where and how. */
export class MmdbFormatError extends Error {
  override readonly name = 'MmdbFormatError';
}

/**
 * One field of a section, located without decoding it (see {@link MmdbDecoder.field}). Callers keep
 * one and pass it again, so that walking a record allocates nothing but the values it keeps.
 */
export interface MmdbField {
  /** {@link MmdbType} number (never a pointer: pointers are followed). */
  type: number;
  /** Bytes of a string, bytes or number field; entries of a map or array; the value of a boolean. */
  size: number;
  /** Offset of the value's own control byte, after following a pointer: equal values written once share it. */
  start: number;
  /** Offset of the payload: the bytes of a scalar, the first key of a map, the first item of an array. */
  payload: number;
  /** Offset just past the field where it was read (past the pointer, if it was one). */
  next: number;
}

/** A fresh {@link MmdbField} to reuse. */
export function newField(): MmdbField {
  return { type: 0, size: 0, start: 0, payload: 0, next: 0 };
}

/** Containers nested deeper than this are refused (MaxMind's readers use the same bound). */
const MAX_DEPTH = 512;

const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/**
 * Largest size per type number (exact size for doubles and floats), -1 for types that data cannot
 * hold (0, the end marker 13, the container type 12). Strings, bytes, maps and arrays are bounded by
 * the section itself.
 */
const UNBOUNDED = Number.MAX_SAFE_INTEGER;
const SIZE_LIMITS: readonly number[] = [-1, UNBOUNDED, UNBOUNDED, 8, UNBOUNDED, 2, 4, UNBOUNDED, 4, 8, 16, UNBOUNDED, -1, -1, 1, 4];

/** What a pointer of size 0, 1 or 2 adds to its value (MaxMind-DB-spec.md, "Pointer - 1"). */
const POINTER_BIAS: readonly number[] = [0, 2048, 526_336];

/**
 * Reads values from one section (the data section or the metadata) of a database.
 *
 * Offsets are relative to the section's start, as pointers and search-tree records count them.
 */
export class MmdbDecoder {
  private readonly view: DataView;
  private readonly scratch = newField();
  /** Where the pointer read last by {@link pointerTarget} ends. */
  private pointerEnd = 0;

  /**
   * @param bytes the section's bytes.
   * @param pointerBase the offset that pointers are relative to (0 for the data section).
   */
  constructor(
    private readonly bytes: Uint8Array,
    private readonly pointerBase = 0,
  ) {
    this.view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  }

  /**
   * Decodes the value at `offset`, following pointers: maps as objects, arrays as arrays, uint64 and
   * uint128 above 2⁵³ as bigint (numbers otherwise), bytes as a copy.
   *
   * @throws MmdbFormatError when the value is malformed, nested deeper than 512 levels or runs past
   *   the section.
   */
  decode(offset: number): MmdbDecoded {
    return this.decodeAt(offset, 0)[0];
  }

  /**
   * Locates the field at `offset` (following one pointer) without decoding it, into `out`. Readers of
   * a known schema use it to read only the fields they need, and to recognise shared values by
   * `start`. For a map or array written in place, `next` is found by walking over its content, unless
   * `withNext` is false (then it is -1): a reader that opens a container to read it needs no end.
   *
   * @throws MmdbFormatError when the field is malformed or runs past the section.
   */
  field(offset: number, out: MmdbField, withNext = true): MmdbField {
    const control = this.byte(offset);
    if (control >> 5 === 1) {
      const target = this.pointerTarget(control, offset + 1);
      const end = this.pointerEnd;
      this.header(target, out);
      if (out.type === MmdbType.Pointer) throw new MmdbFormatError(`pointer to a pointer at offset ${offset}`);
      if (out.type !== MmdbType.Map && out.type !== MmdbType.Array) this.scalarEnd(out);
      out.next = end;
    } else {
      this.header(offset, out);
      out.next = out.type !== MmdbType.Map && out.type !== MmdbType.Array ? this.scalarEnd(out) : withNext ? this.skip(offset, 0) : -1;
    }
    return out;
  }

  /**
   * Where the value referenced at `offset` is stored, without reading it: the target of a pointer,
   * or `offset` itself for a value written in place. The offset just past the reference is left in
   * {@link referenceEnd} (for a value in place, -1: the caller reads it with {@link field}). Lets a
   * reader look a shared value up in a cache by its offset before touching its bytes.
   *
   * @throws MmdbFormatError when the pointer is malformed or points outside the section.
   */
  target(offset: number): number {
    const control = this.byte(offset);
    if (control >> 5 !== 1) {
      this.referenceEnd = -1;
      return offset;
    }
    const target = this.pointerTarget(control, offset + 1);
    this.referenceEnd = this.pointerEnd;
    return target;
  }

  /** Set by {@link target}: the offset just past the pointer it read, or -1. */
  referenceEnd = -1;

  /** The offset just past the value at `offset`, walking over containers without decoding them. */
  skip(offset: number, depth = 0): number {
    if (depth > MAX_DEPTH) throw new MmdbFormatError(`data nested deeper than ${MAX_DEPTH} levels at offset ${offset}`);
    const control = this.byte(offset);
    if (control >> 5 === 1) {
      this.pointerTarget(control, offset + 1);
      return this.pointerEnd;
    }
    // Read before recursing, so one scratch field serves every level.
    const field = this.header(offset, this.scratch);
    if (field.type !== MmdbType.Map && field.type !== MmdbType.Array) return this.scalarEnd(field);
    let at = field.payload;
    const items = field.type === MmdbType.Map ? field.size * 2 : field.size;
    for (let i = 0; i < items; i++) at = this.skip(at, depth + 1);
    return at;
  }

  /** The string a field located by {@link field} holds. @throws MmdbFormatError when it is not one. */
  stringOf(field: MmdbField): string {
    if (field.type !== MmdbType.String) throw new MmdbFormatError(`expected a string at offset ${field.start}, found type ${field.type}`);
    return this.utf8(field.payload, field.payload + field.size, field.start);
  }

  /**
   * The number a numeric field holds (uint16/32/64/128 up to 2⁵³, int32, double, float).
   *
   * @throws MmdbFormatError when the field is not a number or does not fit a double exactly.
   */
  numberOf(field: MmdbField): number {
    switch (field.type) {
      case MmdbType.Uint16:
      case MmdbType.Uint32:
      case MmdbType.Uint64:
      case MmdbType.Uint128: {
        if (field.size > 6 && this.uint(field.payload, field.size - 6) > 0x1f) {
          throw new MmdbFormatError(`unsigned integer above 2^53 at offset ${field.start}`);
        }
        return this.uint(field.payload, field.size);
      }
      case MmdbType.Int32: {
        const raw = this.uint(field.payload, field.size);
        return field.size === 4 ? raw | 0 : raw;
      }
      case MmdbType.Double:
        return this.view.getFloat64(field.payload);
      case MmdbType.Float:
        return this.view.getFloat32(field.payload);
      default:
        throw new MmdbFormatError(`expected a number at offset ${field.start}, found type ${field.type}`);
    }
  }

  /** Reads the control byte(s) at `offset` into `out` (type, size, start, payload), checking sizes. */
  private header(offset: number, out: MmdbField): MmdbField {
    const bytes = this.bytes;
    const control = bytes[offset];
    if (control === undefined) throw new MmdbFormatError(`read past the end of the section at offset ${offset}`);
    let cursor = offset + 1;
    let type = control >> 5;
    if (type === 0) {
      type = 7 + this.byte(cursor);
      cursor++;
      if (type < 8 || type > 15) throw new MmdbFormatError(`unknown extended type ${type} at offset ${offset}`);
    }
    let size = control & 0x1f;
    if (type !== MmdbType.Pointer && size >= 29) {
      const extra = size - 28;
      const raw = this.uint(cursor, extra);
      cursor += extra;
      size = size === 29 ? 29 + raw : size === 30 ? 285 + raw : 65_821 + raw;
    }
    const limit = SIZE_LIMITS[type] as number;
    if (limit < 0) throw new MmdbFormatError(`unexpected type ${type} at offset ${offset}`);
    if (size > limit || ((type === MmdbType.Double || type === MmdbType.Float) && size !== limit)) {
      throw new MmdbFormatError(`field of type ${type} and size ${size} at offset ${offset}`);
    }
    out.type = type;
    out.size = size;
    out.start = offset;
    out.payload = cursor;
    return out;
  }

  /** The end of a scalar field's payload, checked against the section's end. */
  private scalarEnd(field: MmdbField): number {
    return field.type === MmdbType.Boolean ? field.payload : this.checkedEnd(field.payload, field.size, 'field');
  }

  /** The value at `offset` and the offset just past it, read with {@link field}: one parser of control bytes. */
  private decodeAt(offset: number, depth: number): [MmdbDecoded, number] {
    if (depth > MAX_DEPTH) throw new MmdbFormatError(`data nested deeper than ${MAX_DEPTH} levels at offset ${offset}`);
    // Without its end: for a container in place, the end is where decoding its content stops.
    const field = this.field(offset, newField(), false);
    const { type, size, payload, next } = field;
    switch (type) {
      case MmdbType.String:
        return [this.stringOf(field), next];
      case MmdbType.Bytes:
        return [this.bytes.slice(payload, payload + size), next];
      case MmdbType.Boolean:
        return [size === 1, next];
      case MmdbType.Uint64:
      case MmdbType.Uint128: {
        let n = 0n;
        for (let i = payload; i < payload + size; i++) n = (n << 8n) | BigInt(this.bytes[i] as number);
        return [n <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(n) : n, next];
      }
      case MmdbType.Map: {
        const map: { [key: string]: MmdbDecoded } = {};
        let at = payload;
        for (let i = 0; i < size; i++) {
          const [key, afterKey] = this.decodeAt(at, depth + 1);
          if (typeof key !== 'string') throw new MmdbFormatError(`map key is not a string at offset ${at}`);
          const [value, afterValue] = this.decodeAt(afterKey, depth + 1);
          map[key] = value;
          at = afterValue;
        }
        return [map, next < 0 ? at : next];
      }
      case MmdbType.Array: {
        const array: MmdbDecoded[] = [];
        let at = payload;
        for (let i = 0; i < size; i++) {
          const [value, after] = this.decodeAt(at, depth + 1);
          array.push(value);
          at = after;
        }
        return [array, next < 0 ? at : next];
      }
      default:
        // Uint16, Uint32, Int32, Double, Float: header() refuses every other type.
        return [this.numberOf(field), next];
    }
  }

  /**
   * Decodes UTF-8 bytes. Short ASCII strings (codes, postal codes, many names) are built directly,
   * which costs a fraction of a TextDecoder call.
   */
  private utf8(start: number, end: number, at: number): string {
    const bytes = this.bytes;
    // Up to 12 characters, V8 copies a concatenation into a new flat string (longer ones become
    // chains of pieces, which is why longer text goes to the TextDecoder).
    if (end - start <= 12) {
      let text = '';
      let i = start;
      for (; i < end; i++) {
        const byte = bytes[i] as number;
        if (byte >= 0x80) break;
        text += String.fromCharCode(byte);
      }
      if (i === end) return text;
    }
    try {
      return utf8.decode(bytes.subarray(start, end));
    } catch {
      throw new MmdbFormatError(`invalid UTF-8 in string at offset ${at}`);
    }
  }

  /**
   * Pointer: `001SSVVV` and SS + 1 more bytes; returns the target offset (relative to the section), the
   * end left in `pointerEnd`. Sizes 0 to 2 take VVV as the high bits and add the specification's bias
   * (each size starts where the one before ends); size 3 is the next four bytes alone.
   */
  private pointerTarget(control: number, cursor: number): number {
    const sizeClass = (control >> 3) & 0x3;
    const length = sizeClass + 1;
    const value = this.uint(cursor, length);
    const target = sizeClass === 3 ? value : (control & 0x7) * 2 ** (8 * length) + value + (POINTER_BIAS[sizeClass] as number);
    const local = target - this.pointerBase;
    if (local < 0 || local >= this.bytes.length) {
      throw new MmdbFormatError(`pointer to offset ${target} outside the section at offset ${cursor - 1}`);
    }
    this.pointerEnd = cursor + length;
    return local;
  }

  private byte(offset: number): number {
    const value = this.bytes[offset];
    if (value === undefined) throw new MmdbFormatError(`read past the end of the section at offset ${offset}`);
    return value;
  }

  private uint(offset: number, length: number): number {
    this.checkedEnd(offset, length, 'integer');
    let n = 0;
    for (let i = 0; i < length; i++) n = n * 256 + (this.bytes[offset + i] as number);
    return n;
  }

  private checkedEnd(offset: number, length: number, what: string): number {
    const end = offset + length;
    if (end > this.bytes.length) {
      throw new MmdbFormatError(`${what} of ${length} bytes at offset ${offset} runs past the end of the section`);
    }
    return end;
  }
}
