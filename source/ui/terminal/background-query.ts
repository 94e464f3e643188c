/**
 * Asking the terminal its background colour (xterm's OSC 11), for the `auto` theme (docs/tui.md#themes).
 *
 * The query is `ESC ] 11 ; ? BEL`; a terminal that knows answers on stdin with
 * `ESC ] 11 ; rgb:RRRR/GGGG/BBBB` and BEL or ST (`ESC \`), 1 to 4 hex digits a channel. The answer comes
 * in among the keys the user types, so every reader of stdin while it may come (the early frame, then
 * the key reader) runs its reads through a `ReplyFilter`: replies are taken out (also when late, or split
 * over reads) and everything else passes in order, byte for byte. Terminals that do not know the query
 * ignore it; then nothing answers and the palette stays dark (or what COLORFGBG says).
 */
import { type Background, luminance, type Rgb } from '../components/palette.js'

export const BACKGROUND_QUERY = '\x1b]11;?\x07'
/** How long a reply is waited for; later ones are still taken out of the input, and still apply. */
export const BACKGROUND_TIMEOUT_MS = 1000
/** How long a read's possible reply start is held back before it is passed on as typed. */
export const REPLY_HOLD_MS = 50

const REPLY_START = '\x1b]11;'
/** A reply longer than this without its terminator is not one (an Alt+] typed, then text). */
const MAX_REPLY = 64

/**
 * The colour of a reply's body (what follows `ESC ] 11 ;`): `rgb:R/G/B` with 1–4 hex digits a channel
 * (`rgba:` with a fourth, ignored), or `#rgb`/`#rrggbb`. Null for anything else.
 */
export function parseBackgroundReply(body: string): Rgb | null {
  const rgb = /^rgba?:([0-9a-f]{1,4})\/([0-9a-f]{1,4})\/([0-9a-f]{1,4})(?:\/[0-9a-f]{1,4})?$/i.exec(body)
  if (rgb) return [rgb[1], rgb[2], rgb[3]].map((h) => scale(h ?? '')) as Rgb
  const hash = /^#([0-9a-f]{3}|[0-9a-f]{6})$/i.exec(body)?.[1]
  if (!hash) return null
  const step = hash.length / 3
  return [0, 1, 2].map((i) => scale(hash.slice(i * step, (i + 1) * step))) as Rgb
}

/** A channel of `digits` hex digits to 0–255 (`f` and `ffff` are both full). */
function scale(digits: string): number {
  const max = 16 ** digits.length - 1
  return Math.round((Number.parseInt(digits, 16) / max) * 255)
}

/** Light when dark text has more contrast on it than light text (luminance above ≈ 0.18). */
export function backgroundOf(rgb: Rgb): Background {
  const l = luminance(rgb)
  return (l + 0.05) / 0.05 > 1.05 / (l + 0.05) ? 'light' : 'dark'
}

/**
 * `COLORFGBG` (rxvt, Konsole, some others): `fg;bg` or `fg;default;bg` in ANSI colour numbers. Background
 * 7 or 15 (white), or 9–14 but for 8 (the bright colours), is light; 0–6 and 8 dark; anything else unknown.
 */
export function backgroundFromColorFgBg(value: string | undefined): Background | undefined {
  if (!value) return undefined
  const last = value.split(';').at(-1) ?? ''
  if (!/^\d+$/.test(last)) return undefined
  const bg = Number(last)
  if (bg === 7 || (bg >= 9 && bg <= 15)) return 'light'
  if (bg <= 8) return 'dark'
  return undefined
}

export interface ReplyFilter {
  /** The read without background replies; a possible reply start at its end is held back. */
  push(chunk: string): string
  /** True while a possible reply start is held back. */
  hasPending(): boolean
  /** Gives up on the held-back start and returns it (it was typed, not a reply). */
  flush(): string
}

/**
 * One reader's filter. `expecting()` says whether a reply may still come soon: only then is a lone ESC at
 * a read's end held back too (the reply's first byte), since otherwise it is the Esc key. `onReply` gets
 * each reply's colour (null: a reply it could not read).
 */
export function createReplyFilter(expecting: () => boolean, onReply: (rgb: Rgb | null) => void): ReplyFilter {
  let pending = ''
  return {
    push(chunk) {
      const input = pending + chunk
      pending = ''
      let out = ''
      let i = 0
      while (i < input.length) {
        const at = input.indexOf('\x1b', i)
        if (at < 0) {
          out += input.slice(i)
          break
        }
        out += input.slice(i, at)
        const rest = input.slice(at)
        if (rest.length < REPLY_START.length) {
          if (REPLY_START.startsWith(rest) && (rest.length > 1 || expecting())) {
            pending = rest
            break
          }
          out += '\x1b'
          i = at + 1
          continue
        }
        if (!rest.startsWith(REPLY_START)) {
          out += '\x1b'
          i = at + 1
          continue
        }
        const end = replyEnd(rest)
        if (end === null) {
          if (rest.length <= MAX_REPLY) {
            pending = rest
            break
          }
          out += '\x1b'
          i = at + 1
          continue
        }
        onReply(parseBackgroundReply(rest.slice(REPLY_START.length, end.body)))
        i = at + end.next
      }
      return out
    },
    hasPending: () => pending !== '',
    flush() {
      const held = pending
      pending = ''
      return held
    },
  }
}

/** Where a reply's body ends and what follows its terminator (BEL or ST), or null while it has none. */
function replyEnd(rest: string): { body: number; next: number } | null {
  for (let j = REPLY_START.length; j < rest.length && j <= MAX_REPLY; j++) {
    const char = rest[j]
    if (char === '\x07') return { body: j, next: j + 1 }
    if (char === '\x1b') {
      if (j + 1 >= rest.length) return null
      return rest[j + 1] === '\\' ? { body: j, next: j + 2 } : { body: j, next: j + 1 }
    }
  }
  return null
}

/** The one question to the terminal of a start-up, shared by every reader of stdin while it is open. */
export interface BackgroundProbe {
  /** Writes the query, once, and starts the wait. */
  ask(write: (text: string) => void): void
  /** A filter for one reader of stdin; replies it finds answer the probe. */
  filter(): ReplyFilter
  /** What the terminal said, or COLORFGBG, or undefined. */
  background(): Background | undefined
  /** Called when the terminal answers (at most once); returns the unsubscribe. */
  onAnswer(listener: (background: Background) => void): () => void
}

export function createBackgroundProbe(options: { fallback?: Background | undefined } = {}): BackgroundProbe {
  let asked = false
  let waiting = false
  let answered: Background | undefined
  const listeners = new Set<(background: Background) => void>()
  const onReply = (rgb: Rgb | null) => {
    waiting = false
    if (!rgb || answered) return
    answered = backgroundOf(rgb)
    for (const listener of [...listeners]) listener(answered)
  }
  return {
    ask(write) {
      if (asked) return
      asked = true
      waiting = true
      write(BACKGROUND_QUERY)
      setTimeout(() => {
        waiting = false
      }, BACKGROUND_TIMEOUT_MS).unref()
    },
    filter: () => createReplyFilter(() => waiting, onReply),
    background: () => answered ?? options.fallback,
    onAnswer(listener) {
      listeners.add(listener)
      return () => {
        listeners.delete(listener)
      }
    },
  }
}
