import { describe, expect, it } from 'vitest'
import { createTheme } from '../../../source/ui/components/theme.js'
import { warmUpRendering } from '../../../source/ui/panes/transcript/warm-up.js'

const now = () => Promise.resolve()

describe('warmUpRendering', () => {
  it('renders the sample as a stream would, step by step, in colour and without', async () => {
    for (const level of [0, 3] as const) {
      let steps = 0
      await warmUpRendering({
        theme: createTheme({ level }),
        width: 60,
        yieldToInput: now,
        cancelled: () => {
          steps++
          return false
        },
      })
      // A few hundred characters, 48 at a time.
      expect(steps).toBeGreaterThan(5)
      expect(steps).toBeLessThan(30)
    }
  })

  it('does nothing more once cancelled (a turn has started, or the UI closed)', async () => {
    let checks = 0
    let yields = 0
    await warmUpRendering({
      theme: createTheme({ level: 3 }),
      width: 60,
      yieldToInput: async () => {
        yields++
      },
      cancelled: () => ++checks >= 3,
    })
    expect(checks).toBe(3)
    // Each step yields to input, then checks: the third check stopped it before its render.
    expect(yields).toBe(3)
  })
})
