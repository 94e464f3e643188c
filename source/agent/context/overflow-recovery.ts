import type { ProviderError } from '../../provider/types.js'
import type { ContextHost } from './options.js'
import { overflowFigures } from './overflow.js'

/** An overflow report may correct the estimate upwards by this much at most (as usage does: budget.ts). */
const MAX_SCALE = 4

/**
 * What an endpoint's overflow report teaches (docs/context.md#when-the-endpoint-says-it-is-too-long): the
 * window it named — or one inferred from what was sent — becomes the session's, and the notice says so.
 * Returns how much more the endpoint counted than we estimated, when it counted more; else undefined.
 */
export function learnFromOverflow(host: ContextHost, error: ProviderError): number | undefined {
  const { store } = host.opts
  const state = store.getState()
  const figures = overflowFigures(error.message)
  const sent = state.context.lastRequest?.estimatedTokens ?? 0
  const scale =
    figures.requested !== undefined && sent > 0 && figures.requested > sent * host.scale
      ? Math.min(MAX_SCALE, figures.requested / sent)
      : undefined
  const assumed = figures.limit ?? Math.floor(Math.max(sent, figures.requested ?? 0) * 0.9)
  const known = figures.limit !== undefined
  if (assumed > 0 && assumed < host.limit(state)) {
    store.dispatch({ type: 'context/configured', learnedLimit: assumed })
  }
  const tokensSent =
    figures.requested !== undefined ? `${figures.requested} tokens sent` : `about ${sent} tokens sent`
  const said = known
    ? `${tokensSent} for a window of ${figures.limit}`
    : `${tokensSent}; the endpoint named no window, so assuming one of about ${assumed}`
  host.notice(
    'warn',
    `The endpoint says the conversation does not fit the model's context window (${said}); compacting and retrying once.`,
  )
  return scale
}

/** After a second overflow: says so in the transcript with the figures, and returns the turn's error. */
export function overflowStopMessage(host: ContextHost, error: ProviderError): string {
  const state = host.opts.store.getState()
  const figures = overflowFigures(error.message)
  const sent = figures.requested ?? state.context.lastRequest?.estimatedTokens ?? 0
  const limit = figures.limit ?? host.limit(state)
  const message =
    `the conversation still does not fit the model's context window after compacting: ` +
    `${figures.requested !== undefined ? '' : 'about '}${sent} tokens sent, window ${limit} tokens. ` +
    'Pin less, /clear to start afresh, or use a model with a larger window.'
  host.notice('error', message)
  return message
}
