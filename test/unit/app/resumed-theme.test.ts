import { mkdir, mkdtemp, readFile, realpath, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { resolvePaths, sessionsDir } from '../../../source/config/app-paths.js'
import { openSessionStore, resumeSession } from '../../../source/app/session/resume.js'
import { resumedTheme } from '../../../source/app/session/resumed-theme.js'
import { sessionPath } from '../../../source/session/session-store.js'
import type { ThemeSetting } from '../../../source/store/domain.js'

describe('resumedTheme', () => {
  it.each([
    // [what /theme chose last in the session, the setting, the theme it opens in, the notice]
    [undefined, undefined, undefined, null],
    [undefined, 'dark', 'dark', null],
    ['light', 'light', 'light', null],
    ['auto', undefined, undefined, null],
    [
      'light',
      undefined,
      'light',
      'resumed in the light theme, where you left it (the settings say auto; /theme light save keeps it)',
    ],
    [
      'high-contrast',
      'dark',
      'high-contrast',
      'resumed in the high-contrast theme, where you left it (the settings say dark; /theme high-contrast save keeps it)',
    ],
    [
      'auto',
      'light',
      'auto',
      'resumed in the auto theme, where you left it (the settings say light; /theme auto save keeps it)',
    ],
    // A log edited by hand: not a theme, so the setting's.
    ['purple', 'dark', 'dark', null],
  ] as const)('left %j, setting %j → %j', (left, setting, theme, notice) => {
    expect(resumedTheme({ left, setting: setting as ThemeSetting | undefined })).toEqual({ theme, notice })
  })
})

describe('the theme in the session log', () => {
  let dir: string
  beforeEach(async () => {
    dir = await realpath(await mkdtemp(join(tmpdir(), 'agent-tui-theme-')))
  })
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true })
  })

  it('/theme is logged and comes back on resume; the setting applied at start is not logged', async () => {
    const paths = resolvePaths(
      { XDG_STATE_HOME: join(dir, 'state'), XDG_CONFIG_HOME: join(dir, 'config') },
      dir,
    )
    const workspace = join(dir, 'w')
    await mkdir(workspace)
    const projectSessions = sessionsDir(paths, workspace)
    const open = (restored: Parameters<typeof openSessionStore>[0]['restored']) =>
      openSessionStore({
        restored,
        logPath: (id) => sessionPath(projectSessions, id),
        workspace,
        endpoint: { model: 'm', baseUrl: 'http://127.0.0.1:1/v1' },
        mode: 'safe',
        observers: [],
        warnings: [],
      })
    const first = open(null)
    first.store.dispatch({ type: 'ui/theme', theme: 'dark' })
    first.store.dispatch({ type: 'user/submitted', id: 'u1', content: 'hi', text: 'hi' } as never)
    first.store.dispatch({ type: 'theme/chosen', theme: 'light' })
    expect(first.store.getState().ui.theme).toBe('light')
    first.log.close?.()
    const log = await readFile(first.logPath, 'utf8')
    expect(log).toContain('{"type":"theme/chosen","theme":"light"')
    expect(log).not.toContain('ui/theme')

    const at = {
      paths,
      workspace,
      projectSessions,
      endpoint: { model: 'm', baseUrl: 'x' },
      mode: 'safe' as const,
    }
    const resumed = await resumeSession({ kind: 'continue' }, at)
    expect(resumed.restored.state.ui.theme).toBe('light')
    expect(resumedTheme({ left: resumed.restored.state.ui.theme, setting: 'dark' }).theme).toBe('light')
    // Left again in another theme, the next resume has that one.
    const again = open(resumed.restored)
    again.store.dispatch({ type: 'theme/chosen', theme: 'high-contrast' })
    again.log.close?.()
    await resumed.lease.release()
    const next = await resumeSession({ kind: 'continue' }, at)
    expect(next.restored.state.ui.theme).toBe('high-contrast')
    await next.lease.release()
  })
})
