import type { CheckpointService, CheckpointServiceOptions } from './checkpoint-service.js'

/** What the runtime uses of the checkpoint service. */
export type Checkpoints = Pick<
  CheckpointService,
  'warm' | 'beforeChange' | 'afterChange' | 'idle' | 'close' | 'offReason' | 'snapshotNow' | 'diff' | 'apply'
>

/**
 * The checkpoint service, loaded on first use: a session that never runs a tool never loads it, and
 * nothing of it is on the way to the first frame.
 */
export function createLazyCheckpoints(opts: CheckpointServiceOptions): Checkpoints {
  let service: CheckpointService | null = null
  let loading: Promise<CheckpointService> | null = null
  const load = () => {
    loading ??= import('./checkpoint-service.js').then((m) => {
      service = new m.CheckpointService(opts)
      return service
    })
    return loading
  }
  return {
    warm: () => void load().then((s) => s.warm()),
    beforeChange: async (turnId, kind) => (await load()).beforeChange(turnId, kind),
    afterChange: (turnId) => {
      if (service) service.afterChange(turnId)
      else void load().then((s) => s.afterChange(turnId))
    },
    idle: async () => {
      if (loading) await (await loading).idle()
    },
    close: async () => {
      if (loading) await (await loading).close()
    },
    offReason: () => service?.offReason() ?? null,
    snapshotNow: async () => (await load()).snapshotNow(),
    diff: async (from, to, paths) => (await load()).diff(from, to, paths),
    apply: async (tree, restore, remove) => (await load()).apply(tree, restore, remove),
  }
}
