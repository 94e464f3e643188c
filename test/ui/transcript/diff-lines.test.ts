import stringWidth from 'string-width'
import { describe, expect, it } from 'vitest'
import { renderDiffLines } from '../../../source/ui/components/diff-lines.js'
import { createTheme } from '../../../source/ui/components/theme.js'
import { plain } from './fixtures.js'

const theme = createTheme({ level: 1 })
const DIFF = [
  'Index: src/a.ts',
  '===================================================================',
  '--- src/a.ts',
  '+++ src/a.ts',
  '@@ -9,4 +9,4 @@',
  ' keep',
  '-const a = 1',
  '--- looks like a header but is a removed line',
  '+const a = 2',
  '+++ looks like a header but is an added line',
  ' tail',
  '',
].join('\n')

describe('renderDiffLines', () => {
  it('colours added lines green, removed red and hunk headers cyan, with line numbers', () => {
    const lines = renderDiffLines(DIFF, 60, { theme })
    expect(plain(lines)).toEqual([
      '@@ -9,4 +9,4 @@',
      ' 9  keep',
      '10 -const a = 1',
      '11 --- looks like a header but is a removed line',
      '10 +const a = 2',
      '11 +++ looks like a header but is an added line',
      '12  tail',
    ])
    expect(lines[0]).toContain('\x1b[36m@@')
    expect(lines[2]).toContain('\x1b[31m-const a = 1')
    expect(lines[4]).toContain('\x1b[32m+const a = 2')
    expect(lines[5]).toContain('\x1b[32m+++ looks')
    expect(lines[1]).not.toContain('\x1b[32m')
  })

  it('shows file headers only when asked', () => {
    const lines = plain(renderDiffLines(DIFF, 80, { theme, headers: true }))
    expect(lines.slice(0, 4)).toEqual([
      'Index: src/a.ts',
      '===================================================================',
      '--- src/a.ts',
      '+++ src/a.ts',
    ])
  })

  it('wraps long lines under the gutter so nothing exceeds the width', () => {
    const diff = `@@ -1,1 +1,1 @@\n-${'x'.repeat(50)}\n+${'y'.repeat(50)}\n`
    const lines = renderDiffLines(diff, 20, { theme })
    for (const line of lines) expect(stringWidth(line)).toBeLessThanOrEqual(20)
    const text = plain(lines)
    expect(text[1]).toBe(`1 -${'x'.repeat(17)}`)
    expect(text[2]).toBe(`  ${'x'.repeat(18)}`)
    expect(lines[2]).toContain('\x1b[31m')
  })

  it('caps the output at maxLines and says how many diff lines were left out', () => {
    const body = Array.from({ length: 30 }, (_, i) => `+line ${i}`).join('\n')
    const lines = plain(renderDiffLines(`@@ -0,0 +1,30 @@\n${body}\n`, 40, { theme, maxLines: 5 }))
    expect(lines).toHaveLength(5)
    expect(lines[3]).toBe(' 3 +line 2')
    expect(lines[4]).toBe('… +27 more diff lines')
  })
})
