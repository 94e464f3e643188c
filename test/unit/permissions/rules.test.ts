import { describe, expect, it } from 'vitest'
import {
  matchCommandPattern,
  matchRule,
  parseRule,
  parseRules,
  RuleSyntaxError,
} from '../../../source/permissions/rules.js'
import { suggestRule } from '../../../source/permissions/suggest-rule.js'
import type { PermissionTarget } from '../../../source/permissions/target.js'

const workspace = '/work/proj'
const home = '/home/u'

describe('parseRule', () => {
  it.each<[string, { tool: string; specifier?: string; text: string }]>([
    ['Bash', { tool: 'Bash', text: 'Bash' }],
    ['Bash(npm test *)', { tool: 'Bash', specifier: 'npm test *', text: 'Bash(npm test *)' }],
    ['  Bash(  git   status )  ', { tool: 'Bash', specifier: 'git status', text: 'Bash(git status)' }],
    ['Edit(source/**)', { tool: 'Edit', specifier: 'source/**', text: 'Edit(source/**)' }],
    ['Read(~/.ssh/**)', { tool: 'Read', specifier: '~/.ssh/**', text: 'Read(~/.ssh/**)' }],
    [
      'WebFetch(domain:example.com)',
      { tool: 'WebFetch', specifier: 'domain:example.com', text: 'WebFetch(domain:example.com)' },
    ],
    [
      'WebFetch(domain:[::1])',
      { tool: 'WebFetch', specifier: 'domain:[::1]', text: 'WebFetch(domain:[::1])' },
    ],
    ['mcp__server__*', { tool: 'mcp__server__*', text: 'mcp__server__*' }],
    ['mcp__my-server__read_file', { tool: 'mcp__my-server__read_file', text: 'mcp__my-server__read_file' }],
    ['Bash(echo (a))', { tool: 'Bash', specifier: 'echo (a)', text: 'Bash(echo (a))' }],
  ])('%j', (text, expected) => {
    const rule = parseRule(text)
    expect({ tool: rule.tool, specifier: rule.specifier, text: rule.text }).toEqual({
      specifier: undefined,
      ...expected,
    })
  })

  it.each<[string, string]>([
    ['', 'empty rule'],
    ['   ', 'empty rule'],
    ['Bash(npm', 'must end with ")"'],
    ['Bash()', 'empty specifier in rule "Bash()"'],
    ['Bash(x)y', 'must end with ")"'],
    ['Ba sh', 'invalid tool name "Ba sh"'],
    ['(x)', 'invalid tool name ""'],
    ['1Bash', 'invalid tool name "1Bash"'],
    ['WebFetch(example.com)', 'WebFetch rules take "domain:<host>"'],
    ['WebFetch(domain:)', 'WebFetch rules take "domain:<host>"'],
  ])('rejects %j (%s)', (text, message) => {
    expect(() => parseRule(text)).toThrow(RuleSyntaxError)
    expect(() => parseRule(text)).toThrow(message)
  })

  it('records the source', () => {
    expect(parseRule('Bash', '.agent-tui/settings.json').source).toBe('.agent-tui/settings.json')
  })
})

describe('parseRules', () => {
  it('returns parsed rules and errors naming the source and index', () => {
    const { rules, errors } = parseRules(
      ['Read', 'Bash(', 'Edit(x)', ''],
      'settings.json',
      'permissions.allow',
    )
    expect(rules.map((r) => r.text)).toEqual(['Read', 'Edit(x)'])
    expect(errors).toHaveLength(2)
    expect(errors[0]).toMatch(/^settings\.json permissions\.allow\[1\]: rule "Bash\(" must end with "\)"/)
    expect(errors[1]).toMatch(/^settings\.json permissions\.allow\[3\]: empty rule/)
  })
})

describe('matchCommandPattern', () => {
  it.each<[string, string, boolean]>([
    ['npm test *', 'npm test', true],
    ['npm test *', 'npm test -- foo', true],
    ['npm test *', 'npm  test   --watch', true],
    ['npm test *', 'npm testing', false],
    ['npm test *', 'npm tes', false],
    ['npm test:*', 'npm test', true],
    ['npm test:*', 'npm test --coverage', true],
    ['npm test:*', 'npm testing', false],
    ['git status', 'git status', true],
    ['git status', 'git status --short', false],
    ['git * main', 'git push origin main', true],
    ['git * main', 'git push origin dev', false],
    ['ls*', 'lsof', true],
    ['echo a.b', 'echo aXb', false],
    ['*', 'anything at all', true],
  ])('%j vs %j → %s', (spec, command, expected) => {
    expect(matchCommandPattern(spec, command)).toBe(expected)
  })
})

