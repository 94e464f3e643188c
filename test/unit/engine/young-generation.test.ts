import { describe, expect, it } from 'vitest'
import { holdYoungGeneration, sizedByUser } from '../../../source/engine/young-generation.js'
import { churn, newSpaceBytes } from './young-space.ts'

describe('holdYoungGeneration', () => {
  it('keeps the young generation from growing until released, then lets V8 grow it again', () => {
    const release = holdYoungGeneration([])
    const before = newSpaceBytes()
    churn()
    expect(newSpaceBytes()).toBeLessThanOrEqual(before)
    release()
    release()
    churn()
    churn()
    expect(newSpaceBytes()).toBeGreaterThan(before)
  })

  it("leaves node's own young-generation flags in charge", () => {
    expect(sizedByUser(['--max-semi-space-size=64'])).toBe(true)
    expect(sizedByUser(['--semi_space_growth_factor=4'])).toBe(true)
    expect(sizedByUser(['--max-old-space-size=4096', '--enable-source-maps'])).toBe(false)
  })
})
