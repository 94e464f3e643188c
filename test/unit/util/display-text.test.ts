import { describe, expect, it } from 'vitest'
import {
  type CleanOptions,
  cleanText,
  escapeForTerminal,
  guardTerminalOutput,
} from '../../../source/util/display-text.js'

const ESC = '\x1b'
const BEL = '\x07'
const ST = `${ESC}\\`
const OSC52 = `${ESC}]52;c;cm0gLXJmIH4=${BEL}`
const OSC8 = `${ESC}]8;;https://evil.example/${ST}docs${ESC}]8;;${ST}`
const FAMILY = '\u{1f468}\u200d\u{1f469}\u200d\u{1f467}'
const FLAG_SCOTLAND = '\u{1f3f4}\u{e0067}\u{e0062}\u{e0073}\u{e0063}\u{e0074}\u{e007f}'

// [what, input, options, expected]
const TABLE: Array<[string, string, CleanOptions, string]> = [
  ['plain text is returned as it is', 'hello world', {}, 'hello world'],
  ['CJK, emoji, combining marks stay', '漢字 🎉 e\u0301 ñ', {}, '漢字 🎉 e\u0301 ñ'],
  ['an emoji ZWJ sequence stays whole', `family ${FAMILY}!`, {}, `family ${FAMILY}!`],
  ['a Persian ZWNJ between letters stays', 'می\u200cخواهم', {}, 'می\u200cخواهم'],
  ['a subdivision flag (tag characters) stays', `go ${FLAG_SCOTLAND}`, {}, `go ${FLAG_SCOTLAND}`],
  ['newlines and tabs stay by default', 'a\n\tb', {}, 'a\n\tb'],
  ['CRLF becomes LF', 'a\r\nb', {}, 'a\nb'],
  ['newlines become spaces when not allowed', 'a\nb\r\nc\u2028d', { newlines: false }, 'a b c d'],
  ['tabs become spaces when not allowed', 'a\tb', { tabs: false }, 'a b'],
  ['SGR colours go', `${ESC}[31mred${ESC}[0m`, {}, 'red'],
  ['concealed text loses its concealment', `a${ESC}[8mhidden${ESC}[28m`, {}, 'ahidden'],
  ['cursor moves and erases go', `ok${ESC}[2A${ESC}[2K${ESC}[1;1Hfake`, {}, 'okfake'],
  ['private CSI (alternate screen off) goes', `x${ESC}[?1049ly`, {}, 'xy'],
  ['8-bit CSI goes', 'x\x9b2Jy', {}, 'xy'],
  ['OSC 52 (the clipboard) goes whole', `copy${OSC52}done`, {}, 'copydone'],
  ['OSC 52 ended by ST goes whole', `a${ESC}]52;c;eA==${ST}b`, {}, 'ab'],
  ['OSC 8 hides no link target: the label stays, the URL goes', `see ${OSC8}`, {}, 'see docs'],
  ['an 8-bit OSC goes', 'a\x9d0;title\x9cb', {}, 'ab'],
  ['an OSC without terminator loses its introducer, the rest is plain text', `a${ESC}]52;c;x`, {}, 'a52;c;x'],
  ['DCS (tmux passthrough) goes', `a${ESC}Ptmux;${ESC}${ESC}]52;c;x${BEL}${ST}b`, {}, 'atmux;b'],
  ['APC (kitty graphics) goes', `a${ESC}_Gf=100;AAAA${ST}b`, {}, 'ab'],
  ['ESC c (full reset) goes', `a${ESC}cb`, {}, 'ab'],
  ['a lone ESC at the end goes', `a${ESC}`, {}, 'a'],
  ['C0 controls go (BEL, BS, CR, NUL)', 'a\x07b\x08c\rd\x00e', {}, 'abcde'],
  ['DEL and C1 controls go', 'a\x7fb\x85c\x8ed', {}, 'abcd'],
  ['RLO / PDF (Trojan Source) go', 'evil\u202etxt.exe\u202c', {}, 'eviltxt.exe'],
  ['isolates and marks go', '\u2066a\u2067b\u2068c\u2069\u200ed\u200fe\u061cf', {}, 'abcdef'],
  ['zero-width space, word joiner, BOM go', 'Ba\u200bsh \u2060x \ufeffy', {}, 'Bash x y'],
  ['a joiner inside an ASCII name goes', 'Ba\u200dsh Re\u200cad', {}, 'Bash Read'],
  ['a joiner at either end goes', '\u200dب\u200d', {}, 'ب'],
  ['a joiner between CJK characters goes', '漢\u200d字', {}, '漢字'],
  ['a joiner inside a Cyrillic or Greek word goes', 'Ба\u200dш α\u200cβ', {}, 'Баш αβ'],
  ['a Devanagari conjunct joiner stays', 'क्\u200dष', {}, 'क्\u200dष'],
  ['skin tone and VS16 emoji sequences stay', '👩🏽\u200d💻 🏳️\u200d🌈', {}, '👩🏽\u200d💻 🏳️\u200d🌈'],
  ['a joiner from an emoji to a letter goes', '🎉\u200da', {}, '🎉a'],
  ['tag characters outside a flag (ASCII smuggling) go', 'hi\u{e0069}\u{e0067}\u{e006e}', {}, 'hi'],
  ['deprecated format characters and annotations go', 'a\u206ab\ufff9c\ufffbd', {}, 'abcd'],
  ['lone surrogates become U+FFFD', 'a\ud800b\udfffc', {}, 'a\ufffdb\ufffdc'],
  ['a valid surrogate pair stays', 'a\u{1f600}b', {}, 'a\u{1f600}b'],
  ['visible: ESC sequences show their introducer', `x${OSC52}`, { visible: true }, 'x␛]52;c;cm0gLXJmIH4=␇'],
  ['visible: C0 as pictures', 'a\rb\x00', { visible: true }, 'a␍b␀'],
  ['visible: bidi as code points', 'evil\u202etxt', { visible: true }, 'evil⟨U+202E⟩txt'],
  ['visible: invisible as code points', 'Ba\u200bsh', { visible: true }, 'Ba⟨U+200B⟩sh'],
  ['visible: C1 as code points', 'a\x9b2Jb', { visible: true }, 'a⟨U+009B⟩2Jb'],
  ['visible, one line: newlines still become spaces', 'a\nb', { visible: true, newlines: false }, 'a b'],
]

