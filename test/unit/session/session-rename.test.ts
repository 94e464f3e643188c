import { lstat, mkdir, mkdtemp, readFile, realpath, rm, symlink, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { resolvePaths, sessionsDir } from '../../../source/config/app-paths.js'
import { openSessionStore, resumeSession } from '../../../source/app/session/resume.js'
import { createSessionServices } from '../../../source/app/session/services.js'
import { sessionPath, summarizeSessions } from '../../../source/session/session-store.js'
import { normalizeTitle, titlePathOf } from '../../../source/session/session-title.js'
import { createFileStateTracker } from '../../../source/tools/file-state.js'
import { testReader } from '../../support/instruction-reader.ts'

describe('normalizeTitle', () => {
  it.each([
    ['  fix   the  build ', 'fix the build'],
    ['two\nlines\r\nhere', 'two lines here'],
    ['bell\u0007 and \u001b[31mred', 'bell and [31mred'],
    ['\u009bC1 control', 'C1 control'],
    ['   ', ''],
    ['x'.repeat(100), `${'x'.repeat(79)}…`],
    ['é'.repeat(80), 'é'.repeat(80)],
  ])('%j → %j', (raw, title) => {
    expect(normalizeTitle(raw)).toBe(title)
  })
})

let dir: string
beforeEach(async () => {
  dir = await realpath(await mkdtemp(join(tmpdir(), 'agent-tui-rename-')))
})
afterEach(async () => {
  await rm(dir, { recursive: true, force: true })
})

/** A real session: its store appends to its log, its services rename it. */
function openSession(
  paths: ReturnType<typeof resolvePaths>,
  workspace: string,
  restored: Parameters<typeof openSessionStore>[0]['restored'] = null,
) {
  const projectSessions = sessionsDir(paths, workspace)
  const opened = openSessionStore({
    restored,
    logPath: (id) => sessionPath(projectSessions, id),
    workspace,
    endpoint: { model: 'm', baseUrl: 'http://127.0.0.1:1/v1' },
    mode: 'safe',
    observers: [],
    warnings: [],
  })
  let n = 0
  const services = createSessionServices({
    workspace,
    readInstructions: testReader(workspace),
    sessionId: opened.id,
    logPath: opened.logPath,
    cwd: () => workspace,
    store: opened.store,
    gate: {
      resolve: () => undefined,
      describeRules: () => ({ allow: [], ask: [], deny: [], savedTo: 'settings.local.json' }),
    },
    files: createFileStateTracker(),
    busy: () => false,
    newId: (prefix) => `${prefix}-${++n}`,
  })
  return { ...opened, services, projectSessions }
}

describe('/rename', () => {
  it('titles the session in its log and beside it: the list shows it past a long log, a resume and /clear keep it', async () => {
    const paths = resolvePaths(
      { XDG_STATE_HOME: join(dir, 'state'), XDG_CONFIG_HOME: join(dir, 'config') },
      dir,
    )
    const workspace = join(dir, 'w')
    await mkdir(workspace)
    const s = openSession(paths, workspace)
    s.store.dispatch({
      type: 'user/submitted',
      id: 'u1',
      content: 'first prompt',
      text: 'first prompt',
    } as never)
    s.store.dispatch({ type: 'session/titled', title: 'first prompt' })
    expect(await s.services.renameSession('  the  auth\nrefactor ')).toBe('the auth refactor')
    // Far more than the list reads of a log's head comes after the rename.
    for (let i = 0; i < 40; i++)
      s.store.dispatch({ type: 'notice/added', id: `n${i}`, level: 'info', text: 'x'.repeat(2000) })
    s.log.close?.()
    expect(s.store.getState().session.title).toBe('the auth refactor')
    const listed = await summarizeSessions(s.projectSessions, workspace)
    expect(listed.map((e) => e.title)).toEqual(['the auth refactor'])
    expect(await readFile(titlePathOf(s.logPath), 'utf8')).toBe('the auth refactor\n')
    expect(await readFile(s.logPath, 'utf8')).toContain(
      '{"type":"session/renamed","title":"the auth refactor"',
    )

    const resumed = await resumeSession(
      { kind: 'id', id: s.id },
      {
        paths,
        workspace,
        projectSessions: s.projectSessions,
        endpoint: { model: 'm', baseUrl: 'x' },
        mode: 'safe',
      },
    )
    const again = openSession(paths, workspace, resumed.restored)
    expect(again.store.getState().session.title).toBe('the auth refactor')
    again.store.dispatch({ type: 'conversation/cleared' })
    expect(again.store.getState().session.title).toBe('the auth refactor')
    await resumed.lease.release()
  })

  it('refuses an empty title and replaces a link planted at the title file, its target untouched', async () => {
    const paths = resolvePaths(
      { XDG_STATE_HOME: join(dir, 'state'), XDG_CONFIG_HOME: join(dir, 'config') },
      dir,
    )
    const workspace = join(dir, 'w')
    await mkdir(workspace)
    const s = openSession(paths, workspace)
    await expect(s.services.renameSession(' \n ')).rejects.toThrow(/needs something to show/)
    const target = join(dir, 'precious')
    await writeFile(target, 'keep\n')
    await symlink(target, titlePathOf(s.logPath))
    await s.services.renameSession('named')
    expect(await readFile(target, 'utf8')).toBe('keep\n')
    expect((await lstat(titlePathOf(s.logPath))).isFile()).toBe(true)
  })
})

describe('/fork', () => {
  it('copies the conversation through a turn into a new session, titled as a fork; the original log is untouched', async () => {
    const paths = resolvePaths(
      { XDG_STATE_HOME: join(dir, 'state'), XDG_CONFIG_HOME: join(dir, 'config') },
      dir,
    )
    const workspace = join(dir, 'w')
    await mkdir(workspace)
    const s = openSession(paths, workspace)
    for (const n of [1, 2, 3]) {
      s.store.dispatch({
        type: 'user/submitted',
        id: `u${n}`,
        content: `prompt ${n}`,
        text: `prompt ${n}`,
        turnId: `t${n}`,
      })
      s.store.dispatch({
        type: 'assistant/settled',
        id: `a${n}`,
        message: { role: 'assistant', content: `answer ${n}` },
      })
    }
    s.store.dispatch({ type: 'session/titled', title: 'prompt 1' })
    await expect(s.services.forkSession(4)).rejects.toThrow('no turn 4: this session has turns 1 to 3')
    const before = await readFile(s.logPath, 'utf8')
    const fork = await s.services.forkSession(2)
    expect(fork.title).toBe('prompt 1 (fork)')
    expect(await readFile(s.logPath, 'utf8')).toBe(before)
    const whole = await s.services.forkSession()

    const listed = await summarizeSessions(s.projectSessions, workspace)
    expect(listed.map((e) => e.title).sort()).toEqual(['prompt 1', 'prompt 1 (fork)', 'prompt 1 (fork)'])
    const open = async (id: string) => {
      const resumed = await resumeSession(
        { kind: 'id', id },
        {
          paths,
          workspace,
          projectSessions: s.projectSessions,
          endpoint: { model: 'm', baseUrl: 'x' },
          mode: 'safe',
        },
      )
      await resumed.lease.release()
      return resumed.restored.state
    }
    const cut = await open(fork.id)
    expect(cut.turns.map((t) => t.prompt)).toEqual(['prompt 1', 'prompt 2'])
    expect(cut.messages.map((m) => m.content)).toEqual(['prompt 1', 'answer 1', 'prompt 2', 'answer 2'])
    expect(cut.session.title).toBe('prompt 1 (fork)')
    expect((await open(whole.id)).turns).toHaveLength(3)
    const header = JSON.parse(
      (await readFile(sessionPath(s.projectSessions, fork.id), 'utf8')).split('\n')[0] ?? '',
    )
    expect(header).toMatchObject({ type: 'header', id: fork.id, forkedFrom: { id: s.id, turn: 2 } })
    expect((await open(s.id)).turns).toHaveLength(3)
  })
})
