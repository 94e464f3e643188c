import wrapAnsi from 'wrap-ansi'
import type { ConsentDecision, ConsentPreview, ConsentRequest } from '../../../store/domain.js'
import { renderDiffLines } from '../../components/diff-lines.js'
import { fileChangeLines } from '../../components/file-changes.js'
import type { Theme } from '../../components/theme.js'
import { cleanText, TITLE } from '../../../util/display-text.js'
import { shortenPath } from '../status/format.js'

/** Where "always allow" rules are written (docs/permissions.md#answering-a-prompt). */
export const LOCAL_SETTINGS_PATH = '.agent-tui/settings.local.json'

/** The prompt's answers; `edits` is "allow all edits this session", `folder` "always allow" for the edited file's folder. */
export type ConsentChoice = 'once' | 'session' | 'always' | 'edits' | 'folder' | 'deny'

/**
 * The answers a request offers, in the order shown. A call no rule can allow (a protected write, a path
 * only known when it runs) gets only "allow once" and deny: a saved rule would do nothing. "All edits" is
 * offered for edits inside the workspace, and an edit's folder rule beside its file's.
 */
export function consentChoices(request: ConsentRequest): ConsentChoice[] {
  if (request.protectedWrite || request.noRule !== undefined) return ['once', 'deny']
  // "Allow" already allows it for the session.
  if (request.sessionGrant) return ['once', 'always', 'deny']
  return [
    'once',
    'session',
    'always',
    ...(request.sessionEditsRule ? (['edits'] as const) : []),
    ...(request.directoryRule ? (['folder'] as const) : []),
    'deny',
  ]
}

export function decisionFor(choice: ConsentChoice, note?: string): ConsentDecision {
  const withNote = note ? { note } : {}
  if (choice === 'edits') return { kind: 'session', scope: 'edits', ...withNote }
  if (choice === 'folder') return { kind: 'always', scope: 'directory', ...withNote }
  return { kind: choice, ...withNote }
}

