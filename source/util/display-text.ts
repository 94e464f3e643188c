/**
 * The one cleaning of text that reaches a terminal: every string from a model, a tool, a server or a file
 * goes through `cleanText` before it is painted (and `escapeForTerminal` / `guardTerminalOutput` for what
 * cannot be cleaned as text: JSON output, whole frames). What it takes out could move the cursor, rewrite
 * the screen, set the clipboard (OSC 52), hide a link's target (OSC 8), reorder what is shown (bidi
 * controls: `evil\u202etxt.exe` shows as `evilexe.txt`) or make two different strings look the same
 * (invisible characters). Ordinary Unicode (CJK, emoji and their joiners, combining marks) stays.
 *
 * The source stays ASCII (escapes only): the build refuses a chunk with a character beyond Latin-1,
 * which V8 would hold at two bytes a character (scripts/one-byte-sources.mjs).
 */

export interface CleanOptions {
  /** Keep line breaks (`\r\n`, U+2028 and U+2029 become `\n`); otherwise each becomes a space. Default true. */
  newlines?: boolean
  /** Keep tabs; otherwise each becomes a space. Default true. */
  tabs?: boolean
  /**
   * Show what is taken out instead of dropping it: controls as their pictures (ESC as U+241B), bidi and
   * invisible characters as `<U+202E>` in angle brackets (U+27E8/U+27E9). For what the user judges
   * character by character: a command or a diff at the consent prompt, a tool call's title.
   */
  visible?: boolean
}

/** One line, with what is taken out shown in its place: titles that say what a call acts on. */
export const TITLE: CleanOptions = Object.freeze({ newlines: false, tabs: false, visible: true })

/** A subdivision flag (black flag, tag letters, cancel tag): the one use of tag characters that stays. */
const TAG_FLAG = '\\u{1f3f4}[\\u{e0020}-\\u{e007e}]{1,16}\\u{e007f}'
/** CSI (7-bit or C1), including private and malformed parameter bytes. */
const CSI = '(?:\\x1b\\[|\\x9b)[\\x30-\\x3f]*[\\x20-\\x2f]*[\\x40-\\x7e]'
/** OSC, DCS, SOS, PM and APC strings up to their terminator (BEL or ST). */
const STRING = '(?:\\x1b[\\]PX^_]|[\\x90\\x98\\x9d-\\x9f])[^\\x07\\x1b\\x9c]*(?:\\x07|\\x1b\\\\|\\x9c)'
/** Any other escape: ESC, intermediates, a final byte (ESC c resets the terminal); or a lone ESC. */
const ESCAPE = '\\x1b[\\x20-\\x2f]*[\\x30-\\x7e]?'
/**
 * One character that never reaches the screen as it is: C0 controls (tab and line feed among them, for
 * the options), DEL, C1 controls, U+2028/U+2029, bidi controls (U+061C, U+200E/F, U+202A-E, U+2066-9),
 * invisible ones (U+00AD is left: terminals show it), joiners (kept between letters and emoji, below),
 * deprecated format characters, interlinear annotation, tag characters, lone surrogates.
 */
const CHAR =
  '[\\x00-\\x1f\\x7f-\\x9f\\u061c\\u180e\\u200b-\\u200f\\u2028-\\u202e\\u2060-\\u2064\\u2066-\\u206f\\ufeff\\ufff9-\\ufffb\\u{e0000}-\\u{e007f}]|\\p{Cs}'

const ANY = new RegExp(`${TAG_FLAG}|${CSI}|${STRING}|${ESCAPE}|\\r\\n|${CHAR}`, 'gu')
/** Whether there is anything to do at all (the common case: nothing), by what the caller keeps. */
const NEEDS = new RegExp(CHAR, 'u')
const NEEDS_BUT_LAYOUT = new RegExp(CHAR.replace('[\\x00-\\x1f', '[\\x00-\\x08\\x0b-\\x1f'), 'u')

const ZWNJ = 0x200c
const ZWJ = 0x200d

/** The text with what could spoof or drive the terminal taken out (or made visible); see the module's doc. */
export function cleanText(text: string, options: CleanOptions = {}): string {
  const newlines = options.newlines !== false
  const tabs = options.tabs !== false
  if (!(newlines && tabs ? NEEDS_BUT_LAYOUT : NEEDS).test(text)) return text
  const visible = options.visible === true
  return text.replace(ANY, (match: string, offset: number) => {
    const first = match.codePointAt(0) ?? 0
    if (match.length > 1 && first === 0x1f3f4) return match
    // A CR before the line feed is shown where each character counts (a shell keeps it in the word).
    if (match === '\r\n') return (visible ? '\u240d' : '') + (newlines ? '\n' : ' ')
    if (first === 0x2028 || first === 0x2029) return newlines ? '\n' : ' '
    if (match === '\n') return newlines ? '\n' : ' '
    if (match === '\t') return tabs ? '\t' : ' '
    if (first === 0x1b || (match.length > 1 && first >= 0x80 && first <= 0x9f)) {
      // A whole escape sequence: gone, or shown with its introducer as a picture (the rest is plain text).
      return visible ? picture(first) + cleanText(match.slice(1), options) : ''
    }
    if ((first === ZWJ || first === ZWNJ) && joins(text, offset)) return match
    if (first >= 0xd800 && first <= 0xdfff) return '\ufffd'
    return visible ? picture(first) : ''
  })
}

