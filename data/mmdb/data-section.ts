/**
 * @module The data section of a MaxMind DB: values encoded in the format's typed fields, with every
 * repeated string, map and array written once and referred to by pointer afterwards.
 *
 * Each field starts with a control byte (MaxMind-DB-spec.md, "Output Data Section"):
 *
 *     ┌──────┬───────┐ [extended type byte: type − 7]  [0–3 size bytes]  payload
 *     │ type │ size  │   when type > 7                   when size ≥ 29
 *     │ 3 b  │ 5 b   │
 *     └──────┴───────┘
 *
 * Sizes 29, 30 and 31 announce 1, 2 or 3 following size bytes holding size − 29, size − 285 and
 * size − 65 821. Pointers (type 1) use the size bits differently; see `pointer`.
 */

/** A value the writer can encode. Plain numbers are typed by inference; see {@link MmdbTyped}. */
export type MmdbValue =
  | string
  | number
  | boolean
  | bigint
  | Uint8Array
  | MmdbTyped
  | MmdbPointer
  | readonly MmdbValue[]
  | { readonly [key: string]: MmdbValue };

/** The MaxMind DB types a value can be forced to; plain JS values pick one by inference. */
export type MmdbNumericType = 'uint16' | 'uint32' | 'int32' | 'uint64' | 'uint128' | 'double' | 'float';

/**
 * A number with an explicit MaxMind DB type. Without it, an integer in 0..2³²−1 is written as
 * uint32, a negative integer ≥ −2³¹ as int32, any other number as double, a bigint as uint64 or
 * uint128.
 */
class MmdbTyped {
  constructor(
    readonly type: MmdbNumericType,
    readonly value: number | bigint,
  ) {}
}

/**
 * A pointer to a value already written at `target` (an offset {@link DataSectionWriter.write} returned):
 * a record can refer to a shared part by its offset, without the writer serialising the part again to
 * find its copy.
 */
export class MmdbPointer {
  constructor(readonly target: number) {}
}

/** Shorthands for typed values, e.g. `mmdbType.int32(-5)`. */
export const mmdbType = {
  uint16: (value: number) => new MmdbTyped('uint16', value),
  uint32: (value: number) => new MmdbTyped('uint32', value),
  int32: (value: number) => new MmdbTyped('int32', value),
  uint64: (value: bigint | number) => new MmdbTyped('uint64', BigInt(value)),
  uint128: (value: bigint | number) => new MmdbTyped('uint128', BigInt(value)),
  double: (value: number) => new MmdbTyped('double', value),
  float: (value: number) => new MmdbTyped('float', value),
};

const TYPE = {
  pointer: 1,
  utf8: 2,
  double: 3,
  bytes: 4,
  uint16: 5,
  uint32: 6,
  map: 7,
  int32: 8,
  uint64: 9,
  uint128: 10,
  array: 11,
  boolean: 14,
  float: 15,
} as const;

const encoder = new TextEncoder();

/**
 * Appends values to a growing data section and returns their offsets (relative to the section's
 * start, as pointers and search-tree records count them).
 *
 * Deduplication: a string, map or array seen before is written as a pointer to its first copy
 * whenever the pointer is shorter; `write` of an equal top-level value returns the first offset.
 */
export class DataSectionWriter {
  private buffer = new Uint8Array(1 << 16);
  private length = 0;
  private readonly offsets = new Map<string, number>();

  /** @param deduplicate false writes every value in full (the metadata section must not point). */
  constructor(private readonly deduplicate = true) {}

  /** Size of the section so far, in bytes. */
  get size(): number {
    return this.length;
  }

  /** Writes `value` (or finds its earlier copy) and returns its offset. */
  write(value: MmdbValue): number {
    const key = this.deduplicate ? keyOf(value) : undefined;
    if (key !== undefined) {
      const known = this.offsets.get(key);
      if (known !== undefined) return known;
    }
    const offset = this.length;
    this.encode(value, key);
    return offset;
  }

  /** The bytes written so far (a copy-free view; do not write afterwards). */
  bytes(): Uint8Array {
    return this.buffer.subarray(0, this.length);
  }