/** The option's label; the "always" ones name the rule and where it is saved (dim, it may wrap). */
export function choiceLabel(
  choice: ConsentChoice,
  request: Pick<ConsentRequest, 'suggestedRule' | 'directoryRule' | 'noRule' | 'sessionGrant'>,
  theme?: Theme,
): string {
  const where = `(saved to ${LOCAL_SETTINGS_PATH})`
  const saved = theme ? theme.dim(where) : where
  switch (choice) {
    case 'once':
      if (request.sessionGrant) return '1 Allow (and for the rest of this session)'
      return request.noRule === undefined
        ? '1 Allow once'
        : '1 Allow once (no rule can allow it: it asks each time)'
    case 'session':
      return `2 Allow ${cleanText(request.suggestedRule, TITLE)} for this session`
    case 'always':
      return `3 Always allow ${cleanText(request.suggestedRule, TITLE)} ${saved}`
    case 'edits':
      return '4 Allow all edits in the workspace this session'
    case 'folder':
      return `d Always allow the folder: ${cleanText(request.directoryRule ?? '', TITLE)}`
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

/**
 * A call's summary without the tool's name in front ("Write a.txt" → "a.txt"): the header shows the name
 * once. What would hide or reorder part of it is shown in its place (`evil⟨U+202E⟩txt`).
 */
export function summaryAfterName(tool: string, summary: string): string {
  const oneLine = cleanText(summary.replace(/\s*\n\s*/g, ' '), TITLE).trim()
  if (!oneLine.startsWith(tool)) return oneLine
  const rest = oneLine.slice(tool.length)
  return /^(?::\s*|\s+|$)/.test(rest) ? rest.replace(/^:?\s*/, '') : oneLine
}

export function wrap(text: string, width: number): string[] {
  return wrapAnsi(text, Math.max(1, width), { hard: true, trim: false }).split('\n')
}

/** Preview lines rendered at most: a diff beyond this is summarised rather than laid out whole. */
export const PREVIEW_LINE_CAP = 2000

/**
 * The whole preview block as styled lines: the full command for Bash, a coloured diff for edits, the URL
 * for fetches, the JSON arguments otherwise. `previewWindow` picks what fits. Everything in it is what
 * the user judges: what would drive the terminal, reorder or hide text is shown, never dropped.
 */
export function previewLines(preview: ConsentPreview, width: number, theme: Theme): string[] {
  switch (preview.kind) {
    case 'command':
      return [
        ...commandLines(preview.command, theme).flatMap((line, i) =>
          wrap(`${i === 0 ? '$ ' : '  '}${line}`, width),
        ),
        theme.dim(`in ${shortenPath(cleanText(preview.cwd, TITLE), Math.max(10, width - 3))}`),
        ...(preview.background
          ? wrap(
              theme.notice.info('↻ runs in the background: a task that keeps running after this reply'),
              width,
            )
          : []),
        ...(preview.sandbox ? wrap(sandboxLine(preview.sandbox, theme), width) : []),
      ]
    case 'diff':
      return [
        theme.bold(cleanText(preview.path, TITLE)),
        ...renderDiffLines(preview.diff, width, { maxLines: PREVIEW_LINE_CAP, theme }),
      ]
    case 'diffs':
      return fileChangeLines(preview.files, width, { maxLines: PREVIEW_LINE_CAP, theme })
    case 'url': {
      const lines = wrap(theme.link(cleanText(preview.url, TITLE)), width)
      if (preview.address)
        lines.push(...wrap(theme.notice.warn(`⚠ ${cleanText(preview.address, TITLE)}`), width))
      return lines
    }
    case 'json':
      return cleanText(preview.text, { visible: true })
        .split('\n')
        .flatMap((line) => wrap(line, width))
    case 'none':
      return []
  }
}

/** Blank runs longer than this are shown as a count. */
const LONG_BLANKS = 16

/**
 * A command's lines as the prompt shows them: control characters as their visible pictures (`␍`, `␛`),
 * bidi and invisible characters as their code points (`⟨U+202E⟩`),
 * and runs of blank lines or of spaces as a count, so padding cannot push the part that matters below
 * the window (`echo ok` + 80 blank lines + `curl … | sh` would show as `echo ok` and "+81 more lines").
 */
export function commandLines(command: string, theme: Theme): string[] {
  const lines = cleanText(command, { visible: true })
    .replace(new RegExp(`[ \\t]{${LONG_BLANKS + 1},}`, 'g'), (run) =>
      theme.dim(`⟨${run.length} ${/\t/.test(run) ? 'blanks' : 'spaces'}⟩`),
    )
    .split('\n')
  const out: string[] = []
  let blank = 0
  const flush = () => {
    if (blank > 2) out.push(theme.dim(`⋮ ${blank} blank lines`))
    else for (let k = 0; k < blank; k++) out.push('')
    blank = 0
  }
  for (const line of lines) {
    if (line.trim() === '') {
      blank++
      continue
    }
    flush()
    out.push(line)
  }
  flush()
  return out
}

/**
 * At most `rows` lines of the preview starting at `top`. When it does not all fit, the last row says what
 * is left and how to see it: Ctrl+O opens the whole preview, where PgUp/PgDn scroll.
 */
export function previewWindow(
  lines: readonly string[],
  top: number,
  rows: number,
  expanded: boolean,
  theme: Theme,
): string[] {
  if (rows <= 0) return []
  if (lines.length <= rows) return [...lines]
  const body = Math.max(0, rows - 1)
  const start = Math.max(0, Math.min(top, lines.length - body))
  const shown = lines.slice(start, start + body)
  const below = lines.length - start - shown.length
  const note = expanded
    ? `lines ${start + 1}–${start + shown.length} of ${lines.length} · PgUp/PgDn scroll · Ctrl+O collapse`
    : `… +${below} more line${below === 1 ? '' : 's'} · Ctrl+O to see all`
  return [...shown, theme.dim(note)]
}

/** The largest `top` for a window of `rows` rows (the last row is the note). */
export function maxPreviewTop(total: number, rows: number): number {
  return total <= rows ? 0 : Math.max(0, total - Math.max(1, rows - 1))
}
