/**
 * The colour palettes of the themes (docs/tui.md#themes), as data: every colour the UI shows comes from
 * the active palette, by role. `dark` is the original look, in the terminal's own 16 colours (so its
 * frames are byte for byte what they were); `light` and `high-contrast` use exact colours of the
 * 256-colour cube, chosen for contrast (test/ui/components/palette.test.ts holds the table):
 *
 * - `light`: at least 4.5:1 (WCAG AA) against white for every text colour — no yellow, no white.
 * - `high-contrast`: at least 4.5:1 against black *and* white, since it cannot know the background; no
 *   dim text (its contrast is the terminal's guess).
 *
 * Colours are chalk/Ink colour names or `#rrggbb`; `resolvePalette` turns them into what a terminal of a
 * given colour level shows.
 */
import { type Background, type Mode, THEME_SETTINGS, type ThemeSetting } from '../../store/domain.js'

export { THEME_SETTINGS, type Background, type ThemeSetting }
export type ThemeName = Exclude<ThemeSetting, 'auto'>
export const THEME_NAMES: readonly ThemeName[] = ['dark', 'light', 'high-contrast']

export function isThemeSetting(value: string): value is ThemeSetting {
  return (THEME_SETTINGS as readonly string[]).includes(value)
}

/** A chalk/Ink colour name ('cyan') or '#rrggbb' (or, once resolved for 256 colours, 'ansi256(n)'). */
export type Color = string

/** Text on its own background (badges, highlights): readable whatever the terminal's background. */
export interface ColorPair {
  color: Color
  backgroundColor: Color
}

/** A mode badge: on its own background, or (without one) drawn inverse in `color`. */
export interface BadgeColors {
  color: Color
  backgroundColor?: Color
}

export interface Palette {
  name: ThemeName
  /** Text that names a colour where others would leave the terminal's own (the model's name); undefined: none. */
  text: Color | undefined
  /** The prompt marker, focused titles, selections, headings, list markers, mentions. */
  accent: Color
  /** Links, the working directory, ports. */
  link: Color
  /** Hints, key lines, pending and cancelled work. */
  muted: Color
  /** Secondary text (counts, gutters, rules): the terminal's dim style, or a colour where dim is a guess. */
  faint: Color | 'dim'
  success: Color
  warn: Color
  error: Color
  /** Denied tools, background jobs, the consent title. */
  special: Color
  inlineCode: Color
  /** The busy spinner and its elapsed time. */
  busy: Color
  /** Pane borders that are not a warning or a focus. */
  border: Color
  mode: Record<Mode, BadgeColors>
  /** The "new output below" hint. */
  hint: ColorPair
  /** Transcript search: every match, and the one the cursor is on. */
  match: ColorPair
  matchCurrent: ColorPair
  diff: { added: Color; removed: Color; hunk: Color }
  syntax: {
    keyword: Color
    type: Color
    literal: Color
    number: Color
    string: Color
    regexp: Color
    symbol: Color
    function: Color
    comment: Color
    meta: Color
    variable: Color
    tag: Color
    section: Color
  }
}

const DARK: Palette = {
  name: 'dark',
  text: 'white',
  accent: 'cyan',
  link: 'blue',
  muted: 'gray',
  faint: 'dim',
  success: 'green',
  warn: 'yellow',
  error: 'red',
  special: 'magenta',
  inlineCode: 'yellow',
  busy: 'yellow',
  border: 'gray',
  mode: {
    safe: { color: 'green' },
    auto: { color: 'yellow' },
    plan: { color: 'cyan' },
    dangerous: { color: 'whiteBright', backgroundColor: 'red' },
    ci: { color: 'gray' },
  },
  hint: { color: 'black', backgroundColor: 'yellow' },
  match: { color: 'black', backgroundColor: 'yellow' },
  matchCurrent: { color: 'black', backgroundColor: 'cyan' },
  diff: { added: 'green', removed: 'red', hunk: 'cyan' },
  syntax: {
    keyword: 'magenta',
    type: 'cyan',
    literal: 'blue',
    number: 'yellow',
    string: 'green',
    regexp: 'red',
    symbol: 'yellow',
    function: 'blue',
    comment: 'gray',
    meta: 'gray',
    variable: 'red',
    tag: 'red',
    section: 'blue',
  },
}

// Colours of the 256-colour cube, so a 256-colour terminal shows exactly these (resolvePalette).
const LIGHT: Palette = {
  name: 'light',
  text: undefined,
  accent: '#005f87',
  link: '#005faf',
  muted: '#585858',
  faint: '#6c6c6c',
  success: '#008700',
  warn: '#af5f00',
  error: '#af0000',
  special: '#870087',
  inlineCode: '#875f00',
  busy: '#af5f00',
  border: '#6c6c6c',
  mode: {
    safe: { color: '#008700' },
    auto: { color: '#af5f00' },
    plan: { color: '#005f87' },
    dangerous: { color: '#ffffff', backgroundColor: '#af0000' },
    ci: { color: '#585858' },
  },
  hint: { color: '#000000', backgroundColor: '#ffd75f' },
  match: { color: '#000000', backgroundColor: '#ffd75f' },
  matchCurrent: { color: '#ffffff', backgroundColor: '#005faf' },
  diff: { added: '#008700', removed: '#af0000', hunk: '#005f87' },
  syntax: {
    keyword: '#870087',
    type: '#005f87',
    literal: '#005faf',
    number: '#875f00',
    string: '#005f00',
    regexp: '#af0000',
    symbol: '#875f00',
    function: '#005faf',
    comment: '#6c6c6c',
    meta: '#6c6c6c',
    variable: '#af0000',
    tag: '#af0000',
    section: '#005faf',
  },
}

