/** Lines of the info overlays that slash commands open (/cost, /permissions, /hooks, /memory, /agents, /skills, /status). */
import type {
  AgentListing,
  HooksView,
  MemoryFile,
  PermissionRulesView,
  RuleView,
  StatusReport,
  SkillListing,
} from '../../agent/runtime/commands.js'
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
  const { subagents } = usage
  return [
    row('Session', usage.session),
    row('Last turn', usage.turn),
    ...(subagents.input + subagents.output > 0 ? [row('Of it subagents', subagents)] : []),
    ctx.prices
      ? 'Cost is an estimate from the configured prices.'
      : 'Prices for this model are unknown: tokens only.',
  ]
}

/**
 * A name and its text in two columns; a name too long for its column (a plugin's
 * `pr-review-toolkit:code-reviewer`) on a line of its own, the text below it in the column.
 */
function nameColumn(mark: string, name: string, width: number, text: string): string[] {
  if (name.length < width - 1) return [`${mark}${name.padEnd(width)}${text}`]
  return [`${mark}${name}`, `  ${''.padEnd(width)}${text}`]
}

export function agentLines(listing: AgentListing): string[] {
  const width = Math.min(24, Math.max(8, ...listing.agents.map((a) => a.name.length))) + 2
  const lines = [`${'Main session'.padEnd(LABEL)}runs as ${listing.current}`, '']
  for (const agent of listing.agents) {
    const mark = agent.name === listing.current ? '● ' : '  '
    lines.push(...nameColumn(mark, agent.name, width, agent.description))
    const details = [
      agent.mainOnly ? 'main session only' : agent.source,
      agent.file,
      `tools: ${agent.tools}`,
      agent.model ? `model ${agent.model}` : undefined,
      agent.maxTurns !== undefined ? `at most ${agent.maxTurns} turns` : undefined,
    ].filter(Boolean)
    lines.push(`  ${''.padEnd(width)}${details.join(' · ')}`)
  }
  if (listing.problems.length > 0) {
    lines.push('', 'Agent files with problems:')
    for (const p of listing.problems) {
      lines.push(
        `  ${p.file}: ${p.field ? `"${p.field}": ` : ''}${p.message}${p.skipped ? ' (agent not loaded)' : ''}`,
      )
    }
  }
  lines.push(
    '',
    '/agents <name> runs the main session as another agent: a new system prompt and tools, so the',
    "provider's prompt cache starts over. The model starts subagents with the Agent tool.",
    'Custom agents: .agent-tui/agents/*.md (this project, once trusted) and ~/.config/agent-tui/agents/*.md;',
    "Claude Code's .claude/agents/ and ~/.claude/agents/ (unless claudeDirs is off), and enabled plugins'.",
    '/status lists what was read from where.',
  )
  return lines
}

export function skillLines(listing: SkillListing): string[] {
  const width = Math.min(28, Math.max(8, ...listing.skills.map((s) => s.name.length))) + 2
  const lines: string[] = []
  if (listing.skills.length === 0) lines.push('No skills in this session.')
  for (const skill of listing.skills) {
    lines.push(...nameColumn('  ', skill.name, width, skill.description))
    lines.push(`  ${''.padEnd(width)}${skill.source} · ${skill.file} · /${skill.name} runs it`)
  }
  if (listing.problems.length > 0) {
    lines.push('', 'Skill files with problems:')
    for (const p of listing.problems) lines.push(`  ${p}`)
  }
  lines.push(
    '',
    `${listing.skills.length} skills. The agent loads one with the Skill tool when a task matches it; /<name> [arguments] runs one now.`,
    'Skills: .agent-tui/skills/<name>/SKILL.md (this project, once trusted) and ~/.config/agent-tui/skills/<name>/SKILL.md;',
    "Claude Code's .claude/skills/ and ~/.claude/skills/ (unless claudeDirs is off), and enabled plugins'.",
    '/status lists what was read from where.',
  )
  return lines
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

type ListedHook = HooksView['active'][number]

export function hookLines(view: HooksView): string[] {
  const all: ListedHook[] = [...view.active, ...view.inactive]
  if (all.length === 0 && view.warnings.length === 0) {
    return [
      'No hooks are configured.',
      '',
      'Add them under "hooks" in a settings file, in Claude Code\'s format:',
      '  "hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "…"}]}]}',
    ]
  }
  const matcher = (h: ListedHook) => (h.matcher === '' || h.matcher === '*' ? '(all)' : h.matcher)
  const width = Math.min(24, Math.max(5, ...all.map((h) => matcher(h).length)))
  // By file, each file once: a long command must not push its file off the line.
  const byFile = (hooks: readonly ListedHook[]) =>
    [...new Set(hooks.map((h) => h.file))].flatMap((file) => [
      `  ${file}`,
      ...hooks
        .filter((h) => h.file === file)
        .map((h) => {
          const timeout = h.timeoutSeconds === 60 ? '' : `  (timeout ${h.timeoutSeconds} s)`
          return `    ${h.event.padEnd(LABEL)}${matcher(h).padEnd(width)}  ${h.command}${timeout}`
        }),
    ])
  const out = [
    `In force (${view.active.length}):`,
    ...(view.active.length ? byFile(view.active) : ['  (none)']),
  ]
  for (const why of new Set(view.inactive.map((h) => h.why))) {
    out.push('', `Not in force — ${why}:`, ...byFile(view.inactive.filter((h) => h.why === why)))
  }
  if (view.warnings.length) out.push('', 'Not loaded:', ...view.warnings.map((w) => `  ${w}`))
  out.push(
    '',
    'Each hook gets the event as JSON on stdin; hooks of an event run in parallel.',
    'Exit 2 blocks (stderr is the reason); other failures are shown, not fatal.',
    'Edits to the settings files apply at the next start.',
  )
  return out
}

export function memoryLines(files: MemoryFile[]): string[] {
  const width = Math.max(0, ...files.map((f) => f.path.length))
  return [
    'Read into the system prompt when a session starts:',
    '',
    ...files.map(
      (f) =>
        `  ${f.path.padEnd(width)}  ${f.leftOut ? `left out: ${f.leftOut}` : f.lines === null ? 'not there' : `${f.lines} line${f.lines === 1 ? '' : 's'}`}`,
    ),
    '',
    '/memory add <text> appends a line to .agent-tui/memory.md.',
    'Changes apply to sessions started afterwards: the prompt stays fixed within a session so it can be cached.',
  ]
}

/** `/status`: what the session loaded from where; what is not in use is marked `–` and says why. */
export function statusLines(report: StatusReport): string[] {
  if (report.sections.length === 0) return ["Nothing was loaded from agent-tui's or Claude Code's places."]
  const lines: string[] = []
  for (const section of report.sections) {
    if (lines.length > 0) lines.push('')
    lines.push(`${section.title}:`)
    const width = Math.min(40, Math.max(0, ...section.entries.map((e) => e.what.length)))
    for (const entry of section.entries) {
      const mark = entry.skipped ? '–' : '✓'
      lines.push(`  ${mark} ${entry.what.padEnd(width)}${entry.note ? `  ${entry.note}` : ''}`)
    }
  }
  return lines
}
