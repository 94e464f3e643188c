import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import {
  expandPasteChips,
  findImagePaths,
  imageChipNumbers,
  imagePathFrom,
  isLargePaste,
  pasteChip,
} from '../../../source/ui/panes/input/chips.js'
import { listPathCandidates, mentionAtCursor } from '../../../source/ui/panes/input/path-complete.js'

const dir = mkdtempSync(join(tmpdir(), 'agent-tui-chips-'))
mkdirSync(join(dir, 'src'))
mkdirSync(join(dir, 'node_modules'))
mkdirSync(join(dir, '.git'))
writeFileSync(join(dir, 'src', 'app.tsx'), '')
writeFileSync(join(dir, 'src', 'api.ts'), '')
writeFileSync(join(dir, 'shot one.png'), 'png')
writeFileSync(join(dir, '.env'), '')
afterAll(() => rmSync(dir, { recursive: true, force: true }))

describe('paste chips', () => {
  it('only large pastes become chips', () => {
    expect(isLargePaste('a\nb\nc\nd\ne')).toBe(false)
    expect(isLargePaste('a\nb\nc\nd\ne\nf')).toBe(true)
    expect(isLargePaste('x'.repeat(801))).toBe(true)
  })

  it('labels chips with the line count and expands them on submit', () => {
    const text = '1\n2\n3\n4\n5\n6'
    expect(pasteChip(2, text)).toBe('[Pasted text #2 +6 lines]')
    expect(expandPasteChips('look: [Pasted text #2 +6 lines]!', new Map([[2, text]]))).toBe(`look: ${text}!`)
    expect(expandPasteChips('[Pasted text #9 +1 lines]', new Map())).toBe('[Pasted text #9 +1 lines]')
  })

  it('finds image chips in order', () => {
    expect(imageChipNumbers('[Image #2] and [Image #1] and [Image #2]')).toEqual([2, 1])
  })
})

describe('image paths', () => {
  it('accepts quoted, escaped and file:// paths of existing images only', () => {
    const abs = join(dir, 'shot one.png')
    expect(imagePathFrom(`'${abs}'`, '/')).toBe(abs)
    expect(imagePathFrom(abs.replace(/ /g, '\\ '), '/')).toBe(abs)
    expect(imagePathFrom(`file://${encodeURI(abs)}`, '/')).toBe(abs)
    expect(imagePathFrom('shot\\ one.png', dir)).toBe(abs)
    expect(imagePathFrom(join(dir, 'missing.png'), '/')).toBeNull()
    expect(imagePathFrom(join(dir, 'src', 'app.tsx'), '/')).toBeNull()
  })

  it('finds typed image paths among words', () => {
    expect(findImagePaths('what is in shot\\ one.png please', dir)).toEqual([
      { token: 'shot\\ one.png', path: join(dir, 'shot one.png') },
    ])
  })
})

describe('@path completion', () => {
  it('finds the mention at the cursor', () => {
    expect(mentionAtCursor('look at @src/ap', 15)).toEqual({ start: 8, query: 'src/ap' })
    expect(mentionAtCursor('mail me@example', 15)).toBeNull()
    expect(mentionAtCursor('@', 1)).toEqual({ start: 0, query: '' })
  })

  it('lists the typed directory, ignoring node_modules, .git and dotfiles', async () => {
    expect(await listPathCandidates(dir, '')).toEqual([
      { value: 'src/', isDir: true },
      { value: 'shot one.png', isDir: false },
    ])
    expect((await listPathCandidates(dir, 'src/ap')).map((c) => c.value)).toEqual([
      'src/api.ts',
      'src/app.tsx',
    ])
    expect((await listPathCandidates(dir, '.e')).map((c) => c.value)).toEqual(['.env'])
    expect(await listPathCandidates(dir, 'nope/')).toEqual([])
  })
})

describe('external editor', () => {
  it('edits the text in $VISUAL/$EDITOR and drops the final newline', async () => {
    const { editInExternalEditor, editorCommand } = await import(
      '../../../source/ui/panes/input/external-editor.js'
    )
    expect(editorCommand({ VISUAL: 'code --wait', EDITOR: 'nano' })).toBe('code --wait')
    expect(editorCommand({ EDITOR: 'nano' })).toBe('nano')
    expect(editorCommand({})).toBe('vi')
    const env = { ...process.env, VISUAL: '', EDITOR: `sed -i -e 's/hello/bye/' -e '$a\\'` }
    expect(editInExternalEditor('hello world', env)).toEqual({ ok: true, text: 'bye world' })
    const failing = editInExternalEditor('x', { ...process.env, VISUAL: 'false' })
    expect(failing.ok).toBe(false)
  })
})
