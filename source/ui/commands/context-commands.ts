/**
 * `/compact`, `/pin`, `/unpin` and `/context` (docs/context.md), as plain functions the command table's entries call.
 */
import type { CompactionPreview, ContextReport } from '../../agent/runtime/commands.js'
import { findPinTarget, itemLabel, pinnedItems } from '../../store/pins.js'
import { formatTokens } from '../panes/status/format.js'
import type { CommandContext } from './command-context.js'
import { toolsReportLines } from './context-tools.js'

/** What these commands use of the command context. */
export type ContextCommandContext = Pick<
  CommandContext,
  'commands' | 'getState' | 'flash' | 'showInfo' | 'showConfirm'
>

const LABEL = 13
const row = (label: string, text: string) => `${label.padEnd(LABEL)}${text}`
const pct = (n: number, of: number) => (of > 0 ? Math.round((n / of) * 100) : 0)
const tk = (n: number) => `~${formatTokens(Math.round(n))}`
const LIMIT_SOURCES: Record<ContextReport['limitSource'], string> = {
  profile: 'model profile',
  endpoint: "the endpoint's model listing",
  settings: 'settings',
  'endpoint error': "the endpoint's overflow error",
}
const limitSource = (r: ContextReport) =>
  r.limitSource === 'endpoint' && r.limitDetail ? r.limitDetail : LIMIT_SOURCES[r.limitSource]

/** `/compact [focus]`: shows what would be summarised and kept; Enter runs it, Esc cancels. */
export async function compactCommand(ctx: ContextCommandContext, args: string): Promise<void> {
  if (ctx.getState().run.phase !== 'idle') {
    ctx.flash('The agent is working: press Esc to interrupt it, then /compact', 'warn')
    return
  }
  const focus = args.trim() || undefined
  const preview = await ctx.commands.compactionPreview(focus)
  if (!preview.ok) {
    ctx.flash(`Nothing to compact — ${preview.reason ?? 'the conversation is short'}`, 'info')
    return
  }
  ctx.showConfirm({
    title: 'Compact the conversation?',
    lines: compactionPreviewLines(preview),
    action: 'compact',
    onConfirm: () => {
      ctx.flash('Compacting…')
      ctx.commands.compact(focus).then(
        (done) =>
          ctx.flash(
            done
              ? 'Compacted: the model now sees a summary of the older history'
              : 'Compaction did not run — see the transcript',
            done ? 'info' : 'warn',
          ),
        (error: unknown) => ctx.flash(`/compact failed: ${String(error)}`, 'error'),
      )
    },
    onCancel: () => ctx.flash('Compaction cancelled; nothing changed'),
  })
}

export function compactionPreviewLines(p: CompactionPreview): string[] {
  const limit = p.contextLimit
  const s = p.summarise
  const k = p.keep
  const lines: string[] = []
  if (p.focus) lines.push(row('Focus', p.focus), '')
  lines.push(
    row(
      'Now',
      `${tk(p.tokensNow)} of ${formatTokens(limit)} tokens (${pct(p.tokensNow, limit)}%); automatic compaction at ${tk(p.triggerTokens)} (${pct(p.triggerTokens, limit)}%)`,
    ),
    '',
    row(
      'Summarise',
      `${s.messages} messages, ${tk(s.tokens)} tokens: ${s.user} from you, ${s.assistant} replies, ${s.tool} tool results`,
    ),
  )
  if (s.samples.length)
    lines.push(row('', `${s.samples.join(' · ')}${s.messages > s.samples.length ? ' · …' : ''}`))
  lines.push(
    row(
      'Keep',
      `the system prompt (${tk(k.systemTokens)}) and tool definitions (${tk(k.toolsTokens)}), unchanged`,
    ),
    row('', `the summary: at most ${tk(k.summaryBudget)} tokens`),
  )
  if (k.latestRequest) lines.push(row('', `your latest request, verbatim: ${k.latestRequest}`))
  if (k.pinned.length)
    lines.push(row('', `${k.pinned.length} pinned (${tk(k.pinnedTokens)}): ${k.pinned.join(' · ')}`))
  lines.push(
    row('', `the ${k.recentMessages} most recent messages (${tk(k.recentTokens)})`),
    '',
    row('After', `${tk(p.tokensAfter)} tokens (${pct(p.tokensAfter, limit)}%) at most`),
    ...(p.tokensAfter >= p.tokensNow
      ? [row('', 'little to gain yet: the summary may be as long as what it replaces')]
      : []),
    '',
    'The transcript keeps every message; only what the model is sent changes.',
  )
  return lines
}

