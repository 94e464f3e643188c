import type { HookEvent } from './types.js'

/**
 * Matchers as Claude Code reads them. Pure.
 *
 * - '' (or no matcher) and `*` match everything;
 * - names and `|`-separated names (`Bash`, `Edit|Write`) match exactly, case-sensitive;
 * - anything else is a regular expression searched in the value (`Notebook.*`, `mcp__.*__delete.*`),
 *   as Claude Code does: unanchored.
 */
export function matches(matcher: string, value: string): boolean {
  const m = matcher.trim()
  if (m === '' || m === '*') return true
  if (/^[A-Za-z0-9_|\s]+$/.test(m)) {
    return m
      .split('|')
      .map((name) => name.trim())
      .includes(value)
  }
  try {
    return new RegExp(m).test(value)
  } catch {
    return false
  }
}

/** Why a matcher can never match (an invalid regular expression), or null. */
export function matcherProblem(matcher: string): string | null {
  const m = matcher.trim()
  if (m === '' || m === '*' || /^[A-Za-z0-9_|\s]+$/.test(m)) return null
  try {
    new RegExp(m)
    return null
  } catch (err) {
    return `not a valid regular expression (${(err as Error).message})`
  }
}

/**
 * What an event's matcher is tested against, as in Claude Code: the tool's name for tool events, how a
 * session started or ended, what started a compaction, the kind of notification. Events without one
 * (UserPromptSubmit, Stop, SubagentStop) run every hook whatever its matcher says.
 */
export function matchTarget(event: HookEvent, input: Readonly<Record<string, unknown>>): string | null {
  const field =
    event === 'PreToolUse' || event === 'PostToolUse'
      ? 'tool_name'
      : event === 'SessionStart'
        ? 'source'
        : event === 'SessionEnd'
          ? 'reason'
          : event === 'PreCompact'
            ? 'trigger'
            : event === 'Notification'
              ? 'notification_type'
              : null
  if (field === null) return null
  const value = input[field]
  return typeof value === 'string' ? value : ''
}
