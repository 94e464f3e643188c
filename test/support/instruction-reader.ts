import { tmpdir } from 'node:os'
import { realpathSync } from 'node:fs'
import { type InstructionReader, instructionReader } from '../../source/tools/instruction-file.ts'

/**
 * A real read boundary for loader tests whose files live in a temp folder: that folder (or `workspace`)
 * is the workspace, with no rules. The boundary itself is tested in test/unit/tools/instruction-file.test.ts.
 */
export function testReader(
  workspace = realpathSync(tmpdir()),
  allowedDirs: string[] = [],
): InstructionReader {
  return instructionReader(
    {
      workspace,
      home: '/nonexistent-home',
      additionalDirs: [],
      rules: () => ({ allow: [], ask: [], deny: [] }),
    },
    allowedDirs,
  )
}