  private encode(value: MmdbValue, key: string | undefined): void {
    if (key !== undefined && isPointable(value)) {
      const known = this.offsets.get(key);
      if (known !== undefined && pointerSize(known) < encodedSizeAtLeast(value)) {
        this.pointer(known);
        return;
      }
      if (known === undefined) this.offsets.set(key, this.length);
    }
    if (typeof value === 'string') {
      const utf8 = encoder.encode(value);
      this.control(TYPE.utf8, utf8.length);
      this.append(utf8);
    } else if (typeof value === 'boolean') {
      this.control(TYPE.boolean, value ? 1 : 0);
    } else if (typeof value === 'number') {
      this.number(inferType(value), value);
    } else if (typeof value === 'bigint') {
      this.number(value < 1n << 64n ? 'uint64' : 'uint128', value);
    } else if (value instanceof Uint8Array) {
      this.control(TYPE.bytes, value.length);
      this.append(value);
    } else if (value instanceof MmdbTyped) {
      this.number(value.type, value.value);
    } else if (value instanceof MmdbPointer) {
      if (!Number.isInteger(value.target) || value.target < 0 || value.target >= this.length) {
        throw new RangeError(`pointer to ${value.target}, outside the ${this.length} bytes written`);
      }
      this.pointer(value.target);
    } else if (isArray(value)) {
      this.control(TYPE.array, value.length);
      for (const item of value) this.encode(item, this.deduplicate ? keyOf(item) : undefined);
    } else {
      const entries = Object.entries(value);
      this.control(TYPE.map, entries.length);
      for (const [k, v] of entries) {
        this.encode(k, this.deduplicate ? keyOf(k) : undefined);
        this.encode(v, this.deduplicate ? keyOf(v) : undefined);
      }
    }
  }

  private number(type: MmdbNumericType, value: number | bigint): void {
    switch (type) {
      case 'double': {
        const bytes = new Uint8Array(8);
        new DataView(bytes.buffer).setFloat64(0, Number(value));
        this.control(TYPE.double, 8);
        this.append(bytes);
        return;
      }
      case 'float': {
        const bytes = new Uint8Array(4);
        new DataView(bytes.buffer).setFloat32(0, Number(value));
        this.control(TYPE.float, 4);
        this.append(bytes);
        return;
      }
      case 'int32': {
        const n = Number(value);
        if (!Number.isInteger(n) || n < -(2 ** 31) || n >= 2 ** 31) throw new RangeError(`int32 out of range: ${n}`);
        // Negative values need all four bytes so that a reader sign-extends them.
        const bytes = n < 0 ? unsignedBytes(BigInt(n >>> 0), 4) : minimalBytes(BigInt(n));
        this.control(TYPE.int32, bytes.length);
        this.append(bytes);
        return;
      }
      default: {
        const limits = { uint16: 16n, uint32: 32n, uint64: 64n, uint128: 128n } as const;
        const n = BigInt(value);
        if (n < 0n || n >= 1n << limits[type]) throw new RangeError(`${type} out of range: ${n}`);
        const bytes = minimalBytes(n);
        this.control(TYPE[type], bytes.length);
        this.append(bytes);
      }
    }
  }

  /**
   * Pointer encoding: `001SSVVV`, SS the size class, VVV the top value bits.
   *   SS=0: 11 bits          SS=1: 19 bits + 2 048
   *   SS=2: 27 bits + 526 336  SS=3: 32 bits in four following bytes (VVV unused)
   */
  private pointer(target: number): void {
    if (target < 2048) {
      this.append(Uint8Array.of(0x20 | (target >> 8), target & 0xff));
    } else if (target < 526_336) {
      const v = target - 2048;
      this.append(Uint8Array.of(0x28 | (v >> 16), (v >> 8) & 0xff, v & 0xff));
    } else if (target < 134_744_064) {
      const v = target - 526_336;
      this.append(Uint8Array.of(0x30 | (v >>> 24), (v >> 16) & 0xff, (v >> 8) & 0xff, v & 0xff));
    } else {
      this.append(Uint8Array.of(0x38, (target >>> 24) & 0xff, (target >> 16) & 0xff, (target >> 8) & 0xff, target & 0xff));
    }
  }

