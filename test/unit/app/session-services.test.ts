import { lstat, mkdir, mkdtemp, readFile, realpath, rm, symlink, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { TurnCommands } from '../../../source/agent/runtime/commands.js'
import { createStore } from '../../../source/store/create-store.js'
import type { ListeningPort, TaskSummary } from '../../../source/store/domain.js'
import { initialState } from '../../../source/store/state.js'
import { createFileStateTracker } from '../../../source/tools/file-state.js'
import {
  createSessionServices,
  type SessionServiceOptions,
  sessionCommands,
} from '../../../source/app/session/services.js'
import { testReader } from '../../support/instruction-reader.ts'

let dir: string
beforeEach(async () => {
  dir = await realpath(await mkdtemp(join(tmpdir(), 'agent-tui-services-')))
})
afterEach(async () => {
  await rm(dir, { recursive: true, force: true })
})

/** The services' other parts, as a session without tasks, hooks or checkpoints has them. */
function parts(): Omit<SessionServiceOptions, 'workspace' | 'sessionId' | 'cwd'> {
  let n = 0
  return {
    store: createStore(
      initialState({ id: 's', cwd: dir, model: 'm', baseUrl: 'x', title: '', startedAt: 0 }, 'safe'),
    ),
    gate: {
      resolve: () => undefined,
      describeRules: () => ({ allow: [], ask: [], deny: [], savedTo: 'settings.local.json' }),
    },
    files: createFileStateTracker(),
    readInstructions: testReader(dir),
    busy: () => false,
    newId: (prefix) => `${prefix}-${++n}`,
  }
}

const PNG = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0])

