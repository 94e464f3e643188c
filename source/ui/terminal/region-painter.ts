/**
 * Paints one rectangle of the screen (the transcript) straight to the terminal, beside Ink.
 *
 * Why: Ink rebuilds its whole frame for every update — a cell grid of the full screen, ANSI tokenised per
 * cell — so a streaming reply that changes two rows paid for all of them, 20–30 times a second. Inside the
 * rectangle Ink renders only blank cells and never has a reason to rewrite them; this painter draws the
 * rows there itself and writes only the rows that changed.
 *
 * Coexisting with Ink: Ink's writes pass through `wrapStdout`. Ink frames are bracketed by synchronized
 * output (BSU … ESU). At BSU the painter erases cells that just left the rectangle (Ink believes they are
 * blank); at ESU it repaints the whole rectangle, since Ink may have cleared the screen or rewritten a
 * line that shares rows with it. Each paint saves and restores the cursor, so Ink's relative cursor moves
 * stay right. While Ink has left the alternate screen (an external editor, Ctrl+L) nothing is painted.
 */

export interface Rect {
  top: number
  left: number
  width: number
  height: number
}

export interface PaintSource {
  /** Where the rectangle is on screen right now (0-based cells), or null while it is not laid out. */
  rect(): Rect | null
  /** Exactly `rect.height` rows, each at most `rect.width` cells wide (ANSI styles allowed). */
  rows(rect: Rect): readonly string[]
}

export interface RegionPainterOptions {
  /** The real terminal. */
  write(text: string): void
  /** Minimum time between two content paints (ms); urgent paints (scrolling) skip it. */
  minIntervalMs?: number
  now?: () => number
}

