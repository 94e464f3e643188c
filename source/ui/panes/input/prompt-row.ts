import wrapAnsi from 'wrap-ansi'

/** The prompt's fixed text, shared by the input pane and the frame painted before Ink has loaded. */
export const PROMPT = '❯ '
export const PROMPT_HINT = 'Message · / commands · @ files · ! shell · ? keys'

/**
 * The rule above the prompt; while a turn runs it says what Enter and Esc do, and with messages queued
 * what becomes of them. With vim mode on, its mode (and a command being typed) at the right end, which a
 * long label gives way to.
 */
export function separator(width: number, busy: boolean, queued = 0, vim?: string): string {
  const rule = plainSeparator(width, busy, queued)
  if (!vim) return rule
  const tag = ` ${vim} ──`
  if (tag.length >= width) return tag.slice(0, width)
  const room = width - tag.length
  return rule.slice(0, room) + tag
}

/** vim mode's tag on the rule: `-- INSERT --`, or `-- NORMAL -- 2d` while `2d` waits for its motion. */
export function vimTag(mode: 'insert' | 'normal', pending: readonly string[] = []): string {
  const keys = pending.join('')
  return `-- ${mode === 'insert' ? 'INSERT' : 'NORMAL'} --${keys ? ` ${keys}` : ''}`
}

function plainSeparator(width: number, busy: boolean, queued: number): string {
  const label =
    queued > 0
      ? busy
        ? ` ${queued} queued for the next step · ↑ edits · Esc interrupts and returns ${queued === 1 ? 'it' : 'them'} `
        : ` ${queued} queued: sent before your next message · ↑ edits `
      : busy
        ? ' Enter queues your message · Esc interrupts '
        : ''
  return label + '─'.repeat(Math.max(0, width - label.length))
}

/** One queued message as a row above the prompt: its first line, and how many images go with it. */
export function queuedRow(text: string, images: number): string {
  const lines = text.split('\n')
  const first = lines[0] ?? ''
  const more = lines.length > 1 ? ` (+${lines.length - 1} lines)` : ''
  const pictures = images > 0 ? ` [${images} image${images === 1 ? '' : 's'}]` : ''
  return `  ⧗ ${first}${more}${pictures}`
}

/** Queued messages shown at most; the rest are counted on one more row. */
export const MAX_QUEUED_ROWS = 3

/** The message line above the prompt, wrapped (a path or a reason is never cut); at most three rows. */
export function flashRows(text: string, width: number): string[] {
  const rows = wrapAnsi(text, Math.max(1, width), { hard: true }).split('\n')
  return rows.length <= 3 ? rows : [...rows.slice(0, 2), rows.slice(2).join(' ')]
}
