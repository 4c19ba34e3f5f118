// A small ZIP writer and reader (PKWARE APPNOTE 6.3: local headers, a central directory, the
// end record; no ZIP64, no encryption), enough for the SCORM packages of `make scorm` and for
// their test to read them back. Entries are deflated (node's zlib, raw deflate) unless that does
// not make them smaller, then stored; the CRC-32 is zlib's too (node 20.15 or later). Every entry
// carries the same DOS time (1980-01-01 00:00), so the same input gives the same bytes.
import { crc32, deflateRawSync, inflateRawSync } from 'node:zlib';

const DOS_DATE = (0 << 9) | (1 << 5) | 1; // 1980-01-01
const DOS_TIME = 0;
const UTF8 = 1 << 11;

/** The fields a local header and its central directory entry both hold, in the same order
 * (APPNOTE 4.3.7 and 4.3.12), written from `at`: version needed, flags, method, DOS time and
 * date, CRC-32, compressed and uncompressed sizes, name length. */
function writeShared(buf, at, { deflated, crc, packed, raw, name }) {
  buf.writeUInt16LE(20, at); // version needed: 2.0 (deflate)
  buf.writeUInt16LE(UTF8, at + 2);
  buf.writeUInt16LE(deflated ? 8 : 0, at + 4);
  buf.writeUInt16LE(DOS_TIME, at + 6);
  buf.writeUInt16LE(DOS_DATE, at + 8);
  buf.writeUInt32LE(crc, at + 10);
  buf.writeUInt32LE(packed, at + 14);
  buf.writeUInt32LE(raw, at + 18);
  buf.writeUInt16LE(name, at + 22);
}

/** The ZIP file holding `entries` ([{name, data}], data a Buffer or a string), in that order. */
export function zip(entries) {
  const locals = [];
  const central = [];
  let offset = 0;
  for (const { name, data } of entries) {
    const raw = Buffer.isBuffer(data) ? data : Buffer.from(data);
    const packed = deflateRawSync(raw, { level: 9 });
    const deflated = packed.length < raw.length;
    const body = deflated ? packed : raw;
    const fname = Buffer.from(name, 'utf8');
    const crc = crc32(raw);
    if (raw.length >= 0xffffffff || offset >= 0xffffffff) throw new Error(`zip: ${name} needs ZIP64, which this writer does not write`);
    const fields = { deflated, crc, packed: body.length, raw: raw.length, name: fname.length };
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    writeShared(local, 4, fields);
    const dir = Buffer.alloc(46);
    dir.writeUInt32LE(0x02014b50, 0);
    dir.writeUInt16LE((3 << 8) | 20, 4); // made by: Unix, 2.0
    writeShared(dir, 6, fields);
    dir.writeUInt32LE((0o100644 << 16) >>> 0, 38); // a regular file, rw-r--r--
    dir.writeUInt32LE(offset, 42);
    locals.push(local, fname, body);
    central.push(dir, fname);
    offset += local.length + fname.length + body.length;
  }
  const dirBytes = Buffer.concat(central);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(entries.length, 8);
  end.writeUInt16LE(entries.length, 10);
  end.writeUInt32LE(dirBytes.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, dirBytes, end]);
}

/** The entries of a ZIP file ({name: Buffer}), read from its central directory; a wrong CRC,
 * an unknown method or a damaged record is an error naming the entry. */
export function unzip(buf) {
  const endAt = buf.lastIndexOf(Buffer.from([0x50, 0x4b, 0x05, 0x06]));
  if (endAt < 0) throw new Error('unzip: no end of central directory record');
  const count = buf.readUInt16LE(endAt + 10);
  let at = buf.readUInt32LE(endAt + 16);
  const out = {};
  for (let i = 0; i < count; i++) {
    if (buf.readUInt32LE(at) !== 0x02014b50) throw new Error(`unzip: central directory entry ${i} is damaged`);
    const method = buf.readUInt16LE(at + 10);
    const crc = buf.readUInt32LE(at + 16);
    const size = buf.readUInt32LE(at + 20);
    const nameLen = buf.readUInt16LE(at + 28);
    const extra = buf.readUInt16LE(at + 30);
    const comment = buf.readUInt16LE(at + 32);
    const local = buf.readUInt32LE(at + 42);
    const name = buf.subarray(at + 46, at + 46 + nameLen).toString('utf8');
    if (buf.readUInt32LE(local) !== 0x04034b50) throw new Error(`unzip: ${name}: no local header`);
    const start = local + 30 + buf.readUInt16LE(local + 26) + buf.readUInt16LE(local + 28);
    const body = buf.subarray(start, start + size);
    let data;
    if (method === 0) data = Buffer.from(body);
    else if (method === 8) data = inflateRawSync(body);
    else throw new Error(`unzip: ${name}: compression method ${method} is not read here`);
    if (crc32(data) !== crc) throw new Error(`unzip: ${name}: CRC mismatch`);
    out[name] = data;
    at += 46 + nameLen + extra + comment;
  }
  return out;
}
