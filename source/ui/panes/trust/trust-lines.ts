import wrapAnsi from 'wrap-ansi'
import type { TrustChoice, TrustRequest } from '../../../store/domain.js'

/** The trust prompt's choices and list layout, as plain functions (the dialog only renders them). */

export interface TrustOption {
  choice: TrustChoice
  label: string
}

export function trustOptions(request: TrustRequest): TrustOption[] {
  const options: TrustOption[] = [
    {
      choice: 'trust-folder',
      label: request.broad
        ? 'Trust this folder (only itself, not its subfolders)'
        : 'Trust this folder (remembered)',
    },
  ]
  if (request.parent !== null)
    options.push({ choice: 'trust-parent', label: `Trust the parent folder ${request.parent}` })
  options.push({ choice: 'distrust', label: "Don't trust this folder (remembered)" })
  options.push({
    choice: 'later',
    label:
      request.current === 'undecided'
        ? 'Decide later (untrusted for now; asked again next start)'
        : `Keep it as it is (${request.current === 'trusted' ? 'trusted' : 'not trusted'})`,
  })
  return options
}

/** The sentence above the list, by the answer in force. */
export function trustIntro(request: TrustRequest): string {
  if (request.groups.length === 0)
    return 'It brings nothing that needs trust: no project allow rules, settings, MCP servers, hooks, agents, commands or skills.'
  if (request.current === 'trusted') return 'Trusted. What its repository brings, all in force:'
  if (request.current === 'distrusted') return 'Not trusted. What its repository brings, all ignored:'
  return 'What its repository brings only applies once you trust the folder:'
}

/**
 * The list of what the folder brings in at most `rows` lines of `width` columns: a heading per kind with
 * one item a line (wrapped, never cut: an MCP server's whole command is what the user trusts) when that
 * fits, else one wrapped line per kind, else as many kinds as fit and a count of the rest.
 */
export function trustListLines(
  groups: TrustRequest['groups'],
  rows: number,
  width = Number.POSITIVE_INFINITY,
): string[] {
  if (rows <= 0 || groups.length === 0) return []
  const wrapped = (text: string, indent: string): string[] =>
    Number.isFinite(width)
      ? wrapAnsi(text, Math.max(10, width - indent.length), { hard: true, trim: false })
          .split('\n')
          .map((l, i) => (i === 0 ? l : `${indent}${l}`))
      : [text]
  const where = (g: TrustRequest['groups'][number]) => (g.files.length === 1 ? ` (${g.files[0]})` : '')
  const full = groups.flatMap((g) => [
    ...wrapped(`${g.title}${where(g)}:`, '  '),
    ...g.items.flatMap((item) => wrapped(`  ${item}`, '    ')),
  ])
  if (full.length <= rows) return full
  const compact = groups.map((g) => wrapped(`${g.title}${where(g)}: ${g.items.join(', ')}`, '  '))
  if (compact.flat().length <= rows) return compact.flat()
  const shown: string[] = []
  let kinds = 0
  for (const lines of compact) {
    if (shown.length + lines.length > rows - 1) break
    shown.push(...lines)
    kinds++
  }
  const rest = groups.slice(kinds).reduce((n, g) => n + g.items.length, 0)
  return [...shown, `… and ${rest} more (make the terminal taller, or see .agent-tui/ and .mcp.json)`]
}
