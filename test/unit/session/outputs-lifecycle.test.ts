import { spawn } from 'node:child_process'
import { existsSync } from 'node:fs'
import { execFileSync } from 'node:child_process'
import { lstat, mkdir, mkdtemp, readdir, readFile, rm, symlink, utimes, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { openOutputs, SPILL_TTL_MS, sweepOutputs } from '../../../source/session/outputs-lifecycle.js'

let root: string
beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'agent-tui-outputs-'))
})
afterEach(async () => {
  await rm(root, { recursive: true, force: true })
})

const DAY = SPILL_TTL_MS
const now = Date.now()

async function file(path: string, ageMs: number): Promise<string> {
  await mkdir(join(path, '..'), { recursive: true })
  await writeFile(path, 'x')
  const at = new Date(now - ageMs)
  await utimes(path, at, at)
  return path
}

/** A process that exits at once: its pid is a dead session's. */
async function deadPid(): Promise<number> {
  const child = spawn(process.execPath, ['-e', '0'])
  await new Promise((resolve) => child.on('exit', resolve))
  return child.pid as number
}

describe('spill TTL sweep', () => {
  it('removes files unused for 24 h, never those of a session a live process has open', async () => {
    const open = join(root, 'open-session')
    const closed = join(root, 'closed-session')
    const crashed = join(root, 'crashed-session')
    const oldOpen = await file(join(open, 'read-aaaa.txt'), 2 * DAY)
    const oldJobLog = await file(join(open, 'run-1', 'b1.log'), 3 * DAY)
    const oldClosed = await file(join(closed, 'bash-bbbb.txt'), DAY + 60_000)
    const freshClosed = await file(join(closed, 'read-cccc.txt'), DAY - 60_000)
    const oldCrashed = await file(join(crashed, 'read-dddd.txt'), 2 * DAY)
    // A live process (this one) has `open` open; `crashed` was left open by a process that is gone.
    const lease = await openOutputs(open)
    await writeFile(join(crashed, `.open-${await deadPid()}`), JSON.stringify({ pid: await deadPid() }))

    const result = await sweepOutputs(root, { now, force: true })
    expect(result.swept).toBe(true)
    expect(result.skippedOpen).toEqual(['open-session'])
    expect(existsSync(oldOpen)).toBe(true)
    expect(existsSync(oldJobLog)).toBe(true)
    expect(existsSync(oldClosed)).toBe(false)
    expect(existsSync(freshClosed)).toBe(true)
    expect(existsSync(oldCrashed)).toBe(false)
    expect(existsSync(crashed)).toBe(false) // emptied dirs go, the dead marker with them
    await lease.release()
    expect(await readdir(open)).toEqual(['read-aaaa.txt', 'run-1'])
  })

  it('skips the session being started and sweeps at most once an hour', async () => {
    const mine = await file(join(root, 'mine', 'read-eeee.txt'), 2 * DAY)
    const other = await file(join(root, 'other', 'read-ffff.txt'), 2 * DAY)
    expect((await sweepOutputs(root, { now, skip: 'mine' })).swept).toBe(true)
    expect(existsSync(mine)).toBe(true)
    expect(existsSync(other)).toBe(false)
    const again = await file(join(root, 'other', 'read-ffff.txt'), 2 * DAY)
    expect((await sweepOutputs(root, { now: now + 60_000 })).swept).toBe(false)
    expect(existsSync(again)).toBe(true)
    expect((await sweepOutputs(root, { now: now + 2 * 60 * 60_000 })).swept).toBe(true)
    expect(existsSync(again)).toBe(false)
  })

  it('makes a session that is being opened wait until a sweep working in its dir is done', async () => {
    const dir = join(root, 'resumed')
    await mkdir(dir)
    // A sweep from another live process (this test's own parent stands in for it) is under way.
    const sweeper = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 30000)'])
    const marker = join(dir, `.sweep-${sweeper.pid}`)
    await writeFile(marker, JSON.stringify({ pid: sweeper.pid }))
    let opened = false
    const opening = openOutputs(dir).then((lease) => {
      opened = true
      return lease
    })
    // Its own marker is written first; then it waits, since the sweep's marker is there.
    while (!existsSync(join(dir, `.open-${process.pid}`)))
      await new Promise((resolve) => setImmediate(resolve))
    for (let i = 0; i < 5; i++) await new Promise((resolve) => setTimeout(resolve, 20))
    expect(opened).toBe(false)
    await rm(marker)
    const lease = await opening
    expect(opened).toBe(true)
    expect(await readdir(dir)).toContain(`.open-${process.pid}`)
    await lease.release()
    sweeper.kill()
  })

  describe('what a sandboxed command planted in an outputs dir', () => {
    const home = () => join(root, '..', `${root.split('/').pop()}-home`)
    const setUp = async () => {
      await mkdir(home(), { recursive: true })
      const bashrc = join(home(), '.bashrc')
      await writeFile(bashrc, 'export PS1=ok\n')
      await utimes(bashrc, new Date(now - 3 * DAY), new Date(now - 3 * DAY))
      return bashrc
    }
    afterEach(() => rm(home(), { recursive: true, force: true }))

    it('a sweep marker name planted as a link: the sweep removes the link and writes its own marker, the target untouched', async () => {
      const bashrc = await setUp()
      const dead = join(root, 'dead-session')
      await file(join(dead, 'read-aaaa.txt'), 2 * DAY)
      // The pid of the next sweep is easy to guess: plant its marker name.
      await symlink(bashrc, join(dead, `.sweep-${process.pid}`))
      await sweepOutputs(root, { now, force: true })
      expect(await readFile(bashrc, 'utf8')).toBe('export PS1=ok\n')
      expect(existsSync(dead)).toBe(false)
    })

    it('a folder or file in a session dir swapped for a link: the sweep deletes the link, nothing where it leads', async () => {
      const bashrc = await setUp()
      const dead = join(root, 'dead-session')
      await mkdir(dead)
      await symlink(home(), join(dead, 'run-1'))
      await symlink(bashrc, join(dead, 'bash-bbbb.txt'))
      const at = new Date(now - 2 * DAY)
      await utimes(dead, at, at)
      await sweepOutputs(root, { now, force: true })
      expect(await readdir(home())).toEqual(['.bashrc'])
      expect(await readFile(bashrc, 'utf8')).toBe('export PS1=ok\n')
    })

    it('a FIFO named like a marker neither stalls opening a session nor a sweep', async () => {
      const dir = join(root, 'resumed')
      await mkdir(dir)
      execFileSync('mkfifo', [join(dir, '.sweep-1')])
      execFileSync('mkfifo', [join(dir, '.open-1')])
      const lease = await openOutputs(dir, { waitMs: 10_000 })
      await lease.release()
      await sweepOutputs(root, { now, force: true })
      expect(existsSync(join(dir, '.sweep-1'))).toBe(false)
    })

    it('opening a session whose own marker name is a planted link writes a marker of its own', async () => {
      const bashrc = await setUp()
      const dir = join(root, 'resumed')
      await mkdir(dir)
      await symlink(bashrc, join(dir, `.open-${process.pid}`))
      const lease = await openOutputs(dir)
      expect((await lstat(join(dir, `.open-${process.pid}`))).isFile()).toBe(true)
      await lease.release()
      expect(await readFile(bashrc, 'utf8')).toBe('export PS1=ok\n')
    })
  })
})
