import { guardTerminalOutput } from '../../util/display-text.js'
import { PaintedRegion, type PaintHost } from './painted-region.js'

/**
 * Lets parts of the screen be painted straight to the terminal, beside Ink (see `PaintedRegion`).
 *
 * Why: Ink rebuilds its whole frame for every update — a cell grid of the full screen, ANSI tokenised per
 * cell — so a streaming reply that changes two rows, or a spinner that changes one cell, paid for all of
 * them. Inside a painted region Ink renders only blank cells and never has a reason to rewrite them.
 *
 * Coexisting with Ink: Ink's writes pass through `wrapStdout`. Ink frames are bracketed by synchronized
 * output (BSU … ESU). At BSU each region erases cells that just left its rectangle (Ink believes they are
 * blank); at ESU each repaints its whole rectangle, since Ink may have cleared the screen or rewritten a
 * line that shares rows with it. While Ink has left the alternate screen (an external editor, Ctrl+L)
 * nothing is painted.
 *
 * Frames: the regions' changes go out together, one synchronized update per frame interval at most (the
 * budget is 30 frames a second). An Ink frame repaints the regions too, so it counts as one. Only a user's
 * own action (scrolling) skips the wait. A region whose rows change with time (`followsFrames`: the
 * spinner) is brought up to date in every frame that goes out anyway, so beside a streaming reply it needs
 * no frames, nor wake-ups, of its own.
 */
export interface ScreenPainterOptions {
  /** The real terminal. */
  write(text: string): void
  now?: () => number
  /** Least time between two frames (ms). Default 33 (30 frames a second). */
  frameIntervalMs?: number
}

const ESC = '\x1b'
export const BSU = `${ESC}[?2026h`
export const ESU = `${ESC}[?2026l`
const ALT_SCREEN_ON = `${ESC}[?1049h`
const ALT_SCREEN_OFF = `${ESC}[?1049l`
/** Erase display / line (any variant): a write outside a frame containing one may have hit our cells. */
const ERASES = /\x1b\[[0-3]?[JK]/

export class ScreenPainter {
  readonly #host: PaintHost
  readonly #regions = new Set<PaintedRegion>()
  readonly #now: () => number
  readonly #frameIntervalMs: number
  readonly #write: (sequences: string) => void
  #frames = 0
  #inFrame = false
  #suspended = false
  #lastFrameAt = Number.NEGATIVE_INFINITY
  /** Erasures of detached regions, for the start of the next frame. */
  #erasures = ''
  /** Cancels the scheduled paint of the regions' changes, if any. */
  #cancelPaint: (() => void) | null = null

  constructor(options: ScreenPainterOptions) {
    this.#now = options.now ?? (() => performance.now())
    this.#frameIntervalMs = options.frameIntervalMs ?? 33
    this.#write = (sequences) => {
      this.#lastFrameAt = this.#now()
      options.write(`${BSU}${guardTerminalOutput(sequences)}${ESU}`)
    }
    this.#host = {
      erase: (sequences) => {
        this.#erasures += sequences
        this.#requestPaint(false)
      },
      requestPaint: (urgent) => this.#requestPaint(urgent),
      frameCount: () => this.#frames,
      now: () => this.#now(),
      canPaint: () => !this.#suspended && !this.#inFrame,
      detached: (region) => this.#regions.delete(region),
    }
  }

  /** Ink frames written so far; a pane compares it across its commit to know if its frame is out. */
  get frameCount(): number {
    return this.#frames
  }

  /** A new region; it paints once attached, and leaves the screen (and this painter) when detached. */
  region(): PaintedRegion {
    const region = new PaintedRegion(this.#host)
    this.#regions.add(region)
    return region
  }

  /**
   * Ink's output stream: the real one, with every write passing through `#onInkWrite`. Whatever goes out
   * (Ink's frames, the regions' paints) loses what agent-tui never writes itself (`guardTerminalOutput`:
   * OSC and other strings, C1 controls, bidi and invisible characters), whichever pane let it through.
   */
  wrapStdout<T extends NodeJS.WriteStream>(stdout: T): T {
    return new Proxy(stdout, {
      get: (target, property) => {
        if (property === 'write') {
          return (chunk: unknown, ...rest: unknown[]) => {
            const write = target.write as (...args: unknown[]) => boolean
            if (typeof chunk !== 'string') return write.call(target, chunk, ...rest)
            return write.call(target, guardTerminalOutput(this.#onInkWrite(chunk)), ...rest)
          }
        }
        const value = Reflect.get(target, property, target)
        return typeof value === 'function' ? value.bind(target) : value
      },
    })
  }

  dispose(): void {
    this.#stopPaint()
    this.#erasures = ''
    for (const region of this.#regions) region.dispose()
    this.#regions.clear()
  }

  #requestPaint(urgent: boolean): void {
    if (urgent) {
      this.#stopPaint()
      this.#paint()
      return
    }
    if (this.#cancelPaint) return
    const wait = Math.max(0, this.#lastFrameAt + this.#frameIntervalMs - this.#now())
    this.#cancelPaint = later(wait, () => {
      this.#cancelPaint = null
      this.#paint()
    })
  }

  /** One frame with every region's changes; regions that follow frames ride along with any other's. */
  #paint(): void {
    if (!this.#host.canPaint()) return
    let out = this.#takeErasures()
    for (const region of this.#regions) if (!region.followsFrames) out += region.takePaint()
    const carried = out !== ''
    for (const region of this.#regions)
      if (region.followsFrames) out += carried ? region.takeCarried() : region.takePaint()
    if (out) this.#write(out)
  }

  #takeErasures(): string {
    const out = this.#erasures
    this.#erasures = ''
    return out
  }

  #stopPaint(): void {
    this.#cancelPaint?.()
    this.#cancelPaint = null
  }

  /** What actually goes to the terminal for one Ink write. */
  #onInkWrite(text: string): string {
    if (text.includes(ALT_SCREEN_OFF)) {
      this.#suspended = true
      this.#stopPaint()
      // Leaving the alternate screen takes everything painted with it.
      this.#erasures = ''
      for (const region of this.#regions) region.suspend()
      return text
    }
    if (text.includes(ALT_SCREEN_ON)) {
      this.#suspended = false
      for (const region of this.#regions) region.forgetPainted()
      return text
    }
    if (text === BSU) {
      this.#inFrame = true
      this.#frames++
      if (this.#suspended) return text
      let out = text + this.#takeErasures()
      for (const region of this.#regions) out += region.frameStart()
      return out
    }
    if (text === ESU && this.#inFrame) {
      this.#inFrame = false
      if (this.#suspended) return text
      // Every region is repainted in this frame: a paint scheduled for their changes has nothing left.
      this.#stopPaint()
      this.#lastFrameAt = this.#now()
      let out = ''
      for (const region of this.#regions) out += region.frameEnd()
      return out + text
    }
    // An erase outside a frame (a resize, a suspend) may have hit our cells: the next frame repaints them.
    if (ERASES.test(text)) for (const region of this.#regions) region.forgetPainted()
    return text
  }
}

/**
 * Runs `fn` after `ms`; with no wait, once the current burst of updates is done but in the same turn of the
 * event loop: a 0 ms timer would wake the process once more, and a wake-up costs more than a paint.
 */
function later(ms: number, fn: () => void): () => void {
  if (ms > 0) {
    const timer = setTimeout(fn, ms)
    return () => clearTimeout(timer)
  }
  const immediate = setImmediate(fn)
  return () => clearImmediate(immediate)
}