/** `/context`: where the window goes — the next request by part, and the last request's figures. */
export function contextReportLines(r: ContextReport): string[] {
  const n = r.next
  const limit = r.contextLimit
  const part = (label: string, tokens: number, note = '') =>
    `  ${label.padEnd(LABEL - 2)}${tk(tokens).padStart(7)}  ${String(pct(tokens, limit)).padStart(3)}%${note ? `  ${note}` : ''}`
  const lines = [
    row('Model', `${r.model} · window ${formatTokens(limit)} tokens (${limitSource(r)})`),
    row(
      'Budget',
      `a request's prompt may take ${tk(r.budget.prompt)}; ${tk(r.budget.reply)} kept for the reply, ${tk(r.budget.margin)} margin for the estimate${r.budget.scale > 1.005 ? ` (the server counts ${Math.round((r.budget.scale - 1) * 100)}% more than estimated)` : ''}`,
    ),
    row(
      'Next request',
      `${tk(n.total)} tokens (${pct(n.total, limit)}%) · compacts at ${Math.round(r.compactAt * 100)}% · ${r.exact ? 'exact counts' : 'estimated counts'}`,
    ),
    part('system', n.system),
    part('tools', n.tools),
    part('history', n.history, n.summary > 0 ? `summary ${tk(n.summary)}` : ''),
    part('tool output', n.toolOutput),
    part('masked', n.masked, `${n.maskedResults} result${n.maskedResults === 1 ? '' : 's'} as placeholders`),
    part('pinned', n.pinned, `${n.pinnedItems} item${n.pinnedItems === 1 ? '' : 's'} kept verbatim`),
  ]
  const last = r.last
  if (last) {
    const reported =
      last.promptTokens !== null
        ? `${formatTokens(last.promptTokens)} prompt tokens, ${formatTokens(last.cachedTokens ?? 0)} cached (${pct(last.cachedTokens ?? 0, last.promptTokens)}%)`
        : `${tk(last.estimatedTokens)} prompt tokens (estimated: the endpoint reported no usage)`
    const saved = last.maskedBytesSaved + last.spilledBytesSaved
    lines.push(
      '',
      row('Last request', reported),
      row(
        '',
        `${kb(last.promptBytes)} sent; masking and spill kept out ${kb(saved)} (${tk(last.maskedTokensSaved + last.spilledTokensSaved)} tokens)`,
      ),
      row(
        '',
        `first ${kb(last.prefixBytes)} identical to the request before${last.appendOnly ? ' (it only appended)' : ''}`,
      ),
    )
  }
  if (r.tools) lines.push('', ...toolsReportLines(r.tools))
  lines.push(
    '',
    row(
      'Settings',
      `masking ${r.masking ? `on, last ${r.observationWindow} results whole` : 'off'} · ${r.compactions} compaction${r.compactions === 1 ? '' : 's'} so far`,
    ),
    '/compact [focus] summarises now · /pin keeps an item verbatim',
  )
  return lines
}

/** The endpoint and the extra headers sent to it (values redacted: a gateway key is a secret). */
export function endpointLines(baseUrl: string, headers: readonly string[]): string[] {
  return [
    row('Endpoint', baseUrl || '(none)'),
    ...(headers.length === 0
      ? [row('', 'no extra request headers')]
      : headers.map((h, i) => row(i === 0 ? 'Headers' : '', h))),
  ]
}

function kb(bytes: number): string {
  return bytes < 1024 ? `${bytes} B` : `${(bytes / 1024).toFixed(1)} kB`
}

/** `/pin [last|text]`: lists the pins, or pins the newest item that matches. */
export function pinCommand(ctx: ContextCommandContext, args: string): void {
  const state = ctx.getState()
  const query = args.trim()
  if (!query) {
    const pinned = pinnedItems(state)
    ctx.showInfo('Pinned', [
      ...(pinned.length
        ? pinned.map((item, i) => `${String(i + 1).padStart(3)}  ${itemLabel(item, 70)}`)
        : ['Nothing is pinned.']),
      '',
      'Pinned messages and tool results are kept verbatim by masking and compaction.',
      'Ctrl+P pins or unpins the last message or card on screen (scroll to pick).',
      '/pin last: the latest tool result · /pin <text>: the newest item with the text',
      '/unpin <n> · /unpin all',
    ])
    return
  }
  const target = findPinTarget(state, query)
  if (!target) {
    ctx.flash(
      query === 'last' ? 'No tool result to pin yet' : `Nothing in the transcript matches "${query}"`,
      'warn',
    )
    return
  }
  if (target.kind !== 'notice' && target.kind !== 'hook' && target.pinned) {
    ctx.flash(`Already pinned: ${itemLabel(target)}`)
    return
  }
  const why = ctx.commands.setPinned(target.id, true)
  ctx.flash(why ? `Cannot pin: ${why}` : `Pinned: ${itemLabel(target)}`, why ? 'warn' : 'info')
}

/** `/unpin <n|all|text>`. */
export function unpinCommand(ctx: ContextCommandContext, args: string): void {
  const pinned = pinnedItems(ctx.getState())
  const query = args.trim().toLowerCase()
  if (pinned.length === 0) {
    ctx.flash('Nothing is pinned')
    return
  }
  if (!query) {
    ctx.flash('Usage: /unpin <n> (as /pin lists them) or /unpin all', 'warn')
    return
  }
  const index = /^\d+$/.test(query) ? Number(query) - 1 : -1
  const targets =
    query === 'all'
      ? pinned
      : index >= 0
        ? pinned.slice(index, index + 1)
        : pinned.filter((item) => itemLabel(item, 500).toLowerCase().includes(query)).slice(-1)
  if (targets.length === 0) {
    ctx.flash(`No pinned item "${args.trim()}" — /pin lists them`, 'warn')
    return
  }
  for (const item of targets) ctx.commands.setPinned(item.id, false)
  ctx.flash(
    targets.length === 1
      ? `Unpinned: ${itemLabel(targets[0] as (typeof targets)[number])}`
      : `Unpinned ${targets.length} items`,
  )
}
