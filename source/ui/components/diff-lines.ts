import stringWidth from 'string-width'
import wrapAnsi from 'wrap-ansi'
import { cleanText } from '../../util/display-text.js'
import { defaultTheme, type Style, type Theme } from './theme.js'

export interface DiffLinesOptions {
  /** Cap on returned lines; the last line then says how many diff lines were left out. */
  maxLines?: number
  /** Keep `---`/`+++`/`Index:`/`diff --git` file headers (off: the caller shows the path itself). */
  headers?: boolean
  /** Defaults to the terminal-detected theme. */
  theme?: Theme
}

const HUNK = /^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@/
const FILE_HEADER =
  /^(---|\+\+\+|Index: |={10,}|diff --git |index |new file mode|deleted file mode|similarity index|rename (from|to) )/

/**
 * Colours a unified diff for the terminal: added lines green, removed red, hunk headers cyan, with old/new
 * line numbers in a dim gutter. Long lines wrap under the gutter, so no line exceeds `width`. Pure.
 */
export function renderDiffLines(diff: string, width: number, opts: DiffLinesOptions = {}): string[] {
  const theme = opts.theme ?? defaultTheme
  const source = diff.replace(/\n$/, '').split('\n')
  const numberWidth = String(maxLineNumber(source)).length
  const gutterWidth = numberWidth + 1
  const contentWidth = Math.max(1, width - gutterWidth)
  const maxLines = opts.maxLines ?? Number.POSITIVE_INFINITY
  const out: string[] = []
  /** Source line index of each output line, to say how much an overflow cut left out. */
  const origin: number[] = []
  const emit = (lines: readonly string[], index: number) => {
    for (const line of lines) {
      out.push(line)
      origin.push(index)
    }
  }
  let oldLine = 0
  let newLine = 0
  // Lines still owed to the current hunk: outside a hunk `---`/`+++` are file headers, inside they are
  // removed/added lines that happen to start with dashes or pluses (SQL comments, Markdown rules).
  let oldLeft = 0
  let newLeft = 0
  for (let i = 0; i < source.length && out.length <= maxLines; i++) {
    // A file's own bytes, shown: what would drive the terminal or hide in it is made visible (␛, ⟨U+202E⟩).
    const line = cleanText((source[i] ?? '').replace(/\r$/, ''), { visible: true }).replaceAll('\t', '    ')
    const inHunk = oldLeft > 0 || newLeft > 0
    const hunk = inHunk ? null : HUNK.exec(line)
    if (hunk) {
      oldLine = Number(hunk[1])
      newLine = Number(hunk[3])
      oldLeft = Number(hunk[2] ?? 1)
      newLeft = Number(hunk[4] ?? 1)
      emit(wrapCode(theme.diff.hunk(line), width), i)
      continue
    }
    if (!inHunk && FILE_HEADER.test(line)) {
      if (opts.headers) emit(wrapCode(theme.diff.meta(line), width), i)
      continue
    }
    let number = ''
    let style: Style | undefined
    if (line.startsWith('+')) {
      style = theme.diff.added
      if (inHunk) {
        number = String(newLine++)
        newLeft--
      }
    } else if (line.startsWith('-')) {
      style = theme.diff.removed
      if (inHunk) {
        number = String(oldLine++)
        oldLeft--
      }
    } else if (line.startsWith('\\')) {
      style = theme.dim
    } else if (inHunk) {
      number = String(newLine++)
      oldLine++
      oldLeft--
      newLeft--
    }
    const pieces = wrapCode(line, contentWidth).map((piece, j) => {
      const gutter = j === 0 ? number.padStart(numberWidth) : ' '.repeat(numberWidth)
      return `${theme.diff.lineNumber(gutter)} ${style ? style(piece) : piece}`
    })
    emit(pieces, i)
  }
  if (out.length <= maxLines) return out
  // Keep `maxLines - 1` lines and spend the last one on saying what was left out.
  const keep = Math.max(0, maxLines - 1)
  const rest = source.length - (origin[keep] ?? 0)
  out.length = keep
  if (maxLines > 0) out.push(theme.dim(`… +${rest} more diff line${rest === 1 ? '' : 's'}`))
  return out
}

/** Character wrap (code spacing matters); an empty line stays one empty line. */
function wrapCode(line: string, width: number): string[] {
  if (line === '' || stringWidth(line) <= width) return [line]
  return wrapAnsi(line, Math.max(1, width), { hard: true, trim: false, wordWrap: false }).split('\n')
}

function maxLineNumber(lines: readonly string[]): number {
  let max = 1
  for (const line of lines) {
    const hunk = HUNK.exec(line)
    if (!hunk) continue
    const oldEnd = Number(hunk[1]) + Number(hunk[2] ?? 1)
    const newEnd = Number(hunk[3]) + Number(hunk[4] ?? 1)
    max = Math.max(max, oldEnd, newEnd)
  }
  return max
}
