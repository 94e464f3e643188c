import { PaintedRegion, type PaintedRegionOptions, type PaintHost } from './painted-region.js'

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
 */
export interface ScreenPainterOptions {
  /** The real terminal. */
  write(text: string): void
  now?: () => number
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
  #frames = 0
  #inFrame = false
  #suspended = false

  constructor(options: ScreenPainterOptions) {
    const now = options.now ?? (() => performance.now())
    this.#host = {
      write: (sequences) => options.write(`${BSU}${sequences}${ESU}`),
      now,
      frameCount: () => this.#frames,
      canPaint: () => !this.#suspended && !this.#inFrame,
      detached: (region) => this.#regions.delete(region),
    }
  }

  /** Ink frames written so far; a pane compares it across its commit to know if its frame is out. */
  get frameCount(): number {
    return this.#frames
  }

  /** A new region; it paints once attached, and leaves the screen (and this painter) when detached. */
  region(options: PaintedRegionOptions = {}): PaintedRegion {
    const region = new PaintedRegion(this.#host, options)
    this.#regions.add(region)
    return region
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
    for (const region of this.#regions) region.dispose()
    this.#regions.clear()
  }

  /** What actually goes to the terminal for one Ink write. */
  #onInkWrite(text: string): string {
    if (text.includes(ALT_SCREEN_OFF)) {
      this.#suspended = true
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
      let out = text
      for (const region of this.#regions) out += region.frameStart()
      return out
    }
    if (text === ESU && this.#inFrame) {
      this.#inFrame = false
      if (this.#suspended) return text
      let out = ''
      for (const region of this.#regions) out += region.frameEnd()
      return out + text
    }
    // An erase outside a frame (a resize, a suspend) may have hit our cells: the next frame repaints them.
    if (ERASES.test(text)) for (const region of this.#regions) region.forgetPainted()
    return text
  }
}
