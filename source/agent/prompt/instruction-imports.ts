import { dirname, isAbsolute, join, resolve } from 'node:path'

/**
 * `@path` imports in CLAUDE.md files, as Claude Code reads them (docs/context.md#imports): a word that
 * starts with `@` after the start of a line or a space names a file — relative to the importing file's
 * folder, `~/` for the home folder, or absolute. Not inside code spans or fenced code blocks. Pure.
 */

/** Claude Code's limit: an imported file may import others, five hops deep at most. */
export const MAX_IMPORT_DEPTH = 5

/** Punctuation that ends a sentence after an import (`see @README.md.`), not part of the name. */
const TRAILING = /[.,;:!?)\]}>'"`]+$/

/** The import paths of `text`, in order, each once, as written (without the `@`). */
export function findImports(text: string): string[] {
  const found: string[] = []
  const seen = new Set<string>()
  let fence: string | null = null
  for (const line of text.split('\n')) {
    const marker = /^ {0,3}(`{3,}|~{3,})/.exec(line)?.[1]
    if (fence !== null) {
      // A fence closes with the same character, at least as long as the opening one.
      if (marker && marker[0] === fence[0] && marker.length >= fence.length && line.trim() === marker)
        fence = null
      continue
    }
    if (marker) {
      fence = marker
      continue
    }
    // Indented code (four spaces or a tab) is code too.
    if (/^( {4}|\t)/.test(line)) continue
    for (const path of importsOfLine(withoutCodeSpans(line))) {
      if (seen.has(path)) continue
      seen.add(path)
      found.push(path)
    }
  }
  return found
}

function importsOfLine(line: string): string[] {
  const out: string[] = []
  // `\ ` keeps a space in a name, as Claude Code allows.
  for (const match of line.matchAll(/(?:^|\s)@((?:[^\s\\]|\\ )+)/g)) {
    const path = (match[1] ?? '').replace(/\\ /g, ' ').replace(TRAILING, '')
    // `@` alone, `@@`, or a path of punctuation only is no import.
    if (path === '' || path.startsWith('@') || !/[\w~]/.test(path)) continue
    out.push(path)
  }
  return out
}

/** The line with its code spans (`…`, ``…``) blanked out. */
function withoutCodeSpans(line: string): string {
  return line.replace(/(`+)[^`]*?\1/g, (span) => ' '.repeat(span.length))
}

/** Where an import points: `~/x` in `home`, `/x` as it is, anything else beside the importing file. */
export function resolveImport(path: string, importer: string, home: string): string {
  if (path === '~' || path.startsWith('~/')) return join(home, path.slice(1))
  if (isAbsolute(path)) return resolve(path)
  return resolve(dirname(importer), path)
}
