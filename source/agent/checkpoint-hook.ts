import type { Checkpoints } from '../checkpoints/lazy.js'
import type { CheckpointHook } from './executor.js'

/** The executor's hook: snapshots around the calls of the turn that is running. */
export function checkpointHook(checkpoints: Checkpoints, turnId: () => string | null): CheckpointHook {
  return {
    before: (kind) => checkpoints.beforeChange(turnId(), kind),
    after: () => checkpoints.afterChange(turnId()),
  }
}
