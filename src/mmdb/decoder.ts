/**
 * @module Decodes the typed fields of a MaxMind DB data section (MaxMind-DB-spec.md, "Output Data
 * Section"), rejecting corrupt input with {@link MmdbFormatError} rather than looping or crashing.
 *
 *     control byte  ┌ type (3 bits) ┬ size (5 bits) ┐   type 0 → extended: next byte + 7
 *                   └───────────────┴───────────────┘   size 29/30/31 → 1/2/3 more size bytes
 */

/** A decoded value: numbers above 2⁵³ (uint64, uint128) become bigint. */
export type MmdbDecoded =
  | string
  | number
  | boolean
  | bigint
  | Uint8Array
  | MmdbDecoded[]
  | { [key: string]: MmdbDecoded };

/** The database is malformed; `message` says where and how. */
export class MmdbFormatError extends Error {
  override readonly name = 'MmdbFormatError';
}

/** Containers nested deeper than this are refused (MaxMind's readers use the same bound). */
const MAX_DEPTH = 512;

const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/**
 * Reads values from one section (the data section or the metadata) of a database.
 *
 * Offsets are relative to the section's start, as pointers and search-tree records count them.
 */
export class MmdbDecoder {
  private readonly view: DataView;

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

  /** Decodes the value at `offset`. @throws MmdbFormatError */
  decode(offset: number): MmdbDecoded {
    return this.decodeAt(offset, 0, false)[0];
  }

  /** Decodes the value at `offset` and returns it with the offset just past it. */
  decodeWithEnd(offset: number): [MmdbDecoded, number] {
    return this.decodeAt(offset, 0, false);
  }

  private decodeAt(offset: number, depth: number, viaPointer: boolean): [MmdbDecoded, number] {
    if (depth > MAX_DEPTH) throw new MmdbFormatError(`data nested deeper than ${MAX_DEPTH} levels at offset ${offset}`);
    const control = this.byte(offset);
    let cursor = offset + 1;
    let type = control >> 5;
    if (type === 0) {
      type = 7 + this.byte(cursor);
      cursor++;
      if (type < 8 || type > 15) throw new MmdbFormatError(`unknown extended type ${type} at offset ${offset}`);
    }
    if (type === 1) {
      if (viaPointer) throw new MmdbFormatError(`pointer to a pointer at offset ${offset}`);
      const [target, end] = this.pointer(control, cursor);
      const [value] = this.decodeAt(target, depth + 1, true);
      return [value, end];
    }
    let size = control & 0x1f;
    if (size >= 29) {
      const extra = size - 28;
      const raw = this.uint(cursor, extra);
      cursor += extra;
      size = size === 29 ? 29 + raw : size === 30 ? 285 + raw : 65_821 + raw;
    }
    switch (type) {
      case 2: {
        const end = this.checkedEnd(cursor, size, 'string');
        try {
          return [utf8.decode(this.bytes.subarray(cursor, end)), end];
        } catch {
          throw new MmdbFormatError(`invalid UTF-8 in string at offset ${offset}`);
        }
      }
      case 3:
        if (size !== 8) throw new MmdbFormatError(`double of ${size} bytes at offset ${offset}`);
        this.checkedEnd(cursor, 8, 'double');
        return [this.view.getFloat64(cursor), cursor + 8];
      case 4: {
        const end = this.checkedEnd(cursor, size, 'bytes');
        return [this.bytes.slice(cursor, end), end];
      }
      case 5:
      case 6:
        if (size > (type === 5 ? 2 : 4)) throw new MmdbFormatError(`uint of ${size} bytes at offset ${offset}`);
        this.checkedEnd(cursor, size, 'uint');
        return [this.uint(cursor, size), cursor + size];
      case 7: {
        const map: { [key: string]: MmdbDecoded } = {};
        let at = cursor;
        for (let i = 0; i < size; i++) {
          const [key, afterKey] = this.decodeAt(at, depth + 1, false);
          if (typeof key !== 'string') throw new MmdbFormatError(`map key is not a string at offset ${at}`);
          const [value, afterValue] = this.decodeAt(afterKey, depth + 1, false);
          map[key] = value;
          at = afterValue;
        }
        return [map, at];
      }
      case 8: {
        if (size > 4) throw new MmdbFormatError(`int32 of ${size} bytes at offset ${offset}`);
        this.checkedEnd(cursor, size, 'int32');
        const raw = this.uint(cursor, size);
        return [size === 4 ? raw | 0 : raw, cursor + size];
      }
      case 9:
      case 10: {
        if (size > (type === 9 ? 8 : 16)) throw new MmdbFormatError(`uint of ${size} bytes at offset ${offset}`);
        const end = this.checkedEnd(cursor, size, 'uint');
        let n = 0n;
        for (let i = cursor; i < end; i++) n = (n << 8n) | BigInt(this.bytes[i] as number);
        return [n <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(n) : n, end];
      }
      case 11: {
        const array: MmdbDecoded[] = [];
        let at = cursor;
        for (let i = 0; i < size; i++) {
          const [value, after] = this.decodeAt(at, depth + 1, false);
          array.push(value);
          at = after;
        }
        return [array, at];
      }
      case 14:
        if (size > 1) throw new MmdbFormatError(`boolean of value ${size} at offset ${offset}`);
        return [size === 1, cursor];
      case 15:
        if (size !== 4) throw new MmdbFormatError(`float of ${size} bytes at offset ${offset}`);
        this.checkedEnd(cursor, 4, 'float');
        return [this.view.getFloat32(cursor), cursor + 4];
      default:
        throw new MmdbFormatError(`unexpected type ${type} at offset ${offset}`);
    }
  }

  /** Pointer: `001SSVVV`; returns the target offset (relative to the section) and the end. */
  private pointer(control: number, cursor: number): [number, number] {
    const sizeClass = (control >> 3) & 0x3;
    const high = control & 0x7;
    let target: number;
    let end: number;
    if (sizeClass === 0) {
      target = (high << 8) | this.byte(cursor);
      end = cursor + 1;
    } else if (sizeClass === 1) {
      target = ((high << 16) | this.uint(cursor, 2)) + 2048;
      end = cursor + 2;
    } else if (sizeClass === 2) {
      target = (high * 2 ** 24 + this.uint(cursor, 3)) + 526_336;
      end = cursor + 3;
    } else {
      target = this.uint(cursor, 4);
      end = cursor + 4;
    }
    this.checkedEnd(cursor, end - cursor, 'pointer');
    const local = target - this.pointerBase;
    if (local < 0 || local >= this.bytes.length) {
      throw new MmdbFormatError(`pointer to offset ${target} outside the section at offset ${cursor - 1}`);
    }
    return [local, end];
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
