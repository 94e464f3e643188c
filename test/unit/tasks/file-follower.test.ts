import { appendFile, readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { createFileFollower } from '../../../source/tasks/file-follower.js'
import { createJobOutput } from '../../../source/tasks/job-output.js'
import { makeTempDir, waitFor } from './helpers.js'

let dir: string
let cleanup: () => Promise<void>
let file: string

beforeEach(async () => {
  ;({ dir, cleanup } = await makeTempDir())
  file = join(dir, 'job.log')
  await writeFile(file, '')
})

afterEach(() => cleanup())

describe('createFileFollower', () => {
  it('reads new bytes on each sync and reports whether anything arrived', async () => {
    const output = createJobOutput()
    const follower = createFileFollower(file, output)
    expect(follower.sync()).toBe(false)
    await appendFile(file, 'one\n')
    expect(follower.sync()).toBe(true)
    await appendFile(file, 'two\n')
    follower.sync()
    expect(output.read(0, { final: true }).text).toBe('one\ntwo\n')
    expect(output.lastLine).toBe('two')
    follower.close(undefined, () => {})
  })

  it('fills the head, skips the middle, and reads only the last tailBytes', async () => {
    const output = createJobOutput({ headBytes: 6, tailBytes: 8 })
    const follower = createFileFollower(file, output)
    await appendFile(file, 'head')
    follower.sync()
    await appendFile(file, `s\n${'middle\n'.repeat(1000)}the end\n`)
    follower.sync()
    const read = output.read(0, { final: true })
    expect(read.text).toBe('heads\nthe end\n')
    expect(read.gapAt).toBe(6)
    expect(output.totalBytes).toBe((await readFile(file)).length)
    expect(output.lastLine).toBe('the end')
    follower.close(undefined, () => {})
  })

  it('notifies once per arming and again after rearm', async () => {
    const follower = createFileFollower(file, createJobOutput())
    let changes = 0
    follower.watch(() => changes++)
    await appendFile(file, 'a')
    await waitFor(() => changes === 1, 'the first change event')
    follower.rearm()
    await appendFile(file, 'b')
    await waitFor(() => changes === 2, 'the change event after rearm')
    follower.close(undefined, () => {})
  })

  it('appends a closing note to the log and the output, then reports done', async () => {
    const output = createJobOutput()
    const follower = createFileFollower(file, output)
    await appendFile(file, 'out\n')
    let closed = false
    follower.close('[agent-tui] note\n', () => {
      closed = true
    })
    expect(closed).toBe(true)
    expect(await readFile(file, 'utf8')).toBe('out\n[agent-tui] note\n')
    expect(output.read(0, { final: true }).text).toBe('out\n[agent-tui] note\n')
    expect(follower.sync()).toBe(false)
  })
})
