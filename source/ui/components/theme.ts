import chalk, { Chalk, type ChalkInstance } from 'chalk'
import type { Mode } from '../../store/domain.js'
import type { NoticeLevel, ToolStatus } from '../../store/state.js'
import {
  type Color,
  type ColorLevel,
  type ColorPair,
  PALETTES,
  type Palette,
  resolvePalette,
} from './palette.js'

/**
 * How a mode badge looks; the fields map one-to-one onto Ink `<Text>` props
 * (`<Text color={b.color} backgroundColor={b.backgroundColor} bold={b.bold}>`, inverse without a
 * background). Colours come from the palette (`palette.ts`).
 */
export interface ModeBadge {
  label: string
  color: Color
  backgroundColor?: Color
  bold: boolean
}

const MODE_LABELS: Readonly<Record<Mode, string>> = Object.freeze({
  safe: 'SAFE',
  auto: 'AUTO',
  plan: 'PLAN',
  dangerous: 'DANGEROUS',
  ci: 'CI',
})

/** Mode badges (docs/tui.md#layout) — each mode its own colour; DANGEROUS is the only one on a background. */
export function modeBadge(mode: Mode, palette: Palette = PALETTES.dark): ModeBadge {
  return { label: MODE_LABELS[mode], bold: true, ...palette.mode[mode] }
}

/** A styling function: returns its input wrapped in ANSI codes (or unchanged at colour level 0). */
export type Style = (text: string) => string

/** Style functions for pre-rendered transcript lines (which bypass Ink's own `<Text color>`). */
export interface Theme {
  /** The chalk instance every style below was built from; its level decides whether ANSI is emitted. */
  chalk: ChalkInstance
  /** The palette, resolved for the colour level: what Ink's `color` props of the panes take. */
  palette: Palette
  /** A foreground colour of the palette as a style (`dim` for the terminal's dim). */
  fg: (color: Color | undefined) => Style
  /** Text on its own background. */
  pair: (pair: ColorPair) => Style
  /** Transcript search highlights. */
  match: Style
  matchCurrent: Style
  busy: Style
  userMarker: Style
  userText: Style
  dim: Style
  bold: Style
  italic: Style
  reasoning: Style
  heading: (depth: number) => Style
  inlineCode: Style
  link: Style
  url: Style
  quote: Style
  gutter: Style
  rule: Style
  listMarker: Style
  tableBorder: Style
  notice: Record<NoticeLevel, Style>
  toolStatus: Record<ToolStatus, Style>
  toolName: Style
  diff: { added: Style; removed: Style; hunk: Style; meta: Style; lineNumber: Style }
  hint: Style
  /** highlight.js scope (without the `hljs-` prefix) → style; unknown scopes stay plain. */
  syntax: (scope: string) => Style | undefined
}

export interface ThemeOptions {
  /** 0 = no colour, 1 = 16 colours, 2 = 256, 3 = truecolor; omitted = detected from the terminal. */
  level?: ColorLevel
  /** Default: dark. */
  palette?: Palette
}

