import type { State } from '../../store/state.js'

/** A fenced code block of an answer, in the order it appears. */
export interface CodeBlock {
  /** The fence's info string's first word (`ts`), or '' when it has none. */
  lang: string
  /** The block's lines without the fences, joined with `\n` (no trailing newline). */
  code: string
}

/**
 * The last answer: the assistant text of the most recent turn that has any (the text items after its user
 * message, joined by a blank line, without reasoning). Undefined when no turn has answered yet. Pure.
 */
export function lastAnswerText(state: State): string | undefined {
  const { order, items } = state.transcript
  let parts: string[] = []
  for (let i = order.length - 1; i >= 0; i--) {
    const item = items[order[i] ?? '']
    if (!item) continue
    if (item.kind === 'assistant' && item.text.trim() !== '') parts.unshift(item.text.trim())
    else if (item.kind === 'user') {
      if (parts.length > 0) break
      parts = []
    }
  }
  return parts.length > 0 ? parts.join('\n\n') : undefined
}

const FENCE = /^ {0,3}(`{3,}|~{3,})\s*([^\s`]*)/

/**
 * The fenced code blocks of Markdown text (CommonMark fences: three or more backticks or tildes, closed by
 * a fence of the same character at least as long; an unclosed block runs to the end). Pure.
 */
export function codeBlocks(markdown: string): CodeBlock[] {
  const blocks: CodeBlock[] = []
  let open: { char: string; length: number; lang: string; lines: string[] } | undefined
  for (const line of markdown.split('\n')) {
    const fence = FENCE.exec(line)
    if (open) {
      const closes =
        fence?.[1]?.[0] === open.char && fence[1].length >= open.length && line.trim() === fence[1]
      if (closes) {
        blocks.push({ lang: open.lang, code: open.lines.join('\n') })
        open = undefined
      } else open.lines.push(line)
    } else if (fence?.[1]) {
      open = { char: fence[1][0] ?? '`', length: fence[1].length, lang: fence[2] ?? '', lines: [] }
    }
  }
  if (open) blocks.push({ lang: open.lang, code: open.lines.join('\n') })
  return blocks
}
