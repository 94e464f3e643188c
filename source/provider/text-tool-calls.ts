import type { ChatMessage } from '../store/messages.js'
import {
  type FormatContext,
  type Parser,
  parseBareJson,
  parseDeepSeek,
  parseHarmony,
  parseHermes,
  parseLlama,
  parseMistral,
  type RawCall,
} from './text-tool-formats.js'
import { type Marker, MarkupScanner, onlyEndTokens, type TextToolFormat } from './text-tool-markup.js'

export type { TextToolFormat } from './text-tool-markup.js'

/**
 * Tool calls a local model wrote as text because its server did not parse them (docs/context.md#text-tool-call-formats).
 * A marker counts only outside code (fences, inline spans), only when nothing but whitespace and
 * end-of-turn tokens follows the calls (prose that merely shows the markup goes on after it), and only
 * for tools that exist.
 */

/** The tools of the request, as the recovery needs them. */
export interface TextToolIndex extends FormatContext {
  /** Llama's markerless form: a reply that is nothing but `{"name": …, "parameters": {…}}`. */
  bareJson: boolean
  /**
   * Whether the markup appears in what the model was given (a file it read, a command's output, the
   * instructions): a model that repeats a planted call is quoting it, and a quote never runs.
   */
  quoted?(markup: string): boolean
}

export type Recovery =
  | { kind: 'calls'; format: TextToolFormat; text: string; reasoning: string; calls: RawCall[] }
  /** Markup naming tools that do not exist: it stays the answer, and the user is told. */
  | { kind: 'unknown'; format: TextToolFormat; names: string[] }
  /** Markup at the end of the reply that no parser could read: it stays the answer, and the user is told. */
  | { kind: 'unreadable'; format: TextToolFormat; why: string }
  /** Markup copied from what the model read (a file, a tool's output): it stays the answer, and the user is told. */
  | { kind: 'quoted'; format: TextToolFormat; names: string[] }

const PARSERS: Record<TextToolFormat, Parser> = {
  hermes: parseHermes,
  llama: parseLlama,
  mistral: parseMistral,
  deepseek: parseDeepSeek,
  harmony: parseHarmony,
}

/** The calls in a whole reply's text, or null when it holds none (the common case: plain text). */
export function recoverTextToolCalls(text: string, tools: TextToolIndex): Recovery | null {
  const scanner = new MarkupScanner(tools.bareJson)
  for (let found = scanner.next(text, true); found !== null; found = scanner.next(text, true)) {
    if (found === 'wait') break
    const { at, marker } = found
    const parsed = (marker.bare ? parseBareJson : PARSERS[marker.format])(text, at, tools)
    if (parsed === null || !onlyEndTokens(text.slice(parsed.end))) continue
    if ('unreadable' in parsed) return { kind: 'unreadable', format: marker.format, why: parsed.unreadable }
    const unknown = [...new Set(parsed.calls.map((c) => c.name).filter((name) => !tools.known(name)))]
    if (unknown.length > 0) return { kind: 'unknown', format: marker.format, names: unknown }
    if (tools.quoted?.(text.slice(at, parsed.end)))
      return { kind: 'quoted', format: marker.format, names: [...new Set(parsed.calls.map((c) => c.name))] }
    return {
      kind: 'calls',
      format: marker.format,
      text: (parsed.text ?? text.slice(0, at)).trimEnd(),
      reasoning: parsed.reasoning ?? '',
      calls: parsed.calls,
    }
  }
  return null
}

/**
 * Whether markup is in a message the model was given, spacing aside (a model re-indents what it copies).
 * Asked only for a reply that ends in a call; a message is squashed only when it holds the markup's
 * longest unbroken run, so a long history costs one native search per message.
 */
export function quotedIn(messages: readonly ChatMessage[], markup: string): boolean {
  const needle = markup.replace(/\s+/g, '')
  if (needle === '') return false
  const probe = markup.split(/\s+/).reduce((a, b) => (b.length > a.length ? b : a), '')
  return messages.some((m) => {
    if (m.role === 'assistant') return false
    const parts =
      typeof m.content === 'string' ? [m.content] : m.content.map((p) => (p.type === 'text' ? p.text : ''))
    return parts.some((text) => {
      if (!text.includes(probe)) return false
      // Read numbers its lines ("  12\t…"): a model quoting a file leaves the numbers out.
      const plain = m.role === 'tool' ? text.replace(NUMBERED_LINE, '') : text
      return plain.replace(/\s+/g, '').includes(needle)
    })
  })
}

