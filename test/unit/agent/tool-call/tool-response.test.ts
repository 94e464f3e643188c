import { describe, expect, it } from 'vitest'
import { hookToolInput, toolResponse } from '../../../../source/agent/tool-call/tool-hooks.js'

describe('tool_response of the file tools, as hooks read it', () => {
  it('names every file a several-file change touched, absolute', () => {
    const response = toolResponse(
      {
        forModel: 'Applied the patch: 2 files changed.',
        display: {
          kind: 'diffs',
          files: [
            { path: 'src/a.ts', change: 'updated', diff: '', added: 1, removed: 1 },
            { path: 'gone.txt', change: 'deleted', diff: '', added: 0, removed: 1 },
          ],
        },
      },
      '/w',
    )
    expect(response).toEqual({
      output: 'Applied the patch: 2 files changed.',
      success: true,
      filePaths: ['/w/src/a.ts', '/w/gone.txt'],
    })
  })

  it("makes DeleteFile's and MultiEdit's file_path absolute, so it never reaches a hook as an option", () => {
    expect(hookToolInput({ file_path: '--plugin=x.cjs' }, { workspace: '/w' })).toEqual({
      file_path: '/w/--plugin=x.cjs',
    })
    expect(hookToolInput({ file_path: 'a.ts', edits: [] }, { workspace: '/w' })).toEqual({
      file_path: '/w/a.ts',
      edits: [],
    })
  })
})
