/**
 * `agent-tui doctor`'s findings and how they are printed (docs/troubleshooting.md#doctor): one line each
 * with ✓/✗ (or ! for what works less well, - for what was not checked), what was found, and the fix
 * under it. Pure.
 */

export type CheckStatus = 'ok' | 'warn' | 'fail' | 'skip'

export interface Check {
  /** Stable, for `--json` readers: `node`, `endpoint`, `tool-calls`… */
  id: string
  /** What was checked: "Node", "Endpoint", "Tool calls"… */
  title: string
  status: CheckStatus
  /** What was found, one line. */
  detail: string
  /** What to do about it, when something is wrong. */
  fix?: string
  /** More lines under it (the files found, the servers probed). */
  lines?: string[]
  /** A failure here means sessions cannot work: the exit code says so. */
  essential: boolean
}

const MARKS: Record<CheckStatus, string> = { ok: '✓', warn: '!', fail: '✗', skip: '-' }

/** 1 when an essential check failed, else 0. */
export function doctorExitCode(checks: readonly Check[]): number {
  return checks.some((c) => c.essential && c.status === 'fail') ? 1 : 0
}

/** `width`: the terminal's columns, to wrap long lines under their column (none: one line each). */
export function formatText(checks: readonly Check[], width?: number): string {
  const column = Math.max(...checks.map((c) => c.title.length)) + 4
  const indent = ' '.repeat(column)
  const out: string[] = []
  const put = (first: string, text: string) =>
    out.push(...wrap(text, width ? width - column : 0).map((l, i) => (i === 0 ? first : indent) + l))
  for (const check of checks) {
    put(`${MARKS[check.status]} ${check.title.padEnd(column - 2)}`, check.detail)
    for (const line of check.lines ?? []) put(indent, line)
    if (check.fix && check.status !== 'ok') put(indent, `→ ${check.fix}`)
  }
  const failed = checks.filter((c) => c.status === 'fail')
  const essential = failed.filter((c) => c.essential)
  out.push('')
  if (essential.length > 0)
    out.push(
      `${essential.length} essential check${essential.length === 1 ? '' : 's'} failed: ${essential.map((c) => c.title).join(', ')}`,
    )
  else if (failed.length > 0) out.push(`Sessions can work; ${failed.map((c) => c.title).join(', ')} failed`)
  else out.push('Everything agent-tui needs is in place')
  return `${out.join('\n')}\n`
}

export function formatJson(checks: readonly Check[]): string {
  return `${JSON.stringify({ ok: doctorExitCode(checks) === 0, checks }, null, 2)}\n`
}

/** Words of `text` in lines of at most `width` characters (0: one line); a longer word has its own line. */
function wrap(text: string, width: number): string[] {
  if (width < 20 || text.length <= width) return [text]
  const lines: string[] = []
  let line = ''
  for (const word of text.split(' ')) {
    if (line && line.length + 1 + word.length > width) {
      lines.push(line)
      line = word
    } else line = line ? `${line} ${word}` : word
  }
  if (line) lines.push(line)
  return lines
}
