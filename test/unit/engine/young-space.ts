import { getHeapSpaceStatistics } from 'node:v8'

const newSpace = () => getHeapSpaceStatistics().find((s) => s.space_name === 'new_space')

/** The young generation's size as V8 sets it (what a hold keeps from growing). */
export const newSpaceBytes = () => newSpace()?.space_size ?? 0

/** The young generation's committed pages (what RSS holds). */
export const newSpaceCommitted = () => newSpace()?.physical_space_size ?? 0

/** Allocates objects that survive a scavenge or two, the pattern that makes V8 grow its young generation. */
export function churn(count = 400_000, window = 50_000): void {
  let keep: object[] = []
  for (let i = 0; i < count; i++) {
    keep.push({ i, s: `x${i}` })
    if (keep.length > window) keep = []
  }
}
