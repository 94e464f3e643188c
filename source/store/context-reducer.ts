import type { Action } from './actions.js'
import type { Collections } from './collections.js'
import type { CompactionRecord } from './domain.js'
import { newToolItem, type State, type ToolItem } from './state.js'

type ContextAction = Extract<
  Action,
  {
    type:
      | 'context/measured'
      | 'context/compacted'
      | 'context/pinned'
      | 'context/masked'
      | 'context/configured'
  }
>

/** The context economy's actions: request figures, compactions, pins, masking, settings (docs/context.md). */
export function reduceContext(c: Collections, state: State, action: ContextAction): State {
  switch (action.type) {
    case 'context/measured':
      return {
        ...state,
        usage: { ...state.usage, contextTokens: action.stats.estimatedTokens, contextEstimated: true },
        context: { ...state.context, lastRequest: action.stats },
      }
    case 'context/compacted':
      return c.addItem(
        {
          ...state,
          context: {
            ...state.context,
            compaction: action.compaction,
            compactions: state.context.compactions + 1,
          },
        },
        compactionCard(action.compaction),
      )
    case 'context/pinned': {
      const { [action.id]: _was, ...rest } = state.context.pins
      const pins = action.pinned ? { ...state.context.pins, [action.id]: true as const } : rest
      const item = state.transcript.items[action.id]
      const next = { ...state, context: { ...state.context, pins } }
      if (!item || item.kind === 'notice' || item.kind === 'hook' || Boolean(item.pinned) === action.pinned)
        return next
      // A pinned result is never masked: the next request sends it whole.
      const masked = item.kind === 'tool' && action.pinned ? { masked: false } : {}
      return c.putItem(next, { ...item, pinned: action.pinned, ...masked })
    }
    case 'context/masked': {
      let next = state
      for (const [ids, masked] of [
        [action.masked, true],
        [action.unmasked, false],
      ] as const) {
        for (const id of ids) {
          const item = next.transcript.items[id]
          if (item?.kind === 'tool' && item.masked !== masked) next = c.putItem(next, { ...item, masked })
        }
      }
      return next
    }
    case 'context/configured': {
      const overrides = { ...state.context.overrides }
      if (action.observationWindow !== undefined) overrides.observationWindow = action.observationWindow
      if (action.compactAt !== undefined) overrides.compactAt = action.compactAt
      return {
        ...state,
        context: {
          ...state.context,
          overrides,
          learnedLimit: action.learnedLimit ?? state.context.learnedLimit,
        },
      }
    }
  }
}

/** The transcript's record of a compaction: a card whose body (Ctrl+O) is the summary the model sees. */
function compactionCard(compaction: CompactionRecord): ToolItem {
  const focus = compaction.focus ? ` (focus: ${compaction.focus})` : ''
  return {
    ...newToolItem(compaction.id, 'Compact', ''),
    summary: `${compaction.summarised} messages summarised${focus}`,
    status: 'done',
    durationMs: null,
    display: { kind: 'text', text: compaction.summary },
    result: compaction.summary,
  }
}