describe('cleanText', () => {
  it.each(TABLE)('%s', (_what, input, options, expected) => {
    const out = cleanText(input, options)
    expect(out).toBe(expected)
    // Never anything that drives the terminal, whatever the input.
    expect(out).not.toMatch(/[\x00-\x08\x0b-\x1f\x7f-\x9f]/)
    expect(out.isWellFormed()).toBe(true)
    // Cleaning is idempotent.
    expect(cleanText(out, options)).toBe(out)
  })

  it('returns the same string when there is nothing to clean', () => {
    const text = 'a long line of ordinary text\nwith lines\tand tabs'
    expect(cleanText(text)).toBe(text)
  })
})

describe('escapeForTerminal', () => {
  it('escapes what a terminal would act on, and the JSON parses to the same value', () => {
    const value = { text: `bidi \u202e c1 \x9b2J osc ${OSC52} nul \u0000 tag \u{e0041} sep \u2028 ok 漢 🎉` }
    const json = escapeForTerminal(JSON.stringify(value))
    expect(JSON.parse(json)).toEqual(value)
    // Pretty-printed: its own newlines stay.
    const pretty = escapeForTerminal(JSON.stringify(value, null, 2))
    expect(JSON.parse(pretty)).toEqual(value)
    expect(pretty).toContain('{\n  "text"')
    expect(json).not.toMatch(/[\x00-\x1f\x7f-\x9f\u202e\u2028\u{e0041}]/u)
    expect(json).toContain('漢 🎉')
  })
})

describe('guardTerminalOutput', () => {
  it("keeps agent-tui's own cursor moves and colours and takes out what it never writes", () => {
    const own = `${ESC}[?2026h${ESC}[3;1H${ESC}[32m✓${ESC}[39m ${ESC}[K`
    expect(guardTerminalOutput(own)).toBe(own)
    const frame = `${own}Read evil\u202etxt${OSC52}${OSC8} \x9b2J ${FAMILY}`
    expect(guardTerminalOutput(frame)).toBe(`${own}Read eviltxtdocs 2J ${FAMILY}`)
  })
})