  private control(type: number, size: number): void {
    const head: number[] = [];
    let sizeBits: number;
    const tail: number[] = [];
    if (size < 29) {
      sizeBits = size;
    } else if (size < 285) {
      sizeBits = 29;
      tail.push(size - 29);
    } else if (size < 65_821) {
      sizeBits = 30;
      const v = size - 285;
      tail.push(v >> 8, v & 0xff);
    } else if (size < 16_843_037) {
      sizeBits = 31;
      const v = size - 65_821;
      tail.push(v >> 16, (v >> 8) & 0xff, v & 0xff);
    } else {
      throw new RangeError(`field of ${size} bytes or entries is too large for a MaxMind DB`);
    }
    if (type <= 7) {
      head.push((type << 5) | sizeBits);
    } else {
      head.push(sizeBits, type - 7);
    }
    this.append(Uint8Array.from([...head, ...tail]));
  }

  private append(bytes: Uint8Array): void {
    if (this.length + bytes.length > this.buffer.length) {
      let capacity = this.buffer.length * 2;
      while (capacity < this.length + bytes.length) capacity *= 2;
      const grown = new Uint8Array(capacity);
      grown.set(this.buffer.subarray(0, this.length));
      this.buffer = grown;
    }
    this.buffer.set(bytes, this.length);
    this.length += bytes.length;
  }
}

const isArray = (value: MmdbValue): value is readonly MmdbValue[] => Array.isArray(value);

const isPointable = (value: MmdbValue): boolean =>
  typeof value === 'string' ||
  value instanceof Uint8Array ||
  isArray(value) ||
  (typeof value === 'object' && !(value instanceof MmdbTyped) && !(value instanceof MmdbPointer));

function pointerSize(target: number): number {
  return target < 2048 ? 2 : target < 526_336 ? 3 : target < 134_744_064 ? 4 : 5;
}

/** A lower bound of a value's inline size, enough to decide whether a pointer is shorter. */
function encodedSizeAtLeast(value: MmdbValue): number {
  if (typeof value === 'string') return 1 + encoder.encode(value).length;
  if (value instanceof Uint8Array) return 1 + value.length;
  // A map or array of any content is at least its control byte plus one byte per entry; in
  // practice a repeated container is always worth a pointer, so count it generously.
  return Number.POSITIVE_INFINITY;
}

function inferType(value: number): MmdbNumericType {
  if (Number.isInteger(value)) {
    if (value >= 0 && value < 2 ** 32) return 'uint32';
    if (value < 0 && value >= -(2 ** 31)) return 'int32';
  }
  return 'double';
}

function minimalBytes(n: bigint): Uint8Array {
  const bytes: number[] = [];
  for (let v = n; v > 0n; v >>= 8n) bytes.unshift(Number(v & 0xffn));
  return Uint8Array.from(bytes);
}

function unsignedBytes(n: bigint, length: number): Uint8Array {
  const bytes = new Uint8Array(length);
  for (let i = length - 1, v = n; i >= 0; i--, v >>= 8n) bytes[i] = Number(v & 0xffn);
  return bytes;
}

/**
 * A string that identifies a value together with its encoded type, so that 1 (uint32) and 1.0
 * forced to double never share a copy, while equal maps do whatever their key order.
 */
function keyOf(value: MmdbValue): string {
  if (typeof value === 'string') return `s${value}`;
  if (typeof value === 'boolean') return value ? 'T' : 'F';
  if (typeof value === 'number') return `${inferType(value)}:${value}`;
  if (typeof value === 'bigint') return `big:${value}`;
  if (value instanceof Uint8Array) return `b${Array.from(value).join(',')}`;
  if (value instanceof MmdbTyped) return `${value.type}:${value.value}`;
  if (value instanceof MmdbPointer) return `p${value.target}`;
  if (isArray(value)) return `[${value.map(keyOf).join('\u0000')}]`;
  return `{${Object.entries(value)
    .map(([k, v]) => `${JSON.stringify(k)}=${keyOf(v)}`)
    .join('\u0000')}}`;
}