/** Builds the theme once at start-up (and in tests with an explicit level, so ANSI output is deterministic). */
export function createTheme(options: ThemeOptions = {}): Theme {
  const c = options.level === undefined ? chalk : new Chalk({ level: options.level })
  const p = resolvePalette(options.palette ?? PALETTES.dark, c.level)
  const plain: Style = (text) => text
  const fg = (color: Color | undefined): ChalkInstance | Style => colorStyle(c, color) ?? plain
  const k = (color: Color) => colorStyle(c, color) ?? c
  const s = p.syntax
  const syntax: Record<string, Style> = {
    keyword: fg(s.keyword),
    built_in: fg(s.type),
    type: fg(s.type),
    literal: fg(s.literal),
    number: fg(s.number),
    string: fg(s.string),
    regexp: fg(s.regexp),
    subst: plain,
    symbol: fg(s.symbol),
    class: fg(s.symbol),
    function: fg(s.function),
    title: fg(s.function),
    'title.class_': fg(s.symbol),
    'title.function_': fg(s.function),
    params: plain,
    comment: k(s.comment).italic,
    doctag: fg(s.comment),
    meta: fg(s.meta),
    attr: fg(s.type),
    attribute: fg(s.type),
    variable: fg(s.variable),
    'variable.language': fg(s.keyword),
    property: fg(s.type),
    tag: fg(s.tag),
    name: fg(s.tag),
    'selector-tag': fg(s.tag),
    'selector-class': fg(s.symbol),
    'selector-id': fg(s.symbol),
    'selector-pseudo': fg(s.keyword),
    section: k(s.section).bold,
    bullet: fg(s.symbol),
    emphasis: c.italic,
    strong: c.bold,
    link: k(p.link).underline,
    quote: k(p.muted).italic,
    addition: fg(p.diff.added),
    deletion: fg(p.diff.removed),
    operator: plain,
    punctuation: plain,
    'template-variable': fg(s.variable),
  }
  const faint = fg(p.faint)
  const pair = (colors: ColorPair): Style => {
    const style = colorStyle(c, colors.color) ?? c
    return backgroundStyle(style, colors.backgroundColor) ?? style
  }
  return {
    chalk: c,
    palette: p,
    fg,
    pair,
    match: pair(p.match),
    matchCurrent: pair(p.matchCurrent),
    busy: fg(p.busy),
    userMarker: k(p.accent).bold,
    userText: plain,
    dim: faint,
    bold: c.bold,
    italic: c.italic,
    reasoning: k(p.muted).italic,
    heading: (depth) =>
      depth <= 1
        ? (colorStyle(c.bold.underline, p.accent) ?? c.bold.underline)
        : depth === 2
          ? (colorStyle(c.bold, p.accent) ?? c.bold)
          : c.bold,
    inlineCode: fg(p.inlineCode),
    link: k(p.link).underline,
    url: faint,
    quote: k(p.muted).italic,
    gutter: faint,
    rule: faint,
    listMarker: fg(p.accent),
    tableBorder: faint,
    notice: { info: fg(p.muted), warn: fg(p.warn), error: fg(p.error) },
    toolStatus: {
      pending: fg(p.muted),
      running: fg(p.warn),
      done: fg(p.success),
      error: fg(p.error),
      denied: fg(p.special),
      cancelled: fg(p.muted),
    },
    toolName: c.bold,
    diff: {
      added: fg(p.diff.added),
      removed: fg(p.diff.removed),
      hunk: fg(p.diff.hunk),
      meta: c.bold,
      lineNumber: faint,
    },
    hint: pair(p.hint),
    syntax: (scope) => syntax[scope] ?? syntax[scope.split('.')[0] ?? scope],
  }
}

const ANSI256 = /^ansi256\((\d+)\)$/

/** A palette colour as a chalk style: a name, `#rrggbb`, `ansi256(n)` or `dim`; undefined: none. */
export function colorStyle(c: ChalkInstance, color: Color | undefined): ChalkInstance | undefined {
  if (!color) return undefined
  if (color === 'dim') return c.dim
  if (color.startsWith('#')) return c.hex(color)
  const n = ANSI256.exec(color)
  if (n) return c.ansi256(Number(n[1]))
  return (c as unknown as Record<string, ChalkInstance | undefined>)[color]
}

/** `style` on a palette colour's background. */
export function backgroundStyle(style: ChalkInstance, color: Color | undefined): ChalkInstance | undefined {
  if (!color) return undefined
  if (color.startsWith('#')) return style.bgHex(color)
  const n = ANSI256.exec(color)
  if (n) return style.bgAnsi256(Number(n[1]))
  return (style as unknown as Record<string, ChalkInstance | undefined>)[
    `bg${color[0]?.toUpperCase()}${color.slice(1)}`
  ]
}

/**
 * The theme at the terminal's detected colour level. Immutable; for callers that have no theme in hand
 * (e.g. a consent prompt rendering a diff). The app may still build its own with `createTheme`.
 */
export const defaultTheme: Theme = createTheme()
