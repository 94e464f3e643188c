import type { ToolDefinition } from '../../store/messages.js'
import type { AnyTool } from '../../tools/types.js'
import { buildToolDefinitions, type DefinitionBuilder, parametersOf } from '../prompt/tool-definitions.js'
import { type CatalogForm, catalogText } from './catalog-text.js'
import { DEFER_SHARE, type DeferMode, decideDeferral, tierOf } from './deferral.js'
import { createCallTool, createToolSearchTool, type FoundTool } from './finder-tools.js'
import type { ToolMask } from './mask.js'

/**
 * A session's tool definitions as one plan: what the mask leaves out, what is sent with every request,
 * what waits behind ToolSearch and CallTool, and the bytes of each (docs/context.md#tools-on-demand).
 */

/** Share of the window the catalog of tools on demand may take (at least CATALOG_MIN bytes). */
const CATALOG_SHARE = 0.02
const CATALOG_MIN = 512
/** Share of the window one ToolSearch result's definitions may take (the best match always comes whole). */
const RESULT_SHARE = 0.05
const RESULT_MIN = 2048

export interface Toolset {
  /** Sent with every request, in this order. */
  definitions: ToolDefinition[]
  /** What plan mode lets the model call (`tool_choice` allowed_tools). */
  planNames: string[]
  mask: ToolMask
  /** ToolSearch and CallTool by name, when they are sent. */
  finders?: ReadonlyMap<string, AnyTool>
  sent: Array<{ name: string; bytes: number }>
  deferred: Array<{ name: string; bytes: number }>
  masked: Array<{ name: string; reason: string }>
  /** 0: nothing deferred … 3: only the core sent (deferral.ts). */
  step: number
  budgetBytes: number
  catalogForm?: CatalogForm
}

/** `/context`'s view of it. */
export interface ToolsReport {
  sent: Array<{ name: string; bytes: number }>
  deferred: Array<{ name: string; bytes: number }>
  masked: Array<{ name: string; reason: string }>
  step: number
  budgetBytes: number
  catalogForm?: CatalogForm
  /** The definitions are fixed (the first request went out); before that, what they would be now. */
  fixed: boolean
}

export interface PlanInput {
  /** Every tool the session has, in catalog order, MCP tools last. */
  offered: readonly AnyTool[]
  mask: ToolMask
  definitions: DefinitionBuilder
  /** The window in characters (tokens × the profile's characters per token). */
  windowBytes: number
  mode: DeferMode
  /** MCP servers are still starting: send the finders anyway, so their tools can be found when they come. */
  lateServers: boolean
  /** What ToolSearch searches when it is called. */
  corpus(): AnyTool[]
}

export function planToolset(input: PlanInput): Toolset {
  const { mask, windowBytes } = input
  const tools = input.offered.filter((t) => mask.allows(t.name))
  const masked = input.offered
    .filter((t) => !mask.allows(t.name))
    .map((t) => ({ name: t.name, reason: mask.reason(t.name) ?? '' }))
  const definitions = input.definitions(tools)
  const sizes = tools.map((t, i) => ({
    name: t.name,
    bytes: jsonBytes(definitions[i]),
    tier: tierOf(t.name),
  }))
  const budgetBytes = Math.round(windowBytes * DEFER_SHARE)
  const catalogBudget = Math.max(CATALOG_MIN, Math.round(windowBytes * CATALOG_SHARE))
  const resultBytes = Math.max(RESULT_MIN, Math.round(windowBytes * RESULT_SHARE))
  const byName = new Map(tools.map((t) => [t.name, t]))
  const sentNames = new Set<string>()
  // Through the session's builder: each schema is converted once, not at every search.
  const found = (): FoundTool[] => {
    const corpus = input.corpus()
    const defs = input.definitions(corpus)
    return corpus.map((t, i) => ({
      name: t.name,
      description: t.description,
      parameters: defs[i]?.function.parameters ?? parametersOf(t),
      sent: sentNames.has(t.name),
    }))
  }
  const findersFor = (deferred: readonly string[]) => {
    const entries = deferred.map((name) => ({ name, description: byName.get(name)?.description ?? '' }))
    const listed = catalogText(entries, catalogBudget)
    const catalog =
      listed.text || '- (none yet: tools of MCP servers that start later are listed when they are up)'
    const tools = [createToolSearchTool({ catalog, corpus: found, resultBytes }), createCallTool()]
    return { tools, form: listed.form, definitions: buildToolDefinitions(tools) }
  }
  const decision = decideDeferral({
    tools: sizes,
    budgetBytes,
    mode: input.mode,
    finderBytes: (deferred) =>
      findersFor(deferred.map((d) => d.name)).definitions.reduce((n, d) => n + jsonBytes(d), 0),
  })
  const deferredSet = new Set(decision.deferred)
  const withFinders = decision.deferred.length > 0 || (input.lateServers && input.mode !== 'never')
  const sentTools = tools.filter((t) => !deferredSet.has(t.name))
  for (const t of sentTools) sentNames.add(t.name)
  const base = {
    mask,
    masked,
    step: decision.step,
    budgetBytes,
    deferred: sizes.filter((s) => deferredSet.has(s.name)).map(({ name, bytes }) => ({ name, bytes })),
  }
  const kept = definitions.filter((_, i) => !deferredSet.has(tools[i]?.name ?? ''))
  const sentSizes = sizes.filter((s) => !deferredSet.has(s.name)).map(({ name, bytes }) => ({ name, bytes }))
  if (!withFinders) {
    return { ...base, definitions: kept, planNames: planNamesOf(sentTools), sent: sentSizes }
  }
  const finders = findersFor(decision.deferred)
  for (const t of finders.tools) sentNames.add(t.name)
  return {
    ...base,
    definitions: [...kept, ...finders.definitions],
    planNames: planNamesOf([...sentTools, ...finders.tools]),
    finders: new Map(finders.tools.map((t) => [t.name, t])),
    sent: [...sentSizes, ...finders.definitions.map((d) => ({ name: d.function.name, bytes: jsonBytes(d) }))],
    catalogForm: finders.form,
  }
}

export function reportOf(set: Toolset, fixed: boolean): ToolsReport {
  return {
    sent: set.sent,
    deferred: set.deferred,
    masked: set.masked,
    step: set.step,
    budgetBytes: set.budgetBytes,
    ...(set.catalogForm ? { catalogForm: set.catalogForm } : {}),
    fixed,
  }
}

/** Plan mode allows what does not edit or configure; the executor holds it to that whatever is called. */
function planNamesOf(tools: readonly AnyTool[]): string[] {
  return tools.filter((t) => t.risk !== 'edit' && t.risk !== 'config').map((t) => t.name)
}

function jsonBytes(value: unknown): number {
  return Buffer.byteLength(JSON.stringify(value))
}