describe('matchRule', () => {
  const call = (tool: string, target: PermissionTarget) => ({ tool, target, workspace, home })
  const cmd = (command: string): PermissionTarget => ({ kind: 'command', command })
  const path = (p: string, access: 'read' | 'write' = 'write'): PermissionTarget => ({
    kind: 'path',
    path: p,
    access,
  })
  const url = (u: string): PermissionTarget => ({ kind: 'url', url: u })

  it.each<[string, string, PermissionTarget, boolean]>([
    ['Bash', 'Bash', cmd('rm -rf /'), true],
    ['Bash', 'Read', path('a'), false],
    ['Bash(npm test *)', 'Bash', cmd('npm test'), true],
    ['Bash(npm test *)', 'Bash', cmd('npm test && rm -rf /'), false],
    ['Bash(npm test *)', 'Bash', cmd('npm test; npm test -- x'), true],
    ['Bash(npm test *)', 'Bash', cmd('npm test "unterminated'), false],
    ['Bash(git commit -m *)', 'Bash', cmd('git commit -m "fix: a; b"'), true],
    ['Bash(*)', 'Bash', cmd('anything'), true],
    ['Edit(source/**)', 'Edit', path('source/a/b.ts'), true],
    ['Edit(source/**)', 'Edit', path('/work/proj/source/x.ts'), true],
    ['Edit(source/**)', 'Write', path('source/new.ts'), true],
    ['Edit(source/**)', 'NotebookEdit', path('source/n.ipynb'), true],
    ['Edit(source/**)', 'Edit', path('test/a.ts'), false],
    ['Edit(source/**)', 'Edit', path('../proj2/source/a.ts'), false],
    ['Edit(source/**)', 'Edit', path('source/.hidden/x'), true],
    ['Edit(*.md)', 'Edit', path('README.md'), true],
    ['Edit(*.md)', 'Edit', path('docs/a.md'), false],
    ['Edit(**/*.md)', 'Edit', path('docs/a.md'), true],
    ['Edit(./docs/**)', 'Edit', path('docs/a.md'), true],
    ['Write(source/**)', 'Edit', path('source/a.ts'), false],
    ['Read(~/.ssh/**)', 'Read', path('~/.ssh/id_rsa', 'read'), true],
    ['Read(~/.ssh/**)', 'Read', path('/home/u/.ssh/config', 'read'), true],
    ['Read(~/.ssh/**)', 'Grep', path('/home/u/.ssh', 'read'), true],
    ['Read(~/.ssh/**)', 'Glob', path('/home/u/other', 'read'), false],
    ['Read(//etc/**)', 'Read', path('/etc/hosts', 'read'), true],
    ['Read(source/**)', 'Edit', path('source/a.ts'), false],
    ['WebFetch(domain:example.com)', 'WebFetch', url('https://example.com/a?b'), true],
    ['WebFetch(domain:example.com)', 'WebFetch', url('https://EXAMPLE.com/'), true],
    ['WebFetch(domain:example.com)', 'WebFetch', url('https://evil-example.com/'), false],
    ['WebFetch(domain:example.com)', 'WebFetch', url('https://sub.example.com/'), false],
    ['WebFetch(domain:*.example.com)', 'WebFetch', url('https://sub.example.com/'), true],
    ['WebFetch(domain:example.com)', 'WebFetch', url('not a url'), false],
    ['WebFetch(domain:[::1])', 'WebFetch', url('http://[::1]:3000/'), true],
    ['mcp__server__*', 'mcp__server__read', { kind: 'none' }, true],
    ['mcp__server__*', 'mcp__other__read', { kind: 'none' }, false],
    ['mcp__server__read', 'mcp__server__read', { kind: 'none' }, true],
    ['TaskStop(x)', 'TaskStop', { kind: 'none' }, false],
  ])('%s on %s %j → %s', (rule, tool, target, expected) => {
    expect(matchRule(parseRule(rule), call(tool, target))).toBe(expected)
  })

  // Claude Code's path forms (its permissions docs: "//path", "~/path", "/path", "path" / "./path"), each
  // as an allow (grant) and as a deny (restrict); the workspace is /work/proj, the home /home/u.
  it.each<[string, string, boolean, boolean]>([
    // `//path`: absolute, from the file-system root.
    ['Read(//Users/alice/secrets/**)', '/Users/alice/secrets/a.txt', true, true],
    ['Read(//etc/**)', '/etc/hosts', true, true],
    ['Read(//etc/**)', '/work/proj/etc/hosts', false, false],
    // `~/path`: under the home directory.
    ['Read(~/Documents/*.pdf)', '/home/u/Documents/a.pdf', true, true],
    ['Read(~/Documents/*.pdf)', '/work/proj/Documents/a.pdf', false, false],
    // `/path`: relative to the project root (the settings file's project), not the file-system root…
    ['Edit(/src/**/*.ts)', '/work/proj/src/a/b.ts', true, true],
    ['Edit(/src/**/*.ts)', '/work/proj/lib/src/b.ts', false, false],
    // …but a deny written so also keeps out the absolute path it once meant: a restriction never loosens.
    ['Edit(/src/**/*.ts)', '/src/a/b.ts', false, true],
    ['Read(/etc/**)', '/etc/hosts', false, true],
    ['Read(/etc/**)', '/work/proj/etc/hosts', true, true],
    // `path` and `./path`: relative to the working folder.
    ['Read(*.env)', '/work/proj/.env', true, true],
    ['Read(*.env)', '/work/proj/prod.env', true, true],
    ['Read(./secrets/**)', '/work/proj/secrets/k', true, true],
    ['Read(secrets/**)', '/work/proj/secrets/k', true, true],
    ['Read(secrets/**)', '/secrets/k', false, false],
  ])('%s on %s: as an allow %s, as a deny %s', (rule, file, granted, restricted) => {
    const at = call('Read', path(file, 'read'))
    const edit = call('Edit', path(file))
    const target = rule.startsWith('Edit') ? edit : at
    expect(matchRule(parseRule(rule), target, 'grant')).toBe(granted)
    expect(matchRule(parseRule(rule), target, 'restrict')).toBe(restricted)
  })

  it.each<[string, string, boolean]>([
    // `mcp__server`: every tool of that server (Claude Code's form), and no other server's.
    ['mcp__memory', 'mcp__memory__create_entities', true],
    ['mcp__memory', 'mcp__memory__read_graph', true],
    ['mcp__memory', 'mcp__memory', true],
    ['mcp__memory', 'mcp__memoryx__read', false],
    ['mcp__memory', 'mcp__other__memory', false],
    ['mcp__memory__*', 'mcp__memory__read_graph', true],
    ['mcp__memory__read_graph', 'mcp__memory__create_entities', false],
    ['mcp__my_server', 'mcp__my_server__tool', true],
  ])('%s covers %s: %s', (rule, tool, covered) => {
    expect(matchRule(parseRule(rule), call(tool, { kind: 'none' }))).toBe(covered)
  })

  it('does not treat glob characters in the workspace path as a pattern', () => {
    const rule = parseRule('Edit(source/**)')
    expect(matchRule(rule, { tool: 'Edit', target: path('source/a.ts'), workspace: '/w/[x]', home })).toBe(
      true,
    )
    expect(
      matchRule(rule, { tool: 'Edit', target: path('/w/x/source/a.ts'), workspace: '/w/[x]', home }),
    ).toBe(false)
  })
})

