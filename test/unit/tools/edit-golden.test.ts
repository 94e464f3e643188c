import { existsSync } from 'node:fs'
import { copyFile, readdir, readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { editTool } from '../../../source/tools/edit.js'
import { readTool } from '../../../source/tools/read.js'
import { ToolError } from '../../../source/tools/types.js'
import { createTestEnv, run, type TestEnv } from './helpers.js'

/**
 * Edit's cases as golden folders, test/fixtures/edit/<case>/:
 *   input.<ext>    the file before (absent: the call names a file that does not exist)
 *   call.json      old_string, new_string, replace_all; file_path relative to the workspace (default: the input)
 *   expected.<ext> the file after, byte for byte      — or —   error.json  what the call fails with
 *   output.txt     what the model reads back (with expected)
 * The input is read first, as the model must before editing. `UPDATE_GOLDEN=1` rewrites output.txt and
 * error.json from what the tool does now (review the diff before committing it).
 */
const root = join(import.meta.dirname, '..', '..', 'fixtures', 'edit')
const cases = (await readdir(root)).sort()
const update = process.env.UPDATE_GOLDEN === '1'

let env: TestEnv
beforeEach(async () => {
  env = await createTestEnv()
})
afterEach(async () => {
  await env.cleanup()
})

describe('Edit golden cases', () => {
  it.each(cases)('%s', async (name) => {
    const dir = join(root, name)
    const files = await readdir(dir)
    const input = files.find((f) => f.startsWith('input.'))
    const expected = files.find((f) => f.startsWith('expected.'))
    const { file_path, ...call } = JSON.parse(await readFile(join(dir, 'call.json'), 'utf8')) as {
      file_path?: string
      old_string: string
      new_string: string
      replace_all?: boolean
    }
    const relPath = file_path ?? input
    if (!relPath) throw new Error(`${name}: call.json needs a file_path when there is no input file`)
    const target = join(env.workspace, relPath)
    if (input) {
      await copyFile(join(dir, input), target)
      await run(readTool, { file_path: target }, env.ctx)
    }
    const before = input ? await readFile(target) : null

    let outcome: { ok: true; output: string } | { ok: false; error: ToolError }
    try {
      outcome = { ok: true, output: (await run(editTool, { file_path: target, ...call }, env.ctx)).forModel }
    } catch (error) {
      if (!(error instanceof ToolError)) throw error
      outcome = { ok: false, error }
    }

    if (expected) {
      if (!outcome.ok)
        throw new Error(`${name}: expected ${expected}, the call failed: ${outcome.error.message}`)
      expect((await readFile(target)).equals(await readFile(join(dir, expected)))).toBe(true)
      const golden = join(dir, 'output.txt')
      if (update) await writeFile(golden, outcome.output)
      expect(outcome.output).toBe(await readFile(golden, 'utf8'))
      return
    }
    if (outcome.ok) throw new Error(`${name}: expected an error, the call succeeded: ${outcome.output}`)
    const { category, message, hint } = outcome.error
    const golden = join(dir, 'error.json')
    if (update || !existsSync(golden)) {
      if (!update) throw new Error(`${name}: has neither expected.* nor error.json`)
      await writeFile(golden, `${JSON.stringify({ category, message, hint }, null, 2)}\n`)
    }
    expect({ category, message, hint }).toEqual(JSON.parse(await readFile(golden, 'utf8')))
    // A refused edit changes nothing.
    if (before) expect((await readFile(target)).equals(before)).toBe(true)
    else expect(existsSync(target)).toBe(false)
  })
})
