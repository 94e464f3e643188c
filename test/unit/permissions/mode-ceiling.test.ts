import { describe, expect, it } from 'vitest'
import { modeCeilingRefusal, modesUnder } from '../../../source/permissions/mode-ceiling.js'
import { MODES, type Mode } from '../../../source/store/domain.js'

describe('the mode ceiling of mcp serve', () => {
  // requested × ceiling → admitted. PLAN lets web requests through unasked, which SAFE and AUTO do not.
  const table: Array<[Mode, Mode, boolean]> = [
    ['ci', 'ci', true],
    ['safe', 'ci', false],
    ['plan', 'ci', false],
    ['dangerous', 'ci', false],
    ['ci', 'plan', true],
    ['plan', 'plan', true],
    ['safe', 'plan', false],
    ['ci', 'safe', true],
    ['safe', 'safe', true],
    ['plan', 'safe', false],
    ['auto', 'safe', false],
    ['safe', 'auto', true],
    ['auto', 'auto', true],
    ['plan', 'auto', false],
    ['dangerous', 'auto', false],
  ]
  it.each(table)('%s under --max-mode %s: %s', (requested, ceiling, admitted) => {
    expect(modeCeilingRefusal(requested, ceiling) === null).toBe(admitted)
  })

  it('dangerous admits every mode, and every ceiling admits ci and itself', () => {
    expect(modesUnder('dangerous')).toEqual(MODES)
    for (const mode of MODES) {
      expect(modeCeilingRefusal(mode, 'dangerous')).toBeNull()
      expect(modeCeilingRefusal('ci', mode)).toBeNull()
      expect(modeCeilingRefusal(mode, mode)).toBeNull()
    }
  })

  it('a refusal names the ceiling, what it allows and how to allow more', () => {
    expect(modeCeilingRefusal('auto', 'safe')).toBe(
      'mode "auto" is looser than this server allows (--max-mode safe: ci, safe); start the server with --max-mode auto to allow it',
    )
  })
})
