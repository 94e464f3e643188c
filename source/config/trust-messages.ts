import { type Contribution, describeContribution, summarizeContributions } from './project-contributions.js'
import type { TrustStatus } from './project-trust.js'

/**
 * The one notice that names everything an untrusted folder's repository asked for and did not get, and
 * the notices after the user answers. Plain text; the TUI shows it in the transcript, headless on stderr.
 */

export interface UntrustedNoticeInput {
  contributions: readonly Contribution[]
  status: TrustStatus
  /** Shown as the folder's name (`~/code/app`). */
  folder: string
  /** How to show a path (`~/…`). */
  display(path: string): string
  /** Real path of the folder, to tell an answer remembered for a parent. */
  realFolder?: string
  /** `~/.local/state/agent-tui/trusted-folders.json`, for "you chose not to trust it". */
  storeLabel: string
  headless: boolean
  /** Headless, whether `--trust-project` is there to name (not for `mcp serve`, which refuses it). Default true. */
  trustFlag?: boolean
}

/** Null when nothing was ignored (or the folder is trusted). */
export function untrustedNotice(input: UntrustedNoticeInput): string | null {
  const { contributions, status } = input
  if (status.trusted || contributions.length === 0) return null
  const refused = status.source === 'store' || status.source === 'session'
  const why =
    status.source === 'changed'
      ? `${input.folder} holds configuration that was not there, or not so, when ${status.entry && status.entry.path !== input.realFolder ? `${input.display(status.entry.path)} was trusted (this folder's trust comes from it)` : 'you trusted it'}: ${(status.changes ?? []).join('; ')}`
      : refused
        ? `you chose not to trust ${status.entry ? input.display(status.entry.path) : input.folder} (${input.storeLabel})`
        : `${input.folder} is not a trusted folder`
  if (input.headless) {
    return [
      `agent-tui: ${why}, so what its repository brings is ignored:`,
      ...contributions.map((c) => `  ${describeContribution(c)}`),
      input.trustFlag === false
        ? 'Deny and ask rules from it still apply. To use the rest, start agent-tui there (without -p) and'
        : 'Deny and ask rules from it still apply. To use the rest: --trust-project (this run), or start',
      input.trustFlag === false
        ? `trust the folder${status.source === 'changed' ? ' again' : ''} (remembered).`
        : `agent-tui here without -p and trust the folder${status.source === 'changed' ? ' again' : ''} (remembered).`,
    ].join('\n')
  }
  const items = summarizeContributions(contributions)
  const how = refused ? 'Use /trust to change that.' : 'Answer the trust prompt (or use /trust later).'
  if (status.source === 'changed')
    return `Untrusted because ${why}. Ignored until you trust it again: ${items}. Deny and ask rules from it still apply. ${how}`
  return `Ignored because ${why}: ${items}. Deny and ask rules from it still apply. ${how}`
}

export interface AnswerNoticeInput {
  status: TrustStatus
  folder: string
  /** The real path of the folder, to tell an answer remembered for a parent. */
  realFolder: string
  display(path: string): string
  /** Allow rules that apply now and did not before (or the reverse when trust was withdrawn). */
  rulesChanged: readonly string[]
  /** The repository's hooks, which come into force (or are withdrawn) at once. */
  hooksChanged?: readonly string[]
  /** The mode the answer switched to, if it did. */
  mode?: string
  /** What is loaded (or dropped) at once: commands, skills. */
  live?: readonly Contribution[]
  /** Everything else, which takes effect when agent-tui next starts here. */
  nextStart: readonly Contribution[]
}

/** What an answer to the trust prompt changed, now and from the next start. */
export function answerNotice(input: AnswerNoticeInput): string {
  const { status } = input
  const saved =
    status.source === 'store'
      ? status.entry && status.entry.path !== input.realFolder
        ? ` (remembered for ${input.display(status.entry.path)})`
        : ' (remembered)'
      : status.source === 'session'
        ? ' (this session only)'
        : ''
  const parts: string[] = []
  if (status.trusted) {
    parts.push(`Trusted ${input.folder}${saved}.`)
    if (input.rulesChanged.length > 0)
      parts.push(`Allow rules now in force: ${input.rulesChanged.join(', ')}.`)
    if (input.hooksChanged?.length) parts.push(`Hooks now in force: ${input.hooksChanged.join(', ')}.`)
    if (input.mode) parts.push(`Mode: ${input.mode.toUpperCase()}.`)
    if (input.live?.length) parts.push(`Now available: ${summarizeContributions(input.live)}.`)
    if (input.nextStart.length > 0)
      parts.push(`From the next start: ${summarizeContributions(input.nextStart)}.`)
    if (parts.length === 1) parts.push('Nothing changes for this session.')
  } else {
    parts.push(`Not trusting ${input.folder}${saved}.`)
    if (input.rulesChanged.length > 0) parts.push(`Allow rules withdrawn: ${input.rulesChanged.join(', ')}.`)
    if (input.hooksChanged?.length) parts.push(`Hooks withdrawn: ${input.hooksChanged.join(', ')}.`)
    if (input.mode) parts.push(`Mode: ${input.mode.toUpperCase()}.`)
    if (input.live?.length) parts.push(`No longer available: ${summarizeContributions(input.live)}.`)
    if (input.nextStart.length > 0) parts.push('The rest of what it brings is ignored from the next start.')
    if (parts.length === 1) parts.push('Nothing changes for this session.')
  }
  return parts.join(' ')
}
