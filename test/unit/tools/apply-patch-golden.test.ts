import { existsSync } from 'node:fs'
import { cp, mkdir, readdir, readFile, writeFile } from 'node:fs/promises'
import { join, relative } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { applyPatchTool } from '../../../source/tools/apply-patch.js'
import { parsePatch, PatchSyntaxError } from '../../../source/tools/patch/parse.js'
import { createReadTool } from '../../../source/tools/read.js'
import { ToolError } from '../../../source/tools/types.js'
import { createTestEnv, run, type TestEnv } from './helpers.js'

/**
 * apply_patch's cases as golden folders, test/fixtures/apply-patch/<case>/:
 *   patch.txt      the call's `input`
 *   before/        the workspace before (absent: empty); every file in it is read first, as the model must,
 *                  except those setup.json lists as `unread`
 *   parsed.json    what the parser makes of patch.txt (or the PatchSyntaxError's message)
 *   after/         the workspace after, every file byte for byte      — or —
 *   error.json     what the call fails with; the workspace is then exactly `before/` (all or nothing)
 *   output.txt     what the model reads back (with after/)
 * `UPDATE_GOLDEN=1` rewrites parsed.json, output.txt and error.json from what the code does now (review
 * the diff before committing it).
 */
const root = join(import.meta.dirname, '..', '..', 'fixtures', 'apply-patch')
const cases = (await readdir(root)).sort()
const update = process.env.UPDATE_GOLDEN === '1'
const readTool = createReadTool()

let env: TestEnv
beforeEach(async () => {
  env = await createTestEnv()
})
afterEach(async () => {
  await env.cleanup()
})

/** Every file below `dir`, relative, with its bytes. */
async function tree(dir: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {}
  if (!existsSync(dir)) return out
  for (const entry of await readdir(dir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue
    const abs = join(entry.parentPath, entry.name)
    out[relative(dir, abs)] = (await readFile(abs)).toString('latin1')
  }
  return out
}

async function golden(path: string, actual: string): Promise<void> {
  if (update) await writeFile(path, actual)
  expect(actual).toBe(await readFile(path, 'utf8'))
}

describe('apply_patch golden cases', () => {
  it.each(cases)('%s', async (name) => {
    const dir = join(root, name)
    const input = await readFile(join(dir, 'patch.txt'), 'utf8')
    const setup = existsSync(join(dir, 'setup.json'))
      ? (JSON.parse(await readFile(join(dir, 'setup.json'), 'utf8')) as { unread?: string[] })
      : {}

    // The parser's picture of the patch.
    let parsed: string
    try {
      parsed = `${JSON.stringify(parsePatch(input), null, 2)}\n`
    } catch (error) {
      if (!(error instanceof PatchSyntaxError)) throw error
      parsed = `${JSON.stringify({ error: error.message }, null, 2)}\n`
    }
    await golden(join(dir, 'parsed.json'), parsed)

    await mkdir(env.workspace, { recursive: true })
    if (existsSync(join(dir, 'before'))) await cp(join(dir, 'before'), env.workspace, { recursive: true })
    const before = await tree(env.workspace)
    for (const file of Object.keys(before)) {
      if (setup.unread?.includes(file)) continue
      await run(readTool, { file_path: join(env.workspace, file) }, env.ctx)
    }

    let outcome: { ok: true; output: string } | { ok: false; error: ToolError }
    try {
      outcome = { ok: true, output: (await run(applyPatchTool, { input }, env.ctx)).forModel }
    } catch (error) {
      if (!(error instanceof ToolError)) throw error
      outcome = { ok: false, error }
    }
    const after = await tree(env.workspace)
    if (existsSync(join(dir, 'after'))) {
      if (!outcome.ok) throw new Error(`${name}: expected after/, the call failed: ${outcome.error.message}`)
      expect(after).toEqual(await tree(join(dir, 'after')))
      await golden(join(dir, 'output.txt'), `${outcome.output}\n`)
      return
    }
    if (outcome.ok) throw new Error(`${name}: expected an error, the call succeeded: ${outcome.output}`)
    const { category, message, hint } = outcome.error
    const errorFile = join(dir, 'error.json')
    if (!update && !existsSync(errorFile)) throw new Error(`${name}: has neither after/ nor error.json`)
    await golden(errorFile, `${JSON.stringify({ category, message, hint }, null, 2)}\n`)
    // A refused patch changes nothing, and leaves no temp file behind.
    expect(after).toEqual(before)
  })
})
