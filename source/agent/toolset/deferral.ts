/**
 * Which tool definitions go in every request and which wait to be found (docs/context.md#tools-on-demand).
 * Decided once, when a session's first request goes out: the request's `tools` stay byte-identical after
 * that. Pure.
 *
 * The core is always sent. The rest is sent too when it fits in the budget (a share of the window);
 * otherwise tools are deferred in steps until what is sent fits — first every MCP tool and the built-ins a
 * session rarely needs, then the web tools, then everything but the core — and the search and call tools
 * are sent in their place. A step that would send more bytes than sending everything is never taken.
 */

export type ToolTier = 'core' | 'common' | 'web' | 'rare' | 'mcp'

/** The built-ins by tier; MCP tools are `mcp`, any other built-in `common`. */
const TIERS: Readonly<Record<string, ToolTier>> = {
  Bash: 'core',
  Read: 'core',
  Edit: 'core',
  Write: 'core',
  Glob: 'core',
  Grep: 'core',
  TodoWrite: 'core',
  Agent: 'core',
  // Offered in place of Edit and Write (or beside them) to the models trained on it: their editing tool.
  apply_patch: 'core',
  // Its description is the list of skills (within 8 kB): deferred, the model would never learn of them.
  Skill: 'core',
  WebFetch: 'web',
  WebSearch: 'web',
  NotebookEdit: 'rare',
  Config: 'rare',
  ListMcpResources: 'rare',
  ReadMcpResource: 'rare',
  // Edit does what MultiEdit does in more calls: on a tight window it waits behind ToolSearch.
  MultiEdit: 'rare',
  DeleteFile: 'rare',
  SaveMemory: 'rare',
}

export function tierOf(name: string): ToolTier {
  if (name.startsWith('mcp__')) return 'mcp'
  return TIERS[name] ?? 'common'
}

/** `auto` follows the window; `always` defers everything but the core; `never` sends every definition. */
export type DeferMode = 'auto' | 'always' | 'never'
export const DEFER_MODES: readonly DeferMode[] = ['auto', 'always', 'never']

/** The share of the window the definitions beyond the core may take before tools are deferred. */
export const DEFER_SHARE = 0.1

/** The tiers deferred at each step; step 0 defers nothing. */
const STEPS: readonly (readonly ToolTier[])[] = [
  [],
  ['mcp', 'rare'],
  ['mcp', 'rare', 'web'],
  ['mcp', 'rare', 'web', 'common'],
]

export interface Candidate {
  name: string
  /** Bytes of its definition as sent (JSON). */
  bytes: number
  tier: ToolTier
}

export interface DeferralInput {
  /** The tools the session offers, in the order they are sent. */
  tools: readonly Candidate[]
  budgetBytes: number
  mode: DeferMode
  /** Bytes of the search and call tools' definitions when these are deferred (the catalog grows with them). */
  finderBytes(deferred: readonly Candidate[]): number
}

export interface DeferralDecision {
  /** 0 when nothing is deferred; 3 when only the core is sent. */
  step: number
  sent: string[]
  deferred: string[]
  /** Bytes of what is sent, the search and call tools included. */
  sentBytes: number
  deferredBytes: number
}

export function decideDeferral(input: DeferralInput): DeferralDecision {
  const { tools, budgetBytes } = input
  const sum = (list: readonly Candidate[]) => list.reduce((n, t) => n + t.bytes, 0)
  const everything = sum(tools)
  const at = (step: number): DeferralDecision & { beyondCore: number } => {
    const tiers = STEPS[step] ?? []
    const deferred = tools.filter((t) => tiers.includes(t.tier))
    const sent = tools.filter((t) => !tiers.includes(t.tier))
    const finder = deferred.length ? input.finderBytes(deferred) : 0
    return {
      step,
      sent: sent.map((t) => t.name),
      deferred: deferred.map((t) => t.name),
      sentBytes: sum(sent) + finder,
      deferredBytes: sum(deferred),
      beyondCore: sum(sent.filter((t) => t.tier !== 'core')) + finder,
    }
  }
  const none = strip(at(0))
  if (input.mode === 'never') return none
  const last = STEPS.length - 1
  if (input.mode === 'always') {
    const all = at(last)
    return all.deferred.length ? strip(all) : none
  }
  if (at(0).beyondCore <= budgetBytes) return none
  for (let step = 1; step <= last; step++) {
    const option = at(step)
    if (option.deferred.length === 0) continue
    if (option.beyondCore <= budgetBytes || step === last)
      return option.sentBytes < everything ? strip(option) : none
  }
  return none
}

function strip(d: DeferralDecision & { beyondCore?: number }): DeferralDecision {
  const { beyondCore: _beyondCore, ...decision } = d
  return decision
}
