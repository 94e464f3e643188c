import wrapAnsi from 'wrap-ansi'
import type { ConsentDecision, ConsentPreview } from '../../../store/domain.js'
import { renderDiffLines } from '../../components/diff-lines.js'
import type { Theme } from '../../components/theme.js'
import { shortenPath } from '../status/format.js'

/** Where "always allow" rules are written (SPEC §2). */
export const LOCAL_SETTINGS_PATH = '.agent-tui/settings.local.json'

export type ConsentChoice = ConsentDecision['kind']

export const CONSENT_CHOICES: readonly ConsentChoice[] = ['once', 'session', 'always', 'deny']

export function choiceLabel(choice: ConsentChoice, rule: string): string {
  switch (choice) {
    case 'once':
      return '1 Allow once'
    case 'session':
      return '2 Allow for session'
    case 'always':
      return `3 Always allow: ${rule} (saved to ${LOCAL_SETTINGS_PATH})`
    case 'deny':
      return 'Esc Deny'
  }
}

/** Whether the command runs fenced: what the user is really allowing differs a lot. */
function sandboxLine(
  sandbox: NonNullable<Extract<ConsentPreview, { kind: 'command' }>['sandbox']>,
  theme: Theme,
): string {
  if (sandbox.status === 'unavailable')
    return theme.notice.warn('⚠ the sandbox is unavailable: this command runs unsandboxed')
  const network = sandbox.network ? 'network allowed' : 'no network'
  return theme.notice.info(`⛨ sandbox: writes only in workspace and /tmp; .git/ read-only; ${network}`)
}

function wrap(text: string, width: number): string[] {
  return wrapAnsi(text, Math.max(1, width), { hard: true, trim: false }).split('\n')
}

/**
 * The preview block as styled lines: the full command for Bash, a coloured diff for edits, the URL for
 * fetches, the JSON arguments otherwise. At most `maxLines` lines; the last says what was cut.
 */
export function previewLines(
  preview: ConsentPreview,
  width: number,
  maxLines: number,
  theme: Theme,
): string[] {
  if (maxLines <= 0) return []
  let lines: string[]
  switch (preview.kind) {
    case 'command':
      lines = [
        ...preview.command.split('\n').flatMap((line, i) => wrap(`${i === 0 ? '$ ' : '  '}${line}`, width)),
        theme.dim(`in ${shortenPath(preview.cwd, Math.max(10, width - 3))}`),
        ...(preview.sandbox ? wrap(sandboxLine(preview.sandbox, theme), width) : []),
      ]
      break
    case 'diff':
      lines = [
        theme.bold(preview.path),
        ...renderDiffLines(preview.diff, width, { maxLines: Math.max(1, maxLines - 1), theme }),
      ]
      break
    case 'url':
      lines = wrap(theme.link(preview.url), width)
      if (preview.address) lines.push(...wrap(theme.notice.warn(`⚠ ${preview.address}`), width))
      break
    case 'json':
      lines = preview.text.split('\n').flatMap((line) => wrap(line, width))
      break
    case 'none':
      return []
  }
  if (lines.length <= maxLines) return lines
  const rest = lines.length - maxLines + 1
  return [...lines.slice(0, maxLines - 1), theme.dim(`… +${rest} more line${rest === 1 ? '' : 's'}`)]
}
