import { PassThrough } from 'node:stream'
import xtermHeadless from '@xterm/headless'
import { describe, expect, it, vi } from 'vitest'
import type { Rect } from '../../../source/ui/terminal/painted-region.js'
import { ScreenPainter } from '../../../source/ui/terminal/screen-painter.js'

const BSU = '\x1b[?2026h'
const ESU = '\x1b[?2026l'

/**
 * A painter writing into a real terminal emulator, next to a stand-in for Ink that writes whole lines
 * through the painter's stdout proxy (as Ink does: BSU, frame, ESU as separate writes).
 */
function setUp(cols = 40, rows = 8, now?: () => number) {
  const term = new xtermHeadless.Terminal({ cols, rows, allowProposedApi: true })
  const pending: Promise<void>[] = []
  const toTerminal = (text: string) => pending.push(new Promise<void>((resolve) => term.write(text, resolve)))
  const real = Object.assign(new PassThrough(), {
    isTTY: true,
    columns: cols,
    rows,
  }) as unknown as NodeJS.WriteStream
  real.write = ((chunk: string) => {
    toTerminal(chunk)
    return true
  }) as typeof real.write
  const writes: string[] = []
  const screenPainter = new ScreenPainter({
    write: (text) => {
      writes.push(text)
      toTerminal(text)
    },
    frameIntervalMs: 30,
    ...(now ? { now } : {}),
  })
  const painter = screenPainter.region()
  const ink = screenPainter.wrapStdout(real)
  let rect: Rect | null = { top: 1, left: 0, width: 20, height: 4 }
  let content = ['alpha', 'beta', 'gamma', 'delta']
  const source = {
    rect: () => rect,
    rows: (r: Rect) => Array.from({ length: r.height }, (_, i) => content[i] ?? ''),
  }
  /** Ink redraws the screen: `lines` are full rows, written from the top-left. */
  const inkFrame = (lines: string[]) => {
    ink.write(BSU)
    ink.write(`\x1b[H${lines.map((l) => `\x1b[2K${l}`).join('\r\n')}`)
    ink.write(ESU)
  }
  const screen = async () => {
    await Promise.all(pending)
    const buffer = term.buffer.active
    return Array.from({ length: rows }, (_, y) => buffer.getLine(y)?.translateToString(true) ?? '')
  }
  return {
    screenPainter,
    painter,
    source,
    ink,
    writes,
    inkFrame,
    screen,
    setRect: (r: Rect | null) => {
      rect = r
    },
    setContent: (c: string[]) => {
      content = c
    },
  }
}

describe('ScreenPainter and PaintedRegion', () => {
  it('paints the rows into the rectangle, leaving the cells beside it to Ink', async () => {
    const t = setUp()
    t.inkFrame(['status', `${' '.repeat(20)}| side`, `${' '.repeat(20)}| pane`])
    t.painter.attach(t.source, true)
    // With the painter's next frame, not inside Ink's.
    await vi.waitFor(async () => expect((await t.screen())[1]).toBe(`alpha${' '.repeat(15)}| side`))
    const screen = await t.screen()
    expect(screen[0]).toBe('status')
    expect(screen[2]).toBe(`beta${' '.repeat(16)}| pane`)
    expect(screen[4]).toBe('delta')
  })

  it('writes only the rows that changed, at most once per interval', async () => {
    const t = setUp()
    t.inkFrame(['status'])
    t.painter.attach(t.source, true)
    await vi.waitFor(() => expect(t.writes).toHaveLength(1))
    t.writes.length = 0
    t.setContent(['alpha', 'BETA', 'gamma', 'delta'])
    t.painter.invalidate()
    t.setContent(['alpha', 'BETA!', 'gamma', 'delta'])
    t.painter.invalidate()
    expect(t.writes).toEqual([])
    await vi.waitFor(() => expect(t.writes.length).toBeGreaterThan(0))
    expect(t.writes).toHaveLength(1)
    expect(t.writes[0]).toContain('BETA!')
    expect(t.writes[0]).not.toContain('alpha')
    expect((await t.screen())[2]).toBe('BETA!')
  })

  it('repaints inside every Ink frame, since Ink may have erased the rows', async () => {
    const t = setUp()
    t.inkFrame(['status'])
    t.painter.attach(t.source, true)
    t.inkFrame(['status 2', '', '', '', '', ''])
    const screen = await t.screen()
    expect(screen[0]).toBe('status 2')
    expect(screen.slice(1, 5)).toEqual(['alpha', 'beta', 'gamma', 'delta'])
  })

  it('keeps to the rectangle of the last Ink frame until Ink draws the next one', async () => {
    const t = setUp()
    t.inkFrame(['status'])
    t.painter.attach(t.source, true)
    // The layout moved a dialog over rows 3–4, but Ink has not written that frame yet.
    t.setRect({ top: 1, left: 0, width: 20, height: 2 })
    t.setContent(['one', 'two', 'three', 'four'])
    t.painter.invalidate(true)
    expect((await t.screen()).slice(1, 5)).toEqual(['one', 'two', 'three', 'four'])
    // Ink's frame arrives: the cells that left the rectangle are blanked before Ink draws there.
    t.ink.write(BSU)
    t.ink.write('\x1b[4;1Hdialog')
    t.ink.write(ESU)
    const screen = await t.screen()
    expect(screen.slice(1, 5)).toEqual(['one', 'two', 'dialog', ''])
  })

  it('blanks its rectangle when detached, and paints nothing while Ink has left the screen', async () => {
    const t = setUp()
    t.inkFrame(['status'])
    t.painter.attach(t.source, true)
    t.ink.write('\x1b[?1049l')
    t.writes.length = 0
    t.setContent(['hidden'])
    t.painter.invalidate(true)
    expect(t.writes).toEqual([])
    t.ink.write('\x1b[?1049h')
    t.inkFrame(['status'])
    expect((await t.screen())[1]).toBe('hidden')
    t.painter.detach()
    await vi.waitFor(async () => expect((await t.screen()).slice(1, 5)).toEqual(['', '', '', '']))
  })

  it("blanks a detached region's cells at the start of the next Ink frame, before Ink draws there", async () => {
    const t = setUp()
    t.inkFrame(['status'])
    t.painter.attach(t.source, true)
    await vi.waitFor(async () => expect((await t.screen())[1]).toBe('alpha'))
    t.writes.length = 0
    t.painter.detach()
    expect(t.writes).toEqual([])
    t.ink.write(BSU)
    t.ink.write('\x1b[3;1Hdialog')
    t.ink.write(ESU)
    expect((await t.screen()).slice(1, 5)).toEqual(['', 'dialog', '', ''])
  })

  it('waits for the Ink frame that shows the pane before painting a newly mounted one', async () => {
    const t = setUp()
    t.inkFrame(['help overlay', 'line', 'line', 'line', 'line'])
    t.painter.attach(t.source, false)
    expect((await t.screen())[1]).toBe('line')
    t.inkFrame(['status'])
    expect((await t.screen()).slice(1, 3)).toEqual(['alpha', 'beta'])
  })

  it('paints a newly mounted pane by itself when Ink has no new frame to write (its output was unchanged)', async () => {
    const t = setUp()
    t.inkFrame(['status'])
    t.painter.attach(t.source, false)
    expect((await t.screen())[1]).toBe('')
    await vi.waitFor(async () => expect((await t.screen())[1]).toBe('alpha'))
  })
})

describe('ScreenPainter with several regions', () => {
  it('paints each region on its own, and repaints all of them inside an Ink frame', async () => {
    const t = setUp()
    const spinner = t.screenPainter.region()
    let glyph = '⠋ thinking'
    spinner.attach({ rect: () => ({ top: 0, left: 25, width: 15, height: 1 }), rows: () => [glyph] }, false)
    t.inkFrame(['status'])
    t.painter.attach(t.source, true)
    await vi.waitFor(async () =>
      expect((await t.screen()).slice(0, 2)).toEqual([`status${' '.repeat(19)}⠋ thinking`, 'alpha']),
    )
    t.writes.length = 0
    glyph = '⠙ thinking'
    spinner.invalidate(true)
    expect(t.writes).toHaveLength(1)
    expect(t.writes[0]).toContain('⠙')
    expect(t.writes[0]).not.toContain('alpha')
    t.inkFrame(['status 2', '', ''])
    expect((await t.screen()).slice(0, 3)).toEqual([`status 2${' '.repeat(17)}⠙ thinking`, 'alpha', 'beta'])
    spinner.detach()
    await vi.waitFor(async () => expect((await t.screen())[0]).toBe('status 2'))
    t.inkFrame(['status 3'])
    expect((await t.screen()).slice(0, 2)).toEqual(['status 3', 'alpha'])
  })

  it('sends the changes of several regions as one frame, frames at least an interval apart', () => {
    vi.useFakeTimers()
    try {
      const t = setUp(40, 8, () => Date.now())
      const spinner = t.screenPainter.region()
      let glyph = '⠋'
      spinner.attach({ rect: () => ({ top: 0, left: 30, width: 5, height: 1 }), rows: () => [glyph] }, true)
      t.inkFrame(['status'])
      t.painter.attach(t.source, true)
      t.writes.length = 0
      const at: number[] = []
      const start = Date.now()
      const count = () => {
        while (at.length < t.writes.length) at.push(Date.now() - start)
      }
      // A reply streaming a change every 10 ms beside a spinner ticking every 120 ms, for 600 ms.
      for (let ms = 0; ms < 600; ms += 10) {
        t.setContent(['alpha', `beta ${ms}`, 'gamma', 'delta'])
        t.painter.invalidate()
        if (ms % 120 === 0) {
          glyph = glyph === '⠋' ? '⠙' : '⠋'
          spinner.invalidate()
        }
        vi.advanceTimersByTime(10)
        count()
      }
      vi.runAllTimers()
      count()
      const gaps = at.slice(1).map((time, i) => time - (at[i] as number))
      expect(Math.min(...gaps)).toBeGreaterThanOrEqual(30)
      expect(t.writes.length).toBeLessThanOrEqual(21)
      // The spinner's ticks rode along with the reply's frames.
      expect(
        t.writes.filter((w) => w.includes('⠙') || w.includes('⠋')).every((w) => w.includes('beta')),
      ).toBe(true)
      expect(t.writes.at(-1)).toContain('beta 590')
    } finally {
      vi.useRealTimers()
    }
  })

  it('brings a region that follows frames (the spinner) up to date in every frame another region sends', () => {
    vi.useFakeTimers()
    try {
      const t = setUp(40, 8, () => Date.now())
      const spinner = t.screenPainter.region()
      let glyph = '⠋'
      spinner.attach(
        { rect: () => ({ top: 0, left: 30, width: 5, height: 1 }), rows: () => [glyph], followsFrames: true },
        true,
      )
      t.inkFrame(['status'])
      expect(spinner.sinceCarried()).toBe(0)
      t.painter.attach(t.source, true)
      vi.advanceTimersByTime(100)
      t.writes.length = 0
      // The spinner changes, but asks for nothing: the reply's next frame carries it.
      glyph = '⠙'
      t.setContent(['alpha', 'beta 2', 'gamma', 'delta'])
      t.painter.invalidate()
      vi.advanceTimersByTime(40)
      expect(t.writes).toHaveLength(1)
      expect(t.writes[0]).toContain('beta 2')
      expect(t.writes[0]).toContain('⠙')
      expect(spinner.sinceCarried()).toBe(40)
      // Unchanged, it adds nothing to a frame.
      t.setContent(['alpha', 'beta 3', 'gamma', 'delta'])
      t.painter.invalidate()
      vi.advanceTimersByTime(40)
      expect(t.writes[1]).not.toContain('⠙')
      // On its own it still paints when asked, and that frame does not count as carried.
      glyph = '⠹'
      spinner.invalidate()
      vi.advanceTimersByTime(40)
      expect(t.writes).toHaveLength(3)
      expect(t.writes[2]).toContain('⠹')
      expect(t.writes[2]).not.toContain('beta')
      expect(spinner.sinceCarried()).toBe(80) // still the reply's last frame
    } finally {
      vi.useRealTimers()
    }
  })
})

describe('the last guard on what reaches the terminal', () => {
  it("takes out of Ink's frames and the regions' paints what agent-tui never writes itself", async () => {
    const out: string[] = []
    const real = Object.assign(new PassThrough(), {
      isTTY: true,
      columns: 40,
      rows: 8,
    }) as unknown as NodeJS.WriteStream
    real.write = ((chunk: string) => {
      out.push(chunk)
      return true
    }) as typeof real.write
    const screenPainter = new ScreenPainter({ write: (text) => out.push(text), frameIntervalMs: 1 })
    const region = screenPainter.region()
    const hostile = 'x\x1b]52;c;cm0gLXJmIH4=\x07y\u202ez\x9d8;;https://evil\x9cw\u200b!'
    const ink = screenPainter.wrapStdout(real)
    ink.write(BSU)
    ink.write(`\x1b[H\x1b[2K\x1b[32mstatus ${hostile}\x1b[39m`)
    ink.write(ESU)
    // A pane that forgot to clean its rows.
    region.attach({ rect: () => ({ top: 2, left: 0, width: 30, height: 1 }), rows: () => [hostile] }, true)
    await vi.waitFor(() => expect(out.join('')).toContain('xyzw!'))
    const all = out.join('')
    expect(all).toContain('\x1b[32mstatus xyzw!\x1b[39m')
    expect(all).not.toMatch(/\x1b\]|[\x80-\x9f\u202e\u200b]/)
  })
})
