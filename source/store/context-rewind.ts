import type { State } from './state.js'

/**
 * A conversation rewind cuts the history back: the ids beside the messages go with them, and so does a
 * compaction that summarised any of the removed messages (its summary would speak of things undone). Both
 * ride in the rewind's undo stash, so undoing it brings them back.
 */
export function contextAfterRewind(before: State, after: State): State {
  if (after === before) return after
  const kept = after.messages.length
  const ids = before.context.messageIds
  const compaction = before.context.compaction
  const dropped = compaction !== null && compaction.cut > kept ? compaction : null
  const undo = after.checkpoints.undo
  const stash = undo?.conversation
  return {
    ...after,
    context: {
      ...after.context,
      messageIds: ids.slice(0, kept),
      compaction: dropped ? null : compaction,
    },
    checkpoints:
      undo && stash
        ? {
            ...after.checkpoints,
            undo: { ...undo, conversation: { ...stash, messageIds: ids.slice(kept), compaction: dropped } },
          }
        : after.checkpoints,
  }
}

/** Undoing a conversation rewind puts the messages' ids and the compaction it dropped back. */
export function contextAfterUndo(before: State, after: State): State {
  const stash = before.checkpoints.undo?.conversation
  if (!stash || after.messages.length === before.messages.length) return after
  return {
    ...after,
    context: {
      ...after.context,
      messageIds: [...before.context.messageIds, ...(stash.messageIds ?? stash.messages.map(() => ''))],
      compaction: stash.compaction ?? after.context.compaction,
    },
  }
}
