import { existsSync, statSync } from 'node:fs'
import { homedir } from 'node:os'
import { isAbsolute, resolve } from 'node:path'

/** Pastes above either limit become a chip so a 2,000-line log does not flood the editor. */
export const PASTE_CHIP_MAX_LINES = 5
export const PASTE_CHIP_MAX_CHARS = 800

export function lineCount(text: string): number {
  let n = 1
  for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) n++
  return n
}

export function isLargePaste(text: string): boolean {
  return lineCount(text) > PASTE_CHIP_MAX_LINES || text.length > PASTE_CHIP_MAX_CHARS
}

export function pasteChip(n: number, text: string): string {
  return `[Pasted text #${n} +${lineCount(text)} lines]`
}

export function imageChip(n: number): string {
  return `[Image #${n}]`
}

const PASTE_CHIP = /\[Pasted text #(\d+) \+\d+ lines\]/g
const IMAGE_CHIP = /\[Image #(\d+)\]/g

/** Replaces paste chips with their content; chips whose content is unknown stay as typed. */
export function expandPasteChips(text: string, pastes: ReadonlyMap<number, string>): string {
  return text.replace(PASTE_CHIP, (chip, n: string) => pastes.get(Number(n)) ?? chip)
}

/** Image chip numbers in the order they appear (each once). */
export function imageChipNumbers(text: string): number[] {
  const seen = new Set<number>()
  for (const m of text.matchAll(IMAGE_CHIP)) seen.add(Number(m[1]))
  return [...seen]
}

const IMAGE_EXT = /\.(png|jpe?g|gif|webp)$/i

/**
 * Turns a pasted or dropped path into a file path when it names an existing image: terminals wrap
 * dropped paths in quotes, escape spaces with backslashes or send file:// URLs.
 */
export function imagePathFrom(raw: string, cwd: string): string | null {
  let text = raw.trim()
  if (!text || text.includes('\n')) return null
  if ((text.startsWith("'") && text.endsWith("'")) || (text.startsWith('"') && text.endsWith('"'))) {
    text = text.slice(1, -1)
  }
  if (text.startsWith('file://')) {
    try {
      text = decodeURIComponent(new URL(text).pathname)
    } catch {
      return null
    }
  }
  text = text.replace(/\\(.)/g, '$1')
  if (!IMAGE_EXT.test(text)) return null
  if (text === '~' || text.startsWith('~/')) text = homedir() + text.slice(1)
  const path = isAbsolute(text) ? text : resolve(cwd, text)
  try {
    return existsSync(path) && statSync(path).isFile() ? path : null
  } catch {
    return null
  }
}

/** Whitespace-separated tokens of typed text that name existing images (typed or dropped paths). */
export function findImagePaths(text: string, cwd: string): Array<{ token: string; path: string }> {
  const out: Array<{ token: string; path: string }> = []
  // A dropped path with escaped spaces ("my\ shot.png") is one token.
  for (const m of text.matchAll(/(?:\\ |[^\s])+/g)) {
    const path = imagePathFrom(m[0], cwd)
    if (path) out.push({ token: m[0], path })
  }
  return out
}
