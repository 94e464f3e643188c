import type { FileChange } from '../../store/domain.js'
import { cleanText, TITLE } from '../../util/display-text.js'
import { renderDiffLines } from './diff-lines.js'
import type { Theme } from './theme.js'

/**
 * A change to several files as terminal lines: per file a header (its path, what happens to it, its
 * line counts) and its coloured diff. At most `maxLines` lines in all; the last then says how much of
 * the diffs and how many files are left out. Pure.
 */
export function fileChangeLines(
  files: readonly FileChange[],
  width: number,
  opts: { maxLines: number; theme: Theme },
): string[] {
  const { theme } = opts
  const out: string[] = []
  for (let i = 0; i < files.length; i++) {
    const file = files[i] as FileChange
    const room = opts.maxLines - out.length
    // A header with no room for a line of its diff is not worth showing: say what is left instead.
    if (room < 2) {
      const rest = files.length - i
      out.length = Math.min(out.length, Math.max(0, opts.maxLines - 1))
      out.push(theme.dim(`… +${rest} more file${rest === 1 ? '' : 's'}`))
      return out
    }
    out.push(headerOf(file, theme))
    const diff =
      file.diff.trim() === '' ? [] : renderDiffLines(file.diff, width, { maxLines: room - 1, theme })
    if (diff.length === 0)
      out.push(theme.dim(file.change === 'deleted' ? '(empty file)' : '(no line changes)'))
    else out.push(...diff)
  }
  return out
}

function headerOf(file: FileChange, theme: Theme): string {
  const what =
    file.change === 'created'
      ? ' (new file)'
      : file.change === 'deleted'
        ? ' (deleted)'
        : file.movedFrom !== undefined
          ? ` (moved from ${cleanText(file.movedFrom, TITLE)})`
          : ''
  const stats = `${theme.diff.added(`+${file.added}`)} ${theme.diff.removed(`-${file.removed}`)}`
  return `${theme.bold(cleanText(file.path, TITLE))}${theme.dim(what)} ${stats}`
}
