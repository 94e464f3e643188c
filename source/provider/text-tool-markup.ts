/**
 * Where tool-call markup may start in a reply's text (docs/context.md#text-tool-call-formats): the opening
 * tokens of the formats local models write when their server does not parse calls, found only outside
 * fenced code blocks and inline code spans. One incremental scanner serves both the stream (which holds
 * text back from a marker on) and the final recovery (which tries each marker in turn).
 */

export type TextToolFormat = 'hermes' | 'llama' | 'mistral' | 'deepseek' | 'harmony'

export interface Marker {
  text: string
  format: TextToolFormat
  /** A `{` that opens the whole reply: Llama 3's JSON tool call without its `<|python_tag|>`. */
  bare?: boolean
}

/** DeepSeek's special tokens use U+FF5C (fullwidth vertical line) and U+2581 (lower one eighth block). */
export const DS = {
  callsBegin: '<\uff5ctool\u2581calls\u2581begin\uff5c>',
  callsEnd: '<\uff5ctool\u2581calls\u2581end\uff5c>',
  callBegin: '<\uff5ctool\u2581call\u2581begin\uff5c>',
  callEnd: '<\uff5ctool\u2581call\u2581end\uff5c>',
  sep: '<\uff5ctool\u2581sep\uff5c>',
  endOfSentence: '<\uff5cend\u2581of\u2581sentence\uff5c>',
} as const

export const MARKERS: readonly Marker[] = [
  { text: '<tool_call>', format: 'hermes' },
  { text: '<|python_tag|>', format: 'llama' },
  { text: '[TOOL_CALLS]', format: 'mistral' },
  { text: DS.callsBegin, format: 'deepseek' },
  { text: DS.callBegin, format: 'deepseek' },
  { text: '<|channel|>', format: 'harmony' },
  { text: '<|start|>', format: 'harmony' },
]

const BARE_JSON: Marker = { text: '{', format: 'llama', bare: true }
const FIRST_CHARS = new Set(MARKERS.map((m) => m.text[0]))

/** End-of-turn tokens a server may leave in the text after the calls. */
export const END_TOKENS: readonly string[] = [
  '<|im_end|>',
  '<|endoftext|>',
  '<|eot_id|>',
  '<|eom_id|>',
  '<|end|>',
  '<|call|>',
  '<|return|>',
  '</s>',
  DS.endOfSentence,
]

/** Whether what follows the calls is only whitespace and end-of-turn tokens. */
export function onlyEndTokens(rest: string): boolean {
  let s = rest.trim()
  for (let changed = true; changed && s !== ''; ) {
    changed = false
    for (const token of END_TOKENS) {
      if (s.startsWith(token)) {
        s = s.slice(token.length).trimStart()
        changed = true
      }
    }
  }
  return s === ''
}

export interface Found {
  at: number
  marker: Marker
}

/**
 * Scans text left to right, once: fenced code (``` or ~~~ at a line start, up to three spaces in) and
 * inline code spans (a backtick run closed by one of the same length on the same line) are skipped.
 * `next` resumes where the last call stopped; with `final` false it stops ('wait') where the text could
 * still become a marker or a fence, so a stream is never judged on half a token.
 *
 * Positions are offsets in the whole reply; `next` may be given only its tail from `base` on (a stream
 * drops what it has judged and shown), as long as the tail starts at or before `scanned`. The line state
 * is kept as the scan goes, so nothing before `scanned` is read again: a long reply costs one pass, not
 * one per delta.
 */
export class MarkupScanner {
  private pos = 0
  private fence: { char: string; len: number } | null = null
  /** Length of the backtick run that opened the inline code span we are in, or 0. */
  private ticks = 0
  /** Skip to the end of the line (a fence's info string). */
  private skipLine = false
  /** A non-space character has been seen: a bare `{` no longer opens the reply. */
  private content = false
  /** Spaces at the start of the current line, while it has nothing else; -1 after anything else. */
  private indent = 0
  /** Inside a fence, how far the current line is a closing ``` / ~~~ line: spaces, the run, whitespace. */
  private close: 'lead' | 'run' | 'trail' | 'no' = 'lead'
  private closeRun = 0