describe('suggestRule', () => {
  it.each<[string, PermissionTarget, string]>([
    ['Bash', { kind: 'command', command: 'npm test' }, 'Bash(npm test *)'],
    ['Bash', { kind: 'command', command: 'npm test -- --watch' }, 'Bash(npm test *)'],
    ['Bash', { kind: 'command', command: 'git status' }, 'Bash(git status *)'],
    ['Bash', { kind: 'command', command: 'ls -la' }, 'Bash(ls *)'],
    // Programs that delete or run any code: only the exact command, never `rm *` / `node *`.
    ['Bash', { kind: 'command', command: 'rm -rf build' }, 'Bash(rm -rf build)'],
    ['Bash', { kind: 'command', command: 'git clean -fdx' }, 'Bash(git clean -fdx)'],
    ['Bash', { kind: 'command', command: 'node -e "console.log(1)"' }, 'Bash(node -e "console.log(1)")'],
    ['Bash', { kind: 'command', command: 'python3.12 script.py' }, 'Bash(python3.12 script.py)'],
    ['Bash', { kind: 'command', command: 'timeout 5 npx   cowsay hi' }, 'Bash(timeout 5 npx cowsay hi)'],
    ['Bash', { kind: 'command', command: 'npm test && rm -rf dist' }, 'Bash(npm test *), Bash(rm -rf dist)'],
    ['Bash', { kind: 'command', command: 'npm run build' }, 'Bash(npm run build *)'],
    ['Bash', { kind: 'command', command: 'git push --force' }, 'Bash(git push *)'],
    ['Bash', { kind: 'command', command: 'cd source && make test' }, 'Bash(make test *)'],
    ['Bash', { kind: 'command', command: 'ls && cat x > y' }, 'Bash(cat *)'],
    ['Bash', { kind: 'command', command: 'echo "unterminated' }, 'Bash(echo "unterminated)'],
    ['Bash', { kind: 'command', command: 'for f in *.ts; do wc -l "$f"; done' }, 'Bash(wc *)'],
    ['Bash', { kind: 'command', command: 'for f in a b; do touch "$f"; done' }, 'Bash(touch *)'],
    ['Bash', { kind: 'command', command: 'for i in 1 2; do npm test; done' }, 'Bash(npm test *)'],
    ['Bash', { kind: 'command', command: 'if [ -f x ]; then rm x; fi' }, 'Bash(rm x)'],
    [
      'Bash',
      { kind: 'command', command: 'while true; do make; sleep 1; done' },
      'Bash(make *), Bash(sleep *)',
    ],
    [
      'Bash',
      { kind: 'command', command: 'npm install && npm test' },
      'Bash(npm install *), Bash(npm test *)',
    ],
    ['Bash', { kind: 'command', command: 'cp a b; mv b c; cp c d' }, 'Bash(cp *), Bash(mv *)'],
    ['Bash', { kind: 'command', command: 'FOO=1 npm test' }, 'Bash(FOO=1 npm test *)'],
    ['Edit', { kind: 'path', path: 'source/a/b.ts', access: 'write' }, 'Edit(source/a/b.ts)'],
    ['Write', { kind: 'path', path: '/work/proj/source/x.ts', access: 'write' }, 'Edit(source/x.ts)'],
    ['NotebookEdit', { kind: 'path', path: 'n.ipynb', access: 'write' }, 'Edit(n.ipynb)'],
    ['Edit', { kind: 'path', path: '/tmp/out/x.txt', access: 'write' }, 'Edit(//tmp/out/x.txt)'],
    ['Edit', { kind: 'path', path: '/home/u/notes/x.md', access: 'write' }, 'Edit(~/notes/x.md)'],
    ['Read', { kind: 'path', path: '/etc/hosts', access: 'read' }, 'Read(//etc/**)'],
    ['Grep', { kind: 'path', path: 'source', access: 'read' }, 'Read(source/**)'],
    ['WebFetch', { kind: 'url', url: 'https://Docs.Example.com/a' }, 'WebFetch(domain:docs.example.com)'],
    ['WebSearch', { kind: 'none' }, 'WebSearch'],
    ['mcp__s__t', { kind: 'none' }, 'mcp__s__t'],
  ])('%s %j → %s', (tool, target, expected) => {
    expect(suggestRule(tool, target, workspace, home)).toBe(expected)
  })

  it.each<[string, string]>([
    ['npm test', 'npm test -- foo'],
    ['git status', 'git status'],
    ['ls -la', 'ls'],
    ['FOO=1 npm test', 'FOO=1 npm test --watch'],
  ])('the suggestion for %j matches %j', (command, other) => {
    const rule = parseRule(suggestRule('Bash', { kind: 'command', command }))
    for (const c of [command, other]) {
      expect(
        matchRule(rule, { tool: 'Bash', target: { kind: 'command', command: c }, workspace, home }),
      ).toBe(true)
    }
  })
})