// Luminance between 0.175 and 0.183: the narrow band at 4.5:1 or more from both black and white. Only a
// few hues reach it; `warn` is an exact orange (a 256-colour terminal shows the nearest, #af5f00).
const HIGH_CONTRAST: Palette = {
  name: 'high-contrast',
  text: undefined,
  accent: '#5f5fff',
  link: '#5f5fff',
  muted: '#767676',
  faint: '#767676',
  success: '#00875f',
  warn: '#ad6200',
  error: '#af5f5f',
  special: '#d700af',
  inlineCode: '#875fd7',
  busy: '#ad6200',
  border: '#767676',
  mode: {
    safe: { color: '#00875f' },
    auto: { color: '#ad6200' },
    plan: { color: '#5f5fff' },
    dangerous: { color: '#ffffff', backgroundColor: '#af0000' },
    ci: { color: '#767676' },
  },
  hint: { color: '#000000', backgroundColor: '#ffd700' },
  match: { color: '#000000', backgroundColor: '#ffff00' },
  matchCurrent: { color: '#ffffff', backgroundColor: '#0000d7' },
  diff: { added: '#00875f', removed: '#af5f5f', hunk: '#5f5fff' },
  syntax: {
    keyword: '#d700af',
    type: '#5f5fff',
    literal: '#5f5fff',
    number: '#ad6200',
    string: '#00875f',
    regexp: '#af5f5f',
    symbol: '#ad6200',
    function: '#5f5fff',
    comment: '#767676',
    meta: '#767676',
    variable: '#af5f5f',
    tag: '#af5f5f',
    section: '#5f5fff',
  },
}

export const PALETTES: Readonly<Record<ThemeName, Palette>> = Object.freeze({
  dark: DARK,
  light: LIGHT,
  'high-contrast': HIGH_CONTRAST,
})

/** The palette a setting picks: `auto` follows the background, dark when nothing said. */
export function themeNameFor(setting: ThemeSetting, background: Background | undefined): ThemeName {
  if (setting !== 'auto') return setting
  return background === 'light' ? 'light' : 'dark'
}

/** The colour level of a terminal: 0 none, 1 16 colours, 2 256, 3 truecolor. */
export type ColorLevel = 0 | 1 | 2 | 3

/**
 * The palette as a terminal of `level` shows it: at 256 colours a `#rrggbb` becomes the nearest colour of
 * the cube or the grey ramp (chalk's own conversion rounds each channel and can land far off, e.g.
 * #00875f → #00af87, which loses a third of its contrast on white); names and other levels stay.
 */
export function resolvePalette(palette: Palette, level: ColorLevel): Palette {
  if (level !== 2) return palette
  return mapColors(palette, toAnsi256Color)
}

function mapColors<T>(value: T, map: (color: Color) => Color): T {
  if (typeof value === 'string') return (value.startsWith('#') ? map(value) : value) as T
  if (value === undefined || value === null || typeof value !== 'object') return value
  const out: Record<string, unknown> = {}
  for (const [key, inner] of Object.entries(value)) out[key] = key === 'name' ? inner : mapColors(inner, map)
  return out as T
}

/** '#rrggbb' → 'ansi256(n)', the nearest of the 6×6×6 cube (16–231) and the grey ramp (232–255). */
export function toAnsi256Color(hex: Color): Color {
  return `ansi256(${nearestAnsi256(hexToRgb(hex))})`
}

const CUBE = [0, 95, 135, 175, 215, 255]

export function nearestAnsi256([r, g, b]: Rgb): number {
  const nearest = (c: number) =>
    CUBE.reduce((best, v, i) => (Math.abs(v - c) < Math.abs(CUBE[best]! - c) ? i : best), 0)
  const [ri, gi, bi] = [nearest(r), nearest(g), nearest(b)]
  const cube: Rgb = [CUBE[ri]!, CUBE[gi]!, CUBE[bi]!]
  const grayIndex = Math.max(0, Math.min(23, Math.round(((r + g + b) / 3 - 8) / 10)))
  const gray = 8 + 10 * grayIndex
  const distance = (c: Rgb) => (c[0] - r) ** 2 + (c[1] - g) ** 2 + (c[2] - b) ** 2
  return distance([gray, gray, gray]) < distance(cube) ? 232 + grayIndex : 16 + 36 * ri + 6 * gi + bi
}

/** The colour of a 256-colour index from 16 up (the cube and the grey ramp). */
export function ansi256Rgb(index: number): Rgb {
  if (index >= 232) {
    const v = 8 + 10 * (index - 232)
    return [v, v, v]
  }
  const i = index - 16
  return [CUBE[Math.floor(i / 36)]!, CUBE[Math.floor(i / 6) % 6]!, CUBE[i % 6]!]
}

export type Rgb = [number, number, number]

export function hexToRgb(hex: Color): Rgb {
  const n = Number.parseInt(hex.slice(1), 16)
  return [(n >> 16) & 255, (n >> 8) & 255, n & 255]
}

/** WCAG 2 relative luminance of an sRGB colour (0 black … 1 white). */
export function luminance([r, g, b]: Rgb): number {
  const lin = (c: number) => {
    const s = c / 255
    return s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4
  }
  return 0.2126 * lin(r) + 0.7152 * lin(g) + 0.0722 * lin(b)
}

/** WCAG 2 contrast ratio of two colours (1 … 21). */
export function contrastRatio(a: Rgb, b: Rgb): number {
  const [la, lb] = [luminance(a), luminance(b)]
  return (Math.max(la, lb) + 0.05) / (Math.min(la, lb) + 0.05)
}