const ESC = '\x1b'
const BSU = `${ESC}[?2026h`
const ESU = `${ESC}[?2026l`
const SAVE_CURSOR = `${ESC}7`
const RESTORE_CURSOR = `${ESC}8`
const RESET = `${ESC}[0m`
const ALT_SCREEN_ON = `${ESC}[?1049h`
const ALT_SCREEN_OFF = `${ESC}[?1049l`
/** Erase display / line (any variant): a write outside a frame containing one may have hit our cells. */
const ERASES = /\x1b\[[0-3]?[JK]/

/** Longer than Ink's throttle window at its 30 fps cap. */
const INK_FRAME_WAIT_MS = 50

const moveTo = (row: number, column: number) => `${ESC}[${row + 1};${column + 1}H`
/** ECH: blanks `n` cells from the cursor without moving it or touching cells beyond (the side panes). */
const ECH = (n: number) => `${ESC}[${n}X`

export class RegionPainter {
  readonly #write: (text: string) => void
  readonly #minIntervalMs: number
  readonly #now: () => number
  #source: PaintSource | null = null
  /**
   * The rectangle as of the last frame Ink wrote: the only cells Ink believes blank. Between frames the
   * live layout may already differ (Ink throttles its writes), so painting follows this, never the layout.
   */
  #rect: Rect | null = null
  /** Rows as painted in `#rect`; null means unknown (repaint everything). */
  #painted: readonly string[] | null = null
  #timer: NodeJS.Timeout | null = null
  /** After a mount that Ink has not drawn yet: see `attach`. */
  #settleTimer: NodeJS.Timeout | null = null
  #lastPaintAt = Number.NEGATIVE_INFINITY
  #frames = 0
  #inFrame = false
  #suspended = false

  constructor(options: RegionPainterOptions) {
    this.#write = options.write
    this.#minIntervalMs = options.minIntervalMs ?? 33
    this.#now = options.now ?? (() => performance.now())
  }

  /** Ink frames written so far; a pane compares it across its commit to know if its frame is out. */
  get frameCount(): number {
    return this.#frames
  }

  /**
   * Starts painting from `source` (the pane mounted). `inkDrewIt`: the Ink frame with the pane's blank
   * rectangle is already on screen, so painting may start now; otherwise it starts with that frame.
   */
  attach(source: PaintSource, inkDrewIt: boolean): void {
    this.#source = source
    this.#painted = null
    this.#rect = null
    if (inkDrewIt) {
      this.#rect = source.rect()
      this.#paint()
      return
    }
    // Ink writes nothing when its new frame equals the one on screen (a blank pane replacing nothing):
    // once a throttled frame would have arrived, what is on screen is the pane's frame.
    const frames = this.#frames
    this.#cancelTimer()
    this.#settleTimer = setTimeout(() => {
      this.#settleTimer = null
      if (this.#source !== source || this.#frames !== frames || this.#rect) return
      this.#rect = source.rect()
      this.#paint()
    }, INK_FRAME_WAIT_MS)
  }

  /** Stops painting and blanks what was painted, before Ink draws whatever replaces the pane. */
  detach(source: PaintSource): void {
    if (this.#source !== source) return
    this.#source = null
    this.#cancelTimer()
    const rect = this.#rect
    this.#rect = null
    this.#painted = null
    if (rect && !this.#suspended) this.#emit(`${SAVE_CURSOR}${eraseCells(rect)}${RESTORE_CURSOR}`)
  }

  /**
   * The content changed: paint soon (at most every `minIntervalMs`), or right away when `urgent` (a
   * user's scroll must answer within a frame).
   */
  invalidate(urgent = false): void {
    if (!this.#source || this.#suspended) return
    if (urgent) {
      if (this.#timer) clearTimeout(this.#timer)
      this.#timer = null
      this.#paint()
      return
    }
    if (this.#timer) return
    const wait = Math.max(0, this.#lastPaintAt + this.#minIntervalMs - this.#now())
    this.#timer = setTimeout(() => {
      this.#timer = null
      this.#paint()
    }, wait)
  }

  /** Ink's output stream: the real one, with every write passing through `#onInkWrite`. */
  wrapStdout<T extends NodeJS.WriteStream>(stdout: T): T {
    return new Proxy(stdout, {
      get: (target, property) => {
        if (property === 'write') {
          return (chunk: unknown, ...rest: unknown[]) => {
            const write = target.write as (...args: unknown[]) => boolean
            if (typeof chunk !== 'string') return write.call(target, chunk, ...rest)
            return write.call(target, this.#onInkWrite(chunk), ...rest)
          }
        }
        const value = Reflect.get(target, property, target)
        return typeof value === 'function' ? value.bind(target) : value
      },
    })
  }

  dispose(): void {
    this.#cancelTimer()
    this.#source = null
  }

  /** What actually goes to the terminal for one Ink write. */
  #onInkWrite(text: string): string {
    if (text.includes(ALT_SCREEN_OFF)) {
      this.#suspended = true
      this.#cancelTimer()
      return text
    }
    if (text.includes(ALT_SCREEN_ON)) {
      this.#suspended = false
      this.#painted = null
      return text
    }
    if (text === BSU) {
      this.#inFrame = true
      this.#frames++
      return this.#suspended ? text : text + this.#moveToFrameRect()
    }
    if (text === ESU && this.#inFrame) {
      this.#inFrame = false
      if (this.#suspended || !this.#source) return text
      // Ink may have cleared the screen or rewritten a line that shares rows with the rectangle.
      this.#painted = null
      this.#cancelTimer()
      return this.#rows() + text
    }
    // An erase outside a frame (a resize, a suspend) may have hit our cells: the next frame repaints them.
    if (ERASES.test(text)) this.#painted = null
    return text
  }

  /** At the start of an Ink frame: adopt the rectangle of that frame, blanking cells it no longer covers. */
  #moveToFrameRect(): string {
    const before = this.#rect
    const now = this.#source?.rect() ?? null
    this.#rect = now
    if (!before || (now && sameRect(before, now))) return ''
    this.#painted = null
    const out = erasedDifference(before, now)
    return out ? `${SAVE_CURSOR}${out}${RESTORE_CURSOR}` : ''
  }

  #paint(): void {
    if (this.#suspended || !this.#source || this.#inFrame) return
    const rows = this.#rows()
    if (rows) this.#emit(rows)
  }

  /** Sequences for the rows that differ from what is on screen, inside the frame's rectangle. */
  #rows(): string {
    const source = this.#source
    const rect = this.#rect
    this.#lastPaintAt = this.#now()
    if (!source || !rect || rect.width <= 0 || rect.height <= 0) return ''
    const rows = source.rows(rect)
    const painted = this.#painted ?? []
    let out = ''
    for (let i = 0; i < rect.height; i++) {
      const row = rows[i] ?? ''
      if (painted[i] === row) continue
      out += `${moveTo(rect.top + i, rect.left)}${RESET}${ECH(rect.width)}${row}${RESET}`
    }
    this.#painted = rows.slice(0, rect.height)
    return out ? `${SAVE_CURSOR}${out}${RESTORE_CURSOR}` : ''
  }

  #emit(sequences: string): void {
    this.#write(`${BSU}${sequences}${ESU}`)
  }

  #cancelTimer(): void {
    if (this.#timer) clearTimeout(this.#timer)
    this.#timer = null
    if (this.#settleTimer) clearTimeout(this.#settleTimer)
    this.#settleTimer = null
  }
}

function sameRect(a: Rect, b: Rect): boolean {
  return a.top === b.top && a.left === b.left && a.width === b.width && a.height === b.height
}

/** Blanks every cell of `rect`. */
function eraseCells(rect: Rect): string {
  let out = RESET
  for (let row = rect.top; row < rect.top + rect.height; row++)
    out += moveTo(row, rect.left) + ECH(rect.width)
  return out
}

/** Blanks the cells of `before` that `now` does not cover (all of them when `now` is null). */
function erasedDifference(before: Rect, now: Rect | null): string {
  let out = ''
  for (let row = before.top; row < before.top + before.height; row++) {
    const covered = now !== null && row >= now.top && row < now.top + now.height
    if (!covered || now.left > before.left) {
      out += moveTo(row, before.left) + ECH(before.width)
      continue
    }
    const right = before.left + before.width
    const coveredRight = now.left + now.width
    if (coveredRight < right) out += moveTo(row, coveredRight) + ECH(right - coveredRight)
  }
  return out ? RESET + out : ''
}
