/**
 * Paste and image chips as vim sees them: one unit, like one character (docs/tui.md#vim-mode). A chip's text
 * (`[Pasted text #2 +40 lines]`) only stands for its paste; editing part of it would send the broken text
 * instead of the paste. So motions and text objects read a *masked* copy of the text, where every chip's
 * characters are one private-use character (the same length, so offsets stay the same): word motions see a
 * chip as one word, `f` never finds a character inside one. Then cursors are snapped to a chip's start and
 * operator spans widened to whole chips, so no edit can leave half a chip.
 */
import { CHIP_PATTERN } from '../chip-pattern.js'

/** Chip characters in the masked text; neighbouring chips alternate, so each chip is one run. */
const CHIP_A = '\uE000'
const CHIP_B = '\uE001'

export function isChipChar(ch: string | undefined): boolean {
  return ch === CHIP_A || ch === CHIP_B
}

/** 0 for a character of the text, 1 or 2 for a chip's (so word motions can tell two chips side by side apart). */
export function chipClass(ch: string | undefined): 0 | 1 | 2 {
  return ch === CHIP_A ? 1 : ch === CHIP_B ? 2 : 0
}

/** The text with each chip's characters replaced by a chip character; the text itself when it has none. */
export function maskChips(text: string): string {
  if (!text.includes('[')) return text
  let k = 0
  return text.replace(new RegExp(CHIP_PATTERN, 'g'), (chip) =>
    (k++ % 2 === 0 ? CHIP_A : CHIP_B).repeat(chip.length),
  )
}

/** The chip at `i` in the masked text as [from, to), or null when `i` is not on one. */
export function chipAt(masked: string, i: number): { from: number; to: number } | null {
  const ch = masked[i]
  if (!isChipChar(ch)) return null
  let from = i
  let to = i + 1
  while (from > 0 && masked[from - 1] === ch) from--
  while (to < masked.length && masked[to] === ch) to++
  return { from, to }
}

/** Where normal mode's cursor sits for `i`: a chip's first character stands for the whole chip. */
export function snap(masked: string, i: number): number {
  return chipAt(masked, i)?.from ?? i
}

/** The unit after the one at `i`: past the whole chip when `i` is on one. */
export function nextUnit(masked: string, i: number): number {
  return chipAt(masked, i)?.to ?? i + 1
}

/** The start of the unit before `i`. */
export function prevUnit(masked: string, i: number): number {
  if (i <= 0) return 0
  return chipAt(masked, i - 1)?.from ?? i - 1
}

/** [from, to) grown to cover every chip it touches. */
export function widen<S extends { from: number; to: number }>(masked: string, span: S): S {
  if (span.to <= span.from) return span
  const from = chipAt(masked, span.from)?.from ?? span.from
  const to = chipAt(masked, span.to - 1)?.to ?? span.to
  return from === span.from && to === span.to ? span : { ...span, from, to }
}
