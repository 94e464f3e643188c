import type { ContextBreakdown } from '../../store/domain.js'
import type { State } from '../../store/state.js'
import type { Assembled, ContextHost } from './options.js'
import type { ContextReport } from './types.js'

/**
 * `/context` (docs/context.md#seeing-what-the-model-sees): the window and where its size comes from, the
 * request budget, and the next request's parts as things stand (`assembled`, measured as `b`).
 */
export function contextReport(
  host: ContextHost & { window(state?: State): number },
  state: State,
  assembled: Assembled,
  b: ContextBreakdown,
): ContextReport {
  const detail = host.opts.profile(host.opts.model()).contextLimitDetail
  const budget = host.budget(state)
  const source = host.limitSource(state)
  return {
    model: host.opts.model(),
    contextLimit: host.limit(state),
    limitSource: source,
    ...(detail && source === 'endpoint' ? { limitDetail: detail } : {}),
    budget: { prompt: budget.prompt, reply: budget.reply, margin: budget.margin, scale: host.scale },
    compactAt: host.compactAt(state),
    observationWindow: host.window(state),
    masking: host.opts.settings.masking,
    next: {
      ...b,
      total: b.system + b.tools + b.history + b.toolOutput + b.masked,
      maskedResults: assembled.entries.filter((e) => e.role === 'masked').length,
      pinnedItems: Object.keys(state.context.pins).length,
      truncated: 0,
    },
    exact: host.estimator.exact,
    compactions: state.context.compactions,
    last: state.context.lastRequest,
  }
}
