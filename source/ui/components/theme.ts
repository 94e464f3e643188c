import chalk, { Chalk, type ChalkInstance, type ForegroundColorName } from 'chalk'
import type { Mode } from '../../store/domain.js'
import type { NoticeLevel, ToolStatus } from '../../store/state.js'

/** A colour as Ink's `<Text color>` / `backgroundColor` props accept it (a chalk colour name). */
export type ColorName = ForegroundColorName

/**
 * How a mode badge looks; the fields map one-to-one onto Ink `<Text>` props
 * (`<Text color={b.color} backgroundColor={b.backgroundColor} bold={b.bold}>`). Ink takes plain colour
 * names for backgrounds too ('red', not 'bgRed').
 */
export interface ModeBadge {
  label: string
  color: ColorName
  backgroundColor?: ColorName
  bold: boolean
}

/** Mode badges (docs/tui.md#layout) — each mode its own colour; DANGEROUS is the only one on a background. */
export const MODE_BADGES: Readonly<Record<Mode, ModeBadge>> = Object.freeze({
  safe: { label: 'SAFE', color: 'green', bold: true },
  auto: { label: 'AUTO', color: 'yellow', bold: true },
  plan: { label: 'PLAN', color: 'cyan', bold: true },
  dangerous: { label: 'DANGEROUS', color: 'whiteBright', backgroundColor: 'red', bold: true },
  ci: { label: 'CI', color: 'gray', bold: true },
})

/** Foreground colour names for Ink props, shared by every pane so the palette lives in one place. */
export const COLORS = Object.freeze({
  user: 'cyan',
  assistant: 'white',
  accent: 'blue',
  muted: 'gray',
  notice: { info: 'gray', warn: 'yellow', error: 'red' } satisfies Record<NoticeLevel, ForegroundColorName>,
  tool: {
    pending: 'gray',
    running: 'yellow',
    done: 'green',
    error: 'red',
    denied: 'magenta',
    cancelled: 'gray',
  } satisfies Record<ToolStatus, ForegroundColorName>,
} as const)

/** A styling function: returns its input wrapped in ANSI codes (or unchanged at colour level 0). */
export type Style = (text: string) => string

/** Style functions for pre-rendered transcript lines (which bypass Ink's own `<Text color>`). */
export interface Theme {
  /** The chalk instance every style below was built from; its level decides whether ANSI is emitted. */
  chalk: ChalkInstance
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
  level?: 0 | 1 | 2 | 3
}

/** Builds the theme once at start-up (and in tests with an explicit level, so ANSI output is deterministic). */
export function createTheme(options: ThemeOptions = {}): Theme {
  const c = options.level === undefined ? chalk : new Chalk({ level: options.level })
  const plain: Style = (text) => text
  const syntax: Record<string, Style> = {
    keyword: c.magenta,
    built_in: c.cyan,
    type: c.cyan,
    literal: c.blue,
    number: c.yellow,
    string: c.green,
    regexp: c.red,
    subst: plain,
    symbol: c.yellow,
    class: c.yellow,
    function: c.blue,
    title: c.blue,
    'title.class_': c.yellow,
    'title.function_': c.blue,
    params: plain,
    comment: c.gray.italic,
    doctag: c.gray,
    meta: c.gray,
    attr: c.cyan,
    attribute: c.cyan,
    variable: c.red,
    'variable.language': c.magenta,
    property: c.cyan,
    tag: c.red,
    name: c.red,
    'selector-tag': c.red,
    'selector-class': c.yellow,
    'selector-id': c.yellow,
    'selector-pseudo': c.magenta,
    section: c.blue.bold,
    bullet: c.yellow,
    emphasis: c.italic,
    strong: c.bold,
    link: c.blue.underline,
    quote: c.gray.italic,
    addition: c.green,
    deletion: c.red,
    operator: plain,
    punctuation: plain,
    'template-variable': c.red,
  }
  return {
    chalk: c,
    userMarker: c.cyan.bold,
    userText: plain,
    dim: c.dim,
    bold: c.bold,
    italic: c.italic,
    reasoning: c.gray.italic,
    heading: (depth) => (depth <= 1 ? c.bold.underline.cyan : depth === 2 ? c.bold.cyan : c.bold),
    inlineCode: c.yellow,
    link: c.blue.underline,
    url: c.dim,
    quote: c.gray.italic,
    gutter: c.dim,
    rule: c.dim,
    listMarker: c.cyan,
    tableBorder: c.dim,
    notice: { info: c.gray, warn: c.yellow, error: c.red },
    toolStatus: {
      pending: c.gray,
      running: c.yellow,
      done: c.green,
      error: c.red,
      denied: c.magenta,
      cancelled: c.gray,
    },
    toolName: c.bold,
    diff: { added: c.green, removed: c.red, hunk: c.cyan, meta: c.bold, lineNumber: c.dim },
    hint: c.black.bgYellow,
    syntax: (scope) => syntax[scope] ?? syntax[scope.split('.')[0] ?? scope],
  }
}

/**
 * The theme at the terminal's detected colour level. Immutable; for callers that have no theme in hand
 * (e.g. a consent prompt rendering a diff). The app may still build its own with `createTheme`.
 */
export const defaultTheme: Theme = createTheme()