  constructor(private readonly bareJson: boolean) {}

  /** The position the scan has reached: everything before it is judged. */
  get scanned(): number {
    return this.pos
  }

  next(tail: string, final: boolean, base = 0): Found | 'wait' | null {
    const end = base + tail.length
    while (this.pos < end) {
      const i = this.pos
      const ch = tail[i - base] as string
      if (ch === '\n') {
        this.endLine()
        this.pos = i + 1
        continue
      }
      if (this.fence !== null || this.skipLine) {
        if (!this.skipLine) this.closing(ch)
        this.pos++
        continue
      }
      if (ch === '`' || (ch === '~' && this.ticks === 0)) {
        let stop = i
        while (stop < end && tail[stop - base] === ch) stop++
        if (stop === end && !final) return 'wait'
        const run = stop - i
        this.content = true
        if (run >= 3 && this.ticks === 0 && this.indent >= 0 && this.indent <= 3) {
          this.fence = { char: ch, len: run }
          this.skipLine = true
        } else if (ch === '`') {
          if (this.ticks === 0) this.ticks = run
          else if (run === this.ticks) this.ticks = 0
        }
        this.indent = -1
        this.pos = stop
        continue
      }
      this.indent = ch === ' ' && this.indent >= 0 ? this.indent + 1 : -1
      if (this.ticks > 0) {
        this.pos++
        continue
      }
      if (this.bareJson && !this.content && ch === '{') {
        this.content = true
        this.pos = i + 1
        return { at: i, marker: BARE_JSON }
      }
      if (ch !== ' ' && ch !== '\t' && ch !== '\r') this.content = true
      if (FIRST_CHARS.has(ch)) {
        let partial = false
        for (const marker of MARKERS) {
          if (tail.startsWith(marker.text, i - base)) {
            this.pos = i + 1
            return { at: i, marker }
          }
          if (!final && end - i < marker.text.length && marker.text.startsWith(tail.slice(i - base)))
            partial = true
        }
        if (partial) return 'wait'
      }
      this.pos++
    }
    if (final) this.endLine()
    return null
  }

  /** One character of a line inside a fence: may the line still be the one that closes it? */
  private closing(ch: string): void {
    const fence = this.fence as { char: string; len: number }
    if (this.close === 'no') return
    if (ch === fence.char && (this.close === 'lead' || this.close === 'run')) {
      this.close = 'run'
      this.closeRun++
    } else if (ch === ' ' && this.close === 'lead' && this.indent < 3) this.indent++
    else if ((ch === ' ' || ch === '\t' || ch === '\r') && this.close !== 'lead') this.close = 'trail'
    else this.close = 'no'
  }

  private endLine(): void {
    const closes = this.close === 'run' || this.close === 'trail'
    if (this.fence !== null && !this.skipLine && closes && this.closeRun >= this.fence.len) this.fence = null
    this.skipLine = false
    // An inline span does not continue on the next line: an unclosed run was literal backticks.
    this.ticks = 0
    this.indent = 0
    this.close = 'lead'
    this.closeRun = 0
  }
}

/**
 * The end (exclusive) of the JSON object or array that starts at `start`, or -1 when the text ends
 * before it closes. Strings and their escapes are honoured; nothing is parsed.
 */
export function jsonEnd(text: string, start: number): number {
  let depth = 0
  let inString = false
  for (let i = start; i < text.length; i++) {
    const ch = text[i]
    if (inString) {
      if (ch === '\\') i++
      else if (ch === '"') inString = false
      continue
    }
    if (ch === '"') inString = true
    else if (ch === '{' || ch === '[') depth++
    else if (ch === '}' || ch === ']') {
      depth--
      if (depth === 0) return i + 1
    }
  }
  return -1
}