/** What a taken-out character looks like in visible mode. */
function picture(code: number): string {
  if (code < 0x20) return String.fromCharCode(0x2400 + code)
  if (code === 0x7f) return '\u2421'
  const hex = code.toString(16).toUpperCase().padStart(4, '0')
  return `\u27e8U+${hex}\u27e9`
}

/**
 * A joiner is kept where it is part of the writing: inside an emoji sequence (a family, a skin tone, a
 * flag with a rainbow), and between two letters of a script that needs joiners (Persian ZWNJ, Indic
 * conjuncts). Elsewhere — in a Latin, Greek or Cyrillic name, between CJK characters, next to a space
 * or ASCII — it can only make two different strings look the same.
 */
function joins(text: string, offset: number): boolean {
  const before = codePointBefore(text, offset)
  const after = text.codePointAt(offset + 1)
  if (before === undefined || after === undefined) return false
  const prev = String.fromCodePoint(before)
  const next = String.fromCodePoint(after)
  if (EMOJI_BEFORE_JOINER.test(prev) && EMOJI.test(next)) return true
  return JOINING_LETTER.test(prev) && JOINING_LETTER.test(next) && !NO_JOINERS.test(prev + next)
}

const EMOJI = /^\p{Extended_Pictographic}$/u
/** What may stand right before the joiner of an emoji sequence: the emoji, its skin tone, VS16. */
const EMOJI_BEFORE_JOINER = /^(?:\p{Extended_Pictographic}|\p{Emoji_Modifier}|\ufe0f)$/u
const JOINING_LETTER = /^[\p{L}\p{M}]$/u
/** Scripts whose words never need a joiner: one there only disguises. */
const NO_JOINERS =
  /[\p{Script=Latin}\p{Script=Greek}\p{Script=Cyrillic}\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}\p{Script=Common}]/u

function codePointBefore(text: string, offset: number): number | undefined {
  if (offset === 0) return undefined
  const low = text.charCodeAt(offset - 1)
  if (low >= 0xdc00 && low <= 0xdfff && offset >= 2) {
    const high = text.charCodeAt(offset - 2)
    if (high >= 0xd800 && high <= 0xdbff) return (high - 0xd800) * 0x400 + (low - 0xdc00) + 0x10000
  }
  return low
}

/** CHAR but C0 controls: JSON.stringify escapes those in strings, and the raw ones are its own layout. */
const JSON_CHAR = CHAR.replace('[\\x00-\\x1f\\x7f-\\x9f', '[\\x7f-\\x9f')
const JSON_NEEDS = new RegExp(JSON_CHAR, 'u')
const JSON_ESCAPES = new RegExp(JSON_CHAR, 'gu')

/**
 * JSON text made safe to print on a terminal without changing what it parses to: the characters
 * `cleanText` takes out, which JSON.stringify leaves as they are (C1 controls, DEL, bidi and invisible
 * characters, U+2028/U+2029), are written as `\\uXXXX` escapes. They can only occur inside strings.
 */
export function escapeForTerminal(json: string): string {
  if (!JSON_NEEDS.test(json)) return json
  return json.replace(JSON_ESCAPES, (char) => {
    let out = ''
    for (let i = 0; i < char.length; i++) out += `\\u${char.charCodeAt(i).toString(16).padStart(4, '0')}`
    return out
  })
}

/**
 * What agent-tui itself never writes to the terminal, taken out of a whole frame as a last guard (the
 * frame also holds agent-tui's own cursor moves and colours, so it cannot be cleaned as text): OSC, DCS,
 * SOS, PM and APC strings (the clipboard, links, terminal-specific commands), C1 controls, bidi and
 * invisible characters. A pane that forgot `cleanText` loses those at least.
 */
export function guardTerminalOutput(frame: string): string {
  if (!GUARD_NEEDS.test(frame)) return frame
  return frame.replace(GUARD, (match: string, offset: number) => {
    const first = match.codePointAt(0) ?? 0
    if (match.length > 1 && first === 0x1f3f4) return match
    if ((first === ZWJ || first === ZWNJ) && joins(frame, offset)) return match
    if (first >= 0xd800 && first <= 0xdfff) return '\ufffd'
    return ''
  })
}

const GUARD_CHAR =
  '[\\x80-\\x9f\\u061c\\u180e\\u200b-\\u200f\\u2028-\\u202e\\u2060-\\u2064\\u2066-\\u206f\\ufeff\\ufff9-\\ufffb\\u{e0000}-\\u{e007f}]|\\p{Cs}'
const GUARD = new RegExp(`${TAG_FLAG}|${STRING}|\\x1b[\\]PX^_]|${GUARD_CHAR}`, 'gu')
const GUARD_NEEDS = new RegExp(`\\x1b[\\]PX^_]|${GUARD_CHAR}`, 'u')

/** Where text output goes: a stream, or a cleaning wrapper of one. */
export interface TextWriter {
  write(text: string): unknown
}

/**
 * A writer whose every write is cleaned (`cleanText`, lines and tabs kept): stderr's notices, warnings
 * and errors, and a headless text answer printed on a terminal. They quote what a model, a server or a
 * repository's file wrote, and are read by a person on a terminal (or a CI log that renders ANSI).
 */
export function cleanedWriter(stream: TextWriter): TextWriter {
  return { write: (text) => stream.write(cleanText(text)) }
}
