import { describe, expect, it } from 'vitest'
import {
  ansi256Rgb,
  type Color,
  contrastRatio,
  hexToRgb,
  nearestAnsi256,
  PALETTES,
  type Palette,
  resolvePalette,
  type Rgb,
  THEME_NAMES,
  themeNameFor,
} from '../../../source/ui/components/palette.js'
import { createTheme } from '../../../source/ui/components/theme.js'

const WHITE: Rgb = [255, 255, 255]
const BLACK: Rgb = [0, 0, 0]

/** Every text colour of a palette (shown on the terminal's background), by its path. */
function textColors(p: Palette): Array<[string, Color]> {
  const out: Array<[string, Color]> = []
  const add = (path: string, c: Color | undefined) => {
    if (c !== undefined && c !== 'dim') out.push([path, c])
  }
  for (const key of [
    'text',
    'accent',
    'link',
    'muted',
    'faint',
    'success',
    'warn',
    'error',
    'special',
  ] as const)
    add(key, p[key])
  add('inlineCode', p.inlineCode)
  add('busy', p.busy)
  add('border', p.border)
  for (const [k, v] of Object.entries(p.diff)) add(`diff.${k}`, v)
  for (const [k, v] of Object.entries(p.syntax)) add(`syntax.${k}`, v)
  // A badge without a background is drawn inverse: the terminal's background is its text.
  for (const [k, v] of Object.entries(p.mode)) if (!v.backgroundColor) add(`mode.${k}`, v.color)
  return out
}

/** Text on its own background: badges with one, the hint and the search highlights. */
function pairs(p: Palette): Array<[string, Color, Color]> {
  const out: Array<[string, Color, Color]> = []
  for (const [k, v] of Object.entries(p.mode))
    if (v.backgroundColor) out.push([`mode.${k}`, v.color, v.backgroundColor])
  for (const key of ['hint', 'match', 'matchCurrent'] as const)
    out.push([key, p[key].color, p[key].backgroundColor])
  return out
}

const rgb = (c: Color) => hexToRgb(c)
const at256 = (c: Color) => ansi256Rgb(nearestAnsi256(hexToRgb(c)))

describe('light palette: readable on white (WCAG AA, 4.5:1)', () => {
  it.each(textColors(PALETTES.light))('%s %s', (_path, color) => {
    expect(color).toMatch(/^#[0-9a-f]{6}$/)
    expect(contrastRatio(rgb(color), WHITE)).toBeGreaterThanOrEqual(4.5)
    // The nearest 256-colour is the same colour: a 256-colour terminal shows exactly this.
    expect(at256(color)).toEqual(rgb(color))
  })
  it.each(pairs(PALETTES.light))('%s: %s on %s', (_path, fg, bg) => {
    expect(contrastRatio(rgb(fg), rgb(bg))).toBeGreaterThanOrEqual(4.5)
  })
  it('has no yellow or white text', () => {
    for (const [path, color] of textColors(PALETTES.light)) {
      const [r, g, b] = rgb(color)
      expect(r > 180 && g > 180 && b < 120, `${path} ${color} is yellow`).toBe(false)
      expect(Math.min(r, g, b) > 200, `${path} ${color} is white`).toBe(false)
    }
  })
})

describe('high-contrast palette: 4.5:1 on black and on white', () => {
  it.each(textColors(PALETTES['high-contrast']))('%s %s', (_path, color) => {
    expect(contrastRatio(rgb(color), WHITE)).toBeGreaterThanOrEqual(4.5)
    expect(contrastRatio(rgb(color), BLACK)).toBeGreaterThanOrEqual(4.5)
  })
  it.each(pairs(PALETTES['high-contrast']))('%s: %s on %s', (_path, fg, bg) => {
    expect(contrastRatio(rgb(fg), rgb(bg))).toBeGreaterThanOrEqual(4.5)
  })
  it('keeps AA at 256 colours, but for the orange (warn), which has no cube colour in the band', () => {
    for (const [path, color] of textColors(PALETTES['high-contrast'])) {
      const shown = at256(color)
      const floor = color === PALETTES['high-contrast'].warn ? 4.4 : 4.5
      expect(contrastRatio(shown, WHITE), path).toBeGreaterThanOrEqual(floor)
      expect(contrastRatio(shown, BLACK), path).toBeGreaterThanOrEqual(floor)
    }
  })
  it('uses no dim text (its contrast is the terminal’s guess)', () => {
    expect(PALETTES['high-contrast'].faint).not.toBe('dim')
  })
})

describe('contrast ratio', () => {
  it.each([
    [BLACK, WHITE, 21],
    [WHITE, WHITE, 1],
    [hexToRgb('#767676'), WHITE, 4.54],
  ])('%j vs %j = %d', (a, b, ratio) => {
    expect(contrastRatio(a, b)).toBeCloseTo(ratio, 2)
  })
})

describe('nearest 256-colour', () => {
  it.each([
    ['#000000', 16],
    ['#ffffff', 231],
    ['#00875f', 29],
    ['#767676', 243],
    // Chalk's own rounding would give #00af87 (36): the nearest is the cube's #00875f.
    ['#008a60', 29],
    ['#ad6200', 130],
  ])('%s → %d', (hex, index) => {
    expect(nearestAnsi256(hexToRgb(hex))).toBe(index)
  })
  it('resolves a palette for 256 colours, names and other levels untouched', () => {
    expect(resolvePalette(PALETTES.light, 2).accent).toBe('ansi256(24)')
    expect(resolvePalette(PALETTES.light, 3).accent).toBe('#005f87')
    expect(resolvePalette(PALETTES.dark, 2)).toEqual(PALETTES.dark)
    expect(resolvePalette(PALETTES.light, 2).name).toBe('light')
  })
})

describe('themeNameFor', () => {
  it.each([
    ['auto', undefined, 'dark'],
    ['auto', 'dark', 'dark'],
    ['auto', 'light', 'light'],
    ['dark', 'light', 'dark'],
    ['light', 'dark', 'light'],
    ['high-contrast', 'light', 'high-contrast'],
  ] as const)('%s with a %s background → %s', (setting, background, name) => {
    expect(themeNameFor(setting, background)).toBe(name)
  })
})

describe('createTheme from a palette', () => {
  it('dark at 16 colours is the original look, byte for byte', () => {
    const t = createTheme({ level: 1 })
    expect(t.userMarker('›')).toBe('\x1b[36m\x1b[1m›\x1b[22m\x1b[39m')
    expect(t.heading(1)('H')).toBe('\x1b[1m\x1b[4m\x1b[36mH\x1b[39m\x1b[24m\x1b[22m')
    expect(t.hint('x')).toBe('\x1b[30m\x1b[43mx\x1b[49m\x1b[39m')
    expect(t.dim('x')).toBe('\x1b[2mx\x1b[22m')
  })
  it.each(THEME_NAMES)('%s styles diff lines in its own colours at truecolor', (name) => {
    const t = createTheme({ level: 3, palette: PALETTES[name] })
    const added = PALETTES[name].diff.added
    if (added.startsWith('#')) {
      const [r, g, b] = hexToRgb(added)
      expect(t.diff.added('+x')).toBe(`\x1b[38;2;${r};${g};${b}m+x\x1b[39m`)
    } else expect(t.diff.added('+x')).toBe('\x1b[32m+x\x1b[39m')
  })
  it('light at 256 colours uses the exact cube colours', () => {
    const t = createTheme({ level: 2, palette: PALETTES.light })
    expect(t.diff.added('+x')).toBe('\x1b[38;5;28m+x\x1b[39m')
    expect(t.palette.accent).toBe('ansi256(24)')
  })
})
