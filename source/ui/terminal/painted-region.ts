/**
 * One rectangle of the screen painted straight to the terminal (see `ScreenPainter` for why and how it
 * coexists with Ink). It writes only the rows that changed; each paint saves and restores the cursor, so
 * Ink's relative cursor moves stay right, and uses ECH so cells beside the rectangle are never touched.
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
  /**
   * Its rows change with time (a spinner): they are brought up to date in every frame that goes out for
   * another reason, so while something else is drawing it needs no frames of its own.
   */
  followsFrames?: boolean
}

/** What a region needs from the screen painter that owns it. */
export interface PaintHost {
  /**
   * Blanks cells a detached region leaves: written at the start of the next frame (Ink's or the
   * painter's), before anything new can be drawn there.
   */
  erase(sequences: string): void
  /**
   * The region has something new to show: the painter collects it with every other region's in its next
   * paint (`takePaint`), at most one per frame interval; right away when `urgent`.
   */
  requestPaint(urgent: boolean): void
  frameCount(): number
  now(): number
  /** False inside an Ink frame and while Ink has left the alternate screen. */
  canPaint(): boolean
  detached(region: PaintedRegion): void
}

const ESC = '\x1b'
const SAVE_CURSOR = `${ESC}7`
const RESTORE_CURSOR = `${ESC}8`
const RESET = `${ESC}[0m`

/** Longer than Ink's throttle window at its 30 fps cap. */
const INK_FRAME_WAIT_MS = 50

const moveTo = (row: number, column: number) => `${ESC}[${row + 1};${column + 1}H`
/** ECH: blanks `n` cells from the cursor without moving it or touching cells beyond (the side panes). */
const ECH = (n: number) => `${ESC}[${n}X`

export class PaintedRegion {
  readonly #host: PaintHost
  #source: PaintSource | null = null
  /**
   * The rectangle as of the last frame Ink wrote: the only cells Ink believes blank. Between frames the
   * live layout may already differ (Ink throttles its writes), so painting follows this, never the layout.
   */
  #rect: Rect | null = null
  /** Rows as painted in `#rect`; null means unknown (repaint everything). */
  #painted: readonly string[] | null = null
  /** Changed since it was last painted: the painter's next paint includes it. */
  #dirty = false
  /** When a frame that went out for another reason last brought a `followsFrames` region up to date. */
  #carriedAt = Number.NEGATIVE_INFINITY
  /** After a mount that Ink has not drawn yet: see `attach`. */
  #settleTimer: NodeJS.Timeout | null = null

  constructor(host: PaintHost) {
    this.#host = host
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
      this.invalidate() // every row (nothing painted yet), with the painter's next frame
      return
    }
    // Ink writes nothing when its new frame equals the one on screen (a blank pane replacing nothing):
    // once a throttled frame would have arrived, what is on screen is the pane's frame.
    const frames = this.#host.frameCount()
    this.#cancelSettle()
    this.#settleTimer = setTimeout(() => {
      this.#settleTimer = null
      if (this.#source !== source || this.#host.frameCount() !== frames || this.#rect) return
      this.#rect = source.rect()
      this.invalidate() // every row (nothing painted yet), with the painter's next frame
    }, INK_FRAME_WAIT_MS)
  }

  /** Stops painting for good and blanks what was painted, before Ink draws whatever replaces the pane. */
  detach(): void {
    const rect = this.#rect
    const wasPainting = this.#source !== null
    this.dispose()
    if (wasPainting && rect && this.#host.canPaint())
      this.#host.erase(`${SAVE_CURSOR}${eraseCells(rect)}${RESTORE_CURSOR}`)
  }

  /**
   * The content changed: paint with the painter's next frame, or right away when `urgent` (a user's
   * scroll must answer at once).
   */
  invalidate(urgent = false): void {
    if (!this.#source || !this.#host.canPaint()) return
    this.#dirty = true
    this.#host.requestPaint(urgent)
  }

  /** The painter's frame: sequences for what changed since the last paint ('' when nothing did). */
  takePaint(): string {
    if (!this.#dirty) return ''
    this.#dirty = false
    return this.#source ? this.#rows() : ''
  }

  get followsFrames(): boolean {
    return this.#source?.followsFrames === true
  }

  /** Milliseconds since a frame drawn for another reason last brought this region up to date. */
  sinceCarried(): number {
    return this.#host.now() - this.#carriedAt
  }

  /**
   * A frame is going out for another region's sake: this one's rows, brought up to date with it (a
   * `followsFrames` region only).
   */
  takeCarried(): string {
    if (!this.followsFrames) return ''
    this.#dirty = false
    this.#carriedAt = this.#host.now()
    return this.#rows()
  }

  dispose(): void {
    this.#cancelSettle()
    this.#dirty = false
    this.#source = null
    this.#rect = null
    this.#painted = null
    this.#host.detached(this)
  }

  /** Ink left the alternate screen: nothing is painted until it is back. */
  suspend(): void {
    this.#cancelSettle()
    this.#dirty = false
  }

  /** What is on screen in the rectangle is unknown: the next paint writes every row. */
  forgetPainted(): void {
    this.#painted = null
  }

  /** At the start of an Ink frame: adopt the rectangle of that frame, blanking cells it no longer covers. */
  frameStart(): string {
    if (!this.#source) return ''
    const before = this.#rect
    const now = this.#source.rect()
    this.#rect = now
    if (!before || (now && sameRect(before, now))) return ''
    this.#painted = null
    const out = erasedDifference(before, now)
    return out ? `${SAVE_CURSOR}${out}${RESTORE_CURSOR}` : ''
  }

  /** At the end of an Ink frame: every row again, since Ink may have cleared the screen or shared a row. */
  frameEnd(): string {
    if (!this.#source) return ''
    this.#painted = null
    this.#cancelSettle()
    this.#dirty = false
    if (this.followsFrames) this.#carriedAt = this.#host.now()
    return this.#rows()
  }

  /** Sequences for the rows that differ from what is on screen, inside the frame's rectangle. */
  #rows(): string {
    const source = this.#source
    const rect = this.#rect
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

  #cancelSettle(): void {
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
