/** Image formats Read can hand to vision models, keyed by their MIME type. */
export type ImageMime = 'image/png' | 'image/jpeg' | 'image/gif' | 'image/webp'

export type SniffResult =
  | { kind: 'image'; mime: ImageMime; label: string }
  | { kind: 'binary'; type: string }
  | { kind: 'text'; encoding: 'utf8' | 'latin1' }

/** How many leading bytes callers should pass to `sniffBytes`. */
export const SNIFF_BYTES = 8192

interface Magic {
  offset: number
  bytes: number[] | string
  type: string
}

// Checked in order; the first match names the file. Images Read can show are handled separately.
const BINARY_MAGIC: Magic[] = [
  { offset: 0, bytes: '%PDF-', type: 'PDF document' },
  { offset: 0, bytes: [0x50, 0x4b, 0x03, 0x04], type: 'ZIP archive (or docx/xlsx/jar)' },
  { offset: 0, bytes: [0x1f, 0x8b], type: 'gzip archive' },
  { offset: 0, bytes: 'BZh', type: 'bzip2 archive' },
  { offset: 0, bytes: [0xfd, 0x37, 0x7a, 0x58, 0x5a, 0x00], type: 'xz archive' },
  { offset: 0, bytes: [0x28, 0xb5, 0x2f, 0xfd], type: 'zstd archive' },
  { offset: 0, bytes: [0x37, 0x7a, 0xbc, 0xaf, 0x27, 0x1c], type: '7z archive' },
  { offset: 0, bytes: 'Rar!', type: 'RAR archive' },
  { offset: 257, bytes: 'ustar', type: 'tar archive' },
  { offset: 0, bytes: [0x7f, 0x45, 0x4c, 0x46], type: 'ELF executable' },
  { offset: 0, bytes: [0xcf, 0xfa, 0xed, 0xfe], type: 'Mach-O executable' },
  { offset: 0, bytes: [0xca, 0xfe, 0xba, 0xbe], type: 'Mach-O universal binary or Java class' },
  { offset: 0, bytes: 'MZ', type: 'Windows executable' },
  { offset: 0, bytes: [0x00, 0x61, 0x73, 0x6d], type: 'WebAssembly module' },
  { offset: 0, bytes: 'SQLite format 3\0', type: 'SQLite database' },
  { offset: 0, bytes: 'BM', type: 'BMP image' },
  { offset: 0, bytes: [0x00, 0x00, 0x01, 0x00], type: 'ICO image' },
  { offset: 0, bytes: [0x49, 0x49, 0x2a, 0x00], type: 'TIFF image' },
  { offset: 0, bytes: [0x4d, 0x4d, 0x00, 0x2a], type: 'TIFF image' },
  { offset: 0, bytes: 'ID3', type: 'MP3 audio' },
  { offset: 0, bytes: 'OggS', type: 'Ogg media' },
  { offset: 0, bytes: 'fLaC', type: 'FLAC audio' },
  { offset: 4, bytes: 'ftyp', type: 'MP4/QuickTime media' },
  { offset: 0, bytes: [0x1a, 0x45, 0xdf, 0xa3], type: 'Matroska/WebM media' },
  { offset: 0, bytes: 'wOFF', type: 'WOFF font' },
  { offset: 0, bytes: 'wOF2', type: 'WOFF2 font' },
  { offset: 0, bytes: [0xff, 0xfe], type: 'UTF-16 (little-endian) text' },
  { offset: 0, bytes: [0xfe, 0xff], type: 'UTF-16 (big-endian) text' },
]

function matches(head: Uint8Array, offset: number, bytes: number[] | string): boolean {
  const want = typeof bytes === 'string' ? Array.from(bytes, (c) => c.charCodeAt(0)) : bytes
  if (head.length < offset + want.length) return false
  return want.every((b, i) => head[offset + i] === b)
}

function sniffImage(head: Uint8Array): SniffResult | undefined {
  if (matches(head, 0, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) {
    return { kind: 'image', mime: 'image/png', label: 'PNG image' }
  }
  if (matches(head, 0, [0xff, 0xd8, 0xff])) return { kind: 'image', mime: 'image/jpeg', label: 'JPEG image' }
  if (matches(head, 0, 'GIF87a') || matches(head, 0, 'GIF89a')) {
    return { kind: 'image', mime: 'image/gif', label: 'GIF image' }
  }
  if (matches(head, 0, 'RIFF') && matches(head, 8, 'WEBP')) {
    return { kind: 'image', mime: 'image/webp', label: 'WebP image' }
  }
  if (matches(head, 0, 'RIFF') && matches(head, 8, 'WAVE')) return { kind: 'binary', type: 'WAV audio' }
  return undefined
}

/**
 * Classifies a file from its first bytes (pass up to `SNIFF_BYTES`; `truncated` says whether the file
 * continues, so a multi-byte character cut at the end is not mistaken for invalid UTF-8). Images are
 * recognised by magic bytes only, never by extension. Text that is not valid UTF-8 and has few control
 * characters is treated as Latin-1.
 */
export function sniffBytes(head: Uint8Array, truncated: boolean): SniffResult {
  const image = sniffImage(head)
  if (image) return image
  for (const magic of BINARY_MAGIC) {
    if (matches(head, magic.offset, magic.bytes)) return { kind: 'binary', type: magic.type }
  }
  if (head.includes(0)) return { kind: 'binary', type: 'binary data (contains NUL bytes)' }
  if (isValidUtf8(head, truncated)) return { kind: 'text', encoding: 'utf8' }
  let control = 0
  for (const b of head) {
    if (b < 0x20 && b !== 0x09 && b !== 0x0a && b !== 0x0d && b !== 0x0c && b !== 0x1b) control++
  }
  if (control > head.length * 0.1) return { kind: 'binary', type: 'binary data' }
  return { kind: 'text', encoding: 'latin1' }
}

function isValidUtf8(head: Uint8Array, truncated: boolean): boolean {
  const decoder = new TextDecoder('utf-8', { fatal: true })
  // A cut in the middle of a multi-byte character leaves at most 3 dangling bytes.
  const trims = truncated ? [0, 1, 2, 3] : [0]
  for (const trim of trims) {
    try {
      decoder.decode(head.subarray(0, head.length - trim))
      return true
    } catch {
      // try a shorter prefix
    }
  }
  return false
}
