import { describe, expect, it } from 'vitest'
import { OSC52_MAX_BASE64, osc52Sequence } from '../../../source/ui/clipboard/osc52.js'

describe('osc52Sequence', () => {
  it('is ESC ] 52 ; c ; base64(UTF-8) BEL', () => {
    expect(osc52Sequence('héllo ✓', { tmux: false })).toBe(
      `\x1b]52;c;${Buffer.from('héllo ✓').toString('base64')}\x07`,
    )
  })

  it("inside tmux: the plain one, then tmux's passthrough with every ESC doubled", () => {
    const b64 = Buffer.from('hi').toString('base64')
    expect(osc52Sequence('hi', { tmux: true })).toBe(
      `\x1b]52;c;${b64}\x07\x1bPtmux;\x1b\x1b]52;c;${b64}\x07\x1b\\`,
    )
  })

  it('carries control characters of the text only as base64', () => {
    const bytes = osc52Sequence('a\x1b]52;c;evil\x07b\n', { tmux: false }) ?? ''
    // One ESC (the introducer) and one BEL (the terminator): the text cannot end or start a sequence.
    expect(bytes.match(/\x1b/g)).toHaveLength(1)
    expect(bytes.match(/\x07/g)).toHaveLength(1)
  })

  it('is undefined for text too big for terminals', () => {
    const limit = (OSC52_MAX_BASE64 / 4) * 3
    expect(osc52Sequence('x'.repeat(limit), { tmux: false })).toBeDefined()
    expect(osc52Sequence('x'.repeat(limit + 3), { tmux: false })).toBeUndefined()
  })
})
