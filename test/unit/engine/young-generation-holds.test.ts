import { getHeapSpaceStatistics } from 'node:v8'
import { expect, it } from 'vitest'
import { youngGeneration } from '../../../source/engine/young-generation.js'

// A file of its own: V8's young generation grows once per worker, and young-generation.test.ts grows it too.
const newSpaceBytes = () =>
  getHeapSpaceStatistics().find((s) => s.space_name === 'new_space')?.space_size ?? 0

/** Allocates objects that survive a scavenge or two, the pattern that makes V8 grow its young generation. */
function churn(): void {
  let keep: object[] = []
  for (let i = 0; i < 400_000; i++) {
    keep.push({ i, s: `x${i}` })
    if (keep.length > 50_000) keep = []
  }
}

it('nested holds (start-up, an index build): it grows again only when the last one lets go', () => {
  const young = youngGeneration([])
  const startUp = young.hold()
  const index = young.hold()
  const before = newSpaceBytes()
  startUp()
  startUp()
  churn()
  churn()
  expect(newSpaceBytes()).toBeLessThanOrEqual(before)
  index()
  churn()
  churn()
  expect(newSpaceBytes()).toBeGreaterThan(before)
})