describe('session services', () => {
  it('export writes the rendered transcript beside the workspace, or where the user said (from the current directory)', async () => {
    let cwd = dir
    const services = createSessionServices({
      ...parts(),
      workspace: dir,
      sessionId: 's1',
      cwd: () => cwd,
      exportMarkdown: () => '# transcript\n',
    })
    const fallback = await services.exportTranscript()
    expect(fallback).toBe(join(dir, 'agent-tui-s1.md'))
    expect(await readFile(fallback, 'utf8')).toBe('# transcript\n')
    await mkdir(join(dir, 'sub'))
    cwd = join(dir, 'sub')
    expect(await services.exportTranscript('out.md')).toBe(join(dir, 'sub', 'out.md'))
    await expect(
      createSessionServices({
        ...parts(),
        workspace: dir,
        sessionId: 's1',
        cwd: () => dir,
      }).exportTranscript(),
    ).rejects.toThrow('export is not available')
  })

  it('export replaces a link planted at the name instead of writing through it, by default and where the user said', async () => {
    const home = join(dir, 'home')
    await mkdir(home)
    await writeFile(join(home, '.bashrc'), 'export PS1=ok\n')
    const exportDir = join(dir, 'state', 'exports')
    await mkdir(exportDir, { recursive: true })
    await symlink(join(home, '.bashrc'), join(exportDir, 'agent-tui-s1.md'))
    await symlink(join(home, '.bashrc'), join(dir, 'notes.md'))
    const services = createSessionServices({
      ...parts(),
      workspace: dir,
      sessionId: 's1',
      cwd: () => dir,
      exportDir,
      exportMarkdown: () => '# transcript\n',
    })
    for (const file of [await services.exportTranscript(), await services.exportTranscript('notes.md')]) {
      expect((await lstat(file)).isFile()).toBe(true)
      expect(await readFile(file, 'utf8')).toBe('# transcript\n')
    }
    expect(await readFile(join(home, '.bashrc'), 'utf8')).toBe('export PS1=ok\n')
  })

  it('lists the other sessions, loads images from the current directory, and keeps memory in .agent-tui/memory.md', async () => {
    await mkdir(join(dir, 'pics'))
    await writeFile(join(dir, 'pics', 'a.png'), PNG)
    const services = createSessionServices({
      ...parts(),
      workspace: dir,
      sessionId: 'me',
      cwd: () => join(dir, 'pics'),
      sessions: async () => [
        { id: 'me', title: 'this one', updatedAt: 2 },
        { id: 'other', title: 'that one', updatedAt: 1 },
      ],
    })
    expect((await services.listSessions()).map((s) => s.id)).toEqual(['other'])
    expect((await services.loadImage('a.png')).url).toMatch(/^data:image\/png;base64,/)
    expect(await services.addMemory('tests need docker')).toBe(join('.agent-tui', 'memory.md'))
    expect(await readFile(join(dir, '.agent-tui', 'memory.md'), 'utf8')).toContain('- tests need docker\n')
    const files = await services.memoryFiles()
    expect(files.find((f) => f.path === join('.agent-tui', 'memory.md'))?.lines).toBe(3)
  })

  it("sessionCommands answers with the services and calls the runtime's own methods on the runtime", async () => {
    class FakeRuntime {
      submitted: string[] = []
      submit(input: { text: string }) {
        this.submitted.push(input.text)
      }
    }
    const runtime = new FakeRuntime()
    const services = createSessionServices({
      ...parts(),
      workspace: dir,
      sessionId: 'x',
      cwd: () => dir,
    })
    const commands = sessionCommands(runtime as unknown as TurnCommands, services)
    const { submit } = commands
    submit({ text: 'hi' })
    expect(runtime.submitted).toEqual(['hi'])
    expect(commands.submit).toBe(commands.submit)
    expect(commands.listSessions).toBe(services.listSessions)
  })

  it('answers for the parts a session lacks: no trust to review, no job log, no hooks, no turns to rewind', async () => {
    const p = parts()
    const services = createSessionServices({ ...p, workspace: dir, sessionId: 's', cwd: () => dir })
    services.reviewTrust()
    const notices = Object.values(p.store.getState().transcript.items).map((i) =>
      i.kind === 'notice' ? i.text : '',
    )
    expect(notices).toEqual(['project trust cannot be changed in this session'])
    expect(await services.readTaskLog('b1', 100)).toEqual({ text: '', start: 0, end: 0, size: 0 })
    await expect(services.stopTask('b1')).rejects.toThrow('background tasks are not available')
    expect(services.hooks()).toEqual({ active: [], inactive: [], warnings: [] })
    expect(services.rewindTurns()).toEqual([])
  })

  describe("openTaskUrl ('o' in the tasks pane)", () => {
    const job = (ports: ListeningPort[] | undefined): TaskSummary => ({
      id: 'b1',
      kind: 'bash',
      command: 'npm run dev',
      status: 'running',
      exitCode: null,
      startedAt: 0,
      endedAt: null,
      lastLine: '',
      outputBytes: 0,
      logPath: '/tmp/b1.log',
      ...(ports ? { ports } : {}),
    })
    const vite: ListeningPort = {
      address: '127.0.0.1',
      port: 5173,
      reachable: true,
      url: 'http://localhost:5173/',
      seen: 'socket',
    }
    const sandboxed: ListeningPort = { address: '127.0.0.1', port: 5173, reachable: false, seen: 'socket' }

    it.each([
      [
        'a reachable port',
        [vite],
        true,
        ['http://localhost:5173/'],
        'Opening http://localhost:5173/ (b1) in the browser',
      ],
      [
        'no browser here',
        [vite],
        false,
        ['http://localhost:5173/'],
        'b1 listens at http://localhost:5173/ (no browser to open it in here)',
      ],
      ['no port', undefined, true, [], 'b1 listens on no TCP port yet'],
      [
        "a port in the sandbox's own network",
        [sandboxed],
        true,
        [],
        "b1 listens on 127.0.0.1:5173 inside the sandbox's own network, which the host's browser cannot reach (sandbox.network: true shares the host's network)",
      ],
    ] as const)('%s', (_, ports, browser, opened, notice) => {
      const p = parts()
      const urls: string[] = []
      const services = createSessionServices({
        ...p,
        workspace: dir,
        sessionId: 's',
        cwd: () => dir,
        openUrl: (url) => {
          urls.push(url)
          return browser
        },
      })
      p.store.dispatch({ type: 'task/updated', task: job(ports ? [...ports] : undefined) })
      services.openTaskUrl('b1')
      expect(urls).toEqual(opened)
      const notices = Object.values(p.store.getState().transcript.items).flatMap((i) =>
        i.kind === 'notice' ? [i.text] : [],
      )
      expect(notices).toEqual([notice])
    })
  })
})
