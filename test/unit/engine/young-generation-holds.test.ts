import { expect, it } from 'vitest'
import { youngGeneration } from '../../../source/engine/young-generation.js'
import { churn, newSpaceBytes } from './young-space.ts'

// A file of its own: V8's young generation grows once per worker, and young-generation.test.ts grows it too.
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