const NUMBERED_LINE = /^[ \t]*\d+\t/gm

type Shape = 'ok' | 'no' | 'wait'

/** The keys Llama's JSON call may open with: any other first key is ordinary JSON, shown at once. */
const BARE_OPENINGS = ['{"name"', '{"type"', '{"parameters"', '{"arguments"', '{"function"']

/**
 * Whether what follows a marker still fits its format: a `<tool_call>` followed by prose, or a
 * `<|python_tag|>` followed by code, is text, and the stream stops holding it back.
 */
function shapeAfter(buf: string, at: number, marker: Marker, final: boolean): Shape {
  if (marker.bare) {
    const head = buf.slice(at, at + 24).replace(/^\{\s*/, '{')
    if (BARE_OPENINGS.some((k) => head.startsWith(k))) return 'ok'
    return !final && BARE_OPENINGS.some((k) => k.startsWith(head)) ? 'wait' : 'no'
  }
  const rest = buf.slice(at + marker.text.length, at + marker.text.length + 32).trimStart()
  if (rest === '') return final ? 'ok' : 'wait'
  const first = rest[0] as string
  switch (marker.format) {
    case 'hermes':
      return first === '{' || first === '[' || first === '<' || first === '`' ? 'ok' : 'no'
    case 'llama':
      return first === '{' ? 'ok' : 'no'
    case 'mistral':
      return /[[{A-Za-z_]/.test(first) ? 'ok' : 'no'
    default:
      return 'ok'
  }
}

/**
 * Holds a streamed reply's text back from the first marker that may open a call, so raw markup never
 * reaches the screen; text before it streams as usual. Markup that turns out not to fit its format is
 * let go at once; markup that fits is held to the end of the reply, where the recovery decides: a call
 * (never shown) or text (shown then, whole).
 *
 * Only the tail not yet both judged and shown is kept (`buf`, from offset `base` of the reply): reading
 * a character of a string grown by `+=` copies all of it, so a buffer of the whole reply would cost a
 * copy of the reply per delta.
 */
export class TextCallHold {
  private buf = ''
  private base = 0
  private released = 0
  private shown = ''
  private holdAt: number | null = null
  private marker: Marker | null = null
  private confirmed = false
  private readonly scanner: MarkupScanner

  constructor(bareJson: boolean) {
    this.scanner = new MarkupScanner(bareJson)
  }

  /** Adds a delta; returns the part of the text that may be shown now. */
  push(delta: string): string {
    this.buf += delta
    const out = this.advance(false)
    this.trim()
    return out
  }

  /**
   * The reply is complete: what may still be shown as plain text (`released`), what is held back
   * (`held`, shown only if it is not a call), and the text already shown before.
   */
  finish(): { released: string; held: string; shown: string; candidate: boolean } {
    const shown = this.shown
    const released = this.advance(true)
    return {
      released,
      held: this.buf.slice(this.released - this.base),
      shown,
      candidate: this.holdAt !== null,
    }
  }

  private advance(final: boolean): string {
    for (;;) {
      if (this.holdAt !== null && this.marker !== null) {
        if (!this.confirmed) {
          const shape = shapeAfter(this.buf, this.holdAt - this.base, this.marker, final)
          if (shape === 'no') {
            this.holdAt = null
            this.marker = null
            continue
          }
          this.confirmed = shape === 'ok'
        }
        return this.release(this.holdAt)
      }
      const found = this.scanner.next(this.buf, final, this.base)
      if (found === null) return this.release(this.base + this.buf.length)
      if (found === 'wait') return this.release(this.scanner.scanned)
      this.holdAt = found.at
      this.marker = found.marker
      this.confirmed = false
    }
  }

  private release(upTo: number): string {
    if (upTo <= this.released) return ''
    const out = this.buf.slice(this.released - this.base, upTo - this.base)
    this.released = upTo
    this.shown += out
    return out
  }

  /** Drops what is shown and judged (nothing is held, the scan is past it). */
  private trim(): void {
    const keep = Math.min(this.released, this.scanner.scanned, this.holdAt ?? Number.POSITIVE_INFINITY)
    if (keep - this.base < 64) return
    this.buf = this.buf.slice(keep - this.base)
    this.base = keep
  }
}
