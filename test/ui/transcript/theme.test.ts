import { describe, expect, it } from 'vitest'
import { MODES } from '../../../source/store/domain.js'
import { createTheme, modeBadge } from '../../../source/ui/components/theme.js'

describe('theme', () => {
  it('gives every mode its own badge look, DANGEROUS on a red background', () => {
    const looks = new Set(MODES.map((m) => `${modeBadge(m).color}/${modeBadge(m).backgroundColor ?? ''}`))
    expect(looks.size).toBe(MODES.length)
    expect(modeBadge('dangerous').backgroundColor).toBe('red')
    expect(MODES.map((m) => modeBadge(m).label)).toEqual(['SAFE', 'AUTO', 'PLAN', 'DANGEROUS', 'CI'])
  })

  it('emits ANSI only above colour level 0', () => {
    expect(createTheme({ level: 0 }).diff.added('+x')).toBe('+x')
    expect(createTheme({ level: 1 }).diff.added('+x')).toBe('\x1b[32m+x\x1b[39m')
    expect(createTheme({ level: 1 }).syntax('title.class_')).toBeDefined()
    expect(createTheme({ level: 1 }).syntax('no-such-scope')).toBeUndefined()
  })
})
