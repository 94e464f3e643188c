/** Lines of the info overlays that slash commands open (/cost, /permissions, /memory). */
import type { MemoryFile, PermissionRulesView, RuleView } from '../../agent/commands.js'
import type { Mode } from '../../store/domain.js'
import type { State } from '../../store/state.js'
import { estimateCost, formatCost, formatTokens } from '../panes/status/format.js'
import type { CommandContext } from './command-context.js'

const LABEL = 17

export function costLines(ctx: CommandContext): string[] {
  const { usage } = ctx.getState()
  const row = (label: string, u: State['usage']['session']) =>
    `${label.padEnd(LABEL)}${formatTokens(u.input)} in (${formatTokens(u.cached)} cached) · ${formatTokens(u.output)} out` +
    (ctx.prices ? ` · ${formatCost(estimateCost(u, ctx.prices))}` : '')
  return [
    row('Session', usage.session),
    row('Last turn', usage.turn),
    ctx.prices
      ? 'Cost is an estimate from the configured prices.'
      : 'Prices for this model are unknown: tokens only.',
  ]
}

export function permissionLines(mode: Mode, rules: PermissionRulesView): string[] {
  const all = [...rules.allow, ...rules.ask, ...rules.deny]
  const width = Math.min(48, Math.max(0, ...all.map((r) => r.text.length)))
  const group = (label: string, list: RuleView[]): string[] =>
    list.length === 0
      ? [`${label.padEnd(LABEL)}(none)`]
      : list.map((r, i) => `${(i === 0 ? label : '').padEnd(LABEL)}${r.text.padEnd(width)}  ${r.source}`)
  return [
    `${'Mode'.padEnd(LABEL)}${mode.toUpperCase()}`,
    '',
    ...group('Deny', rules.deny),
    ...group('Ask', rules.ask),
    ...group('Allow', rules.allow),
    '',
    'Deny rules win over everything, then ask rules, then allow rules, then the mode.',
    `"Allow always" saves its rule to ${rules.savedTo}; edit the settings files to remove rules.`,
  ]
}

export function memoryLines(files: MemoryFile[]): string[] {
  const width = Math.max(0, ...files.map((f) => f.path.length))
  return [
    'Read into the system prompt when a session starts:',
    '',
    ...files.map(
      (f) =>
        `  ${f.path.padEnd(width)}  ${f.lines === null ? 'not there' : `${f.lines} line${f.lines === 1 ? '' : 's'}`}`,
    ),
    '',
    '/memory add <text> appends a line to .agent-tui/memory.md.',
    'Changes apply to sessions started afterwards: the prompt stays fixed within a session so it can be cached.',
  ]
}
