import { sniffBytes } from './sniff.js'

/** How a text file is stored on disk, so Write and Edit can put it back the same way. */
export interface TextFormat {
  encoding: 'utf8' | 'latin1'
  bom: boolean
  /** CRLF only when every line break in the file is CRLF; mixed files are kept byte-for-byte as LF text. */
  eol: '\n' | '\r\n'
}

export const DEFAULT_FORMAT: TextFormat = { encoding: 'utf8', bom: false, eol: '\n' }

export type DecodedText =
  | { kind: 'text'; text: string; format: TextFormat }
  | { kind: 'binary'; type: string }

/**
 * Decodes a file for editing. `text` uses LF line breaks when the file is CRLF throughout (so
 * LF-typed `old_string`s match); `encodeText` restores the original breaks, encoding and BOM.
 */
export function decodeText(buf: Buffer): DecodedText {
  const sniff = sniffBytes(buf, false)
  if (sniff.kind === 'image') return { kind: 'binary', type: sniff.label }
  if (sniff.kind === 'binary') return { kind: 'binary', type: sniff.type }
  let text = buf.toString(sniff.encoding)
  const bom = sniff.encoding === 'utf8' && text.startsWith('\uFEFF')
  if (bom) text = text.slice(1)
  const eol = detectEol(text)
  if (eol === '\r\n') text = text.replace(/\r\n/g, '\n')
  return { kind: 'text', text, format: { encoding: sniff.encoding, bom, eol } }
}

/** '\r\n' when the text has line breaks and all of them are CRLF. */
export function detectEol(text: string): '\n' | '\r\n' {
  const lf = countOf(text, '\n')
  return lf > 0 && countOf(text, '\r\n') === lf ? '\r\n' : '\n'
}

function countOf(text: string, needle: string): number {
  let n = 0
  for (let i = text.indexOf(needle); i !== -1; i = text.indexOf(needle, i + needle.length)) n++
  return n
}

/**
 * Encodes LF text in `format`. Text that Latin-1 cannot represent is written as UTF-8 instead, and
 * `note` says so.
 */
export function encodeText(text: string, format: TextFormat): { data: Buffer; note?: string } {
  const body = format.eol === '\r\n' ? text.replace(/\r?\n/g, '\r\n') : text
  if (format.encoding === 'latin1') {
    if (!/[^\u0000-\u00ff]/.test(body)) return { data: Buffer.from(body, 'latin1') }
    return {
      data: Buffer.from(body, 'utf8'),
      note: 'The file was Latin-1 but the new text has characters outside Latin-1, so it was saved as UTF-8.',
    }
  }
  return { data: Buffer.from(format.bom ? `\uFEFF${body}` : body, 'utf8') }
}
